// Issue 36 item 1: a merge queue let a pull request go. A failed check is answered by that check's own
// red on the queue's commit (check.ts finds the Task by the queue's branch), so nothing is done here;
// a reason no agent's push can fix (a conflict with a queued change, a timeout, a person's removal)
// files the Task's one notice for a person, unless the loop may not act on the Task at all (D).
import type { PullRequestChange } from '../../core/neutral-events.js';
import { routeEjection } from '../../core/merge-queue.js';
import type { Task } from '../../core/types.js';
import { resumeRefusal, type MayResumeLedger } from './may-resume.js';
import type { Outcomes } from './outcome.js';
import type { Evaluation, EvaluationResult } from './ports.js';

export type QueueEjectionPort = { ledger: MayResumeLedger; end: Outcomes };

/** The ejection's end, or null when the pull request's change is all there is to record. */
export async function queueEjected(
  port: QueueEjectionPort,
  ev: Evaluation,
  task: Task,
  e: PullRequestChange,
): Promise<EvaluationResult | null> {
  if (!e.dequeued) return null;
  const route = routeEjection(e.dequeued);
  if (route.kind !== 'person') return null;
  const known = Object.assign(ev, { task });
  const refusal = await resumeRefusal(port.ledger, { verdict: 'red', fork: e.fork, task });
  if (refusal) return port.end.refuse(known, refusal, `removed from the merge queue: ${route.why}`);
  return port.end.notice(known, 'queue_ejected', e.headSha, route.why);
}
