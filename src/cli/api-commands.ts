// The CLI commands that read or flip a running server's state as JSON (SPEC M1, M2): deliveries and
// the global stop flag (stop/start). Each is one request; the JSON answer is printed as is,
// re-indented; a non-2xx answer is exit 1 with the reason on stderr. The lists and a person's
// actions on one Task, printed for people, are in people-commands.ts.
import { resolveConnection } from './connection.js';
import type { CliIo } from './io.js';
import { prettyBody } from './io.js';
import { request } from './people-commands.js';

export interface ApiCommand {
  name: string;
  /** Other names the command answers to. */
  aliases?: readonly string[];
  description: string;
  method: 'GET' | 'PUT' | 'POST';
  path: string;
  json?: unknown;
}

export const API_COMMANDS: readonly ApiCommand[] = [
  {
    name: 'deliveries',
    description: 'list recent webhook deliveries and what became of them (JSON)',
    method: 'GET',
    path: '/api/deliveries',
  },
  {
    name: 'stop',
    description: 'set the global stop flag: no automatic resume is dispatched for any pull request',
    method: 'PUT',
    path: '/api/stop',
    json: { stopped: true },
  },
  {
    name: 'start',
    description: 'clear the global stop flag (also `fixloop resume` with no Task)',
    method: 'PUT',
    path: '/api/stop',
    json: { stopped: false },
  },
];

export async function runApiCommand(
  cmd: ApiCommand,
  opts: { url?: string; token?: string },
  io: CliIo,
): Promise<number> {
  const conn = resolveConnection(opts, io.env);
  const res = await request(conn, io, cmd.method, cmd.path, cmd.json);
  if (!res.ok) {
    io.stderr.write(
      `fixloop ${cmd.name}: ${cmd.method} ${cmd.path} answered ${res.status} ${res.statusText}\n${prettyBody(res.body)}`,
    );
    return 1;
  }
  io.stdout.write(prettyBody(res.body));
  return 0;
}
