// The fake GitHub's workflow dispatches (issue 35 item 3): POST actions/workflows/{id}/dispatches makes a
// workflow run on the ref — answered 200 with { workflow_run_id, run_url, html_url } when
// return_run_details is true (GitHub's API since February 2026), else 204 — and GET actions/runs/{id}
// reads it in GitHub's `workflow-run` shape. A test finishes a run with `fake.completeWorkflowRun`.
// A push's runs can wait for approval (`fake.holdRunsForApproval`, as GitHub holds a Copilot push's):
// GET actions/runs lists them by head_sha and status, and POST actions/runs/{id}/approve queues them.
import * as gh from './payloads.js';
import type { Urls } from './payloads.js';
import type { Answer, Route, RouteInput } from './routes.js';
import { ensureRepo, isoNow, nextId, repoKey, type FakeRepo, type FakeState } from './state.js';

/** A workflow run a dispatch made. */
export interface FakeDispatchedRun {
  id: number;
  /** Lower-case owner/name. */
  repo: string;
  /** The workflow as the dispatch named it: its file name or its id. */
  workflow: string;
  ref: string;
  /** The inputs exactly as the dispatch's body carried them. */
  inputs: Record<string, unknown>;
  status: 'queued' | 'in_progress' | 'completed';
  conclusion: string | null;
  /** A push's run: its commit and event; a dispatch's run has neither. */
  headSha?: string;
  event?: string;
  /** Who approved it, when it waited for approval and was approved. */
  approvedBy?: string;
  createdAt: string;
  updatedAt: string;
}

/** Dispatched runs by id, kept beside the rest of the state (created on first use). */
export function dispatchedRuns(state: FakeState): Record<number, FakeDispatchedRun> {
  const s = state as FakeState & { dispatchedRuns?: Record<number, FakeDispatchedRun> };
  return (s.dispatchedRuns ??= {});
}

/** GitHub's limits on a dispatch's inputs: 25 properties, 65,535 characters of JSON. */
const MAX_INPUTS = 25;
const MAX_INPUTS_CHARS = 65_535;

const invalid = (message: string): Answer => ({ status: 422, body: gh.error(message, 422) });

function workflowRun(urls: Urls, repo: FakeRepo, run: FakeDispatchedRun): Record<string, unknown> {
  const api = `${urls.api}/repos/${repo.fullName}/actions/runs/${run.id}`;
  const file = /^\d+$/.test(run.workflow) ? 'fixloop-agent.yml' : run.workflow;
  const workflowId = /^\d+$/.test(run.workflow) ? Number(run.workflow) : 161335;
  return {
    id: run.id,
    node_id: `WFR_${run.id}`,
    name: file,
    head_branch: run.ref,
    head_sha: run.headSha ?? 'f'.repeat(40),
    path: `.github/workflows/${file}`,
    display_title: file,
    run_number: run.id,
    event: run.event ?? 'workflow_dispatch',
    status: run.status,
    conclusion: run.conclusion,
    workflow_id: workflowId,
    url: api,
    html_url: `${urls.web}/${repo.fullName}/actions/runs/${run.id}`,
    pull_requests: [],
    created_at: run.createdAt,
    updated_at: run.updatedAt,
    run_attempt: 1,
    run_started_at: run.createdAt,
    jobs_url: `${api}/jobs`,
    logs_url: `${api}/logs`,
    check_suite_url: `${urls.api}/repos/${repo.fullName}/check-suites/${run.id}`,
    artifacts_url: `${api}/artifacts`,
    cancel_url: `${api}/cancel`,
    rerun_url: `${api}/rerun`,
    workflow_url: `${urls.api}/repos/${repo.fullName}/actions/workflows/${workflowId}`,
    head_commit: null,
    repository: gh.minimalRepository(urls, repo),
    head_repository: gh.minimalRepository(urls, repo),
  };
}

function repoOf(input: RouteInput): FakeRepo {
  return ensureRepo(input.state, `${input.params.owner}/${input.params.repo}`);
}

/** The run `{run_id}` names, when it is one of this repository's. */
function runOf(input: RouteInput, repo: FakeRepo): FakeDispatchedRun | undefined {
  const run = dispatchedRuns(input.state)[Number(input.params.run_id)];
  return run !== undefined && run.repo === repoKey(repo.fullName) ? run : undefined;
}

const notFound = (): Answer => ({ status: 404, body: gh.error('Not Found', 404) });

export const ACTIONS_RUN_ROUTES: readonly Route[] = [
  {
    operation: 'POST /repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches',
    access: 'repo',
    handle(input) {
      const repo = repoOf(input);
      const body = (input.body ?? {}) as { ref?: unknown; inputs?: unknown; return_run_details?: unknown };
      if (typeof body.ref !== 'string' || body.ref === '')
        return invalid('Invalid request.\n\n"ref" wasn\'t supplied.');
      const inputs = (body.inputs ?? {}) as Record<string, unknown>;
      if (typeof inputs !== 'object' || Array.isArray(inputs)) return invalid('inputs must be an object');
      if (Object.keys(inputs).length > MAX_INPUTS) return invalid(`you may only define up to ${MAX_INPUTS} inputs`);
      if (JSON.stringify(inputs).length > MAX_INPUTS_CHARS) return invalid('inputs are too large');
      const at = isoNow(input.state);
      const run: FakeDispatchedRun = {
        id: nextId(input.state),
        repo: repoKey(repo.fullName),
        workflow: input.params.workflow_id!,
        ref: body.ref,
        inputs,
        status: 'queued',
        conclusion: null,
        createdAt: at,
        updatedAt: at,
      };
      dispatchedRuns(input.state)[run.id] = run;
      if (body.return_run_details !== true) return { status: 204 };
      return {
        status: 200,
        body: {
          workflow_run_id: run.id,
          run_url: `${input.urls.api}/repos/${repo.fullName}/actions/runs/${run.id}`,
          html_url: `${input.urls.web}/${repo.fullName}/actions/runs/${run.id}`,
        },
      };
    },
  },
  {
    operation: 'GET /repos/{owner}/{repo}/actions/runs/{run_id}',
    access: 'repo',
    handle(input) {
      const repo = repoOf(input);
      const run = runOf(input, repo);
      if (run === undefined) return notFound();
      return { status: 200, body: workflowRun(input.urls, repo, run) };
    },
  },
  {
    operation: 'POST /repos/{owner}/{repo}/actions/runs/{run_id}/cancel',
    access: 'repo',
    handle(input) {
      const repo = repoOf(input);
      const run = runOf(input, repo);
      if (run === undefined) return notFound();
      if (run.status === 'completed')
        return { status: 409, body: gh.error('Cannot cancel a workflow run that is completed.', 409) };
      run.status = 'completed';
      run.conclusion = 'cancelled';
      run.updatedAt = isoNow(input.state);
      return { status: 202, body: {} };
    },
  },
  {
    operation: 'GET /repos/{owner}/{repo}/actions/runs',
    access: 'repo',
    handle(input) {
      const repo = repoOf(input);
      const headSha = input.query.get('head_sha');
      const status = input.query.get('status');
      // GitHub's `status` filter takes a status or a conclusion (`action_required` is a conclusion).
      const runs = Object.values(dispatchedRuns(input.state)).filter(
        (r) =>
          r.repo === repoKey(repo.fullName) &&
          (headSha === null || r.headSha === headSha) &&
          (status === null || r.status === status || r.conclusion === status),
      );
      return {
        status: 200,
        body: { total_count: runs.length, workflow_runs: runs.map((r) => workflowRun(input.urls, repo, r)) },
      };
    },
  },
  {
    operation: 'POST /repos/{owner}/{repo}/actions/runs/{run_id}/approve',
    access: 'repo',
    handle(input) {
      const repo = repoOf(input);
      const run = runOf(input, repo);
      if (run === undefined) return notFound();
      if (run.conclusion !== 'action_required')
        return { status: 403, body: gh.error('This run is not waiting for approval', 403) };
      run.status = 'queued';
      run.conclusion = null;
      const c = input.caller;
      run.approvedBy =
        c.kind === 'user' ? c.login : c.kind === 'installation' ? `installation ${c.installationId}` : 'app';
      run.updatedAt = isoNow(input.state);
      return { status: 201, body: {} };
    },
  },
];

/** A push's workflow run that waits for approval (GitHub's `action_required`), as a Copilot push's does. */
export function holdRunForApproval(state: FakeState, repo: string, headSha: string, name: string): FakeDispatchedRun {
  const r = ensureRepo(state, repo);
  const at = isoNow(state);
  const run: FakeDispatchedRun = {
    id: nextId(state),
    repo: repoKey(r.fullName),
    workflow: name,
    ref: '',
    inputs: {},
    status: 'completed',
    conclusion: 'action_required',
    headSha,
    event: 'pull_request',
    createdAt: at,
    updatedAt: at,
  };
  dispatchedRuns(state)[run.id] = run;
  return run;
}

/** A test moves a dispatched run on: in progress, or completed with a conclusion (success, failure …). */
export function completeWorkflowRun(
  state: FakeState,
  id: number,
  conclusion: 'success' | 'failure' | 'cancelled' | 'timed_out' | null,
): FakeDispatchedRun {
  const run = dispatchedRuns(state)[id];
  if (run === undefined) throw new Error(`no dispatched workflow run ${id}`);
  run.status = conclusion === null ? 'in_progress' : 'completed';
  run.conclusion = conclusion;
  run.updatedAt = isoNow(state);
  return run;
}
