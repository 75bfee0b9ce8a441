// Claim, then dispatch (SPEC C2, C3, K5, K7): the claim is a unique index on the Task and coordinate,
// so of a storm of deliveries, or of two replicas, one wins; the count re-read inside the claim
// decides whether it went past the budget (then the claim is settled and the notice filed at once).
import { budgetAfterClaim } from '../../core/budget.js';
import type { CheckResult } from '../../core/neutral-events.js';
import type { RerunFallback } from '../../core/reasons.js';
import type { RejectionSource } from '../../core/types.js';
import { stopNoticeInput } from '../stop-notice.js';
import type { Outcomes } from './outcome.js';
import type { ClaimInput } from '../ledger-port.js';
import type { EvaluateDeps, EvaluateLedger, EvaluationResult, TaskEvaluation } from './ports.js';

/** What an attempt would answer: a red of the head, a stored rejection, or a retry of an attempt. */
export interface AttemptToClaim {
  coordinate: string;
  retryOf?: number;
  source: RejectionSource;
  headSha: string | null;
  fingerprint: string;
  /** The red result a gate attempt answers: triaged and compared with the last head first (T). */
  red?: CheckResult;
  rejection: ClaimInput['rejection'];
}

/** Claims the attempt, settles a claim past the budget with its notice, and hands it to the runner. */
export type ClaimPort = Pick<EvaluateDeps, 'maxAttempts' | 'agent' | 'dispatcher' | 'fault' | 'wordsOf'> & {
  ledger: Pick<EvaluateLedger, 'claimAttempt' | 'consumeApproveOne' | 'settleOverBudget'>;
  end: Outcomes;
};

export async function claimAndDispatch(
  port: ClaimPort,
  ev: TaskEvaluation,
  c: AttemptToClaim,
  /** What triage said of a failure that reaches the agent after all (T2), for the claim's decision row. */
  judged: { reason: RerunFallback | null; detail: string | null } | null,
  /** The Task's budget (K5: approve-one grants one past the cap). */
  max: number,
): Promise<EvaluationResult> {
  const { ledger, end } = port;
  const task = ev.task;
  await port.fault?.('before_claim');
  const claim = await ledger.claimAttempt({
    taskId: task.id,
    coordinate: c.coordinate,
    source: c.source,
    headSha: c.headSha,
    fingerprint: c.fingerprint,
    rejection: c.rejection,
  });
  if (claim.kind === 'taken') return end.refuse(ev, 'coordinate_claimed');
  // K7 across replicas: the partial unique index refused a second attempt in flight.
  if (claim.kind === 'in_flight')
    return end.refuse(ev, 'attempt_in_flight', 'another attempt of this pull request is in flight');
  if (c.retryOf !== undefined) await port.agent.markRetry(claim.attempt.id, c.retryOf);
  end.log({
    ...ev.base,
    taskId: task.id,
    attemptId: claim.attempt.id,
    outcome: 'claimed',
    // T2: a transient failure no re-run could answer says why it reached the agent after all.
    reason: judged?.reason ?? null,
    detail: `coordinate ${c.coordinate}${judged?.detail ? `; ${judged.detail}` : ''}`,
  });
  await port.fault?.('after_claim');
  // C3: the count re-read inside the claim decides; a claim past the budget keeps its row.
  if (task.approveOnePending) await ledger.consumeApproveOne(task.id);
  if (budgetAfterClaim(claim.attemptsCounted, max).kind === 'over_budget') {
    // The claim's compare-and-set and the notice, in one transaction. The compare-and-set fails
    // when a reconciliation pass found the claim first and settled it (and noticed) already.
    const notice = stopNoticeInput(task, {
      maxAttempts: port.maxAttempts,
      reason: 'budget_spent',
      headSha: c.headSha,
      words: port.wordsOf?.(task.repository),
    });
    const settled = await ledger.settleOverBudget(
      claim.attempt.id,
      'the claim pushed the Task past its budget',
      notice,
    );
    if (!settled.settled) return end.refuse(ev, 'coordinate_claimed', 'the claim was settled by reconciliation first');
    end.log({
      ...ev.base,
      taskId: task.id,
      attemptId: claim.attempt.id,
      outcome: 'refused',
      reason: 'over_budget_after_claim',
    });
    return end.afterNotice(ev, 'budget_spent', settled.notice);
  }
  await port.dispatcher.dispatch(claim.attempt.id);
  return { kind: 'claimed', taskId: task.id, attemptId: claim.attempt.id };
}
