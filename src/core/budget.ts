// The per-Task attempt budget (SPEC C1, C3, K1): parsed once, checked before and after the claim.
// Counting rows is counting attempts; a claim that pushed the Task past its budget never dispatches.

export const DEFAULT_MAX_ATTEMPTS = 2;
export const MAX_ATTEMPTS_LIMIT = 5;

export interface ParsedBudget {
  max: number;
  warning: string | null;
}

/** TASK_CI_AUTO_RESUME_MAX_ATTEMPTS: an integer 0–5; anything else falls back to the default with a warning. */
export function parseMaxAttempts(raw: string | number | undefined | null): ParsedBudget {
  if (raw === undefined || raw === null || raw === '') return { max: DEFAULT_MAX_ATTEMPTS, warning: null };
  const text = String(raw).trim();
  const n = /^\d+$/.test(text) ? Number(text) : NaN;
  if (!Number.isInteger(n) || n < 0 || n > MAX_ATTEMPTS_LIMIT) {
    return {
      max: DEFAULT_MAX_ATTEMPTS,
      warning: `TASK_CI_AUTO_RESUME_MAX_ATTEMPTS=${JSON.stringify(text)} is not an integer 0–${MAX_ATTEMPTS_LIMIT}; using ${DEFAULT_MAX_ATTEMPTS}`,
    };
  }
  return { max: n, warning: null };
}

export type BudgetVerdict = { kind: 'allow' } | { kind: 'refuse'; reason: 'loop_off' | 'budget_spent' };

/** Before the claim: is there room for one more attempt? */
export function budgetBeforeClaim(attemptsUsed: number, max: number): BudgetVerdict {
  if (max === 0) return { kind: 'refuse', reason: 'loop_off' };
  if (attemptsUsed >= max) return { kind: 'refuse', reason: 'budget_spent' };
  return { kind: 'allow' };
}

/** After the claim, with the count re-read: a claim past the budget keeps its row and is not dispatched (C3). */
export function budgetAfterClaim(attemptsCounted: number, max: number): { kind: 'dispatch' } | { kind: 'over_budget' } {
  return attemptsCounted > max ? { kind: 'over_budget' } : { kind: 'dispatch' };
}
