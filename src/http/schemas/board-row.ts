// One line of the board as `GET /api/board` answers it (M4): the ledger's BoardRow and the attempts
// allowed (the budget plus a person's grants, C1, K5).
import { z } from 'zod';
import type { BoardRow } from '../../app/ledger-port.js';
import { CI_STATES, TASK_STATES } from '../../core/types.js';
import { LOOP_STATES } from '../../core/loop-state.js';
import { MAX_GRANTS_LIMIT } from '../../core/grant-cap.js';
import { count, describes, id, timestamp } from './common.js';

export const boardRow = z
  .object({
    id,
    repository: z.string(),
    pullRequest: id,
    branch: z.string(),
    state: z.enum(TASK_STATES),
    ciState: z.enum(CI_STATES),
    attemptsUsed: count,
    extraAttempts: count.describe('Granted past the budget by a person (K5): the grants used (V4).'),
    maxGrants: z
      .int()
      .min(0)
      .max(MAX_GRANTS_LIMIT)
      .nullable()
      .describe("The Task's own cap on grants (V4); null: the configured cap applies."),
    spend: z.number().min(0).describe("What the Task's runs reported spending (model + sandbox)."),
    loopState: z
      .enum(LOOP_STATES)
      .describe(
        'off (a person turned it off), parked, needs_person (a notice), agent_running, awaiting_progress, idle.',
      ),
    lastFailure: z.string().nullable().describe("The newest rejection's check and failing line."),
    triage: z
      .string()
      .nullable()
      .describe(
        'Why triage holds the newest red back from the agent (T1, T2, T6), e.g. "test is failing on main too"; null when it does not.',
      ),
    attemptsAllowed: count.describe('Automatic attempts allowed: the configured budget plus the grants used (C1, K5).'),
    createdAt: timestamp.describe('When the Task was registered (its age).'),
    updatedAt: timestamp.optional().describe("When the Task's row last changed: its last activity (issue 33)."),
    work: z.string().optional().describe('The Work the Task belongs to (issue 33).'),
    prTitle: z.string().nullable().optional().describe("The pull request's title as the poll last read it."),
    prAuthor: z.string().nullable().optional().describe("The login of the pull request's author, as last read."),
  })
  .describe('One line of the board (M4).');

describes<typeof boardRow, BoardRow & { attemptsAllowed: number }>(true);
