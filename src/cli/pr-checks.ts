// `fixloop pr checks owner/repo#N [--failing] [--log-lines N]` (SPEC J1, M1): the pull request's
// checks as JSON on stdout. With a server configured (--url, FIXLOOP_URL or the per-user config
// file) it asks that server (GET /api/pull-requests/…/checks), which holds the GitHub credentials;
// only with none configured does it read GitHub itself with local credentials. The argument is
// checked before any request (exit 2), a refusal is exit 1, and anything else is 0 — a log that
// could not be read is an error on its entry only.
import { ProviderError } from '../app/provider-port.js';
import { LOG_LINES_DEFAULT, LOG_LINES_MAX, prChecks, type FetchLog, type PrChecksDeps } from '../app/pr-checks.js';
import { resolveConnection, type ConnectionFlags } from './connection.js';
import { CliError, prettyBody, type CliIo } from './io.js';
import { refusal, request } from './people-commands.js';

export interface PrChecksOptions extends ConnectionFlags {
  failing?: boolean;
  logLines?: string;
}

export interface PrChecksCommandDeps {
  github: (env: NodeJS.ProcessEnv) => PrChecksDeps['host'];
  fetchLog: FetchLog;
}

const PR_REF = /^([A-Za-z0-9_.-]+)\/([A-Za-z0-9_.-]+)#(\d+)$/;

/** `owner/repo#N` → its parts; a CliError (exit 2) for anything else. */
function parsePullRequestRef(arg: string): { repository: string; number: number } {
  const m = PR_REF.exec(arg.trim());
  if (m === null || m[1] === '.' || m[1] === '..' || m[2] === '.' || m[2] === '..') {
    throw new CliError(2, `expected a pull request as owner/repo#N, got ${JSON.stringify(arg)}`);
  }
  const number = Number(m[3]);
  if (!Number.isSafeInteger(number) || number < 1) {
    throw new CliError(2, `the pull request number must be a positive integer, got ${JSON.stringify(m[3])}`);
  }
  return { repository: `${m[1]}/${m[2]}`.toLowerCase(), number };
}

/** --log-lines: an integer 0–2000 (0: no logs). */
function parseLogLines(raw: string | undefined): number {
  if (raw === undefined) return LOG_LINES_DEFAULT;
  const n = /^\d+$/.test(raw.trim()) ? Number(raw.trim()) : NaN;
  if (!Number.isSafeInteger(n) || n > LOG_LINES_MAX) {
    throw new CliError(2, `--log-lines must be an integer from 0 to ${LOG_LINES_MAX}, got ${JSON.stringify(raw)}`);
  }
  return n;
}

export async function prChecksCommand(
  arg: string,
  opts: PrChecksOptions,
  io: CliIo,
  given?: PrChecksCommandDeps,
): Promise<number> {
  const { repository, number } = parsePullRequestRef(arg);
  const logLines = parseLogLines(opts.logLines);
  const conn = resolveConnection(opts, io.env);
  if (conn.configured) {
    // The server's credentials, not this machine's: an unreachable server is exit 1, never a silent switch.
    const path = `/api/pull-requests/${repository}/${number}/checks?failing=${opts.failing === true}&logLines=${logLines}`;
    const res = await request(conn, io, 'GET', path);
    if (!res.ok) throw refusal('pr checks', 'GET', path, res);
    io.stdout.write(prettyBody(res.body));
    return 0;
  }
  // The adapters come from the one wiring place, loaded only once the arguments are known good.
  const deps = given ?? (await import('../wiring.js')).prChecksAdapters();
  const github = deps.github(io.env); // a ConfigError (exit 2) without credentials, before any request
  try {
    const result = await prChecks(
      { host: github, fetchLog: deps.fetchLog },
      { repository, number, failingOnly: opts.failing === true, logLines },
    );
    io.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    return 0;
  } catch (err) {
    if (err instanceof ProviderError)
      throw new CliError(1, `GitHub refused (${err.status}): ${err.message}`, { cause: err });
    throw err;
  }
}
