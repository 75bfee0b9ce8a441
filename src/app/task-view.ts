// The Task as the API shows it: state, CI head, attempts, runs, rejections and the notice. Text
// that came from CI is shown bounded (A1): a check name at its cap, a rejection's body as its head
// and tail, so one delivery cannot make the view megabytes long.
import type { Ledger } from './ledger-port.js';
import type { Task } from '../core/types.js';
import { boundCheckName, boundText } from '../core/bounded-text.js';

/** How much of a rejection's body the view shows. */
const VIEW_BODY_CHARS = 4000;

/** A Task's view only reads. */
export type TaskViewLedger = Pick<Ledger, 'getNotice' | 'getTask' | 'listAttempts' | 'listRejections' | 'listRuns'>;

export async function taskView(ledger: TaskViewLedger, id: number) {
  const task = await ledger.getTask(id);
  if (!task) return null;
  const [attempts, runs, rejections, notice] = await Promise.all([
    ledger.listAttempts(id),
    ledger.listRuns(id),
    ledger.listRejections(id),
    ledger.getNotice(id),
  ]);
  return {
    ...task,
    gate: gateView(task.gate),
    attempts: attempts.map((a) => ({
      id: a.id,
      coordinate: a.coordinate,
      source: a.source,
      headSha: a.headSha,
      fingerprint: a.fingerprint,
      status: a.status,
      state: a.state,
      outcome: a.outcome,
      outcomeReason: a.outcomeReason,
      runId: a.runId,
      rejectionId: a.rejectionId,
      createdAt: a.createdAt,
    })),
    runs: runs.map((r) => ({
      id: r.id,
      action: r.action,
      autoResume: r.autoResume,
      state: r.state,
      attemptId: r.attemptId,
      agentSeenAt: r.agentSeenAt,
      createdAt: r.createdAt,
    })),
    rejections: rejections.map((r) => ({
      id: r.id,
      source: r.source,
      headSha: r.headSha,
      checkName: r.checkName === null ? null : boundCheckName(r.checkName),
      createdAt: r.createdAt,
      body: boundText(r.body, VIEW_BODY_CHARS),
    })),
    notice: notice
      ? {
          reason: notice.reason,
          headSha: notice.headSha,
          attemptsUsed: notice.attemptsUsed,
          message: notice.message,
          createdAt: notice.createdAt,
        }
      : null,
  };
}

/** The green gate's verdict with every check name bounded (the poll reads them from GitHub). */
function gateView(gate: Task['gate']): Task['gate'] {
  if (!gate) return gate;
  return {
    ...gate,
    reasons: gate.reasons.map((r) => ({
      ...r,
      check: boundCheckName(r.check),
      ...(r.decider !== undefined ? { decider: boundCheckName(r.decider) } : {}),
    })),
    failing: gate.failing.map(boundCheckName),
  };
}
