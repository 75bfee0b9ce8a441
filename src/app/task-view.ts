// The Task as the API shows it: state, CI head, attempts, runs, rejections and the notice.
import type { Ledger } from './ledger-port.js';

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
      createdAt: r.createdAt,
    })),
    rejections: rejections.map((r) => ({
      id: r.id,
      source: r.source,
      headSha: r.headSha,
      checkName: r.checkName,
      createdAt: r.createdAt,
      body: r.body.slice(0, 4000),
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
