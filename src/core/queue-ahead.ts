// Which pull requests a merge queue merged ahead of one (issue 36 item 1, decision 0078). A queue builds
// each pull request's commit on top of its parent: the base's head, or the commit it built for the pull
// request ahead. Walking parents through the commits the queue announced names everyone ahead, nearest
// first; the walk ends at a parent the queue did not build (the base). Pure: the caller reads the commits.

/** A commit a merge queue built for one pull request, on top of `parentSha`. */
export interface QueueCommit {
  sha: string;
  parentSha: string;
  pullRequest: number;
}

/** At most this many parents are followed: a queue deeper than this is named in part. */
export const QUEUE_AHEAD_MAX = 50;

/** The next commit to read, or the pull requests ahead once the walk is over. */
export type QueueWalk = { kind: 'read'; sha: string } | { kind: 'done'; ahead: number[] | null };

/**
 * One step of the walk from the failing commit. `chain` holds what was read so far, the failing
 * commit first; a failing commit the queue never announced means fixloop does not know (null), so the
 * frame says so rather than claim it was first. A loop, a repeat of the pull request itself or the cap
 * ends the walk with what was found.
 */
export function nextQueueStep(failingSha: string, chain: readonly (QueueCommit | null)[]): QueueWalk {
  if (chain.length === 0) return { kind: 'read', sha: failingSha };
  const [own, ...ahead] = chain;
  if (!own) return { kind: 'done', ahead: null };
  const found = ahead.filter((c): c is QueueCommit => c !== null);
  const names = (): number[] => [...new Set(found.map((c) => c.pullRequest).filter((n) => n !== own.pullRequest))];
  const last = chain[chain.length - 1];
  if (!last || chain.length > QUEUE_AHEAD_MAX) return { kind: 'done', ahead: names() };
  const seen = new Set(chain.filter((c): c is QueueCommit => c !== null).map((c) => c.sha));
  if (seen.has(last.parentSha)) return { kind: 'done', ahead: names() };
  return { kind: 'read', sha: last.parentSha };
}
