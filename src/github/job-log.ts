// The tail of a GitHub Actions job log, read from the signed URL the jobs-logs endpoint redirects to
// (SPEC J2): https only, no credentials (a bare node:https request with a user-agent, never the
// shared fetch), streamed through a fixed-size tail buffer so memory is bounded by `keepBytes`,
// reading stopped at `maxBytes` with a marker saying where; timestamps and ANSI escapes stripped.
import { request, type RequestOptions } from 'node:https';
import type { IncomingMessage } from 'node:http';

const LOG_KEEP_BYTES = 256 * 1024;
export const LOG_MAX_BYTES = 32 * 1024 * 1024;
export const LOG_LINES_DEFAULT = 200;
export const LOG_LINES_MAX = 2000;
const LOG_TIMEOUT_MS = 60_000;
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

export interface LogTail {
  /** The last lines, cleaned; when the read was cut, a last marker line says where. */
  text: string;
  /** True when `text` is not the whole log: earlier lines dropped, or the end never read. */
  truncated: boolean;
  /** Where reading stopped when the end of the log was not read; null when it was read to the end. */
  cutAtBytes: number | null;
  /** Bytes of the body read. */
  bytesRead: number;
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
      if (answer.kind === 'body') return renderTail(answer, lines);
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

function positiveInt(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < 1)
    throw new RangeError(`${name} must be a positive integer, got ${value}`);
  return value;
}

// --- One request ----------------------------------------------------------------------------------

type Answer =
  { kind: 'redirect'; location: string } | { kind: 'body'; tail: TailBuffer; bytesRead: number; cut: boolean };

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
      const tail = new TailBuffer(o.keepBytes);
      const declared = Number(res.headers['content-length'] ?? NaN);
      let bytesRead = 0;
      res.on('data', (chunk: Buffer) => {
        if (settled) return;
        const room = o.maxBytes - bytesRead;
        if (chunk.length < room) {
          tail.write(chunk);
          bytesRead += chunk.length;
          return;
        }
        tail.write(chunk.subarray(0, room));
        bytesRead += room;
        const cut = !(chunk.length === room && declared === bytesRead); // exactly maxBytes long: not cut
        settle(() => resolve({ kind: 'body', tail, bytesRead, cut }));
        res.destroy(); // stop reading: the socket is closed, the rest of the log is never received
        req.destroy();
      });
      res.on('end', () => settle(() => resolve({ kind: 'body', tail, bytesRead, cut: false })));
      res.on('error', fail);
      res.on('close', () => fail(new LogReadError('network', 'the connection closed before the log ended')));
    }
  });
}

// --- The tail -------------------------------------------------------------------------------------

/** A ring buffer holding the last `capacity` bytes written; its memory never grows past that. */
export class TailBuffer {
  private readonly ring: Buffer;
  private end = 0; // next write position
  private full = false;
  /** Bytes written that are no longer held. */
  dropped = 0;

  constructor(readonly capacity: number) {
    this.ring = Buffer.alloc(capacity);
  }

  write(chunk: Buffer): void {
    const cap = this.capacity;
    if (chunk.length >= cap) {
      this.dropped += this.held() + chunk.length - cap;
      chunk.copy(this.ring, 0, chunk.length - cap);
      this.end = 0;
      this.full = true;
      return;
    }
    const overflow = Math.max(0, this.held() + chunk.length - cap);
    this.dropped += overflow;
    const first = Math.min(chunk.length, cap - this.end);
    chunk.copy(this.ring, this.end, 0, first);
    chunk.copy(this.ring, 0, first);
    const next = this.end + chunk.length;
    if (next >= cap) this.full = true;
    this.end = next % cap;
  }

  held(): number {
    return this.full ? this.capacity : this.end;
  }

  /** The held bytes, oldest first (a copy). */
  bytes(): Buffer {
    if (!this.full) return Buffer.from(this.ring.subarray(0, this.end));
    return Buffer.concat([this.ring.subarray(this.end), this.ring.subarray(0, this.end)]);
  }
}

// --- Cleaning -------------------------------------------------------------------------------------

/** GitHub's per-line timestamp, e.g. `2026-11-30T02:11:36.1234567Z `. */
const TIMESTAMP = /^\uFEFF?\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z ?/;
/** OSC (to BEL or ST), CSI (7- and 8-bit), other ESC sequences, and any stray ESC. */
const ANSI = /\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|(?:\x1b\[|\u009b)[0-?]*[ -/]*[@-~]|\x1b[ -/]*[0-~]|\x1b/g;

/** One log line as a person would read it: no timestamp, no terminal escapes. */
export function cleanLogLine(line: string): string {
  return line.replace(TIMESTAMP, '').replace(ANSI, '');
}

export function cutMarker(bytes: number): string {
  return `[fixloop: log cut after ${bytes} bytes; the end of the job log was not read]`;
}

function renderTail(answer: { tail: TailBuffer; bytesRead: number; cut: boolean }, lines: number): LogTail {
  let raw = answer.tail.bytes();
  const startDropped = answer.tail.dropped > 0;
  if (startDropped) {
    // The first held line is most likely a fragment (and may start mid-character): drop it.
    const nl = raw.indexOf(0x0a);
    if (nl !== -1) raw = raw.subarray(nl + 1);
  }
  const all = raw.toString('utf8').split('\n');
  if (all.length > 0 && all[all.length - 1] === '') all.pop(); // the newline ending the last line
  const kept = all.slice(-lines).map((l) => cleanLogLine(l.endsWith('\r') ? l.slice(0, -1) : l));
  const cutAtBytes = answer.cut ? answer.bytesRead : null;
  if (cutAtBytes !== null) kept.push(cutMarker(cutAtBytes));
  return {
    text: kept.join('\n'),
    truncated: startDropped || answer.cut || all.length > lines,
    cutAtBytes,
    bytesRead: answer.bytesRead,
  };
}
