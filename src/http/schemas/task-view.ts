// The Task as the API answers it (app/task-view.ts): as stored (`TaskSummary`), and with its attempts,
// runs, rejections, notice and grants (`Task`). Described once in zod; the document is generated from
// these, and `describes` checks them against the view's own type.
import { z } from 'zod';
import type { Task as StoredTask } from '../../core/types.js';
import {
  ATTEMPT_STATUSES,
  CI_STATES,
  PR_STATES,
  REJECTION_SOURCES,
  RUN_STATES,
  TASK_STATES,
} from '../../core/types.js';
import { ATTEMPT_STATES, FIX_OUTCOMES } from '../../core/attempt-state.js';
import { STOP_REASONS } from '../../core/reasons.js';
import { MAX_GRANTS_LIMIT, type GrantAllowance } from '../../core/grant-cap.js';
import { GATE_VERDICTS, type GateVerdict } from '../../core/green-gate.js';
import type { taskView } from '../../app/task-view.js';
import { count, describes, id, nullableId, nullableTimestamp, sha, timestamp } from './common.js';

export type TaskView = NonNullable<Awaited<ReturnType<typeof taskView>>>;

const gate = z
  .object({
    headSha: z.string(),
    at: timestamp,
    verdict: z.enum(GATE_VERDICTS),
    reasons: z.array(
      z.object({ check: z.string(), why: z.string(), seen: z.string().nullable(), decider: z.string().optional() }),
    ),
    failing: z.array(z.string()),
  })
  .nullable()
  .describe("The poll's green-gate verdict for the head and why (B4): every required check needs an explicit success.");

export const taskFields = {
  id,
  work: z.string().describe('The name of the Work the Task belongs to.'),
  repository: z.string().describe('The data repository, `owner/name`, lower-case.'),
  pullRequest: id.describe('The pull request number in the data repository.'),
  branch: z.string(),
  state: z.enum(TASK_STATES),
  prState: z.enum(PR_STATES),
  branchState: z.enum(['present', 'deleted']),
  isFork: z.boolean(),
  ciHeadSha: sha.describe('The newest head commit the CI state is about (B1).'),
  ciHeadSeenAt: nullableTimestamp.describe('When that head was seen (B1).'),
  ciState: z.enum(CI_STATES).describe('Red is written by the webhook, passing only by the poll (B2).'),
  noticeAt: nullableTimestamp.describe(
    'The G1 marker: non-null once the loop stopped for this Task and filed its notice.',
  ),
  resumeRef: z.string().nullable().describe('How to resume the agent (a session id, opaque to fixloop).'),
  createdAt: timestamp,
  polledAt: nullableTimestamp.describe('When the poll last read the pull request (E1).'),
  stopRound: count.describe('How many times a person granted one more attempt (K5); a notice is unique per round.'),
  extraAttempts: count.describe(
    'Attempts a person granted past the budget (K5: the `fixloop:approve-one` label, `/fixloop retry`, the dashboard, the API), one per grant: the grants used (V4).',
  ),
  maxGrants: z
    .int()
    .min(0)
    .max(MAX_GRANTS_LIMIT)
    .nullable()
    .describe(
      "The Task's own cap on grants of one more attempt across its life, set by a person (`PUT /api/tasks/{id}/budget`); null: the configured cap (`TASK_MAX_GRANTS`) applies (V4).",
    ),
  approveOnePending: z.boolean().describe('The next claim was approved by a person.'),
  parkedAt: nullableTimestamp.describe(
    'Parked after no answer to the hand-off (K5): never re-enters the loop on its own.',
  ),
  handoffAt: nullableTimestamp.describe('When the hand-off label and state comment were posted for the current stop.'),
  stateCommentId: z.string().nullable().describe('The pull request comment mirroring the loop state (K8).'),
  adopted: z.boolean().describe('Created from an adoption rule rather than the API.'),
  loopOff: z.boolean().describe('A person turned the loop off for this Task (M4); the gate refuses `loop_off`.'),
  skipLabel: z
    .boolean()
    .describe('The pull request carries the label `fixloop:skip`; the gate refuses `skip_label` while it does.'),
  baseRef: z
    .string()
    .nullable()
    .describe(
      'The branch the pull request merges into, as the poll or a pull_request webhook last showed it (triage reads its checks, T1); null before either did.',
    ),
  prTitle: z
    .string()
    .nullable()
    .describe("The pull request's title as the poll last read it (issue 33); null before the poll did."),
  prAuthor: z
    .string()
    .nullable()
    .describe("The login of the pull request's author as the poll last read it (issue 33); null before the poll did."),
  commitStatus: z
    .string()
    .nullable()
    .describe(
      'The `fixloop` commit status last written on the head (M4), as `<sha> <state>:<description>`, e.g. `… pending:attempt 1 of 2 running`; null before any.',
    ),
  gate,
};

export const taskSummary = z
  .object(taskFields)
  .describe('A Task as stored: its state, pull request, CI head and budget marker.');

export const grants = z
  .object({
    used: count.describe('Grants of one more attempt a person made so far.'),
    max: z
      .int()
      .min(0)
      .max(MAX_GRANTS_LIMIT)
      .describe("The Task's cap across its life: its own (`maxGrants`), else the configured one."),
    left: count.describe('Grants still possible; 0: only raising the cap opens more.'),
    own: z.boolean().describe("True when the cap is the Task's own, set by a person."),
  })
  .describe(
    "V4: a person's grants of one more attempt (K5), from any source — the label, `/fixloop retry`, the dashboard, the API — capped per Task across its life.",
  );

export const attemptFields = {
  id,
  coordinate: z
    .string()
    .describe('What the attempt is unique on: the head SHA for CI, `review:<rejection id>` for a review.'),
  source: z.enum(REJECTION_SOURCES),
  headSha: sha,
  fingerprint: z.string().describe('The failure fingerprint (C5).'),
  status: z.enum(ATTEMPT_STATUSES).describe('What became of its dispatch.'),
  state: z.enum(ATTEMPT_STATES).describe('Its lifecycle (I1).'),
  outcome: z.enum(FIX_OUTCOMES).nullable().describe('The outcome its run reported, if any (I2).'),
  outcomeReason: z.string().nullable().describe('The reason given with `blocked`, shown to people.'),
  runId: nullableId,
  rejectionId: nullableId,
  interruptions: count.describe(
    'V4: how often a restart interrupted its run and it was offered again, free (at most once; a second interruption files the `interrupted_twice` notice).',
  ),
  createdAt: timestamp,
};
export const attempt = z
  .object(attemptFields)
  .describe('One automatic resume, claimed before it is dispatched (C2, C3).');

export const runSummaryFields = {
  id,
  action: z.enum(['start', 'resume']),
  autoResume: z.boolean().describe('True when the loop (not a person) dispatched the run.'),
  state: z.enum(RUN_STATES),
  attemptId: nullableId.describe('The attempt this run answers, if it is an automatic resume.'),
  agentSeenAt: nullableTimestamp.describe(
    "When the run's agent first called fixloop with its run token (MCP or API); null while it never has. A run that ends with none never reached fixloop.",
  ),
  interruptedAt: nullableTimestamp.describe(
    'V4: when a shutdown (its grace over) or a crash of fixloop interrupted the run; its attempt is then offered again once, free. Null: not interrupted.',
  ),
  createdAt: timestamp,
};
export const runSummary = z.object(runSummaryFields).describe('A run as listed inside its Task.');

export const rejection = z
  .object({
    id,
    source: z.enum(REJECTION_SOURCES),
    headSha: sha,
    checkName: z.string().max(256).nullable(),
    createdAt: timestamp,
    body: z
      .string()
      .max(4000)
      .describe(
        'The feedback, cut to at most 4000 characters: its head and its tail, with a line saying how much was cut.',
      ),
  })
  .describe('Durable feedback a run must answer.');

export const noticeSummaryFields = {
  reason: z.enum(STOP_REASONS),
  headSha: sha,
  attemptsUsed: count,
  message: z.string(),
  createdAt: timestamp,
};
export const noticeSummary = z.object(noticeSummaryFields).describe("A Task's Inbox notice as shown inside the Task.");

/** The view's parts every Task-shaped answer shares (`Task` here, `LoopState` of `/api/run/state`). */
export const taskViewFields = {
  ...taskFields,
  attemptsUsed: count.describe(
    'C3: the attempts the budget counts (one per attempt row); a run interrupted by a restart and offered again is the same attempt, so it counts once (V4).',
  ),
  runs: z.array(runSummary),
  rejections: z.array(rejection),
  notice: noticeSummary.nullable().describe('The one Inbox notice (G1), or null.'),
};

export const task = z
  .object({
    ...taskViewFields,
    attempts: z.array(attempt).describe('Every claimed attempt, oldest first.'),
    grants,
  })
  .describe('A Task with its attempts, runs, rejections, notice and grants.');

export const taskExists = z
  .object({ error: z.literal('task_exists'), message: z.string(), task })
  .describe('A Task already holds this pull request; the existing Task is returned.');

/**
 * A Task as the ledger reads it: the stored gate's verdict is typed `string` (a JSON column) and the
 * poll only writes a GateVerdict; the title and author are always read (ledger/rows.ts), though the
 * type leaves them optional for Tasks built by hand.
 */
export type Gated<T extends { gate: StoredTask['gate'] }> = Omit<T, 'gate' | 'prTitle' | 'prAuthor'> & {
  gate: (NonNullable<StoredTask['gate']> & { verdict: GateVerdict }) | null;
  prTitle: string | null;
  prAuthor: string | null;
};
describes<typeof taskSummary, Gated<StoredTask>>(true);
describes<typeof grants, GrantAllowance>(true);
// The API always knows the configured grant cap, so its view always carries the grants.
describes<typeof task, Gated<Omit<TaskView, 'grants'>> & { grants: GrantAllowance }>(true);
