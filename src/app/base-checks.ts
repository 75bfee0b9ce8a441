// What fails on a pull request's base branch (SPEC T1), for triage: a check red on the base too is
// not the pull request's to fix. Read from GitHub only when a red result is judged, and cached per
// base branch for a poll interval, so a storm of reds reads the base once, and a base that turns
// green re-arms the loop within an interval (triage then lets the next red through).
import { verdictOfConclusion, verdictOfStatusState } from '../core/verdict.js';
import type { BaseChecks } from './evaluate.js';
import type { ProviderPort } from './provider-port.js';
import type { Clock } from './ports.js';

export interface BaseChecksDeps {
  github: Pick<ProviderPort, 'getPullRequest' | 'listCheckRuns' | 'listStatuses'>;
  clock: Clock;
  /** How long one read of a base branch answers (ms): the poll interval. */
  ttlMs: number;
}

export function createBaseChecks(deps: BaseChecksDeps) {
  const { github } = deps;
  // Per repository and base branch: the read in flight or done, and when it was made.
  const cache = new Map<string, { at: number; read: Promise<BaseChecks> }>();
  // Per pull request: its base branch, which a storm of one head's reds need not read twelve times.
  const bases = new Map<string, { at: number; read: Promise<string> }>();

  /** Reads through `map` when its entry is older than the interval; a failed read is not kept. */
  function cached<T>(map: Map<string, { at: number; read: Promise<T> }>, key: string, read: () => Promise<T>) {
    const now = deps.clock.now().getTime();
    let entry = map.get(key);
    if (!entry || now - entry.at >= deps.ttlMs) {
      // Bounded: entries older than the interval go, so the map holds what was read lately.
      for (const [k, e] of map) if (now - e.at >= deps.ttlMs) map.delete(k);
      const mine = { at: now, read: read() };
      mine.read.catch(() => map.get(key) === mine && map.delete(key));
      map.set(key, mine);
      entry = mine;
    }
    return entry.read;
  }

  async function readBase(repository: string, baseRef: string): Promise<BaseChecks> {
    const [runs, statuses] = await Promise.all([
      github.listCheckRuns(repository, baseRef),
      github.listStatuses(repository, baseRef),
    ]);
    const failing = new Set<string>();
    for (const r of runs)
      if (r.status === 'completed' && verdictOfConclusion(r.conclusion) === 'red') failing.add(r.name);
    for (const s of statuses) if (verdictOfStatusState(s.state) === 'red') failing.add(s.context);
    return { ref: baseRef, failing: [...failing].sort() };
  }

  /** The base's failing checks; null when the pull request or its base cannot be read (not known). */
  return async function baseChecks(
    repository: string,
    pullRequest: number,
    known: string | null,
  ): Promise<BaseChecks | null> {
    try {
      // The Task's base as the poll or a webhook last showed it; read from GitHub only when never told.
      const baseRef =
        known ??
        (await cached(
          bases,
          `${repository}#${pullRequest}`,
          async () => (await github.getPullRequest(repository, pullRequest)).baseRef,
        ));
      return await cached(cache, `${repository}\u0000${baseRef}`, () => readBase(repository, baseRef));
    } catch {
      return null;
    }
  };
}
