// The gate of the fix loop: one stored event evaluated against the Task it is about, in the order
// below. Each step is a file beside this one that declares what it reads and writes; every pure rule
// is in src/core/. Every evaluation ends in one decision-log row with its outcome and reason.
//
//   a CI result   check (A5, A6, B1, B2, B5, C2, T3, T6) → may resume (D: the stop flag, read once)
//                 → push guard (K3, K4) → a queue's commit: the pull requests ahead (queue-ahead.ts) → attempt
//   a queue's commit built (issue 36)   kept for the step above; nothing evaluated
//   an attempt    already claimed (C2) → budget (C1) → judge the failure (T1–T3, C5, T5, T6)
//                 → guards (K6, K7, K9) → claim and dispatch (C2, C3)
//   people        a pull request's state (B, M4) · a review (F1) · a comment: command or doorbell (F2)
//   its base      a head conflicting with its base → attempt · a head only behind → the host updates it (branch.ts)
//                 → offer the stored rejection (F1: standing, D: may resume) → attempt
import { budgetBeforeClaim } from '../../core/budget.js';
import { fingerprint } from '../../core/fingerprint.js';
import { boundCheckName, boundRejectionBody } from '../../core/bounded-text.js';
import type { CheckResult } from '../../core/neutral-events.js';
import type { Task } from '../../core/types.js';
import { createOutcomes, guardStopOf } from './outcome.js';
import { checkResult } from './check.js';
import { resumeRefusal } from './may-resume.js';
import { judgeFailure } from './judge-failure.js';
import { guardsBeforeClaim } from './guards.js';
import { applyCheckRule } from './check-rule.js';
import { claimAndDispatch, type AttemptToClaim } from './claim.js';
import { pullRequestChanged } from './pull-request.js';
import { reviewSubmitted } from './review.js';
import { commentRang } from './comment.js';
import { offerRetry, reofferRejections } from './offer.js';
import { syncBranch } from './branch.js';
import { withQueueAhead } from './queue-ahead.js';
import type { DecisionInput } from '../ledger-port.js';
import type { EvaluateDeps, Evaluation, EvaluationResult, StoredLoopEvent, TaskEvaluation } from './ports.js';

export function createEvaluator(deps: EvaluateDeps) {
  const { ledger } = deps;
  const end = createOutcomes(deps);
  // Every step is handed this one object; each step's own port names the part of it that step uses.
  const gate = { ...deps, end, attempt };

  return {
    /** A guard outside the gate (the no-CI check, T4) stops the loop: the one notice, with its reason. */
    stop: guardStopOf(end),
    /** I3: a retryable attempt offered again as a new attempt, through every guard (offer.ts). */
    offerRetry: (taskId: number, attemptId: number): Promise<EvaluationResult | null> =>
      offerRetry(gate, taskId, attemptId),
    /** E2 for reviews: the week's unanswered rejections offered again (offer.ts). */
    reofferRejections: (taskId: number): Promise<EvaluationResult[]> => reofferRejections(gate, taskId),
    /** Issue 36: a head that conflicts with its base, or is only behind it, as the host reports it (branch.ts). */
    syncBranch: (base: DecisionInput, taskId: number, headSha: string, mergeableState: string | null | undefined) =>
      syncBranch(gate, base, taskId, headSha, mergeableState),
    evaluate,
  };

  async function evaluate(item: StoredLoopEvent): Promise<EvaluationResult> {
    const ev: Evaluation = {
      base: { eventId: item.eventId, deliveryId: item.deliveryId, identity: item.event.identity, outcome: 'refused' },
      task: null,
    };
    try {
      return await evaluateEvent(ev, item);
    } catch (err) {
      // C4: a ledger that cannot be read dispatches nothing; the refusal is recorded if it can be,
      // and the event stays pending so a later sweep evaluates it again.
      deps.logger.error({ err, eventId: item.eventId }, 'ledger unavailable during evaluation');
      end.log({
        ...ev.base,
        taskId: ev.task?.id ?? null,
        outcome: 'refused',
        reason: 'ledger_unavailable',
        detail: String((err as Error)?.message ?? err).slice(0, 300),
      });
      return { kind: 'refused', reason: 'ledger_unavailable', taskId: ev.task?.id ?? null };
    }
  }

  function evaluateEvent(ev: Evaluation, { eventId, event: e }: StoredLoopEvent): Promise<EvaluationResult> {
    switch (e.kind) {
      case 'ci.result':
        return ciResult(ev, eventId, e);
      case 'pr.changed':
        return pullRequestChanged(gate, ev, e);
      case 'review.submitted':
        return reviewSubmitted(gate, ev, eventId, e);
      case 'comment':
        return commentRang(gate, ev, e);
      case 'queue.group':
        // Issue 36: only kept, for a later red of the queue to name the pull requests ahead (queue-ahead.ts).
        end.log({
          ...ev.base,
          outcome: 'stored',
          reason: 'merge_queue_commit',
          detail: `the merge queue's commit ${e.headSha.slice(0, 7)} for #${e.pullRequest}, built on ${e.parentSha.slice(0, 7)}`,
        });
        return Promise.resolve({ kind: 'recorded', taskId: null });
    }
  }

  /** A CI result: is it a red of the head nobody answered, may the loop resume, was its push allowed. */
  async function ciResult(ev: Evaluation, eventId: number | null, r: CheckResult): Promise<EvaluationResult> {
    const checked = await checkResult(gate, ev, eventId, r);
    if (checked.kind === 'done') return checked.result;
    const { red, task } = checked;
    const known: TaskEvaluation = Object.assign(ev, { task });
    const refusal = await resumeRefusal(ledger, { verdict: red.verdict, fork: red.fork, task });
    if (refusal) return end.refuse(known, refusal);
    // K3/K4: the push that made this head is judged before anything is spent on it, here as well as
    // on the poll, so a red arriving by webhook cannot buy a run for a forbidden or repeated change.
    if (deps.judgePush && red.sha === task.ciHeadSha && (await deps.judgePush(task, red.sha)))
      return end.refuse(known, 'notice_filed', 'the push was stopped by a guard');
    // Read only for a queue commit no attempt answered yet: its redeliveries and other jobs walk nothing.
    const claimed = red.queue && (await ledger.listAttempts(task.id)).some((a) => a.coordinate === red.sha);
    const queue = red.queue && (claimed ? red.queue : await withQueueAhead(gate, red.repository, red.sha, red.queue));
    return attempt(known, {
      coordinate: red.sha,
      source: 'gate',
      // Issue 36: a fix for the queue's commit is pushed on the pull request's head it was built from.
      headSha: red.queue ? (red.queue.headSha ?? task.ciHeadSha) : red.sha,
      fingerprint: fingerprint([red.name], red.output),
      red,
      // A1/H2: the payload holds the full text once; the rejection keeps a bounded copy.
      rejection: {
        checkName: boundCheckName(red.name),
        body: boundRejectionBody(red.output),
        eventId: checked.eventId,
        ...(queue ? { queue } : {}),
      },
    });
  }

  /** Everything between something worth answering and the runner; the people path joins here too. */
  async function attempt(ev: TaskEvaluation, c: AttemptToClaim): Promise<EvaluationResult> {
    const task = ev.task;
    try {
      // C2: a coordinate claimed before is only read again (a redelivery, a storm's next job, a red
      // re-offered by the poll): nothing else to decide, nothing to spend, no stop to file.
      const attempts = await ledger.listAttempts(task.id);
      if (attempts.some((a) => a.coordinate === c.coordinate)) return end.refuse(ev, 'coordinate_claimed');
      const max = deps.maxAttempts + task.extraAttempts; // K5: approve-one grants one past the cap
      const budget = budgetBeforeClaim(attempts.length, max);
      if (budget.kind === 'refuse' && budget.reason === 'loop_off') return end.refuse(ev, 'loop_off');
      // T, C5: triage and the last head's failures, before the budget's own stop, so a failure the
      // agent cannot fix, or one unchanged, is told as such rather than as a spent budget.
      const judged = c.red && c.retryOf === undefined ? await judgeFailure(gate, ev, c.red, attempts) : null;
      if (judged?.kind === 'done') return judged.result;
      // Issue 36: the Work's rule for the failing check (a person, its own attempts, a re-run first).
      const ruled = c.red && c.retryOf === undefined ? await applyCheckRule(gate, ev, c.red, attempts) : null;
      if (ruled?.kind === 'done') return ruled.result;
      // Not awaited: a notice that cannot be filed rejects to the caller, whose C4 handling keeps the event pending.
      if (budget.kind === 'refuse') return end.notice(ev, 'budget_spent', c.headSha);
      const guard = await guardsBeforeClaim(gate, task);
      if (guard)
        return guard.kind === 'refuse'
          ? end.refuse(ev, guard.reason, guard.detail)
          : end.notice(ev, guard.reason, c.headSha, guard.detail);
      return await claimAndDispatch(gate, ev, c, judged, max);
    } catch (err) {
      // C4: a ledger that cannot be read or written dispatches nothing.
      deps.logger.error({ err, taskId: task.id }, 'ledger unavailable during evaluation');
      return end.refuse(ev, 'ledger_unavailable', String((err as Error).message ?? err).slice(0, 300));
    }
  }
}

export type Evaluator = ReturnType<typeof createEvaluator>;
