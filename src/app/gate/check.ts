// The first step of a CI result (SPEC A5, A6, B1, B2, B5, C2, T3, T6): is this result for us? Its
// repository is routed to a Work, its Task found, its commit ordered against the Task's head (moving
// the head when it is newer), and only a red of the head not answered before goes on — or a green
// that a waiting judgement of the head's matrix needed, which sends that head's newest red on.
import type { CheckResult } from '../../core/neutral-events.js';
import { decideHead } from '../../core/head-order.js';
import { decideQueueHead } from '../../core/queue-head.js';
import { queueDropped, type QueueDropPort } from './queue-ejection.js';
import { verdictRefusal } from '../../core/refusal.js';
import { headChecksOf } from '../../core/head-checks.js';
import { boundCheckName } from '../../core/bounded-text.js';
import { routeRefusalWords, routeRepository } from '../../core/route.js';
import { LOG_EVENTS } from '../../core/events.js';
import type { Task } from '../../core/types.js';
import type { Outcomes } from './outcome.js';
import {
  HEAD_EVENTS_MAX,
  type EvaluateDeps,
  type EvaluateLedger,
  type Evaluation,
  type EvaluationResult,
  type Step,
} from './ports.js';

/** Finds the Task, moves its head and marks it red; reads what a waiting judgement needs. */
export type CheckPort = Pick<EvaluateDeps, 'works' | 'logger' | 'pullRequestHead' | 'newHead' | 'classify'> &
  Omit<QueueDropPort, 'end'> & {
    ledger: Pick<
      EvaluateLedger,
      | 'findTaskWithClaim'
      | 'findTaskByPullRequest'
      | 'findTaskByBranch'
      | 'advanceHead'
      | 'getTask'
      | 'markRed'
      | 'getNotice'
      | 'reopenStop'
      | 'listAttempts'
      | 'headCheckEvents'
      | 'isClaimed'
    >;
    end: Outcomes;
  };

/** A red of the Task's head that nobody answered yet, with the Task as it is now. */
export interface RedOfHead {
  eventId: number | null;
  red: CheckResult;
  task: Task;
}

export async function checkResult(
  port: CheckPort,
  ev: Evaluation,
  eventId: number | null,
  r: CheckResult,
): Promise<Step<RedOfHead>> {
  const { ledger, end } = port;
  const done = (result: EvaluationResult): Step<RedOfHead> => ({ kind: 'done', result });
  const route = routeRepository(port.works, r.repository);
  if (route.kind === 'refuse') return done(end.refuse(ev, route.reason, routeRefusalWords(route, r.repository)));

  const found = await taskOfResult(port, r);
  const task = found?.task ?? null;
  if (!task) return done(end.refuse(ev, 'no_task'));
  ev.task = task;

  // B5, B1: which commit is this about, and may it move the head?
  // Issue 36: a merge queue's commit is about the head the queue was built from, and moves no head.
  const head = r.queue ? decideQueueHead(r.queue, task, r.completedAt) : decideHead(await withHostHeads(port, r), task);
  if (head.kind === 'refuse') return done(end.refuse(ev, head.reason, head.detail));
  if (head.advance) {
    const moved = await ledger.advanceHead(task.id, r.sha, head.seenAt, r.verdict === 'red' ? 'red' : 'pending');
    if (!moved) {
      const again = await ledger.getTask(task.id);
      if (!again || again.ciHeadSha !== r.sha)
        return done(end.refuse(ev, 'superseded_head', 'another writer moved the head first'));
    }
    await port.newHead?.(task.id, r.sha); // I3: a new head seen by webhook is progress at once
  }
  const current = await reopenedByApproval(port, ev, task, r);
  // Only a completed failure is actionable: nothing more to read for any other verdict, unless the
  // judgement of the head's failures waited for this very result (T6, decision 0029).
  const notRed = verdictRefusal(r.verdict);
  if (notRed) {
    const waited = r.verdict === 'green' && !head.advance ? await redAwaitingMatrix(port, current, r) : null;
    // Decision 0075: a queue's run cancelled may be the pull request dropped from the queue.
    const dropped = waited ? null : await queueDropped({ ...port, end }, ev, current, r);
    if (dropped) return done(dropped);
    if (!waited) return done(end.refuse(ev, notRed));
    return unanswered(port, ev, { eventId: waited.eventId, red: waited.result, task: current }, false, false);
  }
  // B2: red only, never passing — and after the head CAS, so a concurrent green for the same
  // new head (which may have won the move) can never leave the Task looking not red.
  if (!r.queue && (head.advance || current.ciState !== 'red')) await ledger.markRed(current.id, r.sha);
  port.logger.info({ taskId: current.id, sha: r.sha, check: boundCheckName(r.name) }, LOG_EVENTS.CI_CHECK_FAILED);
  return unanswered(port, ev, { eventId, red: r, task: current }, head.advance || current !== task, found?.claimed);
}

/**
 * C2: a head answered before is only read again (a storm's next job, a redelivery, the poll's
 * re-offer): the loser is told the coordinate is claimed, with nothing more read or judged. A filed
 * notice or a parked Task is still reported as such (G2), from the row in hand. A claim is never
 * taken back, so one seen with the Task still holds; one made since loses at the claim's index.
 */
async function unanswered(
  port: CheckPort,
  ev: Evaluation,
  found: RedOfHead,
  /** When the head moved above, the gate decides on the Task as it is now, read again. */
  moved: boolean,
  /** Whether the result's commit was claimed when the Task was read; undefined: not read yet. */
  claimed: boolean | undefined,
): Promise<Step<RedOfHead>> {
  const task = moved ? ((await port.ledger.getTask(found.task.id)) ?? found.task) : found.task;
  ev.task = task;
  if (task.noticeAt === null && !task.parkedAt && (claimed ?? (await port.ledger.isClaimed(task.id, found.red.sha))))
    return { kind: 'done', result: port.end.refuse(ev, 'coordinate_claimed') };
  return { kind: 'go', ...found, task };
}

/**
 * The Task a CI result points at, by pull request with whether its commit is claimed (C2), else by
 * branch (claim unknown). When the claim cannot be read with the Task, the Task is read alone, so
 * a failing attempt ledger is told against the Task it belongs to (C4).
 */
async function taskOfResult(port: CheckPort, r: CheckResult): Promise<{ task: Task; claimed?: boolean } | null> {
  const { ledger } = port;
  const numbers = r.queue ? [r.queue.pullRequest] : r.pointers.map((p) => p.number);
  let found: { task: Task; claimed?: boolean } | null;
  try {
    found = await ledger.findTaskWithClaim(r.repository, numbers, r.sha);
  } catch {
    const task = await ledger.findTaskByPullRequest(r.repository, numbers);
    found = task && { task };
  }
  if (found) return found;
  const byBranch = r.branch ? await ledger.findTaskByBranch(r.repository, r.branch) : null;
  return byBranch && { task: byBranch };
}

/**
 * B5 on GitLab: a CI hook names its merge request but not its head; the merge request's own head,
 * read from the host now, is the pointer. Unreadable, the pointer stays the result's own commit and
 * the completion time orders it (the poll, which reads the head, corrects a wrong call).
 */
async function withHostHeads(port: CheckPort, r: CheckResult): Promise<CheckResult> {
  const lookup = port.pullRequestHead;
  if (!lookup || !r.pointers.some((p) => p.unconfirmed)) return r;
  const pointers = await Promise.all(
    r.pointers.map(async (p) => {
      if (!p.unconfirmed) return p;
      const headSha = await lookup(r.repository, p.number).catch(() => null);
      return headSha === null ? p : { number: p.number, headSha, fork: p.fork };
    }),
  );
  return { ...r, pointers };
}

/**
 * T3: a stop that waited for a person to approve a run on this head is answered once a completed
 * result other than `action_required` arrives for that head: the run was approved and ran. The loop
 * opens a new stop round (no attempt granted past the budget), and the result is judged as any other.
 */
async function reopenedByApproval(port: CheckPort, ev: Evaluation, task: Task, r: CheckResult): Promise<Task> {
  const { ledger } = port;
  if (task.noticeAt === null || task.parkedAt !== null || r.conclusion === 'action_required') return task;
  if (task.ciHeadSha !== r.sha) return task;
  const notice = await ledger.getNotice(task.id);
  if (notice?.reason !== 'approval_required' || notice.headSha !== r.sha) return task;
  if (await ledger.reopenStop(task.id, task.stopRound)) {
    port.end.log({
      ...ev.base,
      taskId: task.id,
      outcome: 'reopened',
      reason: 'approval_given',
      detail: `${boundCheckName(r.name)} completed (${r.conclusion ?? 'no conclusion'}) on ${r.sha.slice(0, 12)}: the run was approved`,
    });
  }
  const fresh = (await ledger.getTask(task.id)) ?? task;
  ev.task = fresh;
  return fresh;
}

/**
 * T6: a green result may be the one an undecided judgement waited for (a check of the last head
 * passing now, half a matrix fixed). When the head is red, not yet claimed and an earlier
 * head was answered, the head's newest red is judged again with everything stored for it.
 */
async function redAwaitingMatrix(
  port: CheckPort,
  task: Task,
  r: CheckResult,
): Promise<{ eventId: number | null; result: CheckResult } | null> {
  if (task.ciHeadSha !== r.sha || task.ciState !== 'red' || task.noticeAt !== null) return null;
  const attempts = await port.ledger.listAttempts(task.id);
  if (attempts.some((a) => a.coordinate === r.sha)) return null;
  const last = attempts.filter((a) => a.source === 'gate').at(-1);
  if (!last || last.headSha === r.sha) return null;
  return headChecksOf(await port.ledger.headCheckEvents(r.repository, r.sha, HEAD_EVENTS_MAX), port.classify).newestRed;
}
