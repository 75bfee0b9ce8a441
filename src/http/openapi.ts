// The OpenAPI 3.1 description of fixloop's HTTP surface (SPEC M2, A1): the JSON API of api.ts and
// the webhook handler served in front of it. The request side (bodies, query parameters) is generated
// from the zod schemas the handlers parse with (api-routes.ts, decision 0058); the answers are described
// here. The enums come from core, so they never drift; the route list is checked against the Hono app.
import { ATTEMPT_STATUSES, CI_STATES, PR_STATES, REJECTION_SOURCES, RUN_STATES, TASK_STATES } from '../core/types.js';
import { STOP_REASONS } from '../core/reasons.js';
import { EDGE_REASONS, OUTCOMES, PERSON_ACTIONS, REFUSALS, type Outcome } from '../core/reasons.js';
import { ATTEMPT_STATES, FIX_OUTCOMES } from '../core/attempt-state.js';
import { AGENT_OPS_ERROR_CODES, REASON_MAX } from '../app/agent-ops-port.js';
import { LOOP_STATES } from '../core/loop-state.js';
import { RESUME_MESSAGE_MAX } from '../app/person-actions.js';
import { MAX_GRANTS_LIMIT } from '../core/grant-cap.js';
import { RESULTS_PERIODS } from '../core/results.js';
import { z } from 'zod';
import { API_ROUTES, type RouteDeclaration } from './api-routes.js';

// --- A small typing of the parts of OpenAPI 3.1 this document uses -------------------------------

type JsonType = 'string' | 'number' | 'integer' | 'boolean' | 'object' | 'array' | 'null';
type JsonScalar = string | number | boolean | null;

/** A JSON Schema 2020-12 object (OpenAPI 3.1's Schema Object dialect). */
export interface SchemaObject {
  $ref?: string;
  type?: JsonType | readonly JsonType[];
  title?: string;
  description?: string;
  enum?: readonly JsonScalar[];
  const?: JsonScalar;
  format?: string;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  default?: JsonScalar;
  examples?: readonly JsonScalar[];
  properties?: { readonly [name: string]: SchemaObject };
  required?: readonly string[];
  additionalProperties?: boolean | SchemaObject;
  items?: SchemaObject;
  anyOf?: readonly SchemaObject[];
  oneOf?: readonly SchemaObject[];
}

export interface RefObject {
  $ref: string;
}

export interface ParameterObject {
  name: string;
  in: 'path' | 'query' | 'header';
  description: string;
  required?: boolean;
  schema: SchemaObject;
}

export interface MediaTypeObject {
  schema: SchemaObject;
}

export interface HeaderObject {
  description: string;
  schema: SchemaObject;
}

export interface ResponseObject {
  description: string;
  headers?: { readonly [name: string]: HeaderObject };
  content?: { readonly [mediaType: string]: MediaTypeObject };
}

export interface RequestBodyObject {
  description: string;
  required: boolean;
  content: { readonly [mediaType: string]: MediaTypeObject };
}

export type SecurityRequirement = { readonly [scheme: string]: readonly string[] };

export interface OperationObject {
  operationId: string;
  summary: string;
  description: string;
  tags: readonly string[];
  parameters?: readonly (ParameterObject | RefObject)[];
  requestBody?: RequestBodyObject;
  responses: { readonly [status: string]: ResponseObject | RefObject };
  security?: readonly SecurityRequirement[];
}

export type HttpMethod = 'get' | 'put' | 'post' | 'delete' | 'patch';

export type PathItemObject = { readonly [M in HttpMethod]?: OperationObject } & {
  parameters?: readonly (ParameterObject | RefObject)[];
};

export interface SecuritySchemeObject {
  type: 'http';
  scheme: 'bearer';
  description: string;
}

export interface OpenApiDocument {
  openapi: '3.1.0';
  info: {
    title: string;
    version: string;
    summary: string;
    description: string;
    license?: { name: string; identifier: string };
  };
  jsonSchemaDialect: string;
  servers?: readonly { url: string; description: string }[];
  tags: readonly { name: string; description: string }[];
  security: readonly SecurityRequirement[];
  paths: { readonly [path: string]: PathItemObject };
  components: {
    schemas: { readonly [name: string]: SchemaObject };
    responses: { readonly [name: string]: ResponseObject };
    parameters: { readonly [name: string]: ParameterObject };
    securitySchemes: { readonly [name: string]: SecuritySchemeObject };
  };
}

// --- Helpers ------------------------------------------------------------------------------------

const schemaRef = (name: string): SchemaObject => ({ $ref: `#/components/schemas/${name}` });
const responseRef = (name: string): RefObject => ({ $ref: `#/components/responses/${name}` });
const parameterRef = (name: string): RefObject => ({ $ref: `#/components/parameters/${name}` });
const json = (schema: SchemaObject) => ({ 'application/json': { schema } });
const nullableRef = (name: string): SchemaObject => ({ anyOf: [schemaRef(name), { type: 'null' }] });
const codeList = (xs: readonly string[]) => xs.map((x) => `\`${x}\``).join(', ');

const id: SchemaObject = { type: 'integer', minimum: 1 };
const nullableId: SchemaObject = { type: ['integer', 'null'], minimum: 1 };
const timestamp: SchemaObject = { type: 'string', format: 'date-time', description: 'ISO-8601 UTC timestamp.' };
const nullableTimestamp: SchemaObject = { type: ['string', 'null'], format: 'date-time' };
const sha: SchemaObject = { type: ['string', 'null'], description: 'A commit SHA, or null when none is known.' };

/** Every /api operation may answer 500 from the app's error handler; this appends it. */
function withInternal(responses: OperationObject['responses']): OperationObject['responses'] {
  return { ...responses, '500': responseRef('Internal') };
}

// --- Schemas ------------------------------------------------------------------------------------

const taskFields = {
  id,
  work: { type: 'string', description: 'The name of the Work the Task belongs to.' },
  repository: { type: 'string', description: 'The data repository, `owner/name`, lower-case.' },
  pullRequest: { type: 'integer', minimum: 1, description: 'The pull request number in the data repository.' },
  branch: { type: 'string' },
  state: { type: 'string', enum: TASK_STATES },
  prState: { type: 'string', enum: PR_STATES },
  branchState: { type: 'string', enum: ['present', 'deleted'] },
  isFork: { type: 'boolean' },
  ciHeadSha: { ...sha, description: 'The newest head commit the CI state is about (B1).' },
  ciHeadSeenAt: { ...nullableTimestamp, description: 'When that head was seen (B1).' },
  ciState: {
    type: 'string',
    enum: CI_STATES,
    description: 'Red is written by the webhook, passing only by the poll (B2).',
  },
  noticeAt: {
    ...nullableTimestamp,
    description: 'The G1 marker: non-null once the loop stopped for this Task and filed its notice.',
  },
  resumeRef: { type: ['string', 'null'], description: 'How to resume the agent (a session id, opaque to fixloop).' },
  createdAt: timestamp,
  polledAt: { ...nullableTimestamp, description: 'When the poll last read the pull request (E1).' },
  stopRound: {
    type: 'integer',
    minimum: 0,
    description: 'How many times a person granted one more attempt (K5); a notice is unique per round.',
  },
  extraAttempts: {
    type: 'integer',
    minimum: 0,
    description:
      'Attempts a person granted past the budget (K5: the `fixloop:approve-one` label, `/fixloop retry`, the dashboard, the API), one per grant: the grants used (V4).',
  },
  maxGrants: {
    type: ['integer', 'null'],
    minimum: 0,
    maximum: MAX_GRANTS_LIMIT,
    description:
      "The Task's own cap on grants of one more attempt across its life, set by a person (`PUT /api/tasks/{id}/budget`); null: the configured cap (`TASK_MAX_GRANTS`) applies (V4).",
  },
  approveOnePending: { type: 'boolean', description: 'The next claim was approved by a person.' },
  parkedAt: {
    ...nullableTimestamp,
    description: 'Parked after no answer to the hand-off (K5): never re-enters the loop on its own.',
  },
  handoffAt: {
    ...nullableTimestamp,
    description: 'When the hand-off label and state comment were posted for the current stop.',
  },
  stateCommentId: { type: ['string', 'null'], description: 'The pull request comment mirroring the loop state (K8).' },
  adopted: { type: 'boolean', description: 'Created from an adoption rule rather than the API.' },
  loopOff: {
    type: 'boolean',
    description: 'A person turned the loop off for this Task (M4); the gate refuses `loop_off`.',
  },
  skipLabel: {
    type: 'boolean',
    description: 'The pull request carries the label `fixloop:skip`; the gate refuses `skip_label` while it does.',
  },
  baseRef: {
    type: ['string', 'null'],
    description:
      'The branch the pull request merges into, as the poll or a pull_request webhook last showed it (triage reads its checks, T1); null before either did.',
  },
  prTitle: {
    type: ['string', 'null'],
    description: "The pull request's title as the poll last read it (issue 33); null before the poll did.",
  },
  prAuthor: {
    type: ['string', 'null'],
    description:
      "The login of the pull request's author as the poll last read it (issue 33); null before the poll did.",
  },
  commitStatus: {
    type: ['string', 'null'],
    description:
      'The `fixloop` commit status last written on the head (M4), as `<sha> <state>:<description>`, e.g. `… pending:attempt 1 of 2 running`; null before any.',
  },
  gate: {
    type: ['object', 'null'],
    description:
      "The poll's green-gate verdict for the head and why (B4): every required check needs an explicit success.",
    properties: {
      headSha: { type: 'string' },
      at: timestamp,
      verdict: { type: 'string', enum: ['red', 'passing', 'pending', 'not_green'] },
      reasons: {
        type: 'array',
        items: {
          type: 'object',
          required: ['check', 'why', 'seen'],
          properties: {
            check: { type: 'string' },
            why: { type: 'string' },
            seen: { type: ['string', 'null'] },
            decider: { type: 'string' },
          },
        },
      },
      failing: { type: 'array', items: { type: 'string' } },
    },
  },
} as const satisfies Record<string, SchemaObject>;

const runSummaryFields = {
  id,
  action: { type: 'string', enum: ['start', 'resume'] },
  autoResume: { type: 'boolean', description: 'True when the loop (not a person) dispatched the run.' },
  state: { type: 'string', enum: RUN_STATES },
  attemptId: { ...nullableId, description: 'The attempt this run answers, if it is an automatic resume.' },
  agentSeenAt: {
    ...nullableTimestamp,
    description:
      "When the run's agent first called fixloop with its run token (MCP or API); null while it never has. A run that ends with none never reached fixloop.",
  },
  interruptedAt: {
    ...nullableTimestamp,
    description:
      'V4: when a shutdown (its grace over) or a crash of fixloop interrupted the run; its attempt is then offered again once, free. Null: not interrupted.',
  },
  createdAt: timestamp,
} as const satisfies Record<string, SchemaObject>;
const runFields = { ...runSummaryFields, taskId: id } as const satisfies Record<string, SchemaObject>;

const noticeSummaryFields = {
  reason: { type: 'string', enum: STOP_REASONS },
  headSha: sha,
  attemptsUsed: { type: 'integer', minimum: 0 },
  message: { type: 'string' },
  createdAt: timestamp,
} as const satisfies Record<string, SchemaObject>;
const noticeFields = {
  id,
  taskId: id,
  repository: { type: 'string' },
  pullRequest: { type: 'integer', minimum: 1 },
  ...noticeSummaryFields,
} as const satisfies Record<string, SchemaObject>;

const object = (properties: Record<string, SchemaObject>, extra: Partial<SchemaObject> = {}): SchemaObject => ({
  type: 'object',
  required: Object.keys(properties),
  properties,
  ...extra,
});

const decisionReason =
  'Why the outcome happened, or null. When `outcome` is `refused` it is one of the closed refusal list: ' +
  `${codeList(REFUSALS)}. When it is \`rejected\`, \`ignored\` or \`dropped\` at the edge it is one of ` +
  `${codeList(EDGE_REASONS)} (or \`unknown_event\`). When it is \`noticed\` it is the stop reason ` +
  `(${codeList(STOP_REASONS)}). When it is \`acted\` (a person, from the dashboard or the API) it is the action: ${codeList(PERSON_ACTIONS)}. When it is \`reported\` (a resumed run's own report) it is \`outcome_<outcome>\` or \`spend_reported\`; other outcomes may carry an informational reason such as \`identity_seen\`, ` +
  '`dispatch_unknown`, `run_lost` (a command agent that ended while no fixloop process watched it), `run_interrupted` (a shutdown stopped the agent after its grace; its attempt is offered again once, free) or `pull_request_state`.';

/** V1: the figures of one group of pull requests (core/results.ts ResultsFigures). */
const resultsFigureFields = {
  pullRequests: {
    type: 'integer',
    minimum: 0,
    description: 'Pull requests the loop touched: a red or an attempt in the period.',
  },
  green: {
    type: 'integer',
    minimum: 0,
    description: 'Of those, how many went green after their first red of the period.',
  },
  greenWithoutPerson: {
    type: 'integer',
    minimum: 0,
    description:
      "Of those, how many went green with no person's action, resume or hand-off between first red and green.",
  },
  fixRate: { type: ['number', 'null'], minimum: 0, maximum: 1, description: 'greenWithoutPerson / pullRequests.' },
  attempts: { type: 'integer', minimum: 0, description: 'Automatic attempts claimed in the period.' },
  spend: { type: 'number', minimum: 0, description: "What the attempts' runs reported spending, in `currency`." },
  attemptsPerGreen: { type: ['number', 'null'], description: 'attempts / greenWithoutPerson; null when none.' },
  spendPerGreen: { type: ['number', 'null'], description: 'spend / greenWithoutPerson; null when none.' },
  timeToGreenMinutes: object({
    median: { type: ['number', 'null'] },
    p90: { type: ['number', 'null'] },
    samples: { type: 'array', items: { type: 'number', minimum: 0 }, description: 'Minutes, shortest first.' },
  }),
  handOffs: {
    type: 'array',
    description: 'Stop notices filed in the period, by reason, most first.',
    items: object({ reason: { type: 'string', enum: STOP_REASONS }, count: { type: 'integer', minimum: 1 } }),
  },
  changedByPerson: {
    type: 'integer',
    minimum: 0,
    description:
      "Pull requests green without a person whose head moved within a week of green with no attempt of the loop's (an approximation of a fix reverted or amended by a person; docs/results.md).",
  },
} as const satisfies Record<string, SchemaObject>;

const ignoredOutcomes = ['duplicate', 'dropped', 'ignored'] as const satisfies readonly Outcome[];

const schemas = {
  Problem: object(
    {
      error: {
        type: 'string',
        description: 'A stable, machine-readable code (e.g. `invalid_body`, `not_found`, `unauthorized`).',
      },
      message: { type: 'string', description: 'A human-readable explanation.' },
    },
    { description: 'An error answer.' },
  ),
  TaskSummary: object(taskFields, {
    description: 'A Task as stored: its state, pull request, CI head and budget marker.',
  }),
  Task: object(
    {
      ...taskFields,
      attemptsUsed: {
        type: 'integer',
        minimum: 0,
        description:
          'C3: the attempts the budget counts (one per attempt row); a run interrupted by a restart and offered again is the same attempt, so it counts once (V4).',
      },
      attempts: { type: 'array', items: schemaRef('Attempt'), description: 'Every claimed attempt, oldest first.' },
      runs: { type: 'array', items: schemaRef('RunSummary') },
      rejections: { type: 'array', items: schemaRef('Rejection') },
      notice: { ...nullableRef('NoticeSummary'), description: 'The one Inbox notice (G1), or null.' },
      grants: schemaRef('Grants'),
    },
    { description: 'A Task with its attempts, runs, rejections, notice and grants.' },
  ),
  Grants: object(
    {
      used: { type: 'integer', minimum: 0, description: 'Grants of one more attempt a person made so far.' },
      max: {
        type: 'integer',
        minimum: 0,
        maximum: MAX_GRANTS_LIMIT,
        description: "The Task's cap across its life: its own (`maxGrants`), else the configured one.",
      },
      left: { type: 'integer', minimum: 0, description: 'Grants still possible; 0: only raising the cap opens more.' },
      own: { type: 'boolean', description: "True when the cap is the Task's own, set by a person." },
    },
    {
      description:
        "V4: a person's grants of one more attempt (K5), from any source — the label, `/fixloop retry`, the dashboard, the API — capped per Task across its life.",
    },
  ),
  Attempt: object(
    {
      id,
      coordinate: {
        type: 'string',
        description: 'What the attempt is unique on: the head SHA for CI, `review:<rejection id>` for a review.',
      },
      source: { type: 'string', enum: REJECTION_SOURCES },
      headSha: sha,
      fingerprint: { type: 'string', description: 'The failure fingerprint (C5).' },
      status: { type: 'string', enum: ATTEMPT_STATUSES, description: 'What became of its dispatch.' },
      state: { type: 'string', enum: ATTEMPT_STATES, description: 'Its lifecycle (I1).' },
      outcome: {
        type: ['string', 'null'],
        enum: [...FIX_OUTCOMES, null],
        description: 'The outcome its run reported, if any (I2).',
      },
      outcomeReason: { type: ['string', 'null'], description: 'The reason given with `blocked`, shown to people.' },
      runId: nullableId,
      rejectionId: nullableId,
      interruptions: {
        type: 'integer',
        minimum: 0,
        description:
          'V4: how often a restart interrupted its run and it was offered again, free (at most once; a second interruption files the `interrupted_twice` notice).',
      },
      createdAt: timestamp,
    },
    { description: 'One automatic resume, claimed before it is dispatched (C2, C3).' },
  ),
  RunSummary: object(runSummaryFields, { description: 'A run as listed inside its Task.' }),
  Run: object(runFields, { description: "One execution of the Task's agent." }),
  RunDetail: object(
    {
      ...runFields,
      log: { type: ['string', 'null'], description: 'The captured (capped) output of the run, if any.' },
    },
    { description: 'A run with its log.' },
  ),
  Rejection: object(
    {
      id,
      source: { type: 'string', enum: REJECTION_SOURCES },
      headSha: sha,
      checkName: { type: ['string', 'null'], maxLength: 256 },
      createdAt: timestamp,
      body: {
        type: 'string',
        maxLength: 4000,
        description:
          'The feedback, cut to at most 4000 characters: its head and its tail, with a line saying how much was cut.',
      },
    },
    { description: 'Durable feedback a run must answer.' },
  ),
  NoticeSummary: object(noticeSummaryFields, { description: "A Task's Inbox notice as shown inside the Task." }),
  Notice: object(noticeFields, { description: 'An Inbox notice: the loop stopped for a Task and why (G1).' }),
  OutboxDelivery: object(
    {
      id,
      noticeId: id,
      taskId: id,
      repository: { type: 'string' },
      pullRequest: { type: 'integer', minimum: 1 },
      sink: { type: 'string', description: 'The configured sink (`notices.sinks[].name`, default its kind).' },
      state: {
        type: 'string',
        enum: ['pending', 'delivered', 'failed'],
        description: '`pending` until a 2xx answer (`delivered`) or the last configured try failed (`failed`).',
      },
      attempts: { type: 'integer', minimum: 0, description: 'Tries finished so far.' },
      nextAt: { ...timestamp, description: 'When a pending delivery is tried next.' },
      lastError: { type: ['string', 'null'], description: "The last failed try's error, or null." },
      createdAt: timestamp,
      updatedAt: timestamp,
      deliveredAt: { type: ['string', 'null'], format: 'date-time' },
    },
    { description: 'One delivery of a notice to one configured notice sink (G1).' },
  ),
  Decision: object(
    {
      id,
      at: timestamp,
      deliveryId: {
        type: ['string', 'null'],
        description: 'The X-GitHub-Delivery id, when the decision is about a delivery.',
      },
      eventName: { type: ['string', 'null'] },
      identity: { type: ['string', 'null'], description: 'The event identity (A3).' },
      eventId: nullableId,
      taskId: nullableId,
      attemptId: nullableId,
      outcome: { type: 'string', enum: OUTCOMES },
      reason: { type: ['string', 'null'], description: decisionReason, examples: REFUSALS },
      detail: { type: ['string', 'null'] },
    },
    { description: 'One row of the decision log: what became of a delivery or an evaluation step.' },
  ),
  TaskExists: object(
    {
      error: { type: 'string', const: 'task_exists' },
      message: { type: 'string' },
      task: schemaRef('Task'),
    },
    { description: 'A Task already holds this pull request; the existing Task is returned.' },
  ),
  BoardRow: object(
    {
      id,
      repository: { type: 'string' },
      pullRequest: { type: 'integer', minimum: 1 },
      branch: { type: 'string' },
      state: { type: 'string', enum: TASK_STATES },
      ciState: { type: 'string', enum: CI_STATES },
      attemptsUsed: { type: 'integer', minimum: 0 },
      extraAttempts: {
        type: 'integer',
        minimum: 0,
        description: 'Granted past the budget by a person (K5): the grants used (V4).',
      },
      maxGrants: {
        type: ['integer', 'null'],
        minimum: 0,
        maximum: MAX_GRANTS_LIMIT,
        description: "The Task's own cap on grants (V4); null: the configured cap applies.",
      },
      spend: { type: 'number', minimum: 0, description: "What the Task's runs reported spending (model + sandbox)." },
      loopState: {
        type: 'string',
        enum: LOOP_STATES,
        description:
          'off (a person turned it off), parked, needs_person (a notice), agent_running, awaiting_progress, idle.',
      },
      lastFailure: { type: ['string', 'null'], description: "The newest rejection's check and failing line." },
      triage: {
        type: ['string', 'null'],
        description:
          'Why triage holds the newest red back from the agent (T1, T2, T6), e.g. "test is failing on main too"; null when it does not.',
      },
      attemptsAllowed: {
        type: 'integer',
        minimum: 0,
        description: 'Automatic attempts allowed: the configured budget plus the grants used (C1, K5).',
      },
      createdAt: { ...timestamp, description: 'When the Task was registered (its age).' },
    },
    { description: 'One line of the board (M4).' },
  ),
  InboxRow: object(
    {
      id,
      taskId: id,
      repository: { type: 'string' },
      pullRequest: { type: 'integer', minimum: 1 },
      reason: { type: 'string', enum: STOP_REASONS },
      headSha: { type: ['string', 'null'] },
      attemptsUsed: { type: 'integer', minimum: 0 },
      message: { type: 'string' },
      createdAt: timestamp,
      parked: { type: 'boolean' },
    },
    { description: "The notice of a Task's current stop: what needs a person now (M4)." },
  ),
  PullRequestChecks: object(
    {
      repository: { type: 'string', description: '`owner/name`, lower-case.' },
      number: { type: 'integer', minimum: 1 },
      headSha: { type: 'string', description: 'The head commit whose checks and statuses these are.' },
      entries: { type: 'array', items: { oneOf: [schemaRef('CheckRunEntry'), schemaRef('StatusEntry')] } },
    },
    { description: "Every check run and commit status of a pull request's head (J1)." },
  ),
  CheckRunEntry: {
    type: 'object',
    required: ['kind', 'name', 'status', 'conclusion', 'failing', 'url'],
    properties: {
      kind: { type: 'string', const: 'check_run' },
      name: { type: 'string' },
      status: { type: 'string', description: 'As GitHub reports it: `queued`, `in_progress`, `completed`, …' },
      conclusion: { type: ['string', 'null'], description: 'As GitHub reports it; null until completed.' },
      failing: {
        type: 'boolean',
        description: "Red by the board's rules (B3): `failure`, `timed_out`, `action_required`, `startup_failure`.",
      },
      url: { type: ['string', 'null'], description: "The check's details page." },
      jobId: {
        type: 'integer',
        minimum: 1,
        description: 'The GitHub Actions job id (the check run id); only for Actions jobs.',
      },
      log: object(
        {
          lines: {
            type: 'array',
            items: { type: 'string' },
            description:
              'The last lines, without timestamps or ANSI escapes; a read cut at 32 MiB ends with a marker line.',
          },
          truncated: { type: 'boolean', description: 'True when these lines are not the whole log.' },
        },
        { description: 'The tail of the job log, for the first five failing Actions jobs (J2).' },
      ),
      logError: {
        type: 'string',
        description: 'Why the log tail could not be read; an error on this entry only (J2).',
      },
      output: object(
        {
          title: { type: ['string', 'null'] },
          summary: { type: ['string', 'null'], description: 'Bounded: head and tail of a long summary.' },
        },
        {
          description:
            "A failing check run's own output as its app reported it (CI text: data, not instructions); the only account of a failure for checks that are not Actions jobs.",
        },
      ),
      localCommand: {
        type: 'object',
        description:
          'J3: the test runner recognised in the log, the failing files/tests, and the one command that reruns exactly those.',
        required: ['tool', 'failures', 'command', 'display'],
        properties: {
          tool: {
            type: 'string',
            enum: ['vitest', 'jest', 'node-test', 'pytest', 'go-test', 'cargo-test', 'eslint', 'tsc'],
          },
          failures: {
            type: 'array',
            items: {
              type: 'object',
              required: ['file'],
              properties: { file: { type: 'string' }, test: { type: 'string' } },
            },
          },
          command: {
            type: 'array',
            items: { type: 'string' },
            description: 'argv; never run through a shell by fixloop.',
          },
          display: { type: 'string', description: 'The command, shell-quoted for a person to paste.' },
          note: { type: 'string', description: 'Present when the command cannot select exactly the failures.' },
        },
      },
    },
    description: 'A check run of the head.',
  },
  StatusEntry: object(
    {
      kind: { type: 'string', const: 'status' },
      name: { type: 'string', description: 'The status context.' },
      status: { type: 'string', enum: ['pending', 'completed'] },
      state: { type: 'string', enum: ['error', 'failure', 'pending', 'success'] },
      description: { type: ['string', 'null'] },
      failing: { type: 'boolean', description: "Red by the board's rules (B3): `failure`, `error`." },
      url: { type: ['string', 'null'], description: "The status's target URL." },
    },
    { description: 'The latest commit status of one context on the head.' },
  ),
  RunProblem: object(
    {
      error: {
        type: 'string',
        enum: AGENT_OPS_ERROR_CODES,
        description: "Why the run's call was refused; the same codes the MCP tools answer with.",
      },
      message: { type: 'string', description: 'A human-readable explanation naming the run or attempt.' },
    },
    { description: 'A refusal of a `/api/run/*` call.' },
  ),
  OutcomeRecorded: object(
    {
      attemptId: id,
      state: {
        type: 'string',
        enum: ATTEMPT_STATES,
        description: "The attempt's lifecycle state after the report (I1).",
      },
      outcome: { type: 'string', enum: FIX_OUTCOMES },
    },
    { description: "The outcome was recorded for the run's own attempt." },
  ),
  SpendTotals: object(
    {
      totalSpend: { type: 'number', minimum: 0, description: "The Task's model plus sandbox spend, in US dollars." },
      model: { type: 'number', minimum: 0 },
      sandbox: { type: 'number', minimum: 0 },
      ciMinutes: {
        type: 'number',
        minimum: 0,
        description: "CI minutes of the Task's heads, counted apart from the dollars.",
      },
    },
    { description: "The Task's spend so far (K6)." },
  ),
  LoopAttempt: object(
    {
      id,
      coordinate: { type: 'string' },
      source: { type: 'string', enum: REJECTION_SOURCES },
      headSha: sha,
      fingerprint: { type: 'string' },
      status: { type: 'string', enum: ATTEMPT_STATUSES, description: 'What became of its dispatch.' },
      runId: nullableId,
      rejectionId: nullableId,
      createdAt: timestamp,
      state: { type: ['string', 'null'], enum: [...ATTEMPT_STATES, null], description: 'Its lifecycle (I1).' },
      outcome: {
        type: ['string', 'null'],
        enum: [...FIX_OUTCOMES, null],
        description: 'The outcome its run reported, if any (I2).',
      },
      outcomeReason: { type: ['string', 'null'] },
      outcomeAt: nullableTimestamp,
      actionTakenAt: {
        ...nullableTimestamp,
        description: 'When `action_taken` was reported; progress is awaited from then (I3).',
      },
      retryOf: { ...nullableId, description: 'The attempt this one retries.' },
      interruptions: {
        type: 'integer',
        minimum: 0,
        description: 'V4: how often a restart interrupted its run and it was offered again, free (at most once).',
      },
    },
    { description: 'An attempt with its dispatch status and its lifecycle.' },
  ),
  LoopState: object(
    {
      ...taskFields,
      attemptsUsed: { type: 'integer', minimum: 0, description: 'Automatic attempts used so far (C1).' },
      attempts: {
        type: 'array',
        items: schemaRef('LoopAttempt'),
        description: 'Every attempt, oldest first, with its lifecycle.',
      },
      runs: { type: 'array', items: schemaRef('RunSummary') },
      rejections: { type: 'array', items: schemaRef('Rejection') },
      notice: {
        ...nullableRef('NoticeSummary'),
        description: 'The one Inbox notice (G1) — the loop stopped and why — or null.',
      },
      run: object(
        { id, state: { type: 'string', enum: RUN_STATES }, attemptId: nullableId },
        { description: 'The run the token belongs to.' },
      ),
      spend: schemaRef('SpendTotals'),
      grants: {
        ...nullableRef('Grants'),
        description: "A person's grants of one more attempt (V4); null when not known.",
      },
      budget: {
        type: ['object', 'null'],
        required: ['max', 'used', 'left'],
        properties: {
          max: { type: 'integer', minimum: 0 },
          used: { type: 'integer', minimum: 0 },
          left: { type: 'integer', minimum: 0 },
        },
        description: 'Attempts allowed (including those a person granted), used and left; null when not known.',
      },
    },
    {
      description:
        "The fix loop of the run's own Task: its attempts and their lifecycle, runs, notice, spend and budget.",
    },
  ),
  StopFlagUnreadable: object(
    { stopped: { type: 'null' }, error: { type: 'string', const: 'unreadable' } },
    { description: 'The stop flag could not be read; the loop fails closed.' },
  ),
  WebhookStored: object(
    {
      status: { type: 'integer', const: 202 },
      outcome: { type: 'string', const: 'stored' satisfies Outcome },
      identity: { type: 'string', description: 'The identity the event was stored under (A3).' },
      eventId: id,
    },
    { description: 'The delivery was committed as a new event.' },
  ),
  WebhookNotStored: {
    type: 'object',
    required: ['status', 'outcome', 'identity'],
    properties: {
      status: { type: 'integer', const: 200 },
      outcome: { type: 'string', enum: ignoredOutcomes },
      identity: { type: ['string', 'null'] },
      reason: {
        type: 'string',
        description: `Why nothing new was stored, e.g. ${codeList(EDGE_REASONS.filter((r) => r !== 'malformed_json' && r !== 'shape_mismatch'))}, \`unknown_event\`.`,
      },
    },
    description:
      'The delivery was accepted and nothing new was stored: a duplicate, an incomplete CI result, or an event with nothing for the loop.',
  },
  WebhookRejected: object(
    {
      status: { type: 'integer', const: 400 },
      outcome: { type: 'string', const: 'rejected' satisfies Outcome },
      reason: { type: 'string', enum: ['malformed_json', 'shape_mismatch'] satisfies (typeof EDGE_REASONS)[number][] },
      detail: { type: 'string' },
    },
    { description: 'A signed delivery whose body is unusable; the rejection is recorded in the decision log.' },
  ),
  ResultsFigures: object(resultsFigureFields, { additionalProperties: false }),
  Results: object(
    {
      period: object({ from: timestamp, to: timestamp }, { description: 'From (inclusive) to (exclusive).' }),
      currency: { type: 'string', description: 'ISO 4217 code of every amount (`guards.currency`).' },
      total: schemaRef('ResultsFigures'),
      byRepository: {
        type: 'array',
        items: object({ repository: { type: 'string' }, ...resultsFigureFields }, { additionalProperties: false }),
      },
      byAgent: {
        type: 'array',
        items: object({ agent: { type: 'string' }, ...resultsFigureFields }, { additionalProperties: false }),
      },
      byCheck: {
        type: 'array',
        description: "By failing check name; a check's attempts and spend are only those claimed for it.",
        items: object({ check: { type: 'string' }, ...resultsFigureFields }, { additionalProperties: false }),
      },
      costliestChecks: {
        type: 'array',
        description: 'Checks by spend, then attempts, most first.',
        items: object(
          {
            check: { type: 'string' },
            attempts: { type: 'integer', minimum: 1 },
            spend: { type: 'number', minimum: 0 },
            pullRequests: { type: 'integer', minimum: 1 },
          },
          { additionalProperties: false },
        ),
      },
    },
    {
      additionalProperties: false,
      description: 'V1: does the loop pay? Every figure is explained in docs/results.md.',
    },
  ),
} as const satisfies Record<string, SchemaObject>;

// --- Operations ---------------------------------------------------------------------------------

const open: readonly SecurityRequirement[] = [];

/** The `/api/run/*` routes take a run's own token, never the API token. */
const runTokenOnly: readonly SecurityRequirement[] = [{ runToken: [] }];

/** The refusals a `/api/run/*` route answers, as `{ error: <AgentOpsError code>, message }`. */
function runRefusals(route: 'checks' | 'outcome' | 'spend' | 'state'): OperationObject['responses'] {
  const refusal = (description: string): ResponseObject => ({ description, content: json(schemaRef('RunProblem')) });
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

const paths = {
  '/healthz': {
    get: {
      operationId: 'getHealth',
      summary: 'Liveness',
      description: 'Answers as long as the process is serving HTTP, without touching the database.',
      tags: ['health'],
      security: open,
      responses: {
        '200': {
          description: 'The process is alive.',
          content: json(object({ ok: { type: 'boolean', const: true } })),
        },
      },
    },
  },
  '/readyz': {
    get: {
      operationId: 'getReadiness',
      summary: 'Readiness',
      description: 'Reports whether this replica can take traffic, i.e. whether its ledger is reachable.',
      tags: ['health'],
      security: open,
      responses: {
        '200': { description: 'Ready.', content: json(object({ ready: { type: 'boolean', const: true } })) },
        '503': { description: 'Not ready.', content: json(object({ ready: { type: 'boolean', const: false } })) },
      },
    },
  },
  '/ping': {
    get: {
      operationId: 'ping',
      summary: 'Ping',
      description: 'Returns the plain-text word PONG, for the simplest of probes.',
      tags: ['health'],
      security: open,
      responses: {
        '200': { description: 'PONG.', content: { 'text/plain': { schema: { type: 'string', const: 'PONG' } } } },
      },
    },
  },
  '/api/openapi.json': {
    get: {
      operationId: 'getOpenApiDocument',
      summary: 'This document',
      description: 'Serves this OpenAPI 3.1 document describing the API.',
      tags: ['meta'],
      responses: withInternal({
        '200': { description: 'The OpenAPI document.', content: json({ type: 'object' }) },
        '401': responseRef('Unauthorized'),
      }),
    },
  },
  '/api/tasks': {
    post: {
      operationId: 'createTask',
      summary: 'Create a Task',
      description:
        'Binds a new Task to a pull request in the data repository of a configured Work, so its CI results can resume the agent.',
      tags: ['tasks'],
      requestBody: {
        description: 'The pull request and how to resume its agent.',
        required: true,
        content: json(schemaRef('NewTask')),
      },
      responses: withInternal({
        '201': { description: 'The Task was created.', content: json(schemaRef('Task')) },
        '400': responseRef('BadRequest'),
        '401': responseRef('Unauthorized'),
        '409': { description: 'A Task already holds this pull request.', content: json(schemaRef('TaskExists')) },
        '422': {
          description:
            'The repository is not the data repository of a configured Work (`error` is `no_work` or `not_data_repo`).',
          content: json(schemaRef('Problem')),
        },
      }),
    },
    get: {
      operationId: 'listTasks',
      summary: 'List Tasks',
      description:
        'Lists Tasks in creation order, optionally only those in one state or repository. Without `limit` or `after` every Task at once; with either, a page and the `after` of the next.',
      tags: ['tasks'],
      responses: withInternal({
        '200': {
          description: 'The Tasks, or a page of them.',
          content: json({
            oneOf: [
              object({ tasks: { type: 'array', items: schemaRef('TaskSummary') } }, { additionalProperties: false }),
              object(
                {
                  tasks: { type: 'array', items: schemaRef('TaskSummary') },
                  nextAfter: {
                    type: ['integer', 'null'],
                    description: 'The `after` of the next page; null on the last.',
                  },
                },
                { additionalProperties: false },
              ),
            ],
          }),
        },
        '400': responseRef('BadRequest'),
        '401': responseRef('Unauthorized'),
      }),
    },
  },
  '/api/board': {
    get: {
      operationId: 'readBoard',
      summary: 'A page of the board',
      description:
        'Tasks newest first with their CI state, attempts, spend, loop state and last failure (M4); a keyset page: pass `nextBefore` back as `before`. `GET /api/tasks` keeps its unpaged shape.',
      tags: ['tasks'],
      responses: withInternal({
        '200': {
          description: 'The page.',
          content: json(
            object({
              tasks: { type: 'array', items: schemaRef('BoardRow') },
              nextBefore: {
                type: ['integer', 'null'],
                description: 'The `before` of the next page; null on the last.',
              },
            }),
          ),
        },
        '400': responseRef('BadRequest'),
        '401': responseRef('Unauthorized'),
      }),
    },
  },
  '/api/results': {
    get: {
      operationId: 'readResults',
      summary: 'Results: does the loop pay?',
      description:
        'V1: for a period, overall and by repository, agent and failing check: pull requests touched, green with no person, attempts and spend per green pull request, time from first red to green, hand-offs by reason, changes by a person within a week of green, and the checks that cost most. Give `period` or `from`/`to`; the default is the last 30 days. Each figure is explained in docs/results.md.',
      tags: ['tasks'],
      responses: withInternal({
        '200': { description: 'The figures of the period.', content: json(schemaRef('Results')) },
        '400': responseRef('BadRequest'),
        '401': responseRef('Unauthorized'),
        '503': {
          description: 'Results are not wired on this server (`unavailable`).',
          content: json(schemaRef('Problem')),
        },
      }),
    },
  },
  '/api/tasks/{id}/approve-one': {
    parameters: [parameterRef('TaskId')],
    post: {
      operationId: 'approveOne',
      summary: 'Grant one more attempt',
      description:
        "K5 approve-one, as the `fixloop:approve-one` label does: one more automatic attempt past the budget and a new stop round. Recorded in the decision log as a person's (`acted`, `approve_one`).",
      tags: ['tasks'],
      responses: withInternal({
        '200': { description: 'The Task after the grant.', content: json(schemaRef('Task')) },
        '401': responseRef('Unauthorized'),
        '404': responseRef('NotFound'),
        '409': {
          description:
            "The loop has not stopped for this Task, it is parked, or another grant won (`conflict`); or the Task's grants are used (`grant_cap`, V4): the message says how many and how to open more.",
          content: json(schemaRef('Problem')),
        },
      }),
    },
  },
  '/api/tasks/{id}/budget': {
    parameters: [parameterRef('TaskId')],
    put: {
      operationId: 'setTaskBudget',
      summary: "Set the Task's own cap on grants",
      description:
        "V4: a Task takes at most `maxGrants` grants of one more attempt across its life (the configured `TASK_MAX_GRANTS`, default 3); past it only a person raising the Task's own cap here opens more. Recorded as a person's (`acted`, `set_grant_cap`), saying from what to what.",
      tags: ['tasks'],
      requestBody: { description: 'The cap.', required: true, content: json(schemaRef('TaskBudget')) },
      responses: withInternal({
        '200': { description: 'The Task after the change, with its grants.', content: json(schemaRef('Task')) },
        '400': responseRef('BadRequest'),
        '401': responseRef('Unauthorized'),
        '404': responseRef('NotFound'),
      }),
    },
  },
  '/api/tasks/{id}/resume': {
    parameters: [parameterRef('TaskId')],
    post: {
      operationId: 'resumeByPerson',
      summary: 'Resume the agent with a message',
      description:
        "A person's run (H1): the message is the prompt (with the protocol block), the run is `resume` with `autoResume: false`, answers no attempt and spends no budget. Recorded as a person's (`resume`).",
      tags: ['tasks'],
      requestBody: {
        description: 'The message.',
        required: true,
        content: json(schemaRef('ResumeMessage')),
      },
      responses: withInternal({
        '200': { description: 'The run, started.', content: json(schemaRef('Run')) },
        '400': responseRef('BadRequest'),
        '401': responseRef('Unauthorized'),
        '404': responseRef('NotFound'),
        '409': {
          description: 'The Task is not open, or a run of it is unfinished (`conflict`).',
          content: json(schemaRef('Problem')),
        },
        '503': {
          description: 'No runner is configured, or it could not start the run (`unavailable`).',
          content: json(schemaRef('Problem')),
        },
      }),
    },
  },
  '/api/tasks/{id}/loop': {
    parameters: [parameterRef('TaskId')],
    put: {
      operationId: 'setTaskLoop',
      summary: 'Turn the loop off or on for one Task',
      description:
        "While off, the gate refuses every red of this Task (`loop_off`). Recorded as a person's (`loop_off`, `loop_on`).",
      tags: ['tasks'],
      requestBody: { description: 'On or off.', required: true, content: json(schemaRef('LoopSwitch')) },
      responses: withInternal({
        '200': { description: 'The Task after the change.', content: json(schemaRef('Task')) },
        '400': responseRef('BadRequest'),
        '401': responseRef('Unauthorized'),
        '404': responseRef('NotFound'),
      }),
    },
  },
  '/api/tasks/{id}/parked': {
    parameters: [parameterRef('TaskId')],
    put: {
      operationId: 'setTaskParked',
      summary: 'Park or unpark a Task',
      description: "A parked Task never re-enters the loop on its own (K5). Recorded as a person's (`park`, `unpark`).",
      tags: ['tasks'],
      requestBody: { description: 'Parked or not.', required: true, content: json(schemaRef('ParkedSwitch')) },
      responses: withInternal({
        '200': { description: 'The Task after the change.', content: json(schemaRef('Task')) },
        '400': responseRef('BadRequest'),
        '401': responseRef('Unauthorized'),
        '404': responseRef('NotFound'),
      }),
    },
  },
  '/api/tasks/{id}': {
    parameters: [parameterRef('TaskId')],
    get: {
      operationId: 'getTask',
      summary: 'Read a Task',
      description: 'Returns one Task together with its attempts, runs, rejections and Inbox notice.',
      tags: ['tasks'],
      responses: withInternal({
        '200': { description: 'The Task.', content: json(schemaRef('Task')) },
        '401': responseRef('Unauthorized'),
        '404': responseRef('NotFound'),
      }),
    },
    patch: {
      operationId: 'setTaskState',
      summary: "Set a Task's state",
      description: 'Lets a person mark a Task open, done or cancelled, which governs whether the loop may resume it.',
      tags: ['tasks'],
      requestBody: { description: 'The new state.', required: true, content: json(schemaRef('TaskStatePatch')) },
      responses: withInternal({
        '200': { description: 'The Task after the change.', content: json(schemaRef('Task')) },
        '400': responseRef('BadRequest'),
        '401': responseRef('Unauthorized'),
        '404': responseRef('NotFound'),
      }),
    },
  },
  '/api/runs': {
    get: {
      operationId: 'listRuns',
      summary: 'List runs',
      description:
        "A page of runs, newest first, optionally of one Task or in one state; each run's log is `GET /api/runs/{id}`.",
      tags: ['runs'],
      responses: withInternal({
        '200': {
          description: 'A page of runs.',
          content: json(
            object(
              {
                runs: { type: 'array', items: schemaRef('Run') },
                nextBefore: {
                  type: ['integer', 'null'],
                  description: 'The `before` of the next page; null on the last.',
                },
              },
              { additionalProperties: false },
            ),
          ),
        },
        '400': responseRef('BadRequest'),
        '401': responseRef('Unauthorized'),
      }),
    },
  },
  '/api/runs/{id}': {
    parameters: [parameterRef('RunId')],
    get: {
      operationId: 'getRun',
      summary: 'Read a run',
      description: "Returns one run of a Task's agent with its captured log, never its token.",
      tags: ['runs'],
      responses: withInternal({
        '200': { description: 'The run.', content: json(schemaRef('RunDetail')) },
        '401': responseRef('Unauthorized'),
        '404': responseRef('NotFound'),
      }),
    },
    patch: {
      operationId: 'setRunState',
      summary: "Report a run's state",
      description:
        'Moves a run to a new state by compare-and-set; a person may do so with the API token, and the run itself with its own ' +
        'FIXLOOP_RUN_TOKEN, which is good for this one run and only until it has ended.',
      tags: ['runs'],
      security: [{ bearer: [] }, { runToken: [] }],
      requestBody: { description: 'The new state.', required: true, content: json(schemaRef('RunStatePatch')) },
      responses: withInternal({
        '200': { description: 'The run after the change.', content: json(schemaRef('Run')) },
        '400': responseRef('BadRequest'),
        '401': responseRef('Unauthorized'),
        '403': {
          description: "A run token was presented that is not this run's (`forbidden`).",
          content: json(schemaRef('Problem')),
        },
        '404': responseRef('NotFound'),
        '409': {
          description:
            'The run already ended and a run token was used (`run_ended`), or the run changed state meanwhile (`conflict`).',
          content: json(schemaRef('Problem')),
        },
      }),
    },
  },
  '/api/runs/{id}/cancel': {
    parameters: [parameterRef('RunId')],
    post: {
      operationId: 'cancelRun',
      summary: 'Cancel a run',
      description:
        "A queued or running run becomes `cancelled` (never undone by a webhook) and the command runner stops its agent. Recorded as a person's (`cancel_run`).",
      tags: ['runs'],
      responses: withInternal({
        '200': { description: 'The run after the cancel.', content: json(schemaRef('Run')) },
        '401': responseRef('Unauthorized'),
        '404': responseRef('NotFound'),
        '409': { description: 'The run already ended (`conflict`).', content: json(schemaRef('Problem')) },
      }),
    },
  },
  '/api/inbox': {
    get: {
      operationId: 'listNotices',
      summary: 'The Inbox',
      description:
        'Without parameters, lists every notice the loop filed for people when it stopped for a Task, newest first. ' +
        "With `limit` or `after`, a keyset page of what needs a person now (each Task's current stop), oldest first (M4).",
      tags: ['inbox'],
      responses: withInternal({
        '200': {
          description: 'The notices, or a page of them.',
          content: json({
            oneOf: [
              object({ notices: { type: 'array', items: schemaRef('Notice') } }, { additionalProperties: false }),
              object(
                {
                  notices: { type: 'array', items: schemaRef('InboxRow') },
                  nextAfter: {
                    type: ['integer', 'null'],
                    description: 'The `after` of the next page; null on the last.',
                  },
                },
                { additionalProperties: false },
              ),
            ],
          }),
        },
        '400': responseRef('BadRequest'),
        '401': responseRef('Unauthorized'),
      }),
    },
  },
  '/api/outbox': {
    get: {
      operationId: 'listOutbox',
      summary: 'Notice deliveries not done',
      description:
        'Lists the deliveries of notices to the configured sinks (Slack, webhooks) that are still pending or were given up, newest first, with their last error.',
      tags: ['inbox'],
      responses: withInternal({
        '200': {
          description: 'The deliveries.',
          content: json(object({ deliveries: { type: 'array', items: schemaRef('OutboxDelivery') } })),
        },
        '400': responseRef('BadRequest'),
        '401': responseRef('Unauthorized'),
      }),
    },
  },
  '/api/outbox/{id}/resend': {
    parameters: [
      {
        name: 'id',
        in: 'path',
        required: true,
        description: 'The notice delivery id (`id` of an OutboxDelivery).',
        schema: { type: 'integer', minimum: 1 },
      },
    ],
    post: {
      operationId: 'resendNotice',
      summary: 'Send a given-up notice delivery again',
      description:
        "A `failed` delivery becomes `pending` with its tries counted afresh, and the outbox sends it on its next pass. Recorded as a person's (`resend_notice`).",
      tags: ['inbox'],
      responses: withInternal({
        '200': {
          description: 'The delivery, pending again.',
          content: json(object({ deliveries: { type: 'array', items: schemaRef('OutboxDelivery') } })),
        },
        '401': responseRef('Unauthorized'),
        '404': responseRef('NotFound'),
        '409': { description: 'The delivery is not `failed` (`conflict`).', content: json(schemaRef('Problem')) },
      }),
    },
  },
  '/api/deliveries': {
    get: {
      operationId: 'listDecisions',
      summary: 'The decision log',
      description:
        'Pages backwards through the decision log, newest first, showing what became of each delivery and evaluation step and why.',
      tags: ['deliveries'],
      responses: withInternal({
        '200': {
          description: 'The decisions.',
          content: json(object({ decisions: { type: 'array', items: schemaRef('Decision') } })),
        },
        '400': responseRef('BadRequest'),
        '401': responseRef('Unauthorized'),
      }),
    },
  },
  '/api/stop': {
    get: {
      operationId: 'getStopFlag',
      summary: 'Read the stop flag',
      description: 'Tells whether the global stop flag, which halts every automatic resume, is set.',
      tags: ['stop'],
      responses: withInternal({
        '200': { description: 'The flag.', content: json(schemaRef('StopFlag')) },
        '401': responseRef('Unauthorized'),
        '503': {
          description: 'The flag could not be read (the loop treats this as stopped).',
          content: json(schemaRef('StopFlagUnreadable')),
        },
      }),
    },
    put: {
      operationId: 'setStopFlag',
      summary: 'Set the stop flag',
      description:
        "Sets or clears the global stop flag durably, for every replica at once; recorded as a person's (`stop_all`, `start_all`).",
      tags: ['stop'],
      requestBody: { description: 'The new value.', required: true, content: json(schemaRef('StopFlag')) },
      responses: withInternal({
        '200': { description: 'The flag as written.', content: json(schemaRef('StopFlag')) },
        '400': responseRef('BadRequest'),
        '401': responseRef('Unauthorized'),
      }),
    },
  },
  '/api/pull-requests/{owner}/{repo}/{number}/checks': {
    parameters: [
      {
        name: 'owner',
        in: 'path',
        required: true,
        description: 'The repository owner.',
        schema: { type: 'string', pattern: '^[\\w.-]+$' },
      },
      {
        name: 'repo',
        in: 'path',
        required: true,
        description: 'The repository name.',
        schema: { type: 'string', pattern: '^[\\w.-]+$' },
      },
      { name: 'number', in: 'path', required: true, description: 'The pull request number.', schema: id },
    ],
    get: {
      operationId: 'getPullRequestChecks',
      summary: "A pull request's checks",
      description:
        "Reads every check run and commit status of the pull request's head from GitHub, marks the failing ones by the board's rules, " +
        'and adds the log tails of the first five failing GitHub Actions jobs; a log that cannot be read is an error on its entry only.',
      tags: ['pull-requests'],
      responses: withInternal({
        '200': { description: 'The checks and statuses of the head.', content: json(schemaRef('PullRequestChecks')) },
        '400': responseRef('BadRequest'),
        '401': responseRef('Unauthorized'),
        '404': {
          description: 'GitHub has no such pull request these credentials can see (`not_found`).',
          content: json(schemaRef('Problem')),
        },
        '502': {
          description: 'GitHub refused the request (`github_refused`); the message carries its status.',
          content: json(schemaRef('Problem')),
        },
        '503': {
          description: 'No GitHub credentials are configured (`github_not_configured`).',
          content: json(schemaRef('Problem')),
        },
      }),
    },
  },
  '/api/run/checks': {
    get: {
      operationId: 'getRunChecks',
      summary: "The run's pull request checks",
      description:
        "Reads the checks of the run's own pull request, as `GET /api/pull-requests/{owner}/{repo}/{number}/checks` does, for the agent " +
        'holding the run token; no pull request is named by the caller.',
      tags: ['run'],
      security: runTokenOnly,
      responses: withInternal({
        '200': { description: 'The checks and statuses of the head.', content: json(schemaRef('PullRequestChecks')) },
        ...runRefusals('checks'),
      }),
    },
  },
  '/api/run/outcome': {
    post: {
      operationId: 'reportRunOutcome',
      summary: "Report the attempt's outcome",
      description:
        'Records the one first-write outcome of the attempt the run was resumed for and moves the attempt on: `action_taken` to ' +
        'awaiting_progress, `non_actionable` and `blocked` to acknowledged; a second report is refused.',
      tags: ['run'],
      security: runTokenOnly,
      requestBody: { description: 'The outcome, and why.', required: true, content: json(schemaRef('RunOutcome')) },
      responses: withInternal({
        '200': { description: 'The outcome was recorded.', content: json(schemaRef('OutcomeRecorded')) },
        ...runRefusals('outcome'),
      }),
    },
  },
  '/api/run/spend': {
    post: {
      operationId: 'reportRunSpend',
      summary: 'Report what the run cost',
      description:
        "Adds the run's costs to its Task's spend, which the cost ceiling holds against the next attempt, and returns the Task's totals.",
      tags: ['run'],
      security: runTokenOnly,
      requestBody: {
        description: 'The costs; amounts add up, so each is reported once.',
        required: true,
        content: json(schemaRef('RunSpend')),
      },
      responses: withInternal({
        '200': { description: "The Task's spend after this report.", content: json(schemaRef('SpendTotals')) },
        ...runRefusals('spend'),
      }),
    },
  },
  '/api/run/state': {
    get: {
      operationId: 'getRunLoopState',
      summary: "The run's loop state",
      description:
        "Returns the fix loop of the run's own Task: its attempts with their lifecycle and outcomes, runs, notice, spend and budget.",
      tags: ['run'],
      security: runTokenOnly,
      responses: withInternal({
        '200': { description: 'The loop state.', content: json(schemaRef('LoopState')) },
        ...runRefusals('state'),
      }),
    },
  },
  '/api/github/webhooks': {
    post: {
      operationId: 'receiveGitHubWebhook',
      summary: 'GitHub webhook',
      description:
        'Receives a GitHub delivery, verifies its HMAC signature over the exact bytes, and answers only once what it carries has been durably committed.',
      tags: ['webhooks'],
      security: open,
      parameters: [
        {
          name: 'X-GitHub-Event',
          in: 'header',
          required: true,
          description: 'The event name, e.g. `check_run` or `pull_request`.',
          schema: { type: 'string', minLength: 1 },
        },
        {
          name: 'X-GitHub-Delivery',
          in: 'header',
          required: false,
          description: 'The delivery id, recorded with every decision about it.',
          schema: { type: 'string' },
        },
        {
          name: 'X-Hub-Signature-256',
          in: 'header',
          required: true,
          description:
            'HMAC-SHA256 of the body under the webhook secret (any configured secret, for rotation); this, not a bearer token, authenticates the request.',
          schema: { type: 'string', pattern: '^sha256=[0-9a-fA-F]{64}$' },
        },
      ],
      requestBody: {
        description: 'The event payload as GitHub sends it.',
        required: true,
        content: json({ type: 'object' }),
      },
      responses: {
        '200': {
          description: 'Accepted; nothing new stored (duplicate, dropped or ignored).',
          content: json(schemaRef('WebhookNotStored')),
        },
        '202': { description: 'Stored as a new event.', content: json(schemaRef('WebhookStored')) },
        '400': {
          description:
            'Signed, but malformed JSON or a body that does not match the event (`rejected`), a missing X-GitHub-Event, or an unreadable body.',
          content: json({
            anyOf: [
              schemaRef('WebhookRejected'),
              schemaRef('Problem'),
              { type: 'object', required: ['error'], properties: { error: { type: 'string', const: 'bad_request' } } },
            ],
          }),
        },
        '401': {
          description: 'X-Hub-Signature-256 is missing or does not match (`bad_signature`); nothing is stored.',
          content: json(schemaRef('Problem')),
        },
        '413': {
          description: 'The body is over the size cap (`payload_too_large`); the connection is closed.',
          headers: { Connection: { description: 'Always `close`.', schema: { type: 'string', const: 'close' } } },
          content: json(schemaRef('Problem')),
        },
        '503': {
          description:
            'The delivery could not be stored (`not_stored`; GitHub should redeliver it), or too many bytes are waiting for their signature check (`busy`, with `Retry-After`; the connection is closed and the body not read), or GitHub is not connected yet — no webhook secret (`not_set_up`, with `Retry-After`; nothing is read; decision 0050).',
          headers: {
            'Retry-After': {
              description: 'With `busy` or `not_set_up`: seconds to wait before retrying.',
              schema: { type: 'string' },
            },
          },
          content: json(schemaRef('Problem')),
        },
      },
    },
  },
  '/api/gitlab/webhooks': {
    post: {
      operationId: 'receiveGitLabWebhook',
      summary: 'GitLab webhook',
      description:
        "Receives a GitLab delivery (Pipeline, Job, Merge Request and Note hooks, SPEC Q1), checks its X-Gitlab-Token in constant time against GITLAB_WEBHOOK_SECRET (any configured secret, for rotation) before reading the body, then, where GITLAB_WEBHOOK_SIGNING_TOKEN is configured, the body's webhook-signature (HMAC-SHA256 over webhook-id, webhook-timestamp and the body, the timestamp within five minutes), and answers only once what it carries has been durably committed. 404 when neither is configured.",
      tags: ['webhooks'],
      security: open,
      parameters: [
        {
          name: 'X-Gitlab-Event',
          in: 'header',
          required: true,
          description: 'The hook, e.g. `Job Hook` or `Merge Request Hook`.',
          schema: { type: 'string', minLength: 1 },
        },
        {
          name: 'X-Gitlab-Token',
          in: 'header',
          required: false,
          description:
            "The webhook's secret token; this (or the signature), not a bearer token, authenticates the request. Required when GITLAB_WEBHOOK_SECRET is set.",
          schema: { type: 'string' },
        },
        {
          name: 'webhook-signature',
          in: 'header',
          required: false,
          description:
            '`v1,<base64 HMAC-SHA256>` (space-separated for several), with `webhook-id` and `webhook-timestamp`; required when GITLAB_WEBHOOK_SIGNING_TOKEN is set.',
          schema: { type: 'string' },
        },
        {
          name: 'Idempotency-Key',
          in: 'header',
          required: false,
          description:
            'The same for every retry of one delivery (else `X-Gitlab-Event-UUID`): a redelivery is a duplicate.',
          schema: { type: 'string' },
        },
      ],
      requestBody: {
        description: 'The hook payload as GitLab sends it.',
        required: true,
        content: json({ type: 'object' }),
      },
      responses: {
        '200': {
          description: 'Accepted; nothing new stored (duplicate, dropped or ignored, an unknown hook included).',
          content: json(schemaRef('WebhookNotStored')),
        },
        '202': { description: 'Stored as a new event.', content: json(schemaRef('WebhookStored')) },
        '400': {
          description: 'Malformed JSON, a body that does not match the hook, or a missing X-Gitlab-Event.',
          content: json({ anyOf: [schemaRef('WebhookRejected'), schemaRef('Problem')] }),
        },
        '401': {
          description:
            'X-Gitlab-Token is missing or matches no configured secret (nothing is read), or the signature does not verify; nothing is stored.',
          content: json(schemaRef('Problem')),
        },
        '404': { description: 'No GitLab secret is configured: the route is not set up.' },
        '413': { description: 'The body is over the size cap; the connection is closed.' },
        '503': { description: 'The delivery could not be stored (GitLab should retry it).' },
      },
    },
  },
} as const satisfies Record<string, PathItemObject>;

/** A zod schema as the JSON Schema of what a caller sends (io: input), without its own `$schema`. */
function requestSchema(schema: z.ZodType): SchemaObject {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' });
  return rest as SchemaObject;
}

/** The declared request of a route: its query parameters, and its body as a named component. */
function withRequest(
  operation: OperationObject,
  route: RouteDeclaration,
  bodies: Record<string, SchemaObject>,
): OperationObject {
  const out: { -readonly [K in keyof OperationObject]: OperationObject[K] } = { ...operation };
  if (route.body) {
    bodies[route.body.name] = requestSchema(route.body.schema);
    out.requestBody = {
      ...(operation.requestBody ?? { description: 'The request.' }),
      required: true,
      content: json(schemaRef(route.body.name)),
    };
  }
  if (route.query) {
    const query = requestSchema(route.query);
    const required = new Set((query.required ?? []) as readonly string[]);
    const inPath = new Set([...route.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]));
    const params: ParameterObject[] = Object.entries(query.properties ?? {})
      .filter(([name]) => !inPath.has(name))
      .map(([name, schema]) => {
        const { description, ...rest } = schema as SchemaObject & { description?: string };
        return {
          name,
          in: 'query',
          required: required.has(name),
          ...(description ? { description } : {}),
          schema: rest,
        } as ParameterObject;
      });
    out.parameters = [...(operation.parameters ?? []), ...params];
  }
  return out;
}

/** The hand-described paths with every declared route's request generated into them. */
function generatedPaths(bodies: Record<string, SchemaObject>): OpenApiDocument['paths'] {
  const out: Record<string, Record<string, unknown>> = {};
  for (const [path, item] of Object.entries(paths)) out[path] = { ...item };
  for (const route of API_ROUTES) {
    const op = out[route.path]?.[route.method] as OperationObject | undefined;
    if (!op) throw new Error(`api-routes declares ${route.method} ${route.path}, which the document does not describe`);
    out[route.path]![route.method] = withRequest(op, route, bodies);
  }
  return out as OpenApiDocument['paths'];
}

const requestBodies: Record<string, SchemaObject> = {};
const generated = generatedPaths(requestBodies);

export const openApiDocument: OpenApiDocument = {
  openapi: '3.1.0',
  info: {
    title: 'fixloop',
    version: '0.1.0',
    summary: "Governs the loop between an AI coding agent's pull request and the CI that judges it.",
    description:
      'The JSON API (SPEC M2) for Tasks, runs, the Inbox, the decision log and the global stop flag, and the GitHub webhook (SPEC A1). ' +
      'Every `/api/` route but the webhook needs `Authorization: Bearer <FIXLOOP_API_TOKEN>`; a run may report its own state with its FIXLOOP_RUN_TOKEN, ' +
      "and the `/api/run/*` routes take only a run's token.",
  },
  jsonSchemaDialect: 'https://spec.openapis.org/oas/3.1/dialect/base',
  tags: [
    { name: 'health', description: 'Unauthenticated probes.' },
    { name: 'meta', description: 'This description.' },
    { name: 'tasks', description: 'Tasks: one pull request each.' },
    { name: 'runs', description: "Executions of a Task's agent." },
    { name: 'inbox', description: 'Notices for people.' },
    { name: 'deliveries', description: 'The decision log.' },
    { name: 'stop', description: 'The global stop flag.' },
    { name: 'pull-requests', description: 'Pull requests as GitHub reports them.' },
    {
      name: 'run',
      description:
        'What a resumed run may do, with its own token, about its own Task only (the MCP tools over the API).',
    },
    { name: 'webhooks', description: 'GitHub deliveries.' },
  ],
  security: [{ bearer: [] }],
  paths: generated,
  components: {
    schemas: { ...schemas, ...requestBodies },
    responses: {
      BadRequest: {
        description: 'The body or query is invalid (`invalid_body`, `invalid_query`).',
        content: json(schemaRef('Problem')),
      },
      Unauthorized: {
        description: 'The bearer token is missing or wrong (`unauthorized`).',
        content: json(schemaRef('Problem')),
      },
      NotFound: { description: 'No such resource (`not_found`).', content: json(schemaRef('Problem')) },
      Internal: {
        description: 'An unexpected error (`internal`); details are only in the server log.',
        content: json(schemaRef('Problem')),
      },
    },
    parameters: {
      TaskId: { name: 'id', in: 'path', required: true, description: 'The Task id.', schema: id },
      RunId: { name: 'id', in: 'path', required: true, description: 'The run id.', schema: id },
    },
    securitySchemes: {
      bearer: {
        type: 'http',
        scheme: 'bearer',
        description:
          'The API token, FIXLOOP_API_TOKEN. A loopback-only install may run without one, in which case the API is open to local callers.',
      },
      runToken: {
        type: 'http',
        scheme: 'bearer',
        description:
          "A run's own token, FIXLOOP_RUN_TOKEN, handed to the agent when the run is dispatched. It is accepted only by " +
          'PATCH /api/runs/{id} for that same run and by the `/api/run/*` routes, which act for that run alone, and only until the run has ended.',
      },
    },
  },
};
