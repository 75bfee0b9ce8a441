// The tail of a GitHub Actions job log, read from the signed URL the jobs-logs endpoint redirects to
// (SPEC J2): https only, no credentials (a user-agent alone, never the shared fetch). The bounded
// read is the hosts' shared one (hosts/bounded-log.ts), into core's fixed-size tail buffer, so memory
// is bounded by `keepBytes` and reading stops at `maxBytes`; timestamps and ANSI escapes stripped.
import { readBoundedLog } from '../hosts/bounded-log.js';
import {
  LOG_KEEP_BYTES,
  LOG_LINES_DEFAULT,
  LOG_LINES_MAX,
  LOG_MAX_BYTES,
  LOG_TIMEOUT_MS,
  positiveInt,
  CappedTailRead,
  renderTail,
  stripAnsi,
  type LogTail,
  type TailRead,
} from '../core/log-tail.js';

// The tail and its rendering are core's (core/log-tail.ts), shared with GitLab's job trace.
export {
  cutMarker,
  LOG_LINES_DEFAULT,
  LOG_LINES_MAX,
  LOG_MAX_BYTES,
  TailBuffer,
  type LogTail,
} from '../core/log-tail.js';

/** Redirects followed after the signed URL itself (each one https only). */
const LOG_MAX_REDIRECTS = 3;

const USER_AGENT = 'fixloop-job-log';

const LOG_READ_ERROR_CODES = ['not_https', 'http_status', 'network', 'timeout', 'too_many_redirects'] as const;
export type LogReadErrorCode = (typeof LOG_READ_ERROR_CODES)[number];

/** Why a log could not be read; the caller reports it on the one entry it concerns (J2). */
export class LogReadError extends Error {
  override readonly name = 'LogReadError';

  constructor(
    readonly code: LogReadErrorCode,
    message: string,
    /** The HTTP status, for `http_status`. */
    readonly status: number | null = null,
    opts: { cause?: unknown } = {},
  ) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
  }
}

export interface FetchLogTailOptions {
  /** Bytes of the end of the log kept in memory (default 256 KiB). */
  keepBytes?: number;
  /** Bytes read at most; the connection is destroyed there (default 32 MiB). */
  maxBytes?: number;
  /** Lines returned, counted from the end (default 200, clamped to 1–2000). */
  lines?: number;
  /** Extra trusted CA (tests: a self-signed blob host). */
  ca?: string | Buffer;
  /** Deadline for the whole read, redirects included (default 60 s). */
  timeoutMs?: number;
}

/** Reads the tail of the log at `url`. A failed read rejects with a LogReadError (bad options: RangeError). */
export async function fetchLogTail(url: string, opts: FetchLogTailOptions = {}): Promise<LogTail> {
  const keepBytes = positiveInt(opts.keepBytes, LOG_KEEP_BYTES, 'keepBytes');
  const maxBytes = positiveInt(opts.maxBytes, LOG_MAX_BYTES, 'maxBytes');
  const lines = Math.min(LOG_LINES_MAX, positiveInt(opts.lines, LOG_LINES_DEFAULT, 'lines'));
  const read: TailRead = await readBoundedLog({
    url: httpsUrl(url),
    // Only a user-agent: no Authorization, no cookies — the signed URL is the credential.
    headersFor: () => ({ 'user-agent': USER_AGENT }),
    follow: (location, from) => httpsUrl(new URL(location, from).href),
    sink: (declared) => new CappedTailRead(keepBytes, maxBytes, declared),
    maxRedirects: LOG_MAX_REDIRECTS,
    timeoutMs: opts.timeoutMs ?? LOG_TIMEOUT_MS,
    ...(opts.ca !== undefined ? { ca: opts.ca } : {}),
    words: {
      subject: 'the log',
      answerer: 'the log host',
      refused: (status) => `the log host answered ${status}`,
      redirectsWhere: 'after the signed log URL',
    },
    error: (code, message, status, cause) => new LogReadError(code, message, status, { cause }),
  });
  return renderTail(read, lines, cleanLogLine);
}

function httpsUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new LogReadError('not_https', 'the log URL is not a URL');
  }
  if (url.protocol !== 'https:')
    throw new LogReadError('not_https', `refusing a ${url.protocol} log URL: only https is followed`);
  return url;
}

// --- Cleaning -------------------------------------------------------------------------------------

/** GitHub's per-line timestamp, e.g. `2026-11-30T02:11:36.1234567Z `. */
const TIMESTAMP = /^\uFEFF?\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z ?/;
/** One log line as a person would read it: no timestamp, no terminal escapes. */
export function cleanLogLine(line: string): string {
  return stripAnsi(line.replace(TIMESTAMP, ''));
}
