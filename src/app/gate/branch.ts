// A head against its base (issue 36 §2, core/branch-sync.ts decides): a head that conflicts with its
// base is an attempt like any other — the agent is asked to merge or rebase and resolve, through the
// budget, the guards and the claim — keyed on `conflict:<head>`. A head only behind a base that
// requires up-to-date branches is updated through the host with no model run: an attempt row keyed on
// `update:<head>` claimed already settled (nothing for a runner to pick up), counted by the same
// budget, then one request to the host. Both claims are the database's unique (Task, coordinate), so
// of concurrent evaluations one acts; a head answered once is only read again, never looped on.
import { branchSync } from '../../core/branch-sync.js';
import { budgetAfterClaim, budgetBeforeClaim } from '../../core/budget.js';
import { fingerprint } from '../../core/fingerprint.js';
import { inFlightVerdict } from '../../core/in-flight.js';
import { routeRepository } from '../../core/route.js';
import type { Task } from '../../core/types.js';
import type { DecisionInput } from '../ledger-port.js';
import { ProviderError } from '../provider-port.js';
import type { AttemptToClaim } from './claim.js';
import { resumeRefusal } from './may-resume.js';
import type { Outcomes } from './outcome.js';
import type { EvaluateDeps, EvaluateLedger, EvaluationResult, TaskEvaluation } from './ports.js';

/** Reads the Task and its attempts; writes only through the claim and the attempt's compare-and-set. */
export type BranchPort = Pick<EvaluateDeps, 'works' | 'maxAttempts' | 'agent' | 'updateBranch' | 'fault'> & {
  ledger: Pick<
    EvaluateLedger,
    | 'getTask'
    | 'listAttempts'
    | 'claimAttempt'
    | 'consumeApproveOne'
    | 'setAttemptStatus'
    | 'readStopFlag'
    | 'latestRun'
  >;
  end: Outcomes;
  attempt(ev: TaskEvaluation, c: AttemptToClaim): Promise<EvaluationResult>;
};

/**
 * What the host's merge state of `headSha` asks of the loop: an attempt for a conflict, an update for
 * a branch behind, or nothing (null: no row is written, as for a head already answered — the poll
 * reads the state every tick).
 */
export async function syncBranch(
  port: BranchPort,
  base: DecisionInput,
  taskId: number,
  headSha: string,
  mergeableState: string | null | undefined,
): Promise<EvaluationResult | null> {
  const { ledger, end } = port;
  const task = await ledger.getTask(taskId);
  if (!task || task.noticeAt !== null) return null;
  const route = routeRepository(port.works, task.repository);
  if (route.kind === 'refuse') return null;
  const sync = branchSync({
    mergeableState,
    headSha,
    taskHeadSha: task.ciHeadSha,
    updateBranch: route.work.updateBranch !== false,
  });
  if (sync.kind === 'none' || sync.kind === 'update_off') return null;
  // No host to update through (a webhook-only install): the branch is left to a person, silently.
  if (sync.kind === 'behind' && !port.updateBranch) return null;
  const attempts = await ledger.listAttempts(task.id);
  if (attempts.some((a) => a.coordinate === sync.coordinate)) return null;
  const ev: TaskEvaluation = { base: { ...base, outcome: 'refused' }, task };
  const refusal = await resumeRefusal(ledger, { verdict: 'red', fork: task.isFork, task });
  if (refusal) return end.refuse(ev, refusal);
  const baseBranch = task.baseRef ?? 'its base branch';
  if (sync.kind === 'conflict')
    return port.attempt(ev, {
      coordinate: sync.coordinate,
      source: 'conflict',
      headSha,
      fingerprint: fingerprint(['conflict'], baseBranch),
      rejection: {
        checkName: null,
        body: `The head conflicts with ${baseBranch}: the agent is asked to merge or rebase and resolve it.`,
        eventId: null,
      },
    });
  return updateBranch(port, ev, task, headSha, sync.coordinate, baseBranch, attempts.length);
}

/** fixloop's own action: the branch brought up to date by the host, counted as an attempt with no run. */
async function updateBranch(
  port: BranchPort,
  ev: TaskEvaluation,
  task: Task,
  headSha: string,
  coordinate: string,
  baseBranch: string,
  used: number,
): Promise<EvaluationResult> {
  const { ledger, end } = port;
  const max = port.maxAttempts + task.extraAttempts;
  const budget = budgetBeforeClaim(used, max);
  if (budget.kind === 'refuse')
    return budget.reason === 'loop_off' ? end.refuse(ev, 'loop_off') : end.notice(ev, 'budget_spent', headSha);
  // K7: never under an agent's run — its push would race the host's merge commit.
  const lives = await port.agent.lives(task.id);
  const inFlight = inFlightVerdict(lives.map((l) => ({ id: l.attemptId, state: l.state })));
  if (inFlight.kind === 'refuse') return end.refuse(ev, 'attempt_in_flight', inFlight.detail);
  await port.fault?.('before_claim');
  const claim = await ledger.claimAttempt({
    taskId: task.id,
    coordinate,
    source: 'branch_update',
    headSha,
    fingerprint: fingerprint(['branch_update'], headSha),
    rejection: {
      checkName: null,
      body: `The head is behind ${baseBranch}, which requires up-to-date branches.`,
      eventId: null,
    },
    noRun: true,
  });
  if (claim.kind !== 'claimed') return end.refuse(ev, 'coordinate_claimed');
  const attemptId = claim.attempt.id;
  end.log({ ...ev.base, taskId: task.id, attemptId, outcome: 'claimed', detail: `coordinate ${coordinate}` });
  await port.fault?.('after_claim');
  if (task.approveOnePending) await ledger.consumeApproveOne(task.id);
  // C3: the count re-read inside the claim decides, as for any attempt.
  if (budgetAfterClaim(claim.attemptsCounted, max).kind === 'over_budget') {
    await ledger.setAttemptStatus(
      attemptId,
      ['dispatched'],
      'over_budget',
      'the claim pushed the Task past its budget',
    );
    end.log({ ...ev.base, taskId: task.id, attemptId, outcome: 'refused', reason: 'over_budget_after_claim' });
    return end.notice(ev, 'budget_spent', headSha);
  }
  try {
    await port.updateBranch!(task.repository, task.pullRequest, headSha);
  } catch (err) {
    // Sent once and never again for this head: a refusal (the head moved, no permission) is the host's
    // answer, and a lost answer may have updated the branch already.
    const unavailable = err instanceof ProviderError && (err.status === 501 || err.status === 404);
    const detail = `fixloop could not update the branch from ${baseBranch}: ${String((err as Error)?.message ?? err).slice(0, 200)}`;
    await ledger.setAttemptStatus(attemptId, ['dispatched'], 'dispatch_failed', detail);
    end.log({
      ...ev.base,
      taskId: task.id,
      attemptId,
      outcome: 'updated',
      reason: unavailable ? 'branch_update_unavailable' : 'branch_update_refused',
      detail,
    });
    return { kind: 'recorded', taskId: task.id };
  }
  end.log({
    ...ev.base,
    taskId: task.id,
    attemptId,
    outcome: 'updated',
    reason: 'branch_updated',
    detail: `fixloop updated the branch from ${baseBranch}; no agent ran`,
  });
  return { kind: 'claimed', taskId: task.id, attemptId };
}
