// What fails on a pull request's base branch (SPEC T1), for triage: a check red on the base too is
// not the pull request's to fix. Read from GitHub only when a red result is judged, and cached per
// base branch for a poll interval, so a storm of reds reads the base once, and a base that turns
// green re-arms the loop within an interval (triage then lets the next red through).
// Bounded (issue 31, decision 0047): evaluation is one at a time, so a read the host does not answer
// would hold every other Task's red behind it. A read waits at most `timeoutMs`; one that fails or
// times out is "not known" (triage goes on without the base: T1 saves a run, it guards nothing the
// budget does not) and is remembered as such for `retryAfterMs`, so the reds after it do not wait
// again and the host is asked once per pause, not once per red. Told once per base until it answers.
import { verdictOfConclusion, verdictOfStatusState } from '../core/verdict.js';
import type { BaseChecks } from './evaluate.js';
import type { ProviderPort } from './provider-port.js';
import type { Clock, Logger } from './ports.js';

/** How long one read of the base may take before triage goes on without it (ms). */
export const BASE_READ_TIMEOUT_MS = 3_000;
/** How long a base that could not be read is taken as not known before it is asked again (ms). */
export const BASE_RETRY_AFTER_MS = 60_000;

export interface BaseChecksDeps {
  host: Pick<ProviderPort, 'getPullRequest' | 'listCheckRuns' | 'listStatuses'>;
  clock: Clock;
  /** How long one read of a base branch answers (ms): the poll interval. */
  ttlMs: number;
  /** Default BASE_READ_TIMEOUT_MS. */
  timeoutMs?: number;
  /** Default BASE_RETRY_AFTER_MS, at most ttlMs. */
  retryAfterMs?: number;
  logger?: Logger;
}

/** A read as cached: its answer (null: not known), when it was made, and how long it answers. */
interface Entry<T> {
  at: number;
  ttl: number;
  read: Promise<T | null>;
}

/** `p`'s value, or a rejection once `ms` have passed; `p` failing later is then of no consequence. */
function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms);
  });
  p.catch(() => undefined); // a read that fails after the timeout is not an unhandled rejection
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

export function createBaseChecks(deps: BaseChecksDeps) {
  const { host } = deps;
  const timeoutMs = deps.timeoutMs ?? BASE_READ_TIMEOUT_MS;
  const retryAfterMs = Math.min(deps.retryAfterMs ?? BASE_RETRY_AFTER_MS, deps.ttlMs);
  // Per repository and base branch: the read in flight or done, and when it was made.
  const cache = new Map<string, Entry<BaseChecks>>();
  // Per pull request: its base branch, which a storm of one head's reds need not read twelve times.
  const bases = new Map<string, Entry<string>>();
  // What could not be read, told once until it answers again.
  const unread = new Set<string>();

  /**
   * Reads through `map` when its entry is older than its time; a read that fails or takes longer than
   * timeoutMs answers null, and so does its entry for retryAfterMs.
   */
  function cached<T>(map: Map<string, Entry<T>>, key: string, what: string, read: () => Promise<T>) {
    const now = deps.clock.now().getTime();
    let entry = map.get(key);
    if (!entry || now - entry.at >= entry.ttl) {
      // Bounded: entries past their time go, so the map holds what was read lately.
      for (const [k, e] of map) if (now - e.at >= e.ttl) map.delete(k);
      const mine: Entry<T> = { at: now, ttl: deps.ttlMs, read: Promise.resolve(null) };
      mine.read = within(read(), timeoutMs, what).then(
        (value) => {
          if (unread.delete(what)) deps.logger?.info({ what }, 'the base branch can be read again (T1)');
          return value;
        },
        (err: unknown) => {
          mine.ttl = retryAfterMs;
          if (!unread.has(what)) {
            unread.add(what);
            deps.logger?.warn(
              { err, what, retryAfterMs },
              `could not read ${what} for triage (T1); reds are judged without the base until it answers, asked again in ${Math.round(retryAfterMs / 1000)} s`,
            );
          }
          return null;
        },
      );
      map.set(key, mine);
      entry = mine;
    }
    return entry.read;
  }

  async function readBase(repository: string, baseRef: string): Promise<BaseChecks> {
    const [runs, statuses] = await Promise.all([
      host.listCheckRuns(repository, baseRef),
      host.listStatuses(repository, baseRef),
    ]);
    const failing = new Set<string>();
    for (const r of runs)
      if (r.status === 'completed' && verdictOfConclusion(r.conclusion) === 'red') failing.add(r.name);
    for (const s of statuses) if (verdictOfStatusState(s.state) === 'red') failing.add(s.context);
    // Issue 36: the commit those checks ran on, for the base notice (where the host says).
    const sha = runs.find((r) => r.headSha)?.headSha ?? null;
    return { ref: baseRef, failing: [...failing].sort(), ...(sha ? { sha } : {}) };
  }

  /** A base branch's failing checks by its name (issue 36: a red base's round, read to see it heal). */
  function ofBranch(repository: string, baseRef: string): Promise<BaseChecks | null> {
    return cached(cache, `${repository}\u0000${baseRef}`, `the checks of ${repository}@${baseRef}`, () =>
      readBase(repository, baseRef),
    ).catch(() => null);
  }

  /**
   * The base's failing checks; null when the pull request or its base cannot be read within the
   * timeout (not known). Never waits longer than timeoutMs per read, and never throws.
   */
  async function baseChecks(repository: string, pullRequest: number, known: string | null): Promise<BaseChecks | null> {
    try {
      // The Task's base as the poll or a webhook last showed it; read from GitHub only when never told.
      const baseRef =
        known ??
        (await cached(
          bases,
          `${repository}#${pullRequest}`,
          `the base branch of ${repository}#${pullRequest}`,
          async () => (await host.getPullRequest(repository, pullRequest)).baseRef,
        ));
      if (baseRef === null) return null;
      return await cached(cache, `${repository}\u0000${baseRef}`, `the checks of ${repository}@${baseRef}`, () =>
        readBase(repository, baseRef),
      );
    } catch {
      return null;
    }
  }
  return Object.assign(baseChecks, { ofBranch });
}
