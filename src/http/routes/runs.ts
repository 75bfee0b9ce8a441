// The run routes (M2, L1, H1): list and read runs, report a run's state (a person, or the run with its
// own token), cancel one.
import { z } from 'zod';
import { patchRun, runListQuery } from '../api-requests.js';
import { problem } from '../schemas/common.js';
import { run, runDetail } from '../schemas/run-view.js';
import type { RouteDeclaration } from './route.js';

export const RUN_ROUTES: readonly RouteDeclaration[] = [
  {
    method: 'get',
    path: '/api/runs',
    operationId: 'listRuns',
    summary: 'List runs',
    description:
      "A page of runs, newest first, optionally of one Task or in one state; each run's log is `GET /api/runs/{id}`.",
    tag: 'runs',
    query: runListQuery,
    invalid: 'invalid_query',
    responses: {
      '200': {
        description: 'A page of runs.',
        body: z.strictObject({
          runs: z.array(run),
          nextBefore: z.int().nullable().describe('The `before` of the next page; null on the last.'),
        }),
      },
      '400': 'BadRequest',
      '401': 'Unauthorized',
    },
  },
  {
    method: 'get',
    path: '/api/runs/{id}',
    pathParams: ['RunId'],
    operationId: 'getRun',
    summary: 'Read a run',
    description: "Returns one run of a Task's agent with its captured log, never its token.",
    tag: 'runs',
    responses: { '200': { description: 'The run.', body: runDetail }, '401': 'Unauthorized', '404': 'NotFound' },
  },
  {
    method: 'patch',
    path: '/api/runs/{id}',
    pathParams: ['RunId'],
    operationId: 'setRunState',
    summary: "Report a run's state",
    description:
      'Moves a run to a new state by compare-and-set; a person may do so with the API token, and the run itself with its own ' +
      'FIXLOOP_RUN_TOKEN, which is good for this one run and only until it has ended.',
    tag: 'runs',
    security: [{ bearer: [] }, { runToken: [] }],
    body: { name: 'RunStatePatch', description: 'The new state.', schema: patchRun },
    invalid: 'invalid_body',
    responses: {
      '200': { description: 'The run after the change.', body: run },
      '400': 'BadRequest',
      '401': 'Unauthorized',
      '403': { description: "A run token was presented that is not this run's (`forbidden`).", body: problem },
      '404': 'NotFound',
      '409': {
        description:
          'The run already ended and a run token was used (`run_ended`), or the run changed state meanwhile (`conflict`).',
        body: problem,
      },
    },
  },
  {
    method: 'post',
    path: '/api/runs/{id}/cancel',
    pathParams: ['RunId'],
    operationId: 'cancelRun',
    summary: 'Cancel a run',
    description:
      "A queued or running run becomes `cancelled` (never undone by a webhook) and the command runner stops its agent. Recorded as a person's (`cancel_run`).",
    tag: 'runs',
    responses: {
      '200': { description: 'The run after the cancel.', body: run },
      '401': 'Unauthorized',
      '404': 'NotFound',
      '409': { description: 'The run already ended (`conflict`).', body: problem },
    },
  },
];
