// Issue 35 item 3 (SPEC R2): the two GitHub Actions calls the `actions` runner makes — dispatch a
// workflow and learn the id of the run it made (`return_run_details`, GitHub's API of February 2026),
// then read that run until it completes — on fixloop's own GitHub credentials (App or token).
import { randomUUID } from 'node:crypto';
import { createClientRouter, type GitHubAuth } from './installations.js';
import { silentGitHubLog, type GitHubLog } from './octokit.js';
import { toProviderError } from './errors.js';

export interface WorkflowRunState {
  /** queued, in_progress, waiting, requested, pending, completed … as GitHub says it. */
  status: string;
  /** success, failure, cancelled, timed_out … once completed; null before. */
  conclusion: string | null;
  htmlUrl: string | null;
}

export interface WorkflowCalls {
  dispatch(
    repository: string,
    workflow: string,
    ref: string,
    inputs: Readonly<Record<string, string>>,
  ): Promise<{ workflowRunId: string; htmlUrl: string | null }>;
  readRun(repository: string, workflowRunId: string): Promise<WorkflowRunState>;
  /** Asks GitHub to cancel a workflow run; one already finished (409) is left as it ended. */
  cancelRun(repository: string, workflowRunId: string): Promise<void>;
  /**
   * Issue 35: approves every workflow run of `headSha` that waits for approval (GitHub's
   * "Approve and run workflows"); how many it approved.
   */
  approvePendingRuns(repository: string, headSha: string): Promise<number>;
}

export function createWorkflowCalls(opts: {
  apiUrl: string;
  auth: GitHubAuth;
  log?: GitHubLog;
  retry?: { retries?: number; backoffUnitMs?: number };
}): WorkflowCalls {
  const router = createClientRouter(opts.auth, {
    baseUrl: opts.apiUrl.replace(/\/+$/, ''),
    throttleId: `fixloop-workflows-${randomUUID()}`,
    rateLimitRetries: 2,
    maxRateLimitWaitSeconds: 60,
    retries: opts.retry?.retries ?? 3,
    backoffUnitMs: opts.retry?.backoffUnitMs ?? 1000,
    spaceWrites: false,
    log: opts.log ?? silentGitHubLog,
    observer: { response: () => undefined },
  });
  const split = (repository: string): [string, string] => {
    const m = /^([A-Za-z0-9_.-]+)\/([A-Za-z0-9_.-]+)$/.exec(repository);
    if (!m) throw new TypeError(`not an owner/name repository: ${JSON.stringify(repository)}`);
    return [m[1]!, m[2]!];
  };
  return {
    async dispatch(repository, workflow, ref, inputs) {
      const [owner, repo] = split(repository);
      try {
        const gh = await router.forRepository(owner, repo);
        // Not retried: a dispatch whose answer was lost may have started a run; a second would start another.
        const res = await gh.request('POST /repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches', {
          owner,
          repo,
          workflow_id: /^\d+$/.test(workflow) ? Number(workflow) : workflow,
          ref,
          inputs,
          return_run_details: true,
          request: { retries: 0 },
        } as never);
        const body = (res as { status: number; data: unknown }).data as {
          workflow_run_id?: unknown;
          html_url?: unknown;
        } | null;
        const id = body?.workflow_run_id;
        if ((typeof id !== 'number' && typeof id !== 'string') || !/^\d+$/.test(String(id)))
          throw new Error(
            `GitHub started the workflow but did not say which run (answer ${(res as { status: number }).status}); its API may predate return_run_details`,
          );
        return { workflowRunId: String(id), htmlUrl: typeof body?.html_url === 'string' ? body.html_url : null };
      } catch (err) {
        throw toProviderError(err, `POST workflow dispatch ${owner}/${repo} ${workflow}`);
      }
    },
    async readRun(repository, workflowRunId) {
      const [owner, repo] = split(repository);
      try {
        const gh = await router.forRepository(owner, repo);
        const { data } = await gh.rest.actions.getWorkflowRun({ owner, repo, run_id: Number(workflowRunId) });
        return {
          status: data.status ?? 'unknown',
          conclusion: data.conclusion ?? null,
          htmlUrl: data.html_url ?? null,
        };
      } catch (err) {
        throw toProviderError(err, `GET workflow run ${owner}/${repo} ${workflowRunId}`);
      }
    },
    async cancelRun(repository, workflowRunId) {
      const [owner, repo] = split(repository);
      try {
        const gh = await router.forRepository(owner, repo);
        await gh.rest.actions.cancelWorkflowRun({ owner, repo, run_id: Number(workflowRunId) });
      } catch (err) {
        if ((err as { status?: unknown }).status === 409) return; // finished already: nothing to stop
        throw toProviderError(err, `POST cancel workflow run ${owner}/${repo} ${workflowRunId}`);
      }
    },
    async approvePendingRuns(repository, headSha) {
      const [owner, repo] = split(repository);
      try {
        const gh = await router.forRepository(owner, repo);
        // A run held for approval is listed with the `action_required` status filter (a conclusion
        // GitHub's filter accepts); one push makes a handful of runs, so one page is enough.
        const { data } = await gh.rest.actions.listWorkflowRunsForRepo({
          owner,
          repo,
          head_sha: headSha,
          status: 'action_required',
          per_page: 100,
        });
        let approved = 0;
        for (const run of data.workflow_runs) {
          if (run.head_sha !== headSha) continue;
          // Sent once: approving twice is harmless, but a lost answer is not worth a second request.
          await gh.rest.actions.approveWorkflowRun({ owner, repo, run_id: run.id, request: { retries: 0 } });
          approved++;
        }
        return approved;
      } catch (err) {
        throw toProviderError(err, `approve workflow runs ${owner}/${repo} ${headSha.slice(0, 12)}`);
      }
    },
  };
}
