// What the `/api/run/*` routes answer a resumed run (M3 over the API, I2, K6): its loop state, the
// outcome recorded, its Task's spend, and a refusal in the codes the MCP tools share.
import { z } from 'zod';
import type { LoopState, OutcomeReport, SpendReport } from '../../app/agent-ops.js';
import { AGENT_OPS_ERROR_CODES } from '../../app/agent-ops-port.js';
import { ATTEMPT_STATES, FIX_OUTCOMES } from '../../core/attempt-state.js';
import { RUN_STATES } from '../../core/types.js';
import { count, describes, id, nullableId, nullableTimestamp } from './common.js';
import { attemptFields, grants, taskViewFields, type Gated } from './task-view.js';

export const runProblem = z
  .object({
    error: z
      .enum(AGENT_OPS_ERROR_CODES)
      .describe("Why the run's call was refused; the same codes the MCP tools answer with."),
    message: z.string().describe('A human-readable explanation naming the run or attempt.'),
  })
  .describe('A refusal of a `/api/run/*` call.');

export const outcomeRecorded = z
  .object({
    attemptId: id,
    state: z.enum(ATTEMPT_STATES).describe("The attempt's lifecycle state after the report (I1)."),
    outcome: z.enum(FIX_OUTCOMES),
  })
  .describe("The outcome was recorded for the run's own attempt.");

const money = z.number().min(0);
export const spendTotals = z
  .object({
    totalSpend: money.describe("The Task's model plus sandbox spend, in US dollars."),
    model: money,
    sandbox: money,
    ciMinutes: money.describe("CI minutes of the Task's heads, counted apart from the dollars."),
  })
  .describe("The Task's spend so far (K6).");

export const loopAttempt = z
  .object({
    ...attemptFields,
    state: z.enum(ATTEMPT_STATES).nullable().describe('Its lifecycle (I1).'),
    outcomeReason: z.string().nullable(),
    outcomeAt: nullableTimestamp,
    actionTakenAt: nullableTimestamp.describe('When `action_taken` was reported; progress is awaited from then (I3).'),
    retryOf: nullableId.describe('The attempt this one retries.'),
    interruptions: count.describe(
      'V4: how often a restart interrupted its run and it was offered again, free (at most once).',
    ),
  })
  .describe('An attempt with its dispatch status and its lifecycle.');

export const loopState = z
  .object({
    ...taskViewFields,
    attemptsUsed: count.describe('Automatic attempts used so far (C1).'),
    attempts: z.array(loopAttempt).describe('Every attempt, oldest first, with its lifecycle.'),
    notice: taskViewFields.notice.describe('The one Inbox notice (G1) — the loop stopped and why — or null.'),
    run: z.object({ id, state: z.enum(RUN_STATES), attemptId: nullableId }).describe('The run the token belongs to.'),
    spend: spendTotals,
    grants: grants.nullable().describe("A person's grants of one more attempt (V4); null when not known."),
    budget: z
      .object({ max: count, used: count, left: count })
      .nullable()
      .describe('Attempts allowed (including those a person granted), used and left; null when not known.'),
  })
  .describe("The fix loop of the run's own Task: its attempts and their lifecycle, runs, notice, spend and budget.");

describes<typeof runProblem, { error: (typeof AGENT_OPS_ERROR_CODES)[number]; message: string }>(true);
describes<typeof outcomeRecorded, OutcomeReport>(true);
describes<typeof spendTotals, SpendReport>(true);
// The Task's fields as the ledger reads them (see task-view.ts); the rest is the op's own type.
describes<typeof loopState, Gated<LoopState>>(true);
