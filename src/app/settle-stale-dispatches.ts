// SPEC C4, I5: an attempt left `dispatching` by a process that is gone (decision 0014) is confirmed
// when its agent did start, and otherwise never sent again: it becomes `dispatch_unknown` and a person
// is told, because paying twice is worse than asking.
import { stopNoticeInput } from './stop-notice.js';
import type { Dispatcher } from './dispatch.js';
import type { Logger } from './ports.js';
import type { ProcessMark } from '../core/stranded-run.js';
import { LOG_EVENTS } from '../core/events.js';
import type { FindAgent, ReconcileLedger } from './reconcile-port.js';
import { gateNow } from './gate-now.js';

/**
 * Attempts left `dispatching` by a process that is gone (its lease lapsed, decision 0014): with a
 * process mark the agent did start, so the attempt is dispatched; without one it is never sent again
 * and becomes `dispatch_unknown`, visibly. At start-up, and periodically after the reconcile grace
 * (main.ts).
 */
export async function settleStaleDispatches(deps: {
  ledger: ReconcileLedger;
  logger: Logger;
  dispatcher: Dispatcher;
  maxAttempts: number;
  olderThan: string;
  /** Where the command runner's agents run on this host: looks for an agent whose start was never marked. */
  findAgent?: FindAgent;
}): Promise<{ dispatched: number; unknown: number }> {
  const { ledger } = deps;
  const out = { dispatched: 0, unknown: 0 };
  for (const a of await ledger.attemptsWithStatus(['dispatching'], deps.olderThan)) {
    try {
      // The agent's process mark is written the moment it starts: with one, it did start.
      if (a.runId !== null && (await ledger.runProcess(a.runId))) {
        await deps.dispatcher.confirmStarted(a.id, a.taskId, a.runId);
        out.dispatched++;
        continue;
      }
      // Killed between the agent's start and its mark's write: the agent carries its run's id and
      // token in its environment, so it is found, marked (a stranded-run pass then watches it, as
      // nobody else will hear it exit), and the attempt is dispatched, not unknown. The mark is
      // written only while the lease is still lapsed and the run still has none.
      const runId = a.runId;
      const found = runId !== null && deps.findAgent ? await foundAgent(ledger, deps.findAgent, runId) : null;
      if (runId !== null && found && (await ledger.markFoundAgent(runId, a.id, found, deps.olderThan))) {
        if (await deps.dispatcher.confirmStarted(a.id, a.taskId, runId)) {
          deps.logger.warn(
            { taskId: a.taskId, attemptId: a.id, runId, pid: found.pid },
            LOG_EVENTS.DISPATCH_FOUND_UNMARKED_AGENT,
          );
          out.dispatched++;
        }
        continue;
      }
      // Only if its lease is still lapsed: a live replica preparing the agent's workspace renews it.
      // I5: never sent again, so a person is told (the notice, in the same transaction), unless the
      // loop would not go on anyway or the agent's outcome settled the attempt.
      const task = await ledger.getTask(a.taskId);
      const gate = task ? await gateNow(ledger, task, { state: 'failed', attemptId: a.id }) : null;
      const notice =
        task && gate?.kind === 'proceed'
          ? stopNoticeInput(task, { maxAttempts: deps.maxAttempts, reason: 'dispatch_unconfirmed', headSha: a.headSha })
          : null;
      const expired = await ledger.expireDispatchNoticed(
        a.id,
        deps.olderThan,
        'the process died while dispatching; not sent again',
        notice,
      );
      if (expired.expired) {
        await ledger.recordDecisions([
          { taskId: a.taskId, attemptId: a.id, outcome: 'failed', reason: 'dispatch_unknown' },
          ...(expired.notice
            ? [
                {
                  taskId: a.taskId,
                  attemptId: a.id,
                  outcome: 'noticed' as const,
                  reason: 'dispatch_unconfirmed',
                  detail: expired.notice.message,
                },
              ]
            : []),
        ]);
        out.unknown++;
      }
    } catch (err) {
      // One attempt that cannot be settled now does not hold back the others; the next pass retries.
      deps.logger.error({ err, attemptId: a.id }, 'abandoned dispatch not settled; tried again on the next pass');
    }
  }
  return out;
}

async function foundAgent(ledger: ReconcileLedger, findAgent: FindAgent, runId: number): Promise<ProcessMark | null> {
  const run = await ledger.getRun(runId);
  return run?.tokenHash ? findAgent(runId, run.tokenHash) : null;
}
