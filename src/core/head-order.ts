// Which commit a CI result or a pull-request event is about, and whether it may move the Task's head
// (SPEC B1, B5). The delivery's own pull-request head pointer decides; the clock only orders what no
// pointer places, and a result with neither is refused rather than given "now". A push names the
// commit it replaced, so it moves the head off that commit whatever the clock says (decision 0019).
import type { CheckResult, PullRequestChange } from './neutral-events.js';

/**
 * How the ledger's head compare-and-set orders a write (B1); the decision picks it, the database
 * enforces it. `clock`: strictly later than the head's time, so a tie holds the head (a check
 * result, the poll). `clock_or_tie`: not earlier — a pull request reporting its own head wins a
 * same-second tie with a check result, which only says the commit was the head when it finished.
 * `replaces`: the head is still the commit this push replaced; no clock involved, and the head's
 * time never moves back.
 */
export type HeadMove = { by: 'clock' } | { by: 'clock_or_tie' } | { by: 'replaces'; before: string };

export type HeadDecision =
  /** The result is about the head; `advance` says the Task's head pointer must move to it (by CAS). */
  | { kind: 'current'; advance: boolean; seenAt: string | null }
  | { kind: 'refuse'; reason: 'superseded_head' | 'no_usable_time'; detail: string };

export interface HeadView {
  pullRequest: number;
  ciHeadSha: string | null;
  ciHeadSeenAt: string | null;
}

export function decideHead(
  result: Pick<CheckResult, 'sha' | 'pointers' | 'completedAt'>,
  task: HeadView,
): HeadDecision {
  const pointer = result.pointers.find((p) => p.number === task.pullRequest);
  const t = result.completedAt;

  if (pointer) {
    if (pointer.headSha !== result.sha) {
      return {
        kind: 'refuse',
        reason: 'superseded_head',
        detail: `result for ${short(result.sha)}, pull request head is ${short(pointer.headSha)}`,
      };
    }
    if (task.ciHeadSha === null || task.ciHeadSha === result.sha) {
      return { kind: 'current', advance: task.ciHeadSha === null, seenAt: t };
    }
    // The pointer names this commit, yet the Task already holds another head. Only an older
    // delivery (a redelivery captured before the last push) can say that; order by its own time.
    if (t === null)
      return {
        kind: 'refuse',
        reason: 'no_usable_time',
        detail: 'pointer disagrees with the known head and the delivery has no time',
      };
    if (task.ciHeadSeenAt !== null && !isLater(t, task.ciHeadSeenAt)) {
      return {
        kind: 'refuse',
        reason: 'superseded_head',
        detail: `delivery from ${t} is older than head ${short(task.ciHeadSha)} seen ${task.ciHeadSeenAt}`,
      };
    }
    return { kind: 'current', advance: true, seenAt: t };
  }

  // No pointer (fork pull request, push-triggered run, commit status): the completion time orders.
  if (t === null) return { kind: 'refuse', reason: 'no_usable_time', detail: 'no head pointer and no completion time' };
  if (task.ciHeadSha === null) return { kind: 'current', advance: true, seenAt: t };
  if (task.ciHeadSha === result.sha) return { kind: 'current', advance: false, seenAt: t };
  if (task.ciHeadSeenAt !== null && !isLater(t, task.ciHeadSeenAt)) {
    return {
      kind: 'refuse',
      reason: 'superseded_head',
      detail: `completed ${t}, head ${short(task.ciHeadSha)} seen ${task.ciHeadSeenAt}`,
    };
  }
  return { kind: 'current', advance: true, seenAt: t };
}

export type PullRequestHeadDecision =
  /** The Task already holds this head. */
  | { kind: 'hold' }
  | { kind: 'advance'; seenAt: string | null; move: HeadMove }
  | { kind: 'refuse'; reason: 'superseded_head' | 'no_usable_time'; detail: string };

/**
 * B1, B5 for a `pull_request` delivery: the pull request's own head. A `synchronize` whose `before`
 * is the Task's head moves it to the new commit whatever the clock says; otherwise the event must
 * not be older than the head it would replace, so a stale redelivery never moves the head back.
 */
export function decidePullRequestHead(
  e: Pick<PullRequestChange, 'headSha' | 'before' | 'updatedAt'>,
  task: HeadView,
): PullRequestHeadDecision {
  if (task.ciHeadSha === e.headSha) return { kind: 'hold' };
  if (e.before !== null && task.ciHeadSha === e.before)
    return { kind: 'advance', seenAt: e.updatedAt, move: { by: 'replaces', before: e.before } };
  if (task.ciHeadSha === null) return { kind: 'advance', seenAt: e.updatedAt, move: { by: 'clock_or_tie' } };
  const t = e.updatedAt;
  if (t === null)
    return {
      kind: 'refuse',
      reason: 'no_usable_time',
      detail: `pull request head ${short(e.headSha)} is not the push from ${short(task.ciHeadSha)}, and has no time`,
    };
  if (task.ciHeadSeenAt !== null && !notEarlier(t, task.ciHeadSeenAt))
    return {
      kind: 'refuse',
      reason: 'superseded_head',
      detail: `pull request updated ${t} is older than head ${short(task.ciHeadSha)} seen ${task.ciHeadSeenAt}`,
    };
  return { kind: 'advance', seenAt: t, move: { by: 'clock_or_tie' } };
}

/**
 * Strictly later as instants, never as text: string order breaks on offsets (`+02:00`) and on
 * precision (`…00Z` vs `…00.500Z`). A time that cannot be parsed is never later (do not move the head).
 */
function isLater(t: string, than: string): boolean {
  const a = Date.parse(t);
  const b = Date.parse(than);
  return Number.isFinite(a) && Number.isFinite(b) && a > b;
}

/** Later or the same instant; like isLater, a time that cannot be parsed never moves the head. */
function notEarlier(t: string, than: string): boolean {
  const a = Date.parse(t);
  const b = Date.parse(than);
  return Number.isFinite(a) && Number.isFinite(b) && a >= b;
}

function short(sha: string): string {
  return sha.slice(0, 12);
}
