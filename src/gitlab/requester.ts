// How gitbeaker's typed endpoints reach GitLab: gitbeaker builds each request (path, query, JSON
// body, the PRIVATE-TOKEN header) and pages through Link headers; this handler sends it. Its own
// handler retries 429 and 502 ten times within a quarter second and never reads Retry-After; this one
// waits what GitLab says a bounded number of times, retries 5xx and network failures only for reads
// and idempotent writes (a POST may have taken effect), never follows a redirect with the token, and
// tells the client each answer's RateLimit-* headers. With an ETag store, a GET is conditional: a
// kept answer's ETag goes out as If-None-Match and GitLab's 304 returns the kept body (decision 0035).
// SPEC E4, N3.
import { createRequesterFn, type RequestOptions, type ResponseBodyTypes } from '@gitbeaker/requester-utils';
import type { Logger } from '../app/ports.js';
import { GitLabHttpError, GitLabNetworkError } from './errors.js';
import type { GitLabEtagStore } from './etag-store.js';

export interface RetryPolicy {
  /** Waits after a 429 before giving up (default 2). */
  rateLimitRetries: number;
  /** The longest Retry-After sat out; a longer one is answered at once as the 429 (default 60 s). */
  maxWaitSeconds: number;
  /** Retries of a 5xx or a network failure for GET and PUT (default 3), the n-th after n² × backoffUnitMs. */
  retries: number;
  backoffUnitMs: number;
}

/** What one answer said of GitLab's rate limit (RateLimit-Limit, -Remaining, -Reset in epoch seconds). */
export interface RateLimitSeen {
  remaining: number;
  limit: number;
  reset: number;
}

const IDEMPOTENT: ReadonlySet<string> = new Set(['GET', 'HEAD', 'PUT', 'DELETE']);

type Requester = ReturnType<typeof createRequesterFn>;

/** Every key this adapter writes to an ETag store starts so: the ledger's table is shared with GitHub's. */
export const ETAG_KEY_PREFIX = 'gitlab:';
/** An answer larger than this (characters of JSON) is not kept: it is read whole each time. */
export const MAX_KEPT_ANSWER_CHARS = 1024 * 1024;
/** A kept answer still in use is written again this often, so pruning by age never drops it. */
const REFRESH_KEPT_MS = 3_600_000;
/** The headers kept with an answer: what gitbeaker reads of a page (Link for the next one). */
const KEPT_HEADERS = ['link', 'x-next-page', 'x-page', 'x-per-page', 'x-prev-page', 'x-total', 'x-total-pages'];

interface KeptAnswer {
  etag: string;
  storedAt: string;
  body: ResponseBodyTypes;
  headers: Record<string, string>;
}

export function fixloopRequester(
  policy: RetryPolicy,
  log: Logger,
  seen: (limit: RateLimitSeen) => void,
  etags?: GitLabEtagStore,
): Requester {
  return createRequesterFn(
    async (_service, options) => options,
    async (endpoint, raw) => {
      const o = (raw ?? {}) as RequestOptions;
      const method = (o.method ?? 'GET').toUpperCase();
      const base = o.prefixUrl === undefined ? undefined : o.prefixUrl.endsWith('/') ? o.prefixUrl : `${o.prefixUrl}/`;
      const url = new URL(endpoint, base);
      url.search = o.searchParams ?? '';
      const init: RequestInit = { method, headers: o.headers ?? {}, redirect: 'manual' };
      if (o.body !== undefined) init.body = o.body;
      if (o.signal !== undefined) init.signal = o.signal;

      // Conditional: a GET of JSON on the caller's own behalf (no sudo). The key is the URL without
      // userinfo — never a header, so never the token.
      const key =
        etags !== undefined && method === 'GET' && !o.asStream && o.headers?.sudo === undefined
          ? `${ETAG_KEY_PREFIX}GET ${url.origin}${url.pathname}${url.search}`
          : null;
      let kept = key === null ? null : await readKept(etags!, key);
      if (kept !== null) init.headers = { ...(o.headers ?? {}), 'if-none-match': kept.etag };

      let waits = 0;
      for (let failures = 0; ;) {
        let res: Response;
        try {
          res = await fetch(url, init);
        } catch (err) {
          if (o.signal?.aborted) throw new GitLabNetworkError(`${method} ${url.pathname}: timed out`, true, err);
          if (IDEMPOTENT.has(method) && failures < policy.retries) {
            failures++;
            await pause(failures * failures * policy.backoffUnitMs, o.signal);
            continue;
          }
          throw new GitLabNetworkError(`${method} ${url.pathname}: ${(err as Error).message}`, false, err);
        }
        observe(res.headers, seen);
        if (res.status === 304 && kept !== null) {
          await res.body?.cancel();
          if (!res.headers.has('link') && isFullPage(kept)) {
            // A full page whose 304 says nothing of a next page (a proxy may drop Link): whether one
            // was added since is unknown, so the page is read again, unconditionally.
            kept = null;
            init.headers = o.headers ?? {};
            continue;
          }
          if (Date.now() - Date.parse(kept.storedAt) > REFRESH_KEPT_MS)
            await etags!.putEtag(key!, kept.etag, keptValue(kept.body, kept.headers)).catch(() => undefined);
          // The body is the kept one (the ETag is over the body); the headers are this answer's over
          // the kept ones, so a page whose entries are unchanged still shows a next page added since.
          return { body: kept.body, headers: { ...kept.headers, ...headersOf(res) }, status: 200 };
        }
        if (res.ok) {
          const body = await bodyOf(res);
          const headers = headersOf(res);
          const etag = res.headers.get('etag');
          if (key !== null && etag !== null && res.status === 200 && isJson(res)) {
            const value = keptValue(body, headers);
            if (value.length <= MAX_KEPT_ANSWER_CHARS) await etags!.putEtag(key, etag, value).catch(() => undefined);
          }
          return { body, headers, status: res.status };
        }

        if (res.status === 429 && waits < policy.rateLimitRetries) {
          const wait = retryAfterSeconds(res.headers);
          if (wait <= policy.maxWaitSeconds) {
            waits++;
            await res.body?.cancel();
            log.warn({ method, path: url.pathname, waitSeconds: wait }, 'gitlab rate limit: waiting before retrying');
            await pause(wait * 1000, o.signal);
            continue;
          }
        }
        if (res.status >= 500 && IDEMPOTENT.has(method) && failures < policy.retries) {
          failures++;
          await res.body?.cancel();
          await pause(failures * failures * policy.backoffUnitMs, o.signal);
          continue;
        }
        throw new GitLabHttpError(res.status, await describe(res));
      }
    },
  );
}

/**
 * The answer kept for `key`, or null: none, unreadable, or the store failing (the store failing only
 * costs the request — it is read as a miss, and a write to it is skipped).
 */
async function readKept(etags: GitLabEtagStore, key: string): Promise<KeptAnswer | null> {
  const row = await etags.getEtag(key).catch(() => null);
  if (row === null) return null;
  try {
    const v = JSON.parse(row.value) as { body?: unknown; headers?: unknown };
    if (v === null || typeof v !== 'object' || !('body' in v)) return null;
    if (v.headers === null || typeof v.headers !== 'object') return null;
    return {
      etag: row.etag,
      storedAt: row.storedAt,
      body: v.body as ResponseBodyTypes,
      headers: v.headers as Record<string, string>,
    };
  } catch {
    return null;
  }
}

/** A page as long as its x-per-page: there may be another after it. */
function isFullPage(kept: KeptAnswer): boolean {
  const perPage = Number(kept.headers['x-per-page'] ?? NaN);
  return Array.isArray(kept.body) && perPage > 0 && kept.body.length >= perPage;
}

function keptValue(body: ResponseBodyTypes, headers: Record<string, string>): string {
  const kept: Record<string, string> = {};
  for (const name of KEPT_HEADERS) if (headers[name] !== undefined) kept[name] = headers[name];
  return JSON.stringify({ body, headers: kept });
}

function headersOf(res: Response): Record<string, string> {
  return Object.fromEntries(res.headers.entries());
}

function isJson(res: Response): boolean {
  return (res.headers.get('content-type') ?? '').split(';')[0]!.trim() === 'application/json';
}

function observe(headers: Headers, seen: (limit: RateLimitSeen) => void): void {
  const remaining = Number(headers.get('ratelimit-remaining') ?? NaN);
  const limit = Number(headers.get('ratelimit-limit') ?? NaN);
  const reset = Number(headers.get('ratelimit-reset') ?? NaN);
  if (Number.isFinite(remaining) && Number.isFinite(limit) && Number.isFinite(reset)) seen({ remaining, limit, reset });
}

/** Retry-After in seconds or as a date; else RateLimit-Reset; else a second. */
function retryAfterSeconds(headers: Headers): number {
  const after = headers.get('retry-after');
  if (after !== null) {
    const seconds = Number(after);
    if (Number.isFinite(seconds)) return Math.max(0, seconds);
    const at = Date.parse(after);
    if (Number.isFinite(at)) return Math.max(0, (at - Date.now()) / 1000);
  }
  const reset = Number(headers.get('ratelimit-reset') ?? NaN);
  if (Number.isFinite(reset)) return Math.max(0, reset - Date.now() / 1000);
  return 1;
}

/** The answer's body as gitbeaker reads it: JSON, text, or (anything else) the bytes. */
async function bodyOf(res: Response): Promise<ResponseBodyTypes> {
  if (res.status === 204) return null;
  const type = (res.headers.get('content-type') ?? '').split(';')[0]!.trim();
  if (type === 'application/json') return ((await res.json()) ?? {}) as ResponseBodyTypes;
  if (type.startsWith('text/')) return await res.text();
  return await res.blob();
}

/** GitLab's own words for a refusal (`message` or `error` of its JSON), bounded; never a header. */
async function describe(res: Response): Promise<string> {
  if (res.status >= 300 && res.status < 400) return 'a redirect, not followed';
  const text = await res.text().catch(() => '');
  let said = text;
  try {
    const json = JSON.parse(text) as { message?: unknown; error?: unknown };
    const m = json.message ?? json.error;
    if (m !== undefined) said = typeof m === 'string' ? m : JSON.stringify(m);
  } catch {
    // not JSON: the text itself
  }
  said = said.trim();
  return said === '' ? res.statusText || 'no message' : said.length > 300 ? `${said.slice(0, 300)}…` : said;
}

function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new GitLabNetworkError('timed out while waiting to retry', true));
    const timer = setTimeout(done, ms);
    function done(): void {
      signal?.removeEventListener('abort', aborted);
      resolve();
    }
    function aborted(): void {
      clearTimeout(timer);
      reject(new GitLabNetworkError('timed out while waiting to retry', true));
    }
    signal?.addEventListener('abort', aborted, { once: true });
  });
}
