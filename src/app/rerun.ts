// The durable re-run of a head's failed jobs (issue 17, decision 0030): a failure triage judges
// transient is first re-run through GitHub's rerun-failed-jobs, from a budget of its own per (Task,
// head), each re-run claimed in the ledger before GitHub is asked, like an attempt (C2): of a storm of
// evaluations, or of two replicas, one claim wins and the others are told it is in flight; it asks once
// the head's Actions jobs have finished. Only if the re-run fails again does the failure reach the
// agent; a refusal by GitHub sends it there at once, and a claim never answered lets it through later.
import type { RerunReason } from '../core/reasons.js';
import { CI_JOB_APPS, ProviderError, type ProviderPort } from './provider-port.js';
import type { Ledger, Rerun, RerunStatus } from './ledger-port.js';
import type { Logger } from './ports.js';

export interface RerunRequest {
  taskId: number;
  repository: string;
  headSha: string;
  checkRunIds: number[];
  reason: string;
}

export type RerunOutcome =
  | { kind: 'requested' } // claimed in the ledger and asked of GitHub: no attempt now
  | { kind: 'in_flight' } // another evaluation/replica already claimed this head's re-run: no attempt now
  | { kind: 'budget_spent' } // the head's re-run budget is used (or configured 0): go on to the agent
  | { kind: 'refused'; status: number; message: string; host?: string }; // the host (its name) refused (403…): go on to the agent, reason recorded

export type RequestRerun = (req: RerunRequest) => Promise<RerunOutcome>;

/**
 * Reads the head's re-runs and claims the next one; writes only the claim (a unique index), its
 * settling compare-and-set and the decision row. The ledger's clock ages the claims.
 */
export type RerunLedger = Pick<
  Ledger,
  'now' | 'listReruns' | 'claimRerun' | 'resumeRerun' | 'settleRerun' | 'recordDecisions'
>;

/**
 * Reads whether the head's Actions jobs have finished (GitHub re-runs only a finished workflow run),
 * finds the workflow run of each failed job, and asks GitHub to re-run that run's failed jobs.
 */
export type RerunHost = Pick<ProviderPort, 'listCheckRuns' | 'workflowRunOfJob' | 'rerunFailedJobs'>;

/**
 * How long a re-run holds its failures back from the agent while its result is awaited (from the
 * request; a claim still waiting for the head's jobs, from the claim). A re-run GitHub never started
 * (an answer lost, a crash between the claim and the request, a job that never finishes) then lets
 * the failure through to the agent: never stuck in silence.
 */
export const RERUN_HOLD_MS = 30 * 60_000;

export interface RerunDeps {
  ledger: RerunLedger;
  host: RerunHost;
  /** Re-runs per (Task, head) (config `triage.rerunsPerHead`, default 1); 0 turns re-runs off. */
  perHead: number;
  /** Default RERUN_HOLD_MS. */
  holdMs?: number;
  logger?: Pick<Logger, 'info' | 'warn'>;
}

/** What one GitHub call answered, when it did not succeed. */
interface Problem {
  /** Who answered: the host's name, or "the host" when no answer said. */
  host: string;
  status: number;
  message: string;
  /** True when GitHub may have acted anyway (a 5xx, no answer): the request is never sent again. */
  unknown: boolean;
}

const STILL_ANSWERABLE: readonly RerunStatus[] = ['claimed', 'waiting', 'requested', 'unconfirmed'];

export function createRerun(deps: RerunDeps): RequestRerun {
  const { ledger, host } = deps;
  const holdMs = deps.holdMs ?? RERUN_HOLD_MS;

  /**
   * A re-run claimed for one of these failures and still awaited answers them: the same failures
   * again (a storm, a redelivery, the poll), or more jobs of the same head failing meanwhile. A
   * re-run's own results are new check runs, so a failure of the re-run is not held.
   */
  function holds(r: Rerun, checkRunIds: readonly number[], now: number): boolean {
    // Counted from the request once GitHub was asked; until then from the claim, however long it waited.
    const since = r.status === 'requested' || r.status === 'unconfirmed' ? r.updatedAt : r.createdAt;
    if (!STILL_ANSWERABLE.includes(r.status) || now - Date.parse(since) >= holdMs) return false;
    return checkRunIds.some((id) => r.checkRunIds.includes(id));
  }

  /** True while an Actions job of the head is unfinished; unknown (a failed read) is left to GitHub to say. */
  async function jobsRunning(req: RerunRequest): Promise<boolean> {
    const runs = await host.listCheckRuns(req.repository, req.headSha).catch(() => null);
    return (
      runs?.some((r) => r.appSlug !== null && CI_JOB_APPS.includes(r.appSlug) && r.status !== 'completed') ?? false
    );
  }

  /** The holder of a claim: asks GitHub for each workflow run of `checkRunIds`, once, and settles the claim. */
  async function ask(rerun: Rerun, req: RerunRequest, checkRunIds: readonly number[]): Promise<RerunOutcome> {
    // GitHub refuses (403) to re-run a workflow run with a job still going; the claim waits for them,
    // and the next evaluation of a failure it holds takes it up again.
    if (await jobsRunning(req)) {
      await ledger.settleRerun(rerun.id, 'waiting', {
        workflowRunIds: [],
        httpStatus: null,
        detail: "the head's Actions jobs are still running",
      });
      return { kind: 'in_flight' };
    }
    const problems: Problem[] = [];
    const runIds: number[] = [];
    for (const jobId of checkRunIds) {
      try {
        const runId = await host.workflowRunOfJob(req.repository, jobId);
        if (!runIds.includes(runId)) runIds.push(runId);
      } catch (err) {
        // Nothing was asked yet: whatever went wrong, this job is not re-run.
        problems.push({ ...problemOf(err, 'job', jobId), unknown: false });
      }
    }
    const asked: number[] = [];
    for (const runId of runIds) {
      try {
        await host.rerunFailedJobs(req.repository, runId);
        asked.push(runId);
      } catch (err) {
        problems.push(problemOf(err, 'run', runId));
      }
    }

    const status: 'requested' | 'refused' | 'unconfirmed' = problems.some((p) => p.unknown)
      ? 'unconfirmed'
      : asked.length > 0
        ? 'requested'
        : 'refused';
    const first = problems[0] ?? null;
    const detail = describe(rerun, checkRunIds, asked, problems);
    await ledger.settleRerun(rerun.id, status, {
      workflowRunIds: runIds,
      httpStatus: first?.status ?? null,
      detail: first?.message ?? null,
    });
    const reason: RerunReason = `rerun_${status}`;
    // The claim is settled; a lost decision row is logged, never a reason to ask GitHub again.
    await ledger
      .recordDecisions([{ taskId: req.taskId, outcome: 'rerun', reason, detail }])
      .catch((err: unknown) => deps.logger?.warn({ err, taskId: req.taskId }, 'rerun decision row not written'));
    if (status === 'refused') {
      deps.logger?.warn({ taskId: req.taskId, headSha: req.headSha, status: first!.status }, first!.message);
      return { kind: 'refused', status: first!.status, message: first!.message, host: first!.host };
    }
    deps.logger?.info({ taskId: req.taskId, headSha: req.headSha, runIds: asked, reason }, 'failed jobs re-run');
    return { kind: 'requested' };
  }

  return async function requestRerun(req) {
    if (deps.perHead <= 0) return { kind: 'budget_spent' };
    const checkRunIds = [...new Set(req.checkRunIds)].sort((a, b) => a - b);
    if (checkRunIds.length === 0) throw new TypeError('a re-run needs at least one failed check run');
    const reruns = await ledger.listReruns(req.taskId, req.headSha);
    const now = Date.parse(ledger.now());
    const held = reruns.find((r) => holds(r, checkRunIds, now));
    if (held !== undefined) {
      // A claim waiting for the head's jobs is taken up by one evaluation (compare-and-set), which
      // asks for its failures and any found since.
      const mine = held.status === 'waiting' ? await ledger.resumeRerun(held.id) : null;
      const ids = mine === null ? [] : [...new Set([...mine.checkRunIds, ...checkRunIds])].sort((a, b) => a - b);
      return mine === null ? { kind: 'in_flight' } : ask(mine, req, ids);
    }
    if (reruns.length >= deps.perHead) return { kind: 'budget_spent' };
    const claim = await ledger.claimRerun({
      taskId: req.taskId,
      headSha: req.headSha,
      ordinal: reruns.length + 1,
      checkRunIds,
      reason: req.reason,
    });
    if (claim.kind === 'taken') return { kind: 'in_flight' };
    return ask(claim.rerun, req, checkRunIds);
  };
}

/**
 * A host's answer as a problem of the re-run. 4xx: the host refused and did nothing. 5xx or no answer
 * (Octokit reports a network failure as 500): unknown for the request, which may have been applied.
 */
function problemOf(err: unknown, what: 'job' | 'run', id: number): Problem {
  const status = err instanceof ProviderError ? err.status : 0;
  const rateLimited = err instanceof ProviderError && err.retryable && status < 500;
  const said = err instanceof Error ? err.message : String(err);
  const host = err instanceof ProviderError ? err.host : 'the host';
  const problem = (message: string, unknown = false): Problem => ({ host, status, message, unknown });
  if (rateLimited) return problem(`${host}'s rate limit refused the re-run (${said})`);
  // GitHub answers 403 to a token without actions: write, and also to a run it will not re-run (still
  // running, over 30 days old): its own words are kept, never parsed.
  if (status === 403)
    return problem(`the token cannot re-run workflows: it needs actions: write (${host} answered: ${said})`);
  if (status === 404 && what === 'job')
    return problem(`check run ${id} is no ${host} Actions job, so it cannot be re-run`);
  if (status >= 400 && status < 500) return problem(`${host} refused to re-run workflow run ${id}: ${said}`);
  return problem(
    what === 'job'
      ? `the workflow run of job ${id} could not be read from ${host}, so it was not re-run: ${said}`
      : `${host} did not confirm the re-run of workflow run ${id}, which is not asked again: ${said}`,
    true,
  );
}

function describe(rerun: Rerun, checkRunIds: readonly number[], asked: number[], problems: Problem[]): string {
  const parts = [`head ${rerun.headSha.slice(0, 12)}, check runs ${checkRunIds.join(', ')} (${rerun.reason})`];
  if (asked.length > 0) parts.push(`re-ran workflow runs ${asked.join(', ')}`);
  return [...parts, ...problems.map((p) => p.message)].join('; ');
}
