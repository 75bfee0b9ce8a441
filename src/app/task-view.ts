// The Task as the API shows it: state, CI head, attempts, runs, rejections and the notice. Text
// that came from CI is shown bounded (A1): a check name at its cap, a rejection's body as its head
// and tail, so one delivery cannot make the view megabytes long. V4: with the configured grant cap
// given, the view says how many grants of one more attempt the Task used, its cap and what is left.
import type { Ledger } from './ledger-port.js';
import type { Task } from '../core/types.js';
import { boundCheckName, boundText } from '../core/bounded-text.js';
import { grantAllowance } from '../core/grant-cap.js';

/** How much of a rejection's body the view shows. */
const VIEW_BODY_CHARS = 4000;

/** A Task's view only reads. */
export type TaskViewLedger = Pick<Ledger, 'getNotice' | 'getTask' | 'listAttempts' | 'listRejections' | 'listRuns'>;

export async function taskView(ledger: TaskViewLedger, id: number, opts: { maxGrants?: number } = {}) {
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
    // C3: the budget counts attempt rows; a run interrupted by a restart and offered again is the same row (V4).
    attemptsUsed: attempts.length,
    grants: opts.maxGrants === undefined ? null : grantAllowance(task.extraAttempts, opts.maxGrants, task.maxGrants),
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
      interruptions: a.interruptions ?? 0,
      createdAt: a.createdAt,
    })),
    runs: runs.map((r) => ({
      id: r.id,
      action: r.action,
      autoResume: r.autoResume,
      state: r.state,
      attemptId: r.attemptId,
      agentSeenAt: r.agentSeenAt,
      interruptedAt: r.interruptedAt ?? null,
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
