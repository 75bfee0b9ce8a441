// V4: an attempt whose run a shutdown or a crash interrupted is offered again once, free; interrupted
// twice, a person is told. Run at start-up and by the periodic pass (app/reconcile.ts), so a
// webhook-only install needs no poll for it.
import { fileStopNotice } from './stop-notice.js';
import type { Dispatcher } from './dispatch.js';
import type { AgentLedger } from './agent-port.js';
import type { Logger } from './ports.js';
import { interruptedRunFate } from '../core/stranded-run.js';
import { LOG_EVENTS } from '../core/events.js';
import type { ReconcileLedger } from './reconcile-port.js';
import { gateNow } from './gate-now.js';
import { logSettled } from './log-settled.js';

/**
 * V4: every running attempt whose run ended interrupted (a shutdown's grace ran out, or its agent died
 * with its fixloop), decided by core/stranded-run.ts interruptedRunFate: offered again once, free —
 * the same attempt row back to `claimed` by compare-and-set, so one replica wins and the budget (C3
 * counts rows) is not spent — then dispatched through the gate as any claim; or, interrupted again,
 * the Task's notice (`interrupted_twice`) and the attempt retryable, which the notice stops. Only a
 * run already ended is looked at, so a sibling replica never re-offers a run still running there.
 */
export async function settleInterruptedRuns(deps: {
  ledger: ReconcileLedger;
  logger: Logger;
  dispatcher: Dispatcher;
  agent: Pick<AgentLedger, 'livesInState' | 'moveAttempt'>;
  maxAttempts: number;
  when: 'start-up' | 'periodic';
}): Promise<{ reoffered: number; noticed: number }> {
  const { ledger, logger } = deps;
  const out = { reoffered: 0, noticed: 0 };
  for (const life of await deps.agent.livesInState(['running'])) {
    if (life.outcome !== null) continue;
    try {
      const attempt = (await ledger.listAttempts(life.taskId)).find((a) => a.id === life.attemptId);
      if (!attempt || attempt.runId === null) continue;
      const run = await ledger.getRun(attempt.runId);
      if (!run) continue;
      const fate = interruptedRunFate({
        runEnded: run.state !== 'queued' && run.state !== 'running',
        interrupted: run.interruptedAt != null,
        hadOutcome: false,
        interruptions: attempt.interruptions ?? 0,
      });
      if (fate.kind === 'none') continue;
      const task = await ledger.getTask(attempt.taskId);
      if (fate.kind === 'notice') {
        // The notice first (a compare-and-set on the Task: one, whoever races), then the attempt
        // leaves flight; a crash in between leaves it here to be found again, and the notice is not doubled.
        const notice =
          task &&
          (await fileStopNotice(ledger, task, {
            maxAttempts: deps.maxAttempts,
            reason: fate.reason,
            headSha: attempt.headSha,
          }));
        if (!(await deps.agent.moveAttempt(attempt.id, ['running'], 'retryable', { withoutOutcome: true }))) continue;
        out.noticed++;
        if (notice) {
          logger.warn(
            { taskId: attempt.taskId, attemptId: attempt.id, reason: fate.reason },
            LOG_EVENTS.CI_AUTOFIX_EXHAUSTED,
          );
          await logSettled(deps, attempt, [
            {
              taskId: attempt.taskId,
              attemptId: attempt.id,
              outcome: 'noticed',
              reason: fate.reason,
              detail: notice.message,
            },
          ]);
        }
        continue;
      }
      // The gate as an evaluation would apply it now: a person's stop, a closed pull request or a
      // notice filed since leave the attempt to the ordinary rules (retryable, which they refuse too).
      const gate = task ? await gateNow(ledger, task, { state: 'failed', attemptId: attempt.id }) : null;
      if (gate?.kind !== 'proceed') {
        await deps.agent.moveAttempt(attempt.id, ['running'], 'retryable', { withoutOutcome: true });
        continue;
      }
      if (!(await ledger.reofferInterrupted(attempt.id, run.id))) continue; // another replica did, or it moved on
      out.reoffered++;
      logger.warn(
        { taskId: attempt.taskId, attemptId: attempt.id, runId: run.id },
        LOG_EVENTS.RUN_INTERRUPTED_REOFFERED,
      );
      if (deps.when === 'periodic') deps.dispatcher.dispatchInBackground(attempt.id, 'claimed');
      else await deps.dispatcher.dispatch(attempt.id, 'claimed');
    } catch (err) {
      logger.error({ err, attemptId: life.attemptId }, 'interrupted run not settled; tried again on the next pass');
    }
  }
  return out;
}
