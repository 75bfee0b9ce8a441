// B5 for a result of a merge queue's commit (issue 36 item 1): which head it is about, never moved by it.
// Apart from merge-queue.ts, which neutral-events.ts reads, so head-order.ts is not imported in a loop.
import type { HeadDecision } from './head-order.js';
import type { MergeQueueContext } from './merge-queue.js';

/**
 * B5 for a result of the queue's commit: it is about the pull request's head the queue was built
 * from, which moves no head of its own. A queue built from an earlier head is superseded; a Task
 * whose head is not known yet takes the queue's word for it.
 */
export function decideQueueHead(
  queue: Pick<MergeQueueContext, 'headSha'>,
  task: { ciHeadSha: string | null },
  completedAt: string | null,
): HeadDecision {
  if (queue.headSha !== null && task.ciHeadSha !== null && task.ciHeadSha !== queue.headSha)
    return {
      kind: 'refuse',
      reason: 'superseded_head',
      detail: `the merge queue tested ${queue.headSha.slice(0, 12)}, the pull request's head is ${task.ciHeadSha.slice(0, 12)}`,
    };
  return { kind: 'current', advance: false, seenAt: completedAt };
}
