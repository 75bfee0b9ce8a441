// T1–T3: whether a red is the agent's to fix at all — a run waiting for a person's approval (a stop
// notice), a check that fails on the base branch too (held, refused), or a transient failure that a
// re-run answers for much less than a model run (core/triage.ts decides; this step reads and acts).
import type { CheckResult } from '../../core/neutral-events.js';
import { checkRunIdOf, type HeadChecks } from '../../core/head-checks.js';
import { triage } from '../../core/triage.js';
import { decideRunApproval } from '../../core/run-approval.js';
import { summaryOnBase } from '../../core/base-red.js';
import { boundCheckName } from '../../core/bounded-text.js';
import type { RerunFallback } from '../../core/reasons.js';
import type { Attempt } from '../../core/types.js';
import type { Outcomes } from './outcome.js';
import type { EvaluateDeps, EvaluateLedger, EvaluationResult, Step, TaskEvaluation } from './ports.js';

/** Reads the base's failing checks, keeps a base hold, asks for a re-run. */
export type TriagePort = Pick<
  EvaluateDeps,
  'baseChecks' | 'requestRerun' | 'approvePendingRuns' | 'failingJobsOf' | 'baseRedHeld'
> & {
  ledger: Pick<EvaluateLedger, 'heldOnBase' | 'holdOnBase'>;
  end: Outcomes;
};

/** On to the claim, with why a failure triage would have kept from the agent reaches it after all (T2). */
export type Triaged = Step<{ reason: RerunFallback | null; detail: string | null }>;

/** T1: a red result as a base hold names it: the check and its run (a re-run is another), else its time. */
function baseHoldKey(r: CheckResult): string {
  const run = checkRunIdOf(r.identity);
  return run !== null ? `${r.name.trim()}#${run}` : `${r.name.trim()}@${r.completedAt ?? ''}`;
}

export async function triageFailure(
  port: TriagePort,
  ev: TaskEvaluation,
  red: CheckResult,
  answered: Attempt[],
  headOf: (sha: string) => Promise<HeadChecks>,
): Promise<Triaged> {
  const { ledger, end } = port;
  const task = ev.task;
  const done = async (result: EvaluationResult | Promise<EvaluationResult>): Promise<Triaged> => ({
    kind: 'done',
    result: await result,
  });
  const current = await headOf(red.sha);
  // A suite or workflow run only sums up its jobs: when the head's failing jobs are stored, each was
  // triaged on its own (a re-run asked, a base that fails too), and the sum must not undo that.
  if ((red.ciKind === 'suite' || red.ciKind === 'workflow') && current.checks.some((c) => c.verdict === 'red'))
    return done(end.refuse(ev, 'summary_of_jobs', `${boundCheckName(red.name)} sums up the head's failing jobs`));
  const flaky = new Set(current.flaky);
  for (const sha of new Set(answered.map((a) => a.headSha))) {
    if (sha !== null && sha !== red.sha) for (const f of (await headOf(sha)).flaky) flaky.add(f);
  }
  // A base that cannot be read is not known: triage then goes on without it. The read is bounded
  // (a few seconds, then remembered as not known), so this Task's wait never holds up another's
  // evaluation behind it (base-checks.ts; decision 0047).
  const base = port.baseChecks
    ? await port.baseChecks(task.repository, task.pullRequest, task.baseRef).catch(() => null)
    : null;
  // T1, issue 36: the red is held because the base fails `checks` too; the base's one notice is filed
  // or joined (base-red-notice.ts), only while the base is read failing them.
  const holdOnBase = async (checks: readonly string[], detail: string): Promise<Triaged> => {
    await ledger.holdOnBase(task.id, red.sha, baseHoldKey(red), base?.ref ?? task.baseRef ?? 'the base');
    if (base && port.baseRedHeld && checks.every((c) => base.failing.some((f) => f.trim() === c)))
      await port.baseRedHeld(task, base, checks).catch(() => undefined);
    return done(end.refuse(ev, 'red_on_base', detail));
  };
  // Issue 36: a suite or workflow run that failed before its jobs were stored is judged by its jobs,
  // read from the host, so the base hold holds in any order of arrival.
  if ((red.ciKind === 'suite' || red.ciKind === 'workflow') && port.failingJobsOf && base) {
    const jobs = summaryOnBase((await port.failingJobsOf(task.repository, red.sha).catch(() => null)) ?? [], base);
    if (jobs)
      return holdOnBase(
        jobs,
        `${boundCheckName(red.name)}: its failing jobs (${jobs.map(boundCheckName).join(', ')}) are failing on ${base.ref} too`,
      );
  }
  const verdict = triage({
    result: { name: red.name, conclusion: red.conclusion, output: red.output },
    flakyChecks: [...flaky],
    base,
    // T1: this very result was held before (re-offered, redelivered): still the base's.
    heldOnBase: (await ledger.heldOnBase(task.id, red.sha)).includes(baseHoldKey(red)) ? [red.name] : [],
  });
  const fallback = (reason: RerunFallback, detail: string): Triaged => ({ kind: 'go', reason, detail });
  switch (verdict.kind) {
    case 'agent':
      return { kind: 'go', reason: null, detail: null };
    case 'approval_gate': {
      const approved = await approveAgentRuns(port, red, answered);
      if (approved !== null) return done(end.refuse(ev, 'runs_approved', approved));
      return done(end.notice(ev, 'approval_required', red.sha, verdict.detail));
    }
    case 'red_on_base':
      return holdOnBase([red.name.trim()], verdict.detail);
    case 'transient': {
      // T2: a re-run answers this for much less than a model run; when none can be had, the agent does.
      // A red only the poll saw has no stored deliveries: its own check run id is what can be re-run.
      const polled = checkRunIdOf(red.identity);
      const checkRunIds = current.redCheckRunIds.length > 0 ? current.redCheckRunIds : polled !== null ? [polled] : [];
      if (!port.requestRerun || checkRunIds.length === 0)
        return fallback('rerun_unavailable', `${verdict.detail}; no re-run could be asked for`);
      const rerun = await port.requestRerun({
        taskId: task.id,
        repository: task.repository,
        headSha: red.sha,
        checkRunIds,
        reason: verdict.detail,
      });
      switch (rerun.kind) {
        case 'requested':
          return done(end.refuse(ev, 'rerun_requested', verdict.detail));
        case 'in_flight':
          return done(end.refuse(ev, 'rerun_in_flight', verdict.detail));
        case 'budget_spent':
          return fallback('rerun_budget_spent', `${verdict.detail}; the head's re-run budget is spent`);
        case 'refused':
          return fallback(
            'rerun_refused',
            `${verdict.detail}; ${rerun.host ?? 'the host'} refused the re-run (${rerun.status}: ${rerun.message.slice(0, 200)})`,
          );
      }
    }
  }
}

/**
 * Issue 35: the runs of the agent's own push wait for approval, and fixloop may approve them
 * (core/run-approval.ts). Says what it approved; null when a person must (nothing approved, not
 * allowed, or the host refused), so the notice is filed as for any approval gate.
 */
async function approveAgentRuns(port: TriagePort, red: CheckResult, answered: Attempt[]): Promise<string | null> {
  if (!port.approvePendingRuns) return null;
  const decided = decideRunApproval({
    allowed: true,
    fork: red.fork,
    headSha: red.sha,
    answeredHeads: answered.map((a) => a.headSha),
  });
  if (decided.kind === 'person') return null;
  const approved = await port.approvePendingRuns(red.repository, red.sha).catch(() => 0);
  if (approved === 0) return null;
  return `${boundCheckName(red.name)} waited for approval on the agent's push ${red.sha.slice(0, 12)}: fixloop approved ${approved} workflow run${approved === 1 ? '' : 's'}`;
}
