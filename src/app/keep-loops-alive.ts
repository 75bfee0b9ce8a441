// SPEC I3, I4, I5: the liveness pass. Moves that wait on time rather than on an event (a run's end,
// the I3 deadline) for every attempt in flight, then core/liveness.ts over every open Task, and what
// it finds stalled is undone — a retry offered, a red offered again, a person told — or logged.
import { fileStopNotice } from './stop-notice.js';
import { livenessOf, type Stall } from '../core/liveness.js';
import { progressWithoutPoll } from './progress-from-head.js';
import type { ClassifyDelivery } from '../core/neutral-events.js';
import type { Task } from '../core/types.js';
import type { Evaluator } from './evaluate.js';
import type { AgentLedger } from './agent-port.js';
import { nextAttemptState } from '../core/attempt-state.js';
import type { Clock, Logger } from './ports.js';
import { LOG_EVENTS } from '../core/events.js';
import { livenessSnapshot, type LivenessLedger } from './liveness-snapshot.js';
import { applyRecordedOutcome } from './apply-recorded-outcome.js';
import { endOverdueRuns, type OverdueRunDeps } from './end-overdue-runs.js';
import type { WordsOf } from '../core/host-words.js';

export interface KeepAliveDeps {
  ledger: LivenessLedger;
  agent: AgentLedger;
  /** How a stored red reads again: the host registry's, by the host that owns its event name. */
  classify: ClassifyDelivery;
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
  /**
   * Issue 35: every automatic run's window, and how an overdue run is ended (the dispatcher's
   * endOverdue); absent, no run is ended for its age.
   */
  runWindow?: {
    runTimeoutMs: number;
    endRun: OverdueRunDeps['endRun'];
    pushSeen?: OverdueRunDeps['pushSeen'];
    wordsOf?: WordsOf;
  };
}

/**
 * I5, on every running replica, every reconciliation period: (1) the lifecycle moves that wait on
 * time rather than on an event — a run's end (I4), a head that moved after action_taken and the I3
 * deadline — for every attempt in flight, poll or no poll (`poll`); (2) core/liveness.ts over every open Task,
 * and what it finds stalled is undone: a retry offered, a red offered again, a person told. What
 * cannot be undone here is logged (`liveness.stalled`), never left silent.
 */
export async function keepLoopsAlive(
  deps: KeepAliveDeps,
): Promise<{ moved: number; retried: number; reoffered: number; noticed: number; stalled: Stall[] }> {
  const { ledger, agent, logger } = deps;
  const out = { moved: 0, retried: 0, reoffered: 0, noticed: 0, stalled: [] as Stall[] };
  const now = deps.clock.now().toISOString();

  // Issue 35: a run past its window ends with a notice, first, so what follows sees it ended.
  if (deps.runWindow) out.noticed += await endOverdueRuns({ ...deps, ...deps.runWindow }, now);
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
    // A head the ledger moved is progress, poll or no poll (issue 35); with a poll, the rest of progress
    // is its to see (with the whole snapshot), and the deadline here is a backstop for a poll that
    // cannot read its host, a poll interval after the poll's own.
    out.moved += await progressWithoutPoll(deps, taskId, task.ciHeadSha, {
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
      const c = deps.classify(stored.eventName, body, stored.deliveryId);
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
