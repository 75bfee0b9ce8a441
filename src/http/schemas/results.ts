// V1: the figures `GET /api/results` answers and `fixloop results` reads (core/results.ts); every
// figure is explained in docs/results.md. Closed objects: a figure added without its words fails.
import { z } from 'zod';
import type { Results as ComputedResults } from '../../core/results.js';
import { STOP_REASONS } from '../../core/reasons.js';
import { count, describes, timestamp } from './common.js';

const figureFields = {
  pullRequests: count.describe('Pull requests the loop touched: a red or an attempt in the period.'),
  green: count.describe('Of those, how many went green after their first red of the period.'),
  greenWithoutPerson: count.describe(
    "Of those, how many went green with no person's action, resume or hand-off between first red and green.",
  ),
  fixRate: z.number().min(0).max(1).nullable().describe('greenWithoutPerson / pullRequests.'),
  attempts: count.describe('Automatic attempts claimed in the period.'),
  spend: z.number().min(0).describe("What the attempts' runs reported spending, in `currency`."),
  attemptsPerGreen: z.number().nullable().describe('attempts / greenWithoutPerson; null when none.'),
  spendPerGreen: z.number().nullable().describe('spend / greenWithoutPerson; null when none.'),
  timeToGreenMinutes: z.strictObject({
    median: z.number().nullable(),
    p90: z.number().nullable(),
    samples: z.array(z.number().min(0)).describe('Minutes, shortest first.'),
  }),
  handOffs: z
    .array(z.strictObject({ reason: z.enum(STOP_REASONS), count: z.int().min(1) }))
    .describe('Stop notices filed in the period, by reason, most first.'),
  changedByPerson: count.describe(
    "Pull requests green without a person whose head moved within a week of green with no attempt of the loop's (an approximation of a fix reverted or amended by a person; docs/results.md).",
  ),
};

export const resultsFigures = z.strictObject(figureFields);

export const results = z
  .strictObject({
    period: z.strictObject({ from: timestamp, to: timestamp }).describe('From (inclusive) to (exclusive).'),
    currency: z.string().describe('ISO 4217 code of every amount (`guards.currency`).'),
    total: resultsFigures,
    byRepository: z.array(z.strictObject({ repository: z.string(), ...figureFields })),
    byAgent: z.array(z.strictObject({ agent: z.string(), ...figureFields })),
    byCheck: z
      .array(z.strictObject({ check: z.string(), ...figureFields }))
      .describe("By failing check name; a check's attempts and spend are only those claimed for it."),
    costliestChecks: z
      .array(
        z.strictObject({
          check: z.string(),
          attempts: z.int().min(1),
          spend: z.number().min(0),
          pullRequests: z.int().min(1),
        }),
      )
      .describe('Checks by spend, then attempts, most first.'),
  })
  .describe('V1: does the loop pay? Every figure is explained in docs/results.md.');

/** A hand-off's reason is typed `string` in the rows the ledger reads; only stop reasons are filed. */
type Reasoned<F> = Omit<F, 'handOffs'> & { handOffs: Array<{ reason: (typeof STOP_REASONS)[number]; count: number }> };
type Answer = ComputedResults & { currency: string };
describes<
  typeof results,
  Omit<Answer, 'total' | 'byRepository' | 'byAgent' | 'byCheck'> & {
    total: Reasoned<Answer['total']>;
    byRepository: Array<Reasoned<Answer['byRepository'][number]>>;
    byAgent: Array<Reasoned<Answer['byAgent'][number]>>;
    byCheck: Array<Reasoned<Answer['byCheck'][number]>>;
  }
>(true);
