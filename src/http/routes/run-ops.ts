// The `/api/run/*` routes (M3 over the API, I2, K6, J1): what a resumed run may do with its own token,
// about its own Task only; every refusal is `{ error: <AgentOpsError code>, message }`.
import { z } from 'zod';
import { oidcTokenExchange, runChecksQuery, runOutcome, runSpend } from '../api-requests.js';
import { problem } from '../schemas/common.js';
import { loopState, outcomeRecorded, runProblem, spendTotals } from '../schemas/loop-state.js';
import { pullRequestChecks } from '../schemas/pr-checks.js';
import type { ResponseDeclaration, RouteDeclaration } from './route.js';

/** The `/api/run/*` routes take a run's own token, never the API token. */
const runTokenOnly = [{ runToken: [] }] as const;

/** The refusals a `/api/run/*` route answers, by what it does. */
function runRefusals(route: 'checks' | 'outcome' | 'spend' | 'state'): Record<string, ResponseDeclaration> {
  const refusal = (description: string): ResponseDeclaration => ({ description, body: runProblem });
  return {
    ...(route === 'state'
      ? {}
      : {
          '400': refusal(
            'The query or body is invalid (`invalid`); unknown fields, such as a task or pull request, are refused.',
          ),
        }),
    '401': refusal('No run token, the API token, or a token no run holds (`unauthorized`).'),
    '403': refusal(
      route === 'outcome'
        ? 'The run has ended, or its attempt was already closed as retryable (`run_ended`).'
        : 'The run has ended (`run_ended`): its token reports nothing more.',
    ),
    ...(route === 'outcome'
      ? {
          '409': refusal(
            'The attempt already has an outcome (`outcome_already_reported`), or the run answers no attempt (`no_attempt`).',
          ),
        }
      : {}),
    '503': refusal(
      route === 'checks'
        ? 'The run routes are not enabled, no GitHub credentials are configured, or GitHub refused the read (`unavailable`).'
        : 'The run routes are not enabled, or the ledger could not answer (`unavailable`).',
    ),
  };
}

export const RUN_OPS_ROUTES: readonly RouteDeclaration[] = [
  {
    method: 'get',
    path: '/api/run/checks',
    operationId: 'getRunChecks',
    summary: "The run's pull request checks",
    description:
      "Reads the checks of the run's own pull request, as `GET /api/pull-requests/{owner}/{repo}/{number}/checks` does, for the agent " +
      'holding the run token; no pull request is named by the caller.',
    tag: 'run',
    security: runTokenOnly,
    query: runChecksQuery,
    invalid: 'invalid',
    responses: {
      '200': { description: 'The checks and statuses of the head.', body: pullRequestChecks },
      ...runRefusals('checks'),
    },
  },
  {
    method: 'post',
    path: '/api/run/outcome',
    operationId: 'reportRunOutcome',
    summary: "Report the attempt's outcome",
    description:
      'Records the one first-write outcome of the attempt the run was resumed for and moves the attempt on: `action_taken` to ' +
      'awaiting_progress, `non_actionable` and `blocked` to acknowledged; a second report is refused.',
    tag: 'run',
    security: runTokenOnly,
    body: { name: 'RunOutcome', description: 'The outcome, and why.', schema: runOutcome },
    invalid: 'invalid',
    responses: {
      '200': { description: 'The outcome was recorded.', body: outcomeRecorded },
      ...runRefusals('outcome'),
    },
  },
  {
    method: 'post',
    path: '/api/run/spend',
    operationId: 'reportRunSpend',
    summary: 'Report what the run cost',
    description:
      "Adds the run's costs to its Task's spend, which the cost ceiling holds against the next attempt, and returns the Task's totals.",
    tag: 'run',
    security: runTokenOnly,
    body: { name: 'RunSpend', description: 'The costs; amounts add up, so each is reported once.', schema: runSpend },
    invalid: 'invalid',
    responses: {
      '200': { description: "The Task's spend after this report.", body: spendTotals },
      ...runRefusals('spend'),
    },
  },
  {
    method: 'get',
    path: '/api/run/state',
    operationId: 'getRunLoopState',
    summary: "The run's loop state",
    description:
      "Returns the fix loop of the run's own Task: its attempts with their lifecycle and outcomes, runs, notice, spend and budget.",
    tag: 'run',
    security: runTokenOnly,
    responses: { '200': { description: 'The loop state.', body: loopState }, ...runRefusals('state') },
  },
  {
    method: 'post',
    path: '/api/run/oidc-token',
    operationId: 'exchangeOidcToken',
    summary: 'Exchange a workflow identity token for a run token',
    description:
      'For the `actions` runner (issue 35): the workflow fixloop dispatched sends the OIDC token its CI issued for the audience ' +
      "fixloop's agent URL. Its signature is checked against the issuer's published keys (FIXLOOP_ACTIONS_OIDC_ISSUER), and its " +
      "claims against the run: issuer, audience, time window, the Task's repository, the workflow run fixloop recorded for a run " +
      'still queued or running, and the configured workflow file. On a gitlab Work, the job of the pipeline fixloop started sends ' +
      'a GitLab CI ID token: keys from `<GITLAB_URL>/oauth/discovery/keys` (FIXLOOP_GITLAB_OIDC_ISSUER), `project_path` and ' +
      '`pipeline_id` checked against the run. Then a new run token is minted for that run, replacing the old ' +
      'one, and returned once. No bearer token is taken: the identity token is the credential.',
    tag: 'run',
    security: [],
    body: { name: 'OidcTokenExchange', description: 'The identity token.', schema: oidcTokenExchange },
    invalid: 'invalid',
    responses: {
      '200': {
        description: "The run's new token; the one it had before no longer works.",
        body: z.strictObject({
          runId: z.int().describe('The fixloop run the token acts for.'),
          token: z.string().describe('The run token: send it as `Authorization: Bearer` to /api/run/* and /mcp.'),
        }),
      },
      '400': { description: 'The body is not `{ token }` (`invalid`).', body: problem },
      '401': {
        description:
          'The token was refused (`unauthorized`), its message saying why: not signed by the issuer, expired, another ' +
          'audience, repository or workflow, or no run fixloop follows; nothing changed.',
        body: problem,
      },
      '503': {
        description: "No actions runner is configured, or the issuer's keys could not be read (`unavailable`).",
        body: problem,
      },
    },
  },
];
