// SPEC C3, C4, G1: an attempt claimed and never dispatched is dispatched once (compare-and-set, so one
// replica wins) or, when the loop would refuse it now, settled `not_dispatched` or `over_budget` with
// its reason — and a claim past the budget files the notice that spends it.
import { stopNoticeInput } from './stop-notice.js';
import { refusalOf } from '../core/refusal.js';
import { budgetAfterClaim } from '../core/budget.js';
import type { Dispatcher } from './dispatch.js';
import type { Logger } from './ports.js';
import { LOG_EVENTS } from '../core/events.js';
import type { ReconcileLedger } from './reconcile-port.js';
import { logSettled } from './log-settled.js';

/**
 * Attempts left `claimed` and never dispatched (C3, C4): a process died between the claim and the
 * dispatch, or the ledger failed it there. Each is dispatched once (compare-and-set, so one process
 * wins) or, when the loop would refuse it now, marked `not_dispatched` / `over_budget` with its
 * reason. At start-up, and periodically (main.ts) with a grace no live evaluation stays claimed for.
 */
export async function settleStaleClaims(deps: {
  ledger: ReconcileLedger;
  logger: Logger;
  dispatcher: Dispatcher;
  maxAttempts: number;
  olderThan: string;
  /**
   * Periodic passes start a dispatch and go on (dispatcher.dispatchInBackground): the runner may take
   * minutes to prepare a workspace, and the pass must not hold every other settlement back meanwhile.
   */
  when: 'start-up' | 'periodic';
}): Promise<{ dispatched: number; notDispatched: number }> {
  const { ledger } = deps;
  const out = { dispatched: 0, notDispatched: 0 };
  for (const a of await ledger.attemptsWithStatus(['claimed'], deps.olderThan)) {
    try {
      const attempts = await ledger.listAttempts(a.taskId);
      const position = attempts.findIndex((x) => x.id === a.id) + 1;
      const task = await ledger.getTask(a.taskId);
      let stopFlag: boolean | 'unreadable';
      try {
        stopFlag = await ledger.readStopFlag();
      } catch {
        stopFlag = 'unreadable';
      }
      // The gate as the evaluation would apply it now; read even for a claim past the budget, which
      // is settled over_budget either way but hands the Task to a person only if the loop would go on.
      const gate = task
        ? refusalOf({ verdict: 'red', fork: false, task, latestRun: await ledger.latestRun(task.id), stopFlag })
        : null;
      let why: string | null = null;
      if (budgetAfterClaim(position, deps.maxAttempts + (task?.extraAttempts ?? 0)).kind === 'over_budget')
        why = 'over_budget_after_claim';
      else if (!gate) why = 'no_task';
      else if (gate.kind === 'refuse') why = gate.reason;
      if (why) {
        const found = deps.when === 'start-up' ? 'found after restart' : 'found abandoned';
        const refusal = {
          taskId: a.taskId,
          attemptId: a.id,
          outcome: 'refused' as const,
          reason: why,
          detail: `${deps.when} reconciliation`,
        };
        if (why === 'over_budget_after_claim') {
          // G1: a claim past the budget spends it, whoever settles the claim; the evaluation that made
          // it died or loses this compare-and-set, so the notice is filed here, in the same transaction,
          // unless the gate would have stopped the loop anyway (Task done, pull request closed, stop flag).
          const notice =
            task && gate?.kind === 'proceed'
              ? stopNoticeInput(task, { maxAttempts: deps.maxAttempts, reason: 'budget_spent', headSha: a.headSha })
              : null;
          const settled = await ledger.settleOverBudget(a.id, `${found}: ${why}`, notice);
          if (settled.settled) {
            out.notDispatched++;
            if (settled.notice)
              deps.logger.warn({ taskId: a.taskId, reason: 'budget_spent' }, LOG_EVENTS.CI_AUTOFIX_EXHAUSTED);
            await logSettled(deps, a, [
              refusal,
              ...(settled.notice
                ? [
                    {
                      taskId: a.taskId,
                      attemptId: a.id,
                      outcome: 'noticed' as const,
                      reason: 'budget_spent',
                      detail: settled.notice.message,
                    },
                  ]
                : []),
            ]);
          }
        } else if (await ledger.setAttemptStatus(a.id, ['claimed'], 'not_dispatched', `${found}: ${why}`)) {
          out.notDispatched++;
          await logSettled(deps, a, [refusal]);
        }
        continue;
      }
      if (deps.when === 'periodic') {
        deps.dispatcher.dispatchInBackground(a.id, 'claimed');
        out.dispatched++;
      } else if (await deps.dispatcher.dispatch(a.id, 'claimed')) out.dispatched++;
    } catch (err) {
      deps.logger.error({ err, attemptId: a.id }, 'abandoned claim not settled; tried again on the next pass');
    }
  }
  return out;
}
