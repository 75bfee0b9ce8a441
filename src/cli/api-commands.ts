// The CLI commands that read or flip a running server's state (SPEC M1, M2): tasks, inbox,
// deliveries, and the global stop flag (stop/start, or resume). Each is one request; the JSON answer is
// printed as is, re-indented; a non-2xx answer is exit 1 with the reason on stderr.
import { readFileSync } from 'node:fs';
import { callApi, resolveServerUrl } from './api-client.js';
import type { CliIo } from './io.js';
import { prettyBody } from './io.js';

export interface ApiCommand {
  name: string;
  /** Other names the command answers to (SPEC M1 says stop/resume; `start` is the documented one). */
  aliases?: readonly string[];
  description: string;
  method: 'GET' | 'PUT';
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
