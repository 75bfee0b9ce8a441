// Which pull requests a merge queue merged ahead of one (issue 36 item 1, decision 0078). A queue builds
// each pull request's commit on top of its parent: the base's head, or the commit it built for the pull
// request ahead. Walking parents through the commits the queue announced names everyone ahead, nearest
// first. The walk ends at the base: a parent the queue never announced, or one it had already merged
// into the base (the base then moved to that very commit) before it built the failing one. Pure: the
// caller reads the commits.

/** A commit a merge queue built for one pull request, on top of `parentSha`, as its deliveries said. */
export interface QueueCommit {
  sha: string;
  parentSha: string;
  pullRequest: number;
  /** The order in which the queue said it built the commit (its stored event's id); null: never said. */
  builtSeq: number | null;
  /** The order in which the queue said it merged the commit into the base; null: not merged. */
  mergedSeq: number | null;
}

/** At most this many parents are followed: a queue deeper than this is named in part. */
export const QUEUE_AHEAD_MAX = 50;

/** The next commit to read, or the pull requests ahead once the walk is over. */
export type QueueWalk = { kind: 'read'; sha: string } | { kind: 'done'; ahead: number[] | null };

/**
 * One step of the walk from the failing commit. `chain` holds what was read so far, the failing
 * commit first; a failing commit the queue never said it built means fixloop does not know (null), so
 * the frame says so rather than claim it was first. The walk stops, naming what it found, at the base
 * (a parent never announced, or merged before the failing commit was built), at its own pull request
 * again (an older build of it, not ahead of it), at a loop, or after QUEUE_AHEAD_MAX parents.
 */
export function nextQueueStep(failingSha: string, chain: readonly (QueueCommit | null)[]): QueueWalk {
  if (chain.length === 0) return { kind: 'read', sha: failingSha };
  const [own, ...ahead] = chain;
  if (!own || own.builtSeq === null) return { kind: 'done', ahead: null };
  const named: number[] = [];
  const seen = new Set([own.sha]);
  for (const c of ahead) {
    const inBase = c === null || (c.mergedSeq !== null && c.mergedSeq < own.builtSeq);
    if (inBase || c.pullRequest === own.pullRequest || seen.has(c.sha)) return { kind: 'done', ahead: named };
    seen.add(c.sha);
    if (!named.includes(c.pullRequest)) named.push(c.pullRequest);
  }
  const last = chain[chain.length - 1]!;
  if (ahead.length >= QUEUE_AHEAD_MAX || seen.has(last.parentSha)) return { kind: 'done', ahead: named };
  return { kind: 'read', sha: last.parentSha };
}
