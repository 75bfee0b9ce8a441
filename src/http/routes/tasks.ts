// The Task routes (M2, M4, K5, V1, V4): create, list, read and act on Tasks, the board and Results.
import { z } from 'zod';
import {
  boardQuery,
  newTask,
  patchTask,
  postResume,
  putBudget,
  putLoop,
  putParked,
  resultsQuery,
  taskListQuery,
} from '../api-requests.js';
import { problem } from '../schemas/common.js';
import { task, taskExists, taskSummary } from '../schemas/task-view.js';
import { boardRow } from '../schemas/board-row.js';
import { results } from '../schemas/results.js';
import { run } from '../schemas/run-view.js';
import type { ResponseDeclaration, RouteDeclaration } from './route.js';

const refused = (description: string): ResponseDeclaration => ({ description, body: problem });
const nextPage = (key: 'after' | 'before') =>
  z.int().nullable().describe(`The \`${key}\` of the next page; null on the last.`);
const theTask = (description: string): ResponseDeclaration => ({ description, body: task });

export const TASK_ROUTES: readonly RouteDeclaration[] = [
  {
    method: 'post',
    path: '/api/tasks',
    operationId: 'createTask',
    summary: 'Create a Task',
    description:
      'Binds a new Task to a pull request in the data repository of a configured Work, so its CI results can resume the agent.',
    tag: 'tasks',
    body: { name: 'NewTask', description: 'The pull request and how to resume its agent.', schema: newTask },
    invalid: 'invalid_body',
    responses: {
      '201': theTask('The Task was created.'),
      '400': 'BadRequest',
      '401': 'Unauthorized',
      '409': { description: 'A Task already holds this pull request.', body: taskExists },
      '422': refused(
        'The repository is not the data repository of a configured Work (`error` is `no_work` or `not_data_repo`).',
      ),
    },
  },
  {
    method: 'get',
    path: '/api/tasks',
    operationId: 'listTasks',
    summary: 'List Tasks',
    description:
      'Lists Tasks in creation order, optionally only those in one state or repository. Without `limit` or `after` every Task at once; with either, a page and the `after` of the next.',
    tag: 'tasks',
    query: taskListQuery,
    invalid: 'invalid_query',
    responses: {
      '200': {
        description: 'The Tasks, or a page of them.',
        body: z.xor([
          z.strictObject({ tasks: z.array(taskSummary) }),
          z.strictObject({ tasks: z.array(taskSummary), nextAfter: nextPage('after') }),
        ]),
      },
      '400': 'BadRequest',
      '401': 'Unauthorized',
    },
  },
  {
    method: 'get',
    path: '/api/board',
    operationId: 'readBoard',
    summary: 'A page of the board',
    description:
      'Tasks newest first with their CI state, attempts, spend, loop state and last failure (M4); a keyset page: pass `nextBefore` back as `before`. `GET /api/tasks` keeps its unpaged shape.',
    tag: 'tasks',
    query: boardQuery,
    invalid: 'invalid_query',
    responses: {
      '200': {
        description: 'The page.',
        body: z.object({ tasks: z.array(boardRow), nextBefore: nextPage('before') }),
      },
      '400': 'BadRequest',
      '401': 'Unauthorized',
    },
  },
  {
    method: 'get',
    path: '/api/results',
    operationId: 'readResults',
    summary: 'Results: does the loop pay?',
    description:
      'V1: for a period, overall and by repository, agent and failing check: pull requests touched, green with no person, attempts and spend per green pull request, time from first red to green, hand-offs by reason, changes by a person within a week of green, and the checks that cost most. Give `period` or `from`/`to`; the default is the last 30 days. Each figure is explained in docs/results.md.',
    tag: 'tasks',
    query: resultsQuery,
    invalid: 'invalid_query',
    responses: {
      '200': { description: 'The figures of the period.', body: results },
      '400': 'BadRequest',
      '401': 'Unauthorized',
      '503': refused('Results are not wired on this server (`unavailable`).'),
    },
  },
  {
    method: 'post',
    path: '/api/tasks/{id}/approve-one',
    pathParams: ['TaskId'],
    operationId: 'approveOne',
    summary: 'Grant one more attempt',
    description:
      "K5 approve-one, as the `fixloop:approve-one` label does: one more automatic attempt past the budget and a new stop round. Recorded in the decision log as a person's (`acted`, `approve_one`).",
    tag: 'tasks',
    responses: {
      '200': theTask('The Task after the grant.'),
      '401': 'Unauthorized',
      '404': 'NotFound',
      '409': refused(
        "The loop has not stopped for this Task, it is parked, or another grant won (`conflict`); or the Task's grants are used (`grant_cap`, V4): the message says how many and how to open more.",
      ),
    },
  },
  {
    method: 'put',
    path: '/api/tasks/{id}/budget',
    pathParams: ['TaskId'],
    operationId: 'setTaskBudget',
    summary: "Set the Task's own cap on grants",
    description:
      "V4: a Task takes at most `maxGrants` grants of one more attempt across its life (the configured `TASK_MAX_GRANTS`, default 3); past it only a person raising the Task's own cap here opens more. Recorded as a person's (`acted`, `set_grant_cap`), saying from what to what.",
    tag: 'tasks',
    body: { name: 'TaskBudget', description: 'The cap.', schema: putBudget },
    invalid: 'invalid_body',
    responses: {
      '200': theTask('The Task after the change, with its grants.'),
      '400': 'BadRequest',
      '401': 'Unauthorized',
      '404': 'NotFound',
    },
  },
  {
    method: 'post',
    path: '/api/tasks/{id}/resume',
    pathParams: ['TaskId'],
    operationId: 'resumeByPerson',
    summary: 'Resume the agent with a message',
    description:
      "A person's run (H1): the message is the prompt (with the protocol block), the run is `resume` with `autoResume: false`, answers no attempt and spends no budget. Recorded as a person's (`resume`).",
    tag: 'tasks',
    body: { name: 'ResumeMessage', description: 'The message.', schema: postResume },
    invalid: 'invalid_body',
    responses: {
      '200': { description: 'The run, started.', body: run },
      '400': 'BadRequest',
      '401': 'Unauthorized',
      '404': 'NotFound',
      '409': refused('The Task is not open, or a run of it is unfinished (`conflict`).'),
      '503': refused('No runner is configured, or it could not start the run (`unavailable`).'),
    },
  },
  {
    method: 'put',
    path: '/api/tasks/{id}/loop',
    pathParams: ['TaskId'],
    operationId: 'setTaskLoop',
    summary: 'Turn the loop off or on for one Task',
    description:
      "While off, the gate refuses every red of this Task (`loop_off`). Recorded as a person's (`loop_off`, `loop_on`).",
    tag: 'tasks',
    body: { name: 'LoopSwitch', description: 'On or off.', schema: putLoop },
    invalid: 'invalid_body',
    responses: {
      '200': theTask('The Task after the change.'),
      '400': 'BadRequest',
      '401': 'Unauthorized',
      '404': 'NotFound',
    },
  },
  {
    method: 'put',
    path: '/api/tasks/{id}/parked',
    pathParams: ['TaskId'],
    operationId: 'setTaskParked',
    summary: 'Park or unpark a Task',
    description: "A parked Task never re-enters the loop on its own (K5). Recorded as a person's (`park`, `unpark`).",
    tag: 'tasks',
    body: { name: 'ParkedSwitch', description: 'Parked or not.', schema: putParked },
    invalid: 'invalid_body',
    responses: {
      '200': theTask('The Task after the change.'),
      '400': 'BadRequest',
      '401': 'Unauthorized',
      '404': 'NotFound',
    },
  },
  {
    method: 'get',
    path: '/api/tasks/{id}',
    pathParams: ['TaskId'],
    operationId: 'getTask',
    summary: 'Read a Task',
    description: 'Returns one Task together with its attempts, runs, rejections and Inbox notice.',
    tag: 'tasks',
    responses: { '200': theTask('The Task.'), '401': 'Unauthorized', '404': 'NotFound' },
  },
  {
    method: 'patch',
    path: '/api/tasks/{id}',
    pathParams: ['TaskId'],
    operationId: 'setTaskState',
    summary: "Set a Task's state",
    description: 'Lets a person mark a Task open, done or cancelled, which governs whether the loop may resume it.',
    tag: 'tasks',
    body: { name: 'TaskStatePatch', description: 'The new state.', schema: patchTask },
    invalid: 'invalid_body',
    responses: {
      '200': theTask('The Task after the change.'),
      '400': 'BadRequest',
      '401': 'Unauthorized',
      '404': 'NotFound',
    },
  },
];
