// What the JSON API reads (issue 34, decision 0058): each route's body and query schemas. The handlers
// in api.ts parse with these very objects, and the route declarations (routes/*.ts) name them, so the
// OpenAPI document's request bodies and query parameters are generated from what the server enforces.
import { z } from 'zod';
import { RUN_STATES, TASK_STATES } from '../core/types.js';
import { LOG_LINES_DEFAULT, LOG_LINES_MAX } from '../app/pr-checks.js';
import { FIX_OUTCOMES, REASON_MAX } from '../app/agent-ops-port.js';
import { RESUME_MESSAGE_MAX } from '../app/person-actions.js';
import { LOOP_STATES } from '../core/loop-state.js';
import { MAX_GRANTS_LIMIT } from '../core/grant-cap.js';
import { RESULTS_PERIODS } from '../core/results.js';

const REPOSITORY = /^[\w.-]+(\/[\w.-]+){1,20}$/;
const repositoryWords = 'owner/name, or a GitLab project path group/…/name';
const id = (description: string) => z.coerce.number().int().min(1).optional().describe(description);

/** V1: `period=7d|30d|90d`, or `from`/`to` ISO dates (checked in core/results.ts). */
export const resultsQuery = z.object({
  period: z.enum(RESULTS_PERIODS).optional().describe('A rolling period ending now.'),
  from: z.string().max(40).optional().describe('Start date (ISO), with `to`.'),
  to: z.string().max(40).optional().describe('End date (ISO), with `from`.'),
});

export const newTask = z
  .object({
    repository: z
      .string()
      .regex(REPOSITORY, repositoryWords)
      .describe("`owner/name` of a configured Work's data repository; for a gitlab Work, the project's path."),
    pullRequest: z.number().int().positive(),
    branch: z.string().min(1).max(255),
    resumeRef: z.string().max(500).optional().describe('How to resume the agent that opened the pull request.'),
  })
  .describe('The pull request a new Task binds, and how to resume its agent.');
export const patchTask = z.object({ state: z.enum(TASK_STATES) });
export const runListQuery = z.object({
  taskId: id('Only runs of this Task.'),
  state: z.enum(RUN_STATES).optional().describe('Only runs in this state.'),
  limit: z.coerce.number().int().min(1).max(200).optional().describe('Page size (default 50).'),
  before: id('Only runs with a smaller id.'),
});
export const taskListQuery = z.object({
  state: z.enum(TASK_STATES).optional().describe('Only Tasks in this state.'),
  repository: z.string().regex(REPOSITORY, repositoryWords).optional().describe('Only Tasks of this repository.'),
  limit: z.coerce.number().int().min(1).max(500).optional().describe('Page size (default 100 when paging).'),
  after: z.coerce.number().int().min(0).optional().describe('Only Tasks with a larger id.'),
});
export const patchRun = z.object({ state: z.enum(RUN_STATES) });
export const putStop = z.object({ stopped: z.boolean().describe('True while the global stop flag is set.') });
export const putLoop = z.object({ on: z.boolean().describe('False turns the loop off for this one Task (M4).') });
export const putParked = z.object({
  parked: z.boolean().describe('True parks the Task; false unparks it (K5, M4).'),
});
/** V4: the Task's own cap on grants of one more attempt; null goes back to the configured cap. */
export const putBudget = z.strictObject({ maxGrants: z.int().min(0).max(MAX_GRANTS_LIMIT).nullable() });
export const postResume = z.object({ message: z.string().trim().min(1).max(RESUME_MESSAGE_MAX) });
export const boardQuery = z.object({
  state: z.enum(TASK_STATES).optional().describe('Only Tasks in this state.'),
  loop: z.enum(LOOP_STATES).optional().describe('Only Tasks whose loop is in this state.'),
  repository: z.string().max(200).optional().describe('owner/name.'),
  q: z.string().max(200).optional().describe('Search text.'),
  limit: z.coerce.number().int().min(1).max(200).default(50).describe('Page size.'),
  before: z.coerce.number().int().positive().optional().describe('Only Tasks with a smaller id.'),
});
export const inboxQuery = z.object({
  limit: z.coerce.number().int().min(1).max(200).default(50).describe('Page size.'),
  after: z.coerce.number().int().positive().optional().describe('Only notices with a larger id.'),
});
export const outboxQuery = z.object({
  state: z.enum(['pending', 'failed']).optional().describe('Only deliveries in this state.'),
  limit: z.coerce.number().int().min(1).max(500).default(100).describe('At most this many.'),
});
export const deliveriesQuery = z.object({
  taskId: z.coerce.number().int().positive().optional().describe('Only decisions about this Task.'),
  delivery: z.string().optional().describe('Only decisions about this delivery id.'),
  limit: z.coerce.number().int().min(1).max(1000).default(100).describe('At most this many.'),
  before: z.coerce.number().int().positive().optional().describe('Only decisions with a smaller id.'),
});
const digits = z
  .string()
  .regex(/^\d{1,9}$/, 'must be a whole number')
  .transform(Number);
const checksFields = {
  failing: z.enum(['true', 'false']).default('false').describe('Only the failing entries.'),
  logLines: digits
    .pipe(z.int().max(LOG_LINES_MAX))
    .default(LOG_LINES_DEFAULT)
    .describe('Lines of each log tail; 0 reads no logs.'),
};
/** `pr checks` (J1): the path's owner, repo and number are read with the query, by one schema. */
export const prChecksRequest = z.object({
  owner: z.string().regex(/^[\w.-]+$/, 'must be a GitHub owner'),
  repo: z.string().regex(/^[\w.-]+$/, 'must be a repository name'),
  number: digits.pipe(z.int().min(1, 'must be a positive pull request number')),
  ...checksFields,
});

// The `/api/run/*` inputs: strict, so a field naming a task, run or pull request is refused, not ignored (I2).
export const RUN_ROUTE = /^\/api\/run\/(checks|outcome|spend|state|oidc-token)$/;
export const runChecksQuery = z.strictObject(checksFields);
export const runOutcome = z.strictObject({
  outcome: z.enum(FIX_OUTCOMES),
  reason: z.string().max(REASON_MAX).optional(),
});
const cost = z.number().min(0).max(1e9);
export const runSpend = z
  .strictObject({ model: cost.optional(), sandbox: cost.optional(), note: z.string().max(REASON_MAX).optional() })
  .refine((s) => s.model !== undefined || s.sandbox !== undefined, 'give model and/or sandbox');

/** Issue 35 item 3: a workflow's CI identity token (a JWT of a kilobyte or two), for a run token. */
export const OIDC_TOKEN_MAX_CHARS = 16 * 1024;
export const oidcTokenExchange = z.strictObject({
  token: z
    .string()
    .min(1)
    .max(OIDC_TOKEN_MAX_CHARS)
    .describe("The workflow's OIDC token, asked for with fixloop's agent URL (FIXLOOP_AGENT_URL) as its audience."),
});
