// Start-up reconciliation (issue: crash safety; SPEC C3, C4, I4). An attempt claimed but never
// dispatched is dispatched once — by compare-and-set, so one replica wins — or, when the loop
// would refuse it now, marked `not_dispatched`. An attempt caught mid-dispatch is never re-sent:
// it becomes `dispatch_unknown`, visible, because paying twice is worse than asking a person.
import { stopNoticeInput } from './stop-notice.js';
import { refusalOf } from '../core/refusal.js';
import { budgetAfterClaim } from '../core/budget.js';
import type { Dispatcher } from './dispatch.js';
import type { AgentLedger } from './agent-port.js';
import { nextAttemptState } from '../core/attempt-state.js';
import type { Clock, Logger } from './ports.js';
import type { DecisionInput, Ledger } from './ledger-port.js';
import type { ProcessMark } from '../core/stranded-run.js';

/** Reconciliation reads unsettled attempts and unfinished runs and settles each by compare-and-set. */
export type ReconcileLedger = Pick<
  Ledger,
  | 'attemptsWithStatus'
  | 'expireDispatch'
  | 'getRun'
  | 'getTask'
  | 'latestRun'
  | 'listAttempts'
  | 'markFoundAgent'
  | 'readStopFlag'
  | 'recordDecisions'
  | 'runProcess'
  | 'setAttemptStatus'
  | 'setRunState'
  | 'settleOverBudget'
  | 'unfinishedRunsOn'
>;

/**
 * The agent process running on this host for a run, found without its mark (runners/process-mark.ts
 * findAgentProcess), as a mark to store; null when none runs here.
 */
export type FindAgent = (runId: number, tokenHash: string) => ProcessMark | null;

export async function reconcileAttempts(deps: {
  ledger: ReconcileLedger;
  logger: Logger;
  dispatcher: Dispatcher;
  maxAttempts: number;
  /** Only rows untouched for this long are reconciled (other live replicas may own newer ones). */
  olderThan: string;
  agent: AgentLedger;
  /** This machine, as the command runner marks the processes it starts (stranded-run.ts). */
  host?: string;
  /** Looks on this host for an agent whose start was never marked (settleStaleDispatches). */
  findAgent?: FindAgent;
}): Promise<{
  dispatched: number;
  notDispatched: number;
  unknown: number;
  retryable: number;
  strandedEnded: number;
  strandedWatched: number;
}> {
  const { ledger } = deps;
  const out = { dispatched: 0, notDispatched: 0, unknown: 0, retryable: 0, strandedEnded: 0, strandedWatched: 0 };

  const settled = await settleStaleDispatches({
    ledger,
    logger: deps.logger,
    dispatcher: deps.dispatcher,
    olderThan: deps.olderThan,
    ...(deps.findAgent ? { findAgent: deps.findAgent } : {}),
  });
  out.dispatched += settled.dispatched;
  out.unknown += settled.unknown;

  // L1: runs whose agent was started on this host by a fixloop process that is gone: ended now if
  // the agent is gone too, else watched until it exits; either way the attempt then follows I3.
  if (deps.host !== undefined) {
    const adopted = await adoptStrandedRuns({
      ledger,
      logger: deps.logger,
      dispatcher: deps.dispatcher,
      host: deps.host,
    });
    out.strandedEnded = adopted.ended;
    out.strandedWatched = adopted.watching;
  }

  // I4: a running attempt whose run already ended without an outcome becomes retryable; queued ones
  // are kept (dispatched below, or left to their live replica). After the passes above, which may
  // have just moved an attempt to running whose run had already ended.
  for (const life of await deps.agent.livesInState(['running'])) {
    const attempt = (await ledger.listAttempts(life.taskId)).find((a) => a.id === life.attemptId);
    const run = attempt?.runId != null ? await ledger.getRun(attempt.runId) : null;
    const ended = run ? ['completed', 'failed', 'cancelled'].includes(run.state) : true;
    const t = nextAttemptState(life.state, { kind: 'restarted', runEnded: ended, hadOutcome: life.outcome !== null });
    if (t.kind === 'move' && (await deps.agent.moveAttempt(life.attemptId, ['running'], t.to))) out.retryable++;
  }

  const claims = await settleStaleClaims({
    ledger,
    logger: deps.logger,
    dispatcher: deps.dispatcher,
    maxAttempts: deps.maxAttempts,
    olderThan: deps.olderThan,
    when: 'start-up',
  });
  out.dispatched += claims.dispatched;
  out.notDispatched += claims.notDispatched;
  if (Object.values(out).some((n) => n > 0)) deps.logger.warn(out, 'reconciled attempts left by a previous process');
  return out;
}

/**
 * L1: every unfinished run whose agent was started on this host, decided by core/stranded-run.ts —
 * at start-up, and periodically on every running replica (main.ts), since a sibling replica on this
 * host can die while this one runs. Runs this process already watches are counted, not watched twice.
 */
async function adoptStrandedRuns(deps: {
  ledger: ReconcileLedger;
  logger: Logger;
  dispatcher: Dispatcher;
  host: string;
}): Promise<{ ended: number; watching: number }> {
  const out = { ended: 0, watching: 0 };
  for (const { run, process } of await deps.ledger.unfinishedRunsOn(deps.host)) {
    // One run that cannot be settled now (a failed write) does not hold back the others: it is
    // found again by the next pass.
    try {
      const fate = await deps.dispatcher.adoptStranded(run, process);
      if (fate === 'ended') out.ended++;
      if (fate === 'watching') out.watching++;
    } catch (err) {
      deps.logger.error({ err, runId: run.id }, 'stranded run not settled; tried again on the next pass');
    }
  }
  return out;
}

/**
 * Attempts left `dispatching` by a process that is gone (its lease lapsed, decision 0014): with a
 * process mark the agent did start, so the attempt is dispatched; without one it is never sent again
 * and becomes `dispatch_unknown`, visibly. At start-up, and periodically after the reconcile grace
 * (main.ts).
 */
async function settleStaleDispatches(deps: {
  ledger: ReconcileLedger;
  logger: Logger;
  dispatcher: Dispatcher;
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
            'dispatch.found_unmarked_agent: its start was never recorded; found by its environment',
          );
          out.dispatched++;
        }
        continue;
      }
      // Only if its lease is still lapsed: a live replica preparing the agent's workspace renews it.
      if (await ledger.expireDispatch(a.id, deps.olderThan, 'the process died while dispatching; not sent again')) {
        if (a.runId !== null) await ledger.setRunState(a.runId, ['queued'], 'failed');
        await ledger.recordDecisions([
          { taskId: a.taskId, attemptId: a.id, outcome: 'failed', reason: 'dispatch_unknown' },
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

/**
 * Attempts left `claimed` and never dispatched (C3, C4): a process died between the claim and the
 * dispatch, or the ledger failed it there. Each is dispatched once (compare-and-set, so one process
 * wins) or, when the loop would refuse it now, marked `not_dispatched` / `over_budget` with its
 * reason. At start-up, and periodically (main.ts) with a grace no live evaluation stays claimed for.
 */
async function settleStaleClaims(deps: {
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
            if (settled.notice) deps.logger.warn({ taskId: a.taskId, reason: 'budget_spent' }, 'ci.autofix_exhausted');
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

/** The decision-log rows of a claim already settled: a failed write is logged as such, since no later pass comes back to it. */
async function logSettled(
  deps: { ledger: ReconcileLedger; logger: Logger },
  a: { id: number; taskId: number },
  rows: DecisionInput[],
): Promise<void> {
  await deps.ledger
    .recordDecisions(rows)
    .catch((err: unknown) =>
      deps.logger.error(
        { err, attemptId: a.id, taskId: a.taskId, rows },
        'claim settled, but its decision-log rows were not written',
      ),
    );
}

/**
 * After start-up, every little while (default 30 s): runs a sibling replica on this host left
 * behind when it died (decision 0013), and attempts a process left claimed, or dispatching with a
 * lapsed lease (decision 0014), a dead sibling's or this process's own after a ledger failure. With
 * SQLite's grace of 0 the periodic pass waits a minute, far longer than any live evaluation holds a
 * claim. One pass at a time; `stop()` waits for the one in progress.
 */
export function startPeriodicReconciliation(deps: {
  ledger: ReconcileLedger;
  logger: Logger;
  dispatcher: Dispatcher;
  clock: Clock;
  host: string;
  findAgent?: FindAgent;
  maxAttempts: number;
  /** The start-up grace (ms); 0 (SQLite) means a minute here. */
  graceMs: number;
  everyMs: number;
}): { stop(): Promise<void> } {
  const grace = deps.graceMs > 0 ? deps.graceMs : 60_000;
  const { ledger, logger, dispatcher } = deps;
  let pass: Promise<void> | null = null;
  const timer = setInterval(() => {
    if (pass) return;
    pass = (async () => {
      await adoptStrandedRuns({ ledger, logger, dispatcher, host: deps.host });
      const olderThan = new Date(deps.clock.now().getTime() - grace).toISOString();
      await settleStaleDispatches({
        ledger,
        logger,
        dispatcher,
        olderThan,
        ...(deps.findAgent ? { findAgent: deps.findAgent } : {}),
      });
      await settleStaleClaims({
        ledger,
        logger,
        dispatcher,
        maxAttempts: deps.maxAttempts,
        olderThan,
        when: 'periodic',
      });
    })()
      .catch((err: unknown) => logger.error({ err }, 'periodic reconciliation failed'))
      .finally(() => {
        pass = null;
      });
  }, deps.everyMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await pass;
    },
  };
}
