// The one Octokit class fixloop talks to GitHub with: @octokit/rest plus the throttling and retry
// plugins, configured so rate limits are waited out as GitHub says (retry-after, x-ratelimit-reset)
// a bounded number of times, and 5xx answers are retried with backoff — never hammered. SPEC E4.
import { Octokit } from '@octokit/rest';
import { retry } from '@octokit/plugin-retry';
import { throttling } from '@octokit/plugin-throttling';

const ThrottledOctokit = Octokit.plugin(throttling, retry);
export type GitHubClient = InstanceType<typeof ThrottledOctokit>;

/** The part of a pino logger the adapter uses. */
export interface GitHubLog {
  debug(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
}

export const silentGitHubLog: GitHubLog = { debug: () => undefined, warn: () => undefined };

/** What an answer said of its rate limit: x-ratelimit-remaining of x-ratelimit-resource (`core` when unsaid). */
export interface RateLimitSeen {
  resource: string;
  remaining: number;
  /** x-ratelimit-limit and x-ratelimit-reset (epoch seconds), when the answer said. */
  limit?: number;
  reset?: number;
}

/** Hears each HTTP response from GitHub (metrics, N2); status null: the request got no response. */
export interface GitHubRequestObserver {
  response(status: number | null, rateLimit: RateLimitSeen | null): void;
}

/**
 * fetch, telling the observer of every response. At this level, not in an Octokit hook: the retry
 * and throttling plugins wrap the hooks, so only here is each retry seen, as GitHub's limit counts it.
 */
function observedFetch(observer: GitHubRequestObserver): typeof fetch {
  return async (input, init) => {
    let res: Response;
    try {
      res = await fetch(input, init);
    } catch (err) {
      observer.response(null, null);
      throw err;
    }
    const remaining = Number(res.headers.get('x-ratelimit-remaining') ?? NaN);
    const resource = res.headers.get('x-ratelimit-resource') ?? 'core';
    const limit = Number(res.headers.get('x-ratelimit-limit') ?? NaN);
    const reset = Number(res.headers.get('x-ratelimit-reset') ?? NaN);
    observer.response(
      res.status,
      Number.isFinite(remaining)
        ? {
            resource,
            remaining,
            ...(Number.isFinite(limit) ? { limit } : {}),
            ...(Number.isFinite(reset) ? { reset } : {}),
          }
        : null,
    );
    return res;
  };
}

export interface RequestPolicy {
  baseUrl: string;
  /** Rate limiters are shared by every client built with the same id (one GitHub identity). */
  throttleId: string;
  /** Times a rate-limited request is retried after waiting (default 2). */
  rateLimitRetries: number;
  /** A wait longer than this is not sat out: the call fails as retryable instead (default 60 s). */
  maxRateLimitWaitSeconds: number;
  /** Retries of a 5xx or network failure (default 3); the n-th waits n² × backoffUnitMs. */
  retries: number;
  backoffUnitMs: number;
  /** GitHub asks for ≥ 1 s between writes (3 s between ones that notify); false only in tests. */
  spaceWrites: boolean;
  log: GitHubLog;
  observer?: GitHubRequestObserver;
}

/**
 * GitHub's secondary limit for GraphQL is 2,000 points a minute; the poll's bulk queries cost at most
 * three points each, so starting them at least 100 ms apart stays within it (≤ 1,800 a minute).
 */
export const BULK_QUERY_SPACING_MS = 100;

/**
 * The throttling plugin paces GraphQL queries as writes (one a second, in the same line as labels
 * and comments). The poll's bulk reads are queries, not content-creating requests: this client lane
 * starts them BULK_QUERY_SPACING_MS apart, so they neither wait on the hand-off's writes nor hold
 * them back. Per client: no module state.
 */
function bulkQueryLane(spacingMs: number) {
  let last: Promise<unknown> = Promise.resolve();
  let lastAt = 0;
  const lane = {
    schedule: (_options: unknown, job: () => unknown) => {
      const run = last.then(async () => {
        const wait = lastAt + spacingMs - Date.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        lastAt = Date.now();
        return job();
      });
      last = run.catch(() => undefined);
      return run;
    },
  };
  return { key: () => lane } as never;
}

/**
 * Stands in for the plugin's write and notification limiter groups (it calls only
 * `group.key(id).schedule(options, job)`) when tests switch write spacing off.
 */
const UNSPACED = {
  key: () => ({ schedule: async (_options: unknown, job: () => unknown) => job() }),
} as never;

/**
 * Statuses the retry plugin leaves alone: client errors, and 429, which is the throttling plugin's
 * alone (retrying it again here would double the attempts the rate-limit policy allows).
 */
const DO_NOT_RETRY = [400, 401, 403, 404, 410, 422, 429, 451];

/** 404s that answer a question rather than report a fault: each caller turns them into a value. */
const EXPECTED_404: readonly (readonly [method: string, path: RegExp])[] = [
  ['GET', /\/branches\/.+\/protection(\/|$)/], // the branch is not protected: config decides (B4)
  ['DELETE', /\/issues\/\d+\/labels\/[^/]+$/], // the label is already gone: removing is idempotent
  ['GET', /^\/repos\/[^/]+\/[^/]+\/installation$/], // the App is not installed on that owner
  ['GET', /\/collaborators\/[^/]+\/permission$/], // no collaborator: no standing (decision 0042)
];

/**
 * The level of one line of Octokit's request log ("GET /path - 404 with id … in 3ms"): a 304 (the
 * conditional read's cached answer stands) and an expected 404 are debug; every other failure warns.
 * N3: at thousands of open Tasks, warning on each would be thousands of lines a tick.
 */
export function requestLogLevel(message: string): 'debug' | 'warn' {
  const m = /^([A-Z]+) (\S+) - (\d{3}) with id /.exec(message);
  if (m === null) return 'warn';
  const [, method, url, status] = m as unknown as [string, string, string, string];
  const path = url.split('?')[0]!;
  if (status === '304') return 'debug';
  if (status === '404' && EXPECTED_404.some(([verb, re]) => verb === method && re.test(path))) return 'debug';
  return 'warn';
}

export function buildOctokit(
  policy: RequestPolicy,
  auth: Pick<ConstructorParameters<typeof ThrottledOctokit>[0] & object, 'auth' | 'authStrategy'>,
  /** `bulk-read`: a client for the poll's GraphQL queries only (bulkQueryLane). */
  lane: 'default' | 'bulk-read' = 'default',
): GitHubClient {
  const { log } = policy;
  const onLimit =
    (kind: 'primary' | 'secondary') =>
    (retryAfter: number, options: { method: string; url: string }, _octokit: unknown, retryCount: number): boolean => {
      const where = { kind, method: options.method, url: options.url, retryAfter, retryCount };
      if (retryCount < policy.rateLimitRetries && retryAfter <= policy.maxRateLimitWaitSeconds) {
        log.warn(where, 'github rate limit: waiting before retrying');
        return true;
      }
      log.warn(where, 'github rate limit: giving up');
      return false;
    };

  return new ThrottledOctokit({
    ...auth,
    baseUrl: policy.baseUrl,
    userAgent: 'fixloop',
    log: {
      debug: (message: string) => log.debug({}, message),
      info: (message: string) => log.debug({}, message),
      warn: (message: string) => log.warn({}, message),
      // The request log reports every answer that is not 2xx here, a 304 and an expected 404 included.
      error: (message: string) =>
        requestLogLevel(message) === 'debug' ? log.debug({}, message) : log.warn({}, message),
    },
    throttle: {
      id: policy.throttleId,
      onRateLimit: onLimit('primary'),
      onSecondaryRateLimit: onLimit('secondary'),
      ...(lane === 'bulk-read'
        ? { write: bulkQueryLane(policy.spaceWrites ? BULK_QUERY_SPACING_MS : 0), notifications: UNSPACED }
        : policy.spaceWrites
          ? {}
          : { write: UNSPACED, notifications: UNSPACED }),
    },
    retry: { retries: policy.retries, doNotRetry: DO_NOT_RETRY, retryAfterBaseValue: policy.backoffUnitMs },
    ...(policy.observer ? { request: { fetch: observedFetch(policy.observer) } } : {}),
  });
}
