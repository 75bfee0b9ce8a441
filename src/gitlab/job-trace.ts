// The tail of a GitLab job's trace (SPEC J2), read from GET /projects/:id/jobs/:job_id/trace with
// the API token. Not through gitbeaker, which buffers a whole answer: a bare node:http(s) request
// streamed through core's fixed-size tail buffer, so memory is bounded by `keepBytes` whatever the
// trace's length; reading stops at `maxBytes` with a marker saying where, and the whole read has a
// deadline. A redirect (object storage) is followed with the token only to the instance's own
// origin, never from https to http. Lines are cleaned of ANSI escapes, GitLab's collapsible
// `section_start:`/`section_end:` markers, and `\r` progress overwrites.
import { request as httpRequest, type IncomingMessage, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
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
import { TraceReadError } from './errors.js';

const MAX_REDIRECTS = 3;
const USER_AGENT = 'fixloop-job-trace';
const REDIRECT_STATUSES: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);

export interface ReadTraceOptions {
  /** Sent as PRIVATE-TOKEN to the trace URL's origin only. */
  token: string;
  /** Bytes of the end of the trace kept in memory (default 256 KiB). */
  keepBytes?: number;
  /** Bytes read at most; the connection is destroyed there (default 32 MiB). */
  maxBytes?: number;
  /** Lines returned, counted from the end (default 200, clamped to 1–2000). */
  lines?: number;
  /** Deadline for the whole read, redirects included (default 60 s). */
  timeoutMs?: number;
}

/** Reads the tail of the trace at `url` (the API's trace endpoint). Rejects with a TraceReadError. */
export async function readJobTrace(url: string, opts: ReadTraceOptions): Promise<LogTail> {
  const keepBytes = positiveInt(opts.keepBytes, LOG_KEEP_BYTES, 'keepBytes');
  const maxBytes = positiveInt(opts.maxBytes, LOG_MAX_BYTES, 'maxBytes');
  const lines = Math.min(LOG_LINES_MAX, positiveInt(opts.lines, LOG_LINES_DEFAULT, 'lines'));
  const timeoutMs = opts.timeoutMs ?? LOG_TIMEOUT_MS;
  const origin = new URL(url).origin;
  let target = new URL(url);

  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), timeoutMs);
  try {
    for (let redirects = 0; ; redirects++) {
      // The token goes to the instance only: object storage's signed URL needs none, and must not see it.
      const token = target.origin === origin ? opts.token : null;
      const answer = await readOnce(target, { keepBytes, maxBytes, token, signal: deadline.signal, timeoutMs });
      if (answer.kind === 'body') return renderTail(answer, lines, cleanTraceLine);
      if (redirects >= MAX_REDIRECTS)
        throw new TraceReadError('too_many_redirects', `more than ${MAX_REDIRECTS} redirects reading the job trace`);
      target = redirectTarget(answer.location, target);
    }
  } finally {
    clearTimeout(timer);
  }
}

function redirectTarget(location: string, from: URL): URL {
  let next: URL;
  try {
    next = new URL(location, from);
  } catch {
    throw new TraceReadError('bad_redirect', 'the job trace redirected to something that is not a URL');
  }
  if (next.protocol !== 'https:' && next.protocol !== 'http:')
    throw new TraceReadError('bad_redirect', `refusing a ${next.protocol} redirect for the job trace`);
  if (from.protocol === 'https:' && next.protocol !== 'https:')
    throw new TraceReadError('bad_redirect', 'refusing a redirect from https to http for the job trace');
  return next;
}

// --- One request ----------------------------------------------------------------------------------

type Answer = { kind: 'redirect'; location: string } | ({ kind: 'body' } & TailRead);

interface ReadOptions {
  keepBytes: number;
  maxBytes: number;
  token: string | null;
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
          reject(
            new TraceReadError('timeout', `the job trace was not read within ${o.timeoutMs} ms`, null, { cause: err }),
          );
        else if (err instanceof TraceReadError) reject(err);
        else
          reject(
            new TraceReadError(
              'network',
              `reading the job trace failed: ${err instanceof Error ? err.message : String(err)}`,
              null,
              { cause: err },
            ),
          );
      });

    // A private agent so no socket is shared; the token in a header, never in the URL.
    const headers: Record<string, string> = { 'user-agent': USER_AGENT };
    if (o.token !== null) headers['private-token'] = o.token;
    const options: RequestOptions = { method: 'GET', headers, agent: false, signal: o.signal };
    const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = send(target, options, (res) => onResponse(res));
    req.on('error', fail);
    req.end();

    function onResponse(res: IncomingMessage): void {
      const status = res.statusCode ?? 0;
      if (REDIRECT_STATUSES.has(status)) {
        const location = res.headers.location;
        res.destroy();
        if (location === undefined || location === '')
          fail(new TraceReadError('http_status', `GitLab answered ${status} without a Location`, status));
        else settle(() => resolve({ kind: 'redirect', location }));
        return;
      }
      if (status < 200 || status > 299) {
        res.destroy();
        fail(new TraceReadError('http_status', `GitLab answered ${status} for the job trace`, status));
        return;
      }
      const read = new CappedTailRead(o.keepBytes, o.maxBytes, Number(res.headers['content-length'] ?? NaN));
      res.on('data', (chunk: Buffer) => {
        if (settled) return;
        const done = read.feed(chunk);
        if (done === null) return;
        settle(() => resolve({ kind: 'body', ...done }));
        res.destroy(); // stop reading: the rest of the trace is never received
        req.destroy();
      });
      res.on('end', () => settle(() => resolve({ kind: 'body', ...read.ended() })));
      res.on('error', fail);
      res.on('close', () => fail(new TraceReadError('network', 'the connection closed before the job trace ended')));
    }
  });
}

// --- Cleaning -------------------------------------------------------------------------------------

/**
 * GitLab's collapsible-section markers, `section_start:<epoch>:<name>[options]` and
 * `section_end:<epoch>:<name>`, each followed by `\r` and an erase-line escape.
 */
const SECTION_MARKER = /section_(?:start|end):\d+:[\w.-]+(?:\[[^\]\r\n]*\])?\r?(?:\x1b\[0?K)?/g;

/**
 * One trace line as a person reads it: section markers removed, then of the `\r`-separated
 * overwrites (progress bars) the last one that shows anything, without terminal escapes. A line that
 * held only section markers is GitLab's bookkeeping, not a line of the job: null drops it.
 */
export function cleanTraceLine(line: string): string | null {
  const unmarked = line.replace(SECTION_MARKER, '');
  const hadMarker = unmarked.length !== line.length;
  const writes = unmarked.split('\r').map(stripAnsi);
  let shown = '';
  for (let i = writes.length - 1; i >= 0; i--) {
    if (writes[i] !== '') {
      shown = writes[i]!;
      break;
    }
  }
  if (hadMarker && shown.trim() === '') return null;
  return shown;
}
