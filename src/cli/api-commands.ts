// The CLI commands that read or flip a running server's state (SPEC M1, M2): tasks, inbox,
// deliveries, the global stop flag (stop/start, or resume), and a person's grants on one Task (K5,
// V4: `task approve-one`, `task budget`). Each is one request; the JSON answer is printed as is,
// re-indented; a non-2xx answer is exit 1 with the reason on stderr.
import { readFileSync } from 'node:fs';
import { MAX_GRANTS_LIMIT } from '../core/grant-cap.js';
import { callApi, resolveServerUrl } from './api-client.js';
import type { CliIo } from './io.js';
import { CliError, prettyBody } from './io.js';

export interface ApiCommand {
  name: string;
  /** Other names the command answers to (SPEC M1 says stop/resume; `start` is the documented one). */
  aliases?: readonly string[];
  description: string;
  method: 'GET' | 'PUT' | 'POST';
  path: string;
  json?: unknown;
}

export const API_COMMANDS: readonly ApiCommand[] = [
  { name: 'tasks', description: 'list Tasks with their pull request and CI state', method: 'GET', path: '/api/tasks' },
  {
    name: 'inbox',
    description: 'list Inbox notices: where the loop stopped and why',
    method: 'GET',
    path: '/api/inbox',
  },
  {
    name: 'deliveries',
    description: 'list recent webhook deliveries and what became of them',
    method: 'GET',
    path: '/api/deliveries',
  },
  {
    name: 'stop',
    description: 'set the global stop flag: no automatic resume is dispatched',
    method: 'PUT',
    path: '/api/stop',
    json: { stopped: true },
  },
  {
    name: 'start',
    aliases: ['resume'],
    description: 'clear the global stop flag',
    method: 'PUT',
    path: '/api/stop',
    json: { stopped: false },
  },
];

/** A Task id as typed: a positive whole number, else a malformed argument (exit 2). */
function taskIdOf(raw: string): number {
  const n = /^\d{1,9}$/.test(raw.trim()) ? Number(raw.trim()) : 0;
  if (n < 1) throw new CliError(2, `"${raw}" is not a Task id (a positive whole number)`);
  return n;
}

/** K5: `fixloop task approve-one <id>` — one more automatic attempt, as the dashboard's button (capped, V4). */
export function approveOneCommand(rawId: string): ApiCommand {
  const id = taskIdOf(rawId);
  return {
    name: 'task approve-one',
    description: 'grant one more automatic attempt',
    method: 'POST',
    path: `/api/tasks/${id}/approve-one`,
  };
}

/** V4: `fixloop task budget <id> --max-grants <n|configured>` — the Task's own cap on grants. */
export function budgetCommand(rawId: string, maxGrants: string): ApiCommand {
  const id = taskIdOf(rawId);
  const text = maxGrants.trim();
  let value: number | null;
  if (text === 'configured') value = null;
  else if (/^\d{1,2}$/.test(text) && Number(text) <= MAX_GRANTS_LIMIT) value = Number(text);
  else throw new CliError(2, `--max-grants must be a whole number 0–${MAX_GRANTS_LIMIT}, or "configured"`);
  return {
    name: 'task budget',
    description: "set the Task's own cap on grants",
    method: 'PUT',
    path: `/api/tasks/${id}/budget`,
    json: { maxGrants: value },
  };
}

/** FIXLOOP_API_TOKEN, else the token `fixloop serve` generated on a loopback install. */
function apiTokenFrom(env: NodeJS.ProcessEnv): string | null {
  const given = env.FIXLOOP_API_TOKEN?.trim();
  if (given) return given;
  const file = env.FIXLOOP_API_TOKEN_FILE ?? './data/api-token';
  try {
    return readFileSync(file, 'utf8').trim() || null;
  } catch {
    return null;
  }
}

export async function runApiCommand(cmd: ApiCommand, opts: { url?: string }, io: CliIo): Promise<number> {
  const res = await callApi({
    baseUrl: resolveServerUrl(opts.url, io.env),
    method: cmd.method,
    path: cmd.path,
    json: cmd.json,
    token: apiTokenFrom(io.env),
    fetch: io.fetch,
  });
  if (!res.ok) {
    io.stderr.write(
      `fixloop ${cmd.name}: ${cmd.method} ${cmd.path} answered ${res.status} ${res.statusText}\n${prettyBody(res.body)}`,
    );
    return 1;
  }
  io.stdout.write(prettyBody(res.body));
  return 0;
}
