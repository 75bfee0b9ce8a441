// Which commit a CI result is about, and whether it may move the Task's head (SPEC B1, B5).
// The delivery's own pull-request head pointer decides; the clock only orders results that carry
// no pointer, and a result with neither is refused rather than given "now".
import type { CheckResult } from './classify.js';

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

/**
 * Strictly later as instants, never as text: string order breaks on offsets (`+02:00`) and on
 * precision (`…00Z` vs `…00.500Z`). A time that cannot be parsed is never later (do not move the head).
 */
function isLater(t: string, than: string): boolean {
  const a = Date.parse(t);
  const b = Date.parse(than);
  return Number.isFinite(a) && Number.isFinite(b) && a > b;
}

function short(sha: string): string {
  return sha.slice(0, 12);
}
