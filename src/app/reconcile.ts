// Start-up reconciliation (issue: crash safety; SPEC C3, C4, I4). An attempt claimed but never
// dispatched is dispatched once — by compare-and-set, so one replica wins — or, when the loop
// would refuse it now, marked `not_dispatched`. An attempt caught mid-dispatch is never re-sent:
// it becomes `dispatch_unknown`, and a person is asked (its notice), because paying twice is worse.
// The periodic pass also keeps every loop alive (SPEC I5): the I3 deadline and the run's end move
// attempts without a poll, and what core/liveness.ts finds stalled is retried, offered or told.
// V4: an attempt whose run a shutdown or a crash interrupted is offered again once, free, by these
// passes themselves (start-up first), so a webhook-only install needs no poll for it.
import { fileStopNotice, stopNoticeInput } from './stop-notice.js';
import { livenessOf, type LivenessAttempt, type LivenessTask, type Stall } from '../core/liveness.js';
import { progressWithoutPoll } from './progress-check.js';
import { classifyDelivery } from '../core/classify.js';
import type { Task } from '../core/types.js';
import type { Evaluator } from './evaluate.js';
import { refusalOf } from '../core/refusal.js';
import { budgetAfterClaim } from '../core/budget.js';
import type { Dispatcher } from './dispatch.js';
import type { AgentLedger } from './agent-port.js';
import { nextAttemptState, type AttemptState, type FixOutcome } from '../core/attempt-state.js';
import type { Clock, Logger } from './ports.js';
import type { DecisionInput, Ledger } from './ledger-port.js';
import { interruptedRunFate, type ProcessMark } from '../core/stranded-run.js';
import { LOG_EVENTS } from '../core/events.js';

/** Reconciliation reads unsettled attempts and unfinished runs and settles each by compare-and-set. */
export type ReconcileLedger = Pick<
  Ledger,
  | 'attemptsWithStatus'
  | 'expireDispatchNoticed'
  | 'fileNotice'
  | 'getRun'
  | 'getTask'
  | 'latestRun'
  | 'listAttempts'
  | 'markFoundAgent'
  | 'readStopFlag'
  | 'recordDecisions'
  | 'reofferInterrupted'
  | 'runProcess'
  | 'setAttemptStatus'
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
  reoffered: number;
  interruptedTwice: number;
}> {
  const { ledger } = deps;
  const out = {
    dispatched: 0,
    notDispatched: 0,
    unknown: 0,
    retryable: 0,
    strandedEnded: 0,
    strandedWatched: 0,
    reoffered: 0,
    interruptedTwice: 0,
  };

  const settled = await settleStaleDispatches({
    ledger,
    logger: deps.logger,
    dispatcher: deps.dispatcher,
    maxAttempts: deps.maxAttempts,
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

  // V4: an attempt whose run was interrupted (by the last shutdown, or found gone above after a
  // crash) is offered again once, free; a second interruption files the notice. Before I4 below,
  // which would otherwise take it for a run that ended without an outcome.
  const interrupted = await settleInterruptedRuns({
    ledger,
    logger: deps.logger,
    dispatcher: deps.dispatcher,
    agent: deps.agent,
    maxAttempts: deps.maxAttempts,
    when: 'start-up',
  });
  out.reoffered = interrupted.reoffered;
  out.interruptedTwice = interrupted.noticed;

  // I4: a running attempt whose run already ended without an outcome becomes retryable; queued ones
  // are kept (dispatched below, or left to their live replica). After the passes above, which may
  // have just moved an attempt to running whose run had already ended.
  for (const life of await deps.agent.livesInState(['running'])) {
    const attempt = (await ledger.listAttempts(life.taskId)).find((a) => a.id === life.attemptId);
    const run = attempt?.runId != null ? await ledger.getRun(attempt.runId) : null;
    const ended = run ? ['completed', 'failed', 'cancelled'].includes(run.state) : true;
    // V4: left to the pass above (a failed write there is tried again by the periodic pass).
    if (run?.interruptedAt != null && life.outcome === null) continue;
    if (ended && (await applyRecordedOutcome(deps.agent, life))) {
      out.retryable++;
      continue;
    }
    const t = nextAttemptState(life.state, { kind: 'restarted', runEnded: ended, hadOutcome: life.outcome !== null });
    if (
      t.kind === 'move' &&
      (await deps.agent.moveAttempt(life.attemptId, ['running'], t.to, { withoutOutcome: true }))
    )
      out.retryable++;
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

/** The gate (core/refusal.ts) as an evaluation would apply it now, with the stop flag read fail-closed. */
async function gateNow(
  ledger: Pick<ReconcileLedger, 'readStopFlag' | 'latestRun'>,
  task: Task,
  latestRun?: { state: 'failed'; attemptId: number },
) {
  let stopFlag: boolean | 'unreadable';
  try {
    stopFlag = await ledger.readStopFlag();
  } catch {
    stopFlag = 'unreadable';
  }
  return refusalOf({
    verdict: 'red',
    fork: false,
    task,
    latestRun: latestRun ?? (await ledger.latestRun(task.id)),
    stopFlag,
  });
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

/** What the liveness pass reads of every open Task, and the one thing it writes itself: a notice. */
export type LivenessLedger = Pick<
  Ledger,
  | 'fileNotice'
  | 'getRun'
  | 'getTask'
  | 'lastRedEvent'
  | 'listAttempts'
  | 'listRuns'
  | 'listTasks'
  | 'readStopFlag'
  | 'recordDecisions'
>;

/**
 * I5: every open Task as core/liveness.ts reads it. A Task the gate has stopped for good (notice,
 * parked, closed) needs nothing more read to be judged, so its attempts and runs are not read; with
 * `redOnly`, neither are those of a Task whose head is not red (the periodic pass, which has moved
 * every attempt in flight by its own rules already).
 */
export async function livenessSnapshot(
  ledger: Pick<LivenessLedger, 'listAttempts' | 'listRuns' | 'listTasks'>,
  agent: Pick<AgentLedger, 'lives'>,
  o: { redOnly?: boolean } = {},
): Promise<Array<LivenessTask & { task: Task }>> {
  const out: Array<LivenessTask & { task: Task }> = [];
  for (const task of await ledger.listTasks({ state: 'open' })) {
    const stopped = task.noticeAt !== null || task.parkedAt !== null || task.prState !== 'open';
    if (stopped || (o.redOnly === true && task.ciState !== 'red')) {
      out.push({ task, latestRun: null, attempts: [] });
      continue;
    }
    const [attempts, lives, runs] = await Promise.all([
      ledger.listAttempts(task.id),
      agent.lives(task.id),
      ledger.listRuns(task.id),
    ]);
    const lifeOf = new Map(lives.map((l) => [l.attemptId, l]));
    const runOf = new Map(runs.map((r) => [r.id, r]));
    out.push({
      task,
      latestRun: runs.at(-1) ?? null,
      attempts: attempts.map((a): LivenessAttempt => {
        const l = lifeOf.get(a.id);
        return {
          id: a.id,
          source: a.source,
          headSha: a.headSha,
          status: a.status,
          state: l?.state ?? a.state,
          outcome: l?.outcome ?? a.outcome,
          actionTakenAt: l?.actionTakenAt ?? null,
          since: l?.updatedAt ?? a.createdAt,
          runState: a.runId !== null ? (runOf.get(a.runId)?.state ?? null) : null,
        };
      }),
    });
  }
  return out;
}

export interface KeepAliveDeps {
  ledger: LivenessLedger;
  agent: AgentLedger;
  /** Retries and red results offered again go through the one gate. */
  evaluator: Pick<Evaluator, 'offerRetry' | 'evaluate'>;
  logger: Logger;
  clock: Clock;
  maxAttempts: number;
  /** I3's deadline is two of these after action_taken, with or without a poll. */
  pollIntervalMs: number;
  /** How long a claim may wait for its dispatch before it counts as stalled (the reconcile grace). */
  claimGraceMs: number;
  /** How long any other passing state may last (a few reconciliation periods). */
  settleMs: number;
  /**
   * A poll reads the pull requests (E1): it sees progress and offers reds again itself (E2), so this
   * pass only backs it up — the deadline one poll interval late, no red offered from a stored
   * delivery. Without one, this pass is what moves those loops.
   */
  poll: boolean;
}

/**
 * I5, on every running replica, every reconciliation period: (1) the lifecycle moves that wait on
 * time rather than on an event — a run's end (I4), a head that moved after action_taken and the I3
 * deadline — for every attempt in flight, poll or no poll (`poll`); (2) core/liveness.ts over every open Task,
 * and what it finds stalled is undone: a retry offered, a red offered again, a person told. What
 * cannot be undone here is logged (`liveness.stalled`), never left silent.
 */
/**
 * I2, I5: an outcome is two writes, the first-write outcome and then its lifecycle move; a process
 * killed between the two leaves a running attempt that holds its outcome, which its run's end does
 * not move (the outcome decides). Once the run has ended, the move is applied here. True when moved.
 */
async function applyRecordedOutcome(
  agent: Pick<AgentLedger, 'moveAttempt'>,
  life: {
    attemptId: number;
    state: AttemptState;
    outcome: FixOutcome | null;
    outcomeReason: string | null;
    outcomeAt: string | null;
  },
): Promise<boolean> {
  if (life.outcome === null) return false;
  const t = nextAttemptState(life.state, {
    kind: 'outcome_reported',
    outcome: life.outcome,
    reason: life.outcomeReason ?? undefined,
  });
  if (t.kind !== 'move') return false;
  const extra = t.to === 'awaiting_progress' && life.outcomeAt ? { actionTakenAt: life.outcomeAt } : undefined;
  return agent.moveAttempt(life.attemptId, [life.state], t.to, extra);
}

export async function keepLoopsAlive(
  deps: KeepAliveDeps,
): Promise<{ moved: number; retried: number; reoffered: number; noticed: number; stalled: Stall[] }> {
  const { ledger, agent, logger } = deps;
  const out = { moved: 0, retried: 0, reoffered: 0, noticed: 0, stalled: [] as Stall[] };
  const now = deps.clock.now().toISOString();

  for (const life of await agent.livesInState(['running'])) {
    const attempt = (await ledger.listAttempts(life.taskId)).find((a) => a.id === life.attemptId);
    // I4 while running: nothing to apply until its run has ended.
    const runRow = attempt?.runId != null ? await ledger.getRun(attempt.runId) : null;
    const run = runRow?.state ?? null;
    if (run === null || run === 'queued' || run === 'running' || run === 'question') continue;
    // V4: an interrupted run's attempt is offered again by settleInterruptedRuns, not made retryable.
    if (runRow?.interruptedAt != null && life.outcome === null) continue;
    if (await applyRecordedOutcome(agent, life)) {
      out.moved++;
      continue;
    }
    const t = nextAttemptState(life.state, { kind: 'run_ended', hadOutcome: life.outcome !== null });
    if (t.kind === 'move' && (await agent.moveAttempt(life.attemptId, ['running'], t.to, { withoutOutcome: true })))
      out.moved++;
  }
  const awaiting = new Set((await agent.livesInState(['awaiting_progress'])).map((l) => l.taskId));
  for (const taskId of awaiting) {
    const task = await ledger.getTask(taskId);
    if (!task) continue;
    // With a poll, progress is its to see (with the whole snapshot); the deadline here is a backstop
    // for a poll that cannot read GitHub, a poll interval after the poll's own.
    out.moved += await progressWithoutPoll(deps, taskId, deps.poll ? null : task.ciHeadSha, {
      now,
      intervalMs: deps.poll ? 1.5 * deps.pollIntervalMs : deps.pollIntervalMs,
    });
  }

  let stopFlag: boolean | 'unreadable';
  try {
    stopFlag = await ledger.readStopFlag();
  } catch {
    stopFlag = 'unreadable';
  }
  const ctx = {
    now,
    stopFlag,
    maxAttempts: deps.maxAttempts,
    pollIntervalMs: deps.pollIntervalMs,
    claimGraceMs: deps.claimGraceMs,
    settleMs: deps.settleMs,
  };
  for (const t of await livenessSnapshot(ledger, agent, { redOnly: true })) {
    const v = livenessOf(t, ctx);
    if (v.kind !== 'stalled') continue;
    const stall: Stall = { taskId: t.task.id, why: v.why, attemptId: v.attemptId, detail: v.detail };
    try {
      const left = await undo(deps, t.task, stall);
      if (left === null) {
        if (stall.why === 'retry_not_offered') out.retried++;
        else if (stall.why === 'red_unclaimed') out.reoffered++;
        else if (stall.why === 'dispatch_unconfirmed') out.noticed++;
        continue;
      }
      stall.detail = `${stall.detail}; ${left}`;
    } catch (err) {
      logger.error({ err, ...stall }, 'liveness: a stalled Task could not be moved; tried again on the next pass');
    }
    out.stalled.push(stall);
    logger.warn(stall, LOG_EVENTS.LIVENESS_STALLED);
  }
  return out;
}

/** Undoes one stall; null when done, else why it could not be (the stall is then logged). */
async function undo(deps: KeepAliveDeps, task: Task, stall: Stall): Promise<string | null> {
  switch (stall.why) {
    case 'retry_not_offered': {
      // I3/I5: a retry is a new attempt row through every guard and the budget (which, spent, files the notice).
      const r = await deps.evaluator.offerRetry(task.id, stall.attemptId!);
      if (r === null) return 'the attempt has no rejection to retry';
      return r.kind === 'refused' ? `retry refused: ${r.reason}` : null;
    }
    case 'red_unclaimed': {
      if (deps.poll) return 'left to the poll';
      const stored = task.ciHeadSha ? await deps.ledger.lastRedEvent(task.repository, task.ciHeadSha) : null;
      if (!stored) return 'no stored red delivery for the head';
      let body: unknown;
      try {
        body = JSON.parse(stored.payload);
      } catch {
        return 'the stored delivery is not JSON';
      }
      // Classification is pure: the stored body classifies now as it did when it was acknowledged.
      const c = classifyDelivery(stored.eventName, body, stored.deliveryId);
      if (c.kind !== 'event') return `the stored delivery classifies as ${c.kind}`;
      const r = await deps.evaluator.evaluate({ eventId: stored.id, deliveryId: stored.deliveryId, event: c.event });
      return r.kind === 'refused' ? `offered again, refused: ${r.reason}` : null;
    }
    case 'dispatch_unconfirmed': {
      const notice = await fileStopNotice(deps.ledger, task, {
        maxAttempts: deps.maxAttempts,
        reason: 'dispatch_unconfirmed',
        headSha: task.ciHeadSha,
      });
      if (notice) {
        deps.logger.warn({ taskId: task.id, reason: 'dispatch_unconfirmed' }, LOG_EVENTS.CI_AUTOFIX_EXHAUSTED);
        await deps.ledger
          .recordDecisions([
            {
              taskId: task.id,
              attemptId: stall.attemptId,
              outcome: 'noticed',
              reason: 'dispatch_unconfirmed',
              detail: notice.message,
            },
          ])
          .catch((err: unknown) =>
            deps.logger.error({ err, taskId: task.id }, 'notice filed, decision row not written'),
          );
      }
      return null; // filed, or filed by someone else first: either way a person is told
    }
    case 'claim_unsettled': // the claim passes settle it once its grace is over
    case 'attempt_outlived_run': // moved above; still here means its run's state could not be read
    case 'progress_unseen':
    case 'deadline_passed':
      return 'not moved by this pass';
  }
}

/**
 * After start-up, every little while (default 30 s): runs a sibling replica on this host left
 * behind when it died (decision 0013), and attempts a process left claimed, or dispatching with a
 * lapsed lease (decision 0014), a dead sibling's or this process's own after a ledger failure. With
 * SQLite's grace of 0 the periodic pass waits a minute, far longer than any live evaluation holds a
 * claim. Then, with `liveness`, every loop is kept alive (keepLoopsAlive, I5), on its own chain so a
 * retry's dispatch never holds the next pass back. One pass (and one such chain) at a time; `stop()`
 * waits for both.
 */
export function startPeriodicReconciliation(deps: {
  ledger: ReconcileLedger & LivenessLedger;
  logger: Logger;
  dispatcher: Dispatcher;
  clock: Clock;
  host: string;
  findAgent?: FindAgent;
  maxAttempts: number;
  /** The start-up grace (ms); 0 (SQLite) means a minute here. */
  graceMs: number;
  everyMs: number;
  /** I5: the deadline, retries and stalls without a poll (keepLoopsAlive). */
  liveness?: Pick<KeepAliveDeps, 'agent' | 'evaluator' | 'pollIntervalMs' | 'poll'>;
}): { stop(): Promise<void> } {
  const grace = deps.graceMs > 0 ? deps.graceMs : 60_000;
  const { ledger, logger, dispatcher } = deps;
  let pass: Promise<void> | null = null;
  let alive: Promise<void> | null = null;
  const timer = setInterval(() => {
    if (pass) return;
    pass = (async () => {
      await adoptStrandedRuns({ ledger, logger, dispatcher, host: deps.host });
      // V4: a sibling's interrupted runs too (a replica stopped for good, never restarted).
      if (deps.liveness)
        await settleInterruptedRuns({
          ledger,
          logger,
          dispatcher,
          agent: deps.liveness.agent,
          maxAttempts: deps.maxAttempts,
          when: 'periodic',
        });
      const olderThan = new Date(deps.clock.now().getTime() - grace).toISOString();
      await settleStaleDispatches({
        ledger,
        logger,
        dispatcher,
        maxAttempts: deps.maxAttempts,
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
      if (deps.liveness && !alive)
        alive = keepLoopsAlive({
          ...deps.liveness,
          ledger,
          logger,
          clock: deps.clock,
          maxAttempts: deps.maxAttempts,
          claimGraceMs: grace + deps.everyMs,
          // With a poll, a red refused at a bad moment waits for its next tick (E2) before it is stalled.
          settleMs: 2 * Math.max(deps.everyMs, deps.liveness.poll ? deps.liveness.pollIntervalMs : 0),
        })
          .then(() => undefined)
          .catch((err: unknown) => logger.error({ err }, 'liveness pass failed'))
          .finally(() => {
            alive = null;
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
      await alive;
    },
  };
}
