// The tail of a GitLab job's trace (SPEC J2), read from GET /projects/:id/jobs/:job_id/trace with
// the API token. Not through gitbeaker, which buffers a whole answer: the hosts' shared bounded
// read (hosts/bounded-log.ts) into core's fixed-size tail buffer, so memory is bounded by
// `keepBytes` whatever the trace's length; reading stops at `maxBytes`, and the whole read has a
// deadline. A redirect (object storage) is followed with the token only to the instance's own
// origin, never from https to http. Lines are cleaned of ANSI escapes, GitLab's collapsible
// `section_start:`/`section_end:` markers, and `\r` progress overwrites.
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
import { TraceReadError } from './errors.js';

const MAX_REDIRECTS = 3;
const USER_AGENT = 'fixloop-job-trace';

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
  const origin = new URL(url).origin;
  const read: TailRead = await readBoundedLog({
    url: new URL(url),
    // The token goes to the instance only, in a header: object storage's signed URL needs none.
    headersFor: (target): Record<string, string> =>
      target.origin === origin
        ? { 'user-agent': USER_AGENT, 'private-token': opts.token }
        : { 'user-agent': USER_AGENT },
    follow: redirectTarget,
    sink: (declared) => new CappedTailRead(keepBytes, maxBytes, declared),
    maxRedirects: MAX_REDIRECTS,
    timeoutMs: opts.timeoutMs ?? LOG_TIMEOUT_MS,
    words: {
      subject: 'the job trace',
      answerer: 'GitLab',
      refused: (status) => `GitLab answered ${status} for the job trace`,
      redirectsWhere: 'reading the job trace',
    },
    error: (code, message, status, cause) => new TraceReadError(code, message, status, { cause }),
  });
  return renderTail(read, lines, cleanTraceLine);
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
