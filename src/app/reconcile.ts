// Reconciliation (SPEC C3, C4, I4, I5, L1, V4): what a process that is gone left behind is settled —
// once at start-up, then periodically on every replica, so a sibling's leftovers are found too. Each
// pass decides in its own file (settle-stale-dispatches.ts, adopt-stranded-runs.ts,
// settle-interrupted-runs.ts, settle-stale-claims.ts, keep-loops-alive.ts); this one runs them in order.
import { nextAttemptState } from '../core/attempt-state.js';
import type { Dispatcher } from './dispatch.js';
import type { AgentLedger } from './agent-port.js';
import type { Clock, Logger } from './ports.js';
import type { FindAgent, ReconcileLedger } from './reconcile-port.js';
import { settleStaleDispatches } from './settle-stale-dispatches.js';
import { adoptStrandedRuns } from './adopt-stranded-runs.js';
import { settleInterruptedRuns } from './settle-interrupted-runs.js';
import { settleStaleClaims } from './settle-stale-claims.js';
import { applyRecordedOutcome } from './apply-recorded-outcome.js';
import { keepLoopsAlive, type KeepAliveDeps } from './keep-loops-alive.js';
import type { LivenessLedger } from './liveness-snapshot.js';

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
  liveness?: Pick<KeepAliveDeps, 'agent' | 'evaluator' | 'pollIntervalMs' | 'poll' | 'classify' | 'runWindow'>;
}): { stop(): Promise<void> } {
  const grace = deps.graceMs > 0 ? deps.graceMs : 60_000;
  const { ledger, logger, dispatcher } = deps;
  let pass: Promise<void> | null = null;
  let alive: Promise<void> | null = null;
  // Counted in a debug line as each ends, so a test can wait for whole passes of a server process
  // before it says that nothing more happened (test/support/reconcile-passes.ts).
  let passes = 0;
  let livenessPasses = 0;
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
            logger.debug({ livenessPasses: ++livenessPasses }, 'liveness pass done');
          });
    })()
      .catch((err: unknown) => logger.error({ err }, 'periodic reconciliation failed'))
      .finally(() => {
        pass = null;
        logger.debug({ passes: ++passes }, 'periodic reconciliation pass done');
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
