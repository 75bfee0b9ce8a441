// Issue 36 item 1: a merge queue let a pull request go. A failed check is answered by that check's own
// red on the queue's commit (check.ts finds the Task by the queue's branch), so nothing is done here;
// a reason no agent's push can fix (a conflict with a queued change, a timeout, a person's removal)
// files the Task's one notice for a person, unless the loop may not act on the Task at all (D).
import type { CheckResult, PullRequestChange } from '../../core/neutral-events.js';
import { routeEjection, type QueueEjection } from '../../core/merge-queue.js';
import { boundCheckName } from '../../core/bounded-text.js';
import type { Task } from '../../core/types.js';
import { resumeRefusal, type MayResumeLedger } from './may-resume.js';
import type { Outcomes } from './outcome.js';
import type { Evaluation, EvaluationResult } from './ports.js';

export type QueueEjectionPort = { ledger: MayResumeLedger; end: Outcomes };

/** Decision 0075: the host, asked why its queue let a pull request go (a queue run cancelled). */
export type QueueDropPort = QueueEjectionPort & {
  queueDropOf?(repository: string, number: number): Promise<{ reason: QueueEjection; said: string } | null>;
};

/**
 * Decision 0075: a queue's run was cancelled with no check failing (a host that drops a change from its
 * queue may cancel its run and say why only in its history). The host is asked; a
 * reason no agent can fix goes to a person as a `dequeued` one does. Null: nothing to tell (it is
 * queued again, its run only restarted behind another's removal, a failed check answered by its red).
 */
export async function queueDropped(
  port: QueueDropPort,
  ev: Evaluation,
  task: Task,
  r: CheckResult,
): Promise<EvaluationResult | null> {
  if (!r.queue?.cancelled || !port.queueDropOf) return null;
  const drop = await port.queueDropOf(r.repository, r.queue.pullRequest).catch(() => null);
  if (!drop) return null;
  const route = routeEjection(drop.reason);
  if (route.kind !== 'person') return null;
  const known = Object.assign(ev, { task });
  const why = `${route.why} (the host says: “${boundCheckName(drop.said)}”)`;
  const refusal = await resumeRefusal(port.ledger, { verdict: 'red', fork: r.fork, task });
  if (refusal) return port.end.refuse(known, refusal, `removed from the merge queue: ${why}`);
  return port.end.notice(known, 'queue_ejected', task.ciHeadSha, why);
}

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
