// The tail of a GitHub Actions job log, read from the signed URL the jobs-logs endpoint redirects to
// (SPEC J2): https only, no credentials (a bare node:https request with a user-agent, never the
// shared fetch), streamed through a fixed-size tail buffer so memory is bounded by `keepBytes`,
// reading stopped at `maxBytes` with a marker saying where; timestamps and ANSI escapes stripped.
import { request, type RequestOptions } from 'node:https';
import type { IncomingMessage } from 'node:http';
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
const REDIRECT_STATUSES: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);

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
  let target = httpsUrl(url);

  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), opts.timeoutMs ?? LOG_TIMEOUT_MS);
  try {
    for (let redirects = 0; ; redirects++) {
      const answer = await readOnce(target, {
        keepBytes,
        maxBytes,
        ca: opts.ca,
        signal: deadline.signal,
        timeoutMs: opts.timeoutMs ?? LOG_TIMEOUT_MS,
      });
      if (answer.kind === 'body') return renderTail(answer, lines, cleanLogLine);
      if (redirects >= LOG_MAX_REDIRECTS) {
        throw new LogReadError(
          'too_many_redirects',
          `more than ${LOG_MAX_REDIRECTS} redirects after the signed log URL`,
        );
      }
      target = httpsUrl(new URL(answer.location, target).href);
    }
  } finally {
    clearTimeout(timer);
  }
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

// --- One request ----------------------------------------------------------------------------------

type Answer = { kind: 'redirect'; location: string } | ({ kind: 'body' } & TailRead);

interface ReadOptions {
  keepBytes: number;
  maxBytes: number;
  ca: string | Buffer | undefined;
  signal: AbortSignal;
  timeoutMs: number;
}

function readOnce(target: URL, o: ReadOptions): Promise<Answer> {
  return new Promise((resolve, reject) => {
    let settled = false;
    const settle = (fn: () => void): void => {
      if (settled) return;
      settled = true;
      fn();
    };
    const fail = (err: unknown): void =>
      settle(() => {
        if (o.signal.aborted)
          reject(new LogReadError('timeout', `the log was not read within ${o.timeoutMs} ms`, null, { cause: err }));
        else if (err instanceof LogReadError) reject(err);
        else
          reject(
            new LogReadError(
              'network',
              `reading the log failed: ${err instanceof Error ? err.message : String(err)}`,
              null,
              { cause: err },
            ),
          );
      });

    // Only a user-agent: no Authorization, no cookies, and a private agent so no socket is shared.
    const options: RequestOptions = {
      method: 'GET',
      headers: { 'user-agent': USER_AGENT },
      agent: false,
      signal: o.signal,
    };
    if (o.ca !== undefined) options.ca = o.ca;
    const req = request(target, options, (res) => onResponse(res));
    req.on('error', fail);
    req.end();

    function onResponse(res: IncomingMessage): void {
      const status = res.statusCode ?? 0;
      if (REDIRECT_STATUSES.has(status)) {
        const location = res.headers.location;
        res.destroy();
        if (location === undefined || location === '')
          fail(new LogReadError('http_status', `the log host answered ${status} without a Location`, status));
        else settle(() => resolve({ kind: 'redirect', location }));
        return;
      }
      if (status < 200 || status > 299) {
        res.destroy();
        fail(new LogReadError('http_status', `the log host answered ${status}`, status));
        return;
      }
      const read = new CappedTailRead(o.keepBytes, o.maxBytes, Number(res.headers['content-length'] ?? NaN));
      res.on('data', (chunk: Buffer) => {
        if (settled) return;
        const done = read.feed(chunk);
        if (done === null) return;
        settle(() => resolve({ kind: 'body', ...done }));
        res.destroy(); // stop reading: the socket is closed, the rest of the log is never received
        req.destroy();
      });
      res.on('end', () => settle(() => resolve({ kind: 'body', ...read.ended() })));
      res.on('error', fail);
      res.on('close', () => fail(new LogReadError('network', 'the connection closed before the log ended')));
    }
  });
}

// --- Cleaning -------------------------------------------------------------------------------------

/** GitHub's per-line timestamp, e.g. `2026-11-30T02:11:36.1234567Z `. */
const TIMESTAMP = /^\uFEFF?\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z ?/;
/** One log line as a person would read it: no timestamp, no terminal escapes. */
export function cleanLogLine(line: string): string {
  return stripAnsi(line.replace(TIMESTAMP, ''));
}
