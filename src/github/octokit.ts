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
    observer.response(res.status, Number.isFinite(remaining) ? { resource, remaining } : null);
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

export function buildOctokit(
  policy: RequestPolicy,
  auth: Pick<ConstructorParameters<typeof ThrottledOctokit>[0] & object, 'auth' | 'authStrategy'>,
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
      error: (message: string) => log.warn({}, message),
    },
    throttle: {
      id: policy.throttleId,
      onRateLimit: onLimit('primary'),
      onSecondaryRateLimit: onLimit('secondary'),
      ...(policy.spaceWrites ? {} : { write: UNSPACED, notifications: UNSPACED }),
    },
    retry: { retries: policy.retries, doNotRetry: DO_NOT_RETRY, retryAfterBaseValue: policy.backoffUnitMs },
    ...(policy.observer ? { request: { fetch: observedFetch(policy.observer) } } : {}),
  });
}
