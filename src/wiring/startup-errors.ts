// A start-up that fails says so in one line: the cause and the fix, never a stack trace (issue 32;
// SPEC V3, M1). `serve` tags each step (the sign-in token file, the database, the listening port) and
// this module words what the step's error means — a port in use names PORT, a refused PostgreSQL role
// names DATABASE_URL — so the CLI prints it and exits 2. LOG_LEVEL=debug adds the original error.

export type StartupStep = 'token' | 'database' | 'listen';

/** A start-up failure worded for a person; `cause` keeps the original for LOG_LEVEL=debug. */
export class StartupError extends Error {
  override readonly name = 'StartupError';
  constructor(message: string, opts: { cause?: unknown } = {}) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
  }
}

/** An error raised while fixloop did `step`; `explainStartupError` words it. */
export class StartupStepError extends Error {
  override readonly name = 'StartupStepError';
  constructor(
    readonly step: StartupStep,
    cause: unknown,
  ) {
    super(`start-up step ${step} failed`, { cause });
  }
}

/** Run one start-up step, tagging what it throws with the step. */
export async function atStep<T>(step: StartupStep, run: () => T | Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    throw err instanceof StartupStepError || err instanceof StartupError ? err : new StartupStepError(step, err);
  }
}

interface Where {
  port: number;
  host: string;
  databaseUrl: string;
  tokenFile: string;
  uid: number | null;
}

/** The first `code` along the error's causes (and an AggregateError's errors): errno names and PostgreSQL's SQLSTATEs. */
function codeOf(err: unknown, depth = 0): string | null {
  if (depth > 5 || typeof err !== 'object' || err === null) return null;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' && code !== '') return code;
  for (const inner of (err as { errors?: unknown[] }).errors ?? []) {
    const c = codeOf(inner, depth + 1);
    if (c) return c;
  }
  return codeOf((err as { cause?: unknown }).cause, depth + 1);
}

/** The innermost message: the database's own words, not the wrapper's "migration … failed". */
function rootMessage(err: unknown): string {
  let e: unknown = err;
  for (let i = 0; i < 5 && e instanceof Error && e.cause instanceof Error; i++) e = e.cause;
  const first = (e as { errors?: unknown[] } | null)?.errors?.[0];
  if (e instanceof Error && e.message === '' && first instanceof Error) e = first;
  return e instanceof Error ? e.message : String(e);
}

function postgresTarget(url: string): string {
  try {
    const u = new URL(url);
    return `${u.hostname}:${u.port || '5432'}`;
  } catch {
    return 'the address in DATABASE_URL';
  }
}

const asUser = (uid: number | null) =>
  uid === null ? 'the user fixloop runs as' : `the user fixloop runs as (uid ${uid})`;

/** Word what a start-up threw as one line naming the cause and what to change. */
export function explainStartupError(thrown: unknown, where: Where): StartupError {
  if (thrown instanceof StartupError) return thrown;
  if (!(thrown instanceof StartupStepError)) return new StartupError(`${rootMessage(thrown)}`, { cause: thrown });
  const { step } = thrown;
  const err = thrown.cause;
  const code = codeOf(err);
  const said = rootMessage(err);
  const line = (text: string) => new StartupError(text, { cause: err });
  if (step === 'listen') {
    const at = `${where.host}:${where.port}`;
    if (code === 'EADDRINUSE')
      return line(
        `port ${where.port} on ${where.host} is already in use (another fixloop?): stop that process, or set PORT to a free port`,
      );
    if (code === 'EACCES')
      return line(
        `no permission to listen on ${at}: set PORT to 1024 or above (or start fixloop with the right to bind low ports)`,
      );
    if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND')
      return line(
        `HOST=${where.host} is not an address of this machine: set HOST to one of its addresses (127.0.0.1, or 0.0.0.0 for all)`,
      );
    return line(`cannot listen on ${at}: ${said}: check HOST and PORT`);
  }
  if (step === 'token') {
    return line(
      `cannot keep the sign-in token in ${where.tokenFile}: ${said}: make its directory writable by ${asUser(where.uid)}, or set FIXLOOP_API_TOKEN_FILE to a writable path (or FIXLOOP_API_TOKEN)`,
    );
  }
  // The database: PostgreSQL's SQLSTATE names the problem; a socket error means nothing answered.
  const url = where.databaseUrl;
  if (url.startsWith('sqlite:')) {
    return line(
      `cannot open the SQLite database (${said}): make the file and its directory writable by ${asUser(where.uid)}, or set DATABASE_URL to another path`,
    );
  }
  const target = postgresTarget(url);
  switch (code) {
    case '28000': // invalid_authorization_specification: the role does not exist, or pg_hba refuses it
      return line(
        `PostgreSQL at ${target} refused the role in DATABASE_URL (${said}): fix the user name in DATABASE_URL, or create that role with LOGIN`,
      );
    case '28P01':
      return line(
        `PostgreSQL at ${target} refused the password in DATABASE_URL (${said}): check the password in DATABASE_URL (or DATABASE_URL_FILE)`,
      );
    case '3D000':
      return line(
        `PostgreSQL at ${target} has no such database (${said}): create it (createdb), or fix the database name at the end of DATABASE_URL`,
      );
    case '42501':
      return line(
        `the role in DATABASE_URL may not create fixloop's tables (${said}): grant it CREATE on the database's schema, or use the database owner's role`,
      );
    case 'ECONNREFUSED':
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'ETIMEDOUT':
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return line(
        `cannot reach PostgreSQL at ${target} (${code}): is it running there? Check the host and port in DATABASE_URL`,
      );
    default:
      return line(
        `the database in DATABASE_URL (PostgreSQL at ${target}) failed at start-up: ${said}: check DATABASE_URL and that PostgreSQL accepts this role`,
      );
  }
}

/** The lines to print: the one-line reason, and with LOG_LEVEL=debug the original error's stack. */
export function startupErrorText(err: StartupError, logLevel: string | undefined): string {
  const debug = logLevel === 'debug' || logLevel === 'trace';
  const cause = err.cause instanceof Error ? (err.cause.stack ?? err.cause.message) : null;
  return `fixloop: cannot start: ${err.message}\n${debug && cause ? `${cause}\n` : ''}`;
}
