// How an evaluation ends (SPEC D, G1, G2): a refusal or a stop notice, each written to the decision
// log with its reason. Every step ends through these, so the log has one row per evaluation's end.
import type { Refusal, StopReason } from '../../core/reasons.js';
import type { Notice, Task } from '../../core/types.js';
import { LOG_EVENTS } from '../../core/events.js';
import { fileStopNotice } from '../stop-notice.js';
import type { DecisionInput } from '../ledger-port.js';
import type { EvaluateDeps, EvaluateLedger, Evaluation, EvaluationResult, TaskEvaluation } from './ports.js';

/** The ends a step may reach; steps take this as their `end`. */
export interface Outcomes {
  log(d: DecisionInput): void;
  refuse(ev: Evaluation, reason: Refusal, detail?: string): EvaluationResult;
  /** G1: file the Task's one stop notice (or read that someone else did). */
  notice(ev: TaskEvaluation, reason: StopReason, headSha: string | null, detail?: string): Promise<EvaluationResult>;
  /** What filing the notice came to: `noticed`, or, when someone else filed it first, a read. */
  afterNotice(ev: TaskEvaluation, reason: StopReason, notice: Notice | null): EvaluationResult;
}

/** Writes the decision row and the log line; the notice goes through the ledger's compare-and-set. */
export type OutcomesPort = Pick<EvaluateDeps, 'decisions' | 'logger' | 'maxAttempts' | 'wordsOf'> & {
  ledger: Pick<EvaluateLedger, 'fileNotice'>;
};

export function createOutcomes(deps: OutcomesPort): Outcomes {
  const log = (d: DecisionInput): void => deps.decisions.write(d);

  function refuse(ev: Evaluation, reason: Refusal, detail?: string): EvaluationResult {
    log({ ...ev.base, taskId: ev.task?.id ?? null, outcome: 'refused', reason, detail: detail ?? null });
    deps.logger.info(
      { identity: ev.base.identity, taskId: ev.task?.id, reason, ...(detail ? { detail } : {}) },
      LOG_EVENTS.DISPATCH_DROPPED,
    );
    return { kind: 'refused', reason, taskId: ev.task?.id ?? null };
  }

  function afterNotice(ev: TaskEvaluation, reason: StopReason, notice: Notice | null): EvaluationResult {
    if (notice) {
      log({ ...ev.base, taskId: ev.task.id, outcome: 'noticed', reason, detail: notice.message });
      deps.logger.warn({ taskId: ev.task.id, reason }, LOG_EVENTS.CI_AUTOFIX_EXHAUSTED);
      return { kind: 'noticed', taskId: ev.task.id, reason };
    }
    // Someone else filed it: this delivery is a read and nothing else (G2).
    return refuse(ev, 'notice_filed');
  }

  async function notice(
    ev: TaskEvaluation,
    reason: StopReason,
    headSha: string | null,
    detail?: string,
  ): Promise<EvaluationResult> {
    const filed = await fileStopNotice(deps.ledger, ev.task, {
      maxAttempts: deps.maxAttempts,
      reason,
      headSha,
      detail: detail ?? null,
      words: deps.wordsOf?.(ev.task.repository),
    });
    return afterNotice(ev, reason, filed);
  }

  return { log, refuse, notice, afterNotice };
}

/** A guard outside the gate (the push guard K3/K4, the no-CI check T4) stops the loop: the one notice, with its reason. */
export type GuardStop = (
  task: Task,
  reason: StopReason,
  detail: string,
  headSha: string | null,
) => Promise<EvaluationResult>;

/** The guards' stop over these ends: its decision row names the guard, the Task and the head. */
export function guardStopOf(end: Pick<Outcomes, 'notice'>): GuardStop {
  return (task, reason, detail, headSha) => {
    const identity = `guard:${reason}:${task.repository}#${task.pullRequest}@${headSha ?? 'unknown'}`;
    return end.notice({ base: { identity, outcome: 'refused' }, task }, reason, headSha, detail);
  };
}

/**
 * The guards' stop, built from what the gate's ends write to, so a guard the gate itself calls (the
 * push guard) is wired before the gate and not bound to it afterwards.
 */
export function createGuardStop(deps: OutcomesPort): GuardStop {
  return guardStopOf(createOutcomes(deps));
}
