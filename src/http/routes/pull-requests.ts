// A pull request's checks as GitHub reports them (J1), for a person holding the API token.
import { z } from 'zod';
import { prChecksRequest } from '../api-requests.js';
import { id, problem } from '../schemas/common.js';
import { pullRequestChecks } from '../schemas/pr-checks.js';
import type { RouteDeclaration } from './route.js';

const segment = z.string().regex(/^[\w.-]+$/);

export const PULL_REQUEST_ROUTES: readonly RouteDeclaration[] = [
  {
    method: 'get',
    path: '/api/pull-requests/{owner}/{repo}/{number}/checks',
    pathParams: [
      { name: 'owner', in: 'path', required: true, description: 'The repository owner.', schema: segment },
      { name: 'repo', in: 'path', required: true, description: 'The repository name.', schema: segment },
      { name: 'number', in: 'path', required: true, description: 'The pull request number.', schema: id },
    ],
    operationId: 'getPullRequestChecks',
    summary: "A pull request's checks",
    description:
      "Reads every check run and commit status of the pull request's head from GitHub, marks the failing ones by the board's rules, " +
      'and adds the log tails of the first five failing GitHub Actions jobs; a log that cannot be read is an error on its entry only.',
    tag: 'pull-requests',
    query: prChecksRequest,
    invalid: 'invalid_query',
    responses: {
      '200': { description: 'The checks and statuses of the head.', body: pullRequestChecks },
      '400': 'BadRequest',
      '401': 'Unauthorized',
      '404': {
        description: 'GitHub has no such pull request these credentials can see (`not_found`).',
        body: problem,
      },
      '502': {
        description: 'GitHub refused the request (`github_refused`); the message carries its status.',
        body: problem,
      },
      '503': { description: 'No GitHub credentials are configured (`github_not_configured`).', body: problem },
    },
  },
];
