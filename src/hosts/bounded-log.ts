// One bounded reader for a CI job's log tail, whatever the host (SPEC J2): a bare node:http(s) GET
// with a private agent, a deadline over the whole read (redirects included), at most `maxRedirects`
// hops, and the body streamed into a capped sink so memory is bounded whatever the log's length;
// reading stops at the cap and the socket is closed. A host adds only what is its own: the headers
// a hop carries (its credentials, to its own origin only), which redirects it follows, how it
// cleans a line, and the words of its errors (github/job-log.ts, gitlab/job-trace.ts).
import { request as httpRequest, type IncomingMessage, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';

/** What the reader feeds the body into: `feed` answers the finished read once its cap is reached. */
export interface CappedSink<T> {
  feed(chunk: Buffer): T | null;
  /** The read at the body's end. */
  ended(): T;
}

export const BOUNDED_READ_CODES = ['http_status', 'network', 'timeout', 'too_many_redirects'] as const;
export type BoundedReadCode = (typeof BOUNDED_READ_CODES)[number];

/** The host's words for what it reads and who answers, in its error messages. */
export interface BoundedLogWords {
  /** e.g. 'the log', 'the job trace'. */
  subject: string;
  /** Who answered a status, e.g. 'the log host', 'GitLab'. */
  answerer: string;
  /** The message for a refusal, e.g. 'GitLab answered 403 for the job trace'. */
  refused(status: number): string;
  /** The end of the too-many-redirects message, e.g. 'after the signed log URL'. */
  redirectsWhere: string;
}

export interface BoundedLogRead<T> {
  url: URL;
  /** The headers one hop carries: a host sends its credentials to its own origin only. */
  headersFor(target: URL): Record<string, string>;
  /** The next hop of a redirect; throws the host's own error when it refuses to follow. */
  follow(location: string, from: URL): URL;
  /** A fresh sink for one body, given the length the host declared (NaN when none). */
  sink(declaredLength: number): CappedSink<T>;
  maxRedirects: number;
  timeoutMs: number;
  /** Extra trusted CA (tests: a self-signed log host). */
  ca?: string | Buffer;
  words: BoundedLogWords;
  /** The host's error for a failed read (its own class, so callers keep matching on it). */
  error(code: BoundedReadCode, message: string, status: number | null, cause: unknown): Error;
}

const REDIRECT_STATUSES: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);

/** A failure inside the reader, turned into the host's error once at the edge of `readBoundedLog`. */
class Failure {
  constructor(
    readonly code: BoundedReadCode,
    readonly message: string,
    readonly status: number | null = null,
    readonly cause: unknown = undefined,
  ) {}
}

/** Reads the body at `r.url` into a capped sink, following redirects as the host allows. */
export async function readBoundedLog<T>(r: BoundedLogRead<T>): Promise<T> {
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), r.timeoutMs);
  let target = r.url;
  try {
    for (let redirects = 0; ; redirects++) {
      const answer = await readOnce(target, r, deadline.signal);
      if (answer.kind === 'body') return answer.read;
      if (redirects >= r.maxRedirects)
        throw new Failure('too_many_redirects', `more than ${r.maxRedirects} redirects ${r.words.redirectsWhere}`);
      target = r.follow(answer.location, target);
    }
  } catch (err) {
    if (err instanceof Failure) throw r.error(err.code, err.message, err.status, err.cause);
    throw err;
  } finally {
    clearTimeout(timer);
  }
}

type Answer<T> = { kind: 'redirect'; location: string } | { kind: 'body'; read: T };

function readOnce<T>(target: URL, r: BoundedLogRead<T>, signal: AbortSignal): Promise<Answer<T>> {
  const w = r.words;
  return new Promise((resolve, reject) => {
    let settled = false;
    const settle = (fn: () => void): void => {
      if (settled) return;
      settled = true;
      fn();
    };
    const fail = (err: unknown): void =>
      settle(() => {
        if (signal.aborted)
          reject(new Failure('timeout', `${w.subject} was not read within ${r.timeoutMs} ms`, null, err));
        else if (err instanceof Failure) reject(err);
        else
          reject(
            new Failure(
              'network',
              `reading ${w.subject} failed: ${err instanceof Error ? err.message : String(err)}`,
              null,
              err,
            ),
          );
      });

    // A private agent so no socket is shared; only the headers the host chose for this hop.
    const options: RequestOptions = { method: 'GET', headers: r.headersFor(target), agent: false, signal };
    if (r.ca !== undefined) (options as { ca?: string | Buffer }).ca = r.ca;
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
          fail(new Failure('http_status', `${w.answerer} answered ${status} without a Location`, status));
        else settle(() => resolve({ kind: 'redirect', location }));
        return;
      }
      if (status < 200 || status > 299) {
        res.destroy();
        fail(new Failure('http_status', w.refused(status), status));
        return;
      }
      const sink = r.sink(Number(res.headers['content-length'] ?? NaN));
      res.on('data', (chunk: Buffer) => {
        if (settled) return;
        const done = sink.feed(chunk);
        if (done === null) return;
        settle(() => resolve({ kind: 'body', read: done }));
        res.destroy(); // stop reading: the socket is closed, the rest of the log is never received
        req.destroy();
      });
      res.on('end', () => settle(() => resolve({ kind: 'body', read: sink.ended() })));
      res.on('error', fail);
      res.on('close', () => fail(new Failure('network', `the connection closed before ${w.subject} ended`)));
    }
  });
}
