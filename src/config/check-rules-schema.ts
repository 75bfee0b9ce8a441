// A Work's rules per check (issue 36, works[].checks; core/check-rules.ts decides with them): by a
// glob over a check's name, the attempts that check may have, whether its first failure is re-run
// first, instructions for the agent and the paths a fix for it may touch. The first match wins.
import { z } from 'zod';
import { MAX_ATTEMPTS_LIMIT } from '../core/budget.js';
import { CHECK_RULE_INSTRUCTIONS_MAX } from '../core/check-rules.js';

export const checkRuleSchema = z.strictObject({
  /** A glob over the check's name (`*`, `?`; case-insensitive). */
  name: z.string().trim().min(1).max(200),
  /** Automatic attempts for this check over the Task's life; 0 = always a person. */
  attempts: z.int().min(0).max(MAX_ATTEMPTS_LIMIT).optional(),
  /** Re-run the check's first failure before any attempt. */
  rerunFirst: z.boolean().optional(),
  /** Appended, labelled, to the agent's frame for a failure of this check. */
  instructions: z.string().trim().min(1).max(CHECK_RULE_INSTRUCTIONS_MAX).optional(),
  /** Path globs a fix for this check may change. */
  paths: z.array(z.string().trim().min(1).max(300)).min(1).max(50).optional(),
});

export const checkRulesSchema = z.array(checkRuleSchema).max(50);
