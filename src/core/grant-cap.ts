// The cap on a person's grants of one more attempt (SPEC V4, K5, G1): each grant (the approve-one
// label, the dashboard, the API, `/fixloop retry`) opens one stop round, and a Task takes at most N
// of them across its whole life. Past the cap only a person raising the Task's own cap opens more.
// Pure: the ledger enforces the same rule in its compare-and-set (src/ledger/tasks.ts grantApproveOne).

export const DEFAULT_MAX_GRANTS = 3;
/** The highest cap the configuration or a person may set for one Task. */
export const MAX_GRANTS_LIMIT = 20;

export interface ParsedGrantCap {
  max: number;
  warning: string | null;
}

/** TASK_MAX_GRANTS: an integer 0–20; anything else falls back to the default with a warning. */
export function parseMaxGrants(raw: string | number | undefined | null): ParsedGrantCap {
  if (raw === undefined || raw === null || raw === '') return { max: DEFAULT_MAX_GRANTS, warning: null };
  const text = String(raw).trim();
  const n = /^\d+$/.test(text) ? Number(text) : NaN;
  if (!Number.isInteger(n) || n < 0 || n > MAX_GRANTS_LIMIT) {
    return {
      max: DEFAULT_MAX_GRANTS,
      warning: `TASK_MAX_GRANTS=${JSON.stringify(text)} is not an integer 0–${MAX_GRANTS_LIMIT}; using ${DEFAULT_MAX_GRANTS}`,
    };
  }
  return { max: n, warning: null };
}

/** A Task's grants: used so far, its cap, what is left, and whether a person set the cap for this Task. */
export interface GrantAllowance {
  used: number;
  max: number;
  left: number;
  /** True when the cap is the Task's own (set by a person), false when it is the configured one. */
  own: boolean;
}

/** The Task's cap is its own when a person set one, else the configured one. */
export function grantAllowance(used: number, configured: number, ownCap: number | null): GrantAllowance {
  const max = ownCap ?? configured;
  return { used, max, left: Math.max(0, max - used), own: ownCap !== null };
}

export type GrantVerdict = { kind: 'grant' } | { kind: 'refuse'; reason: 'grant_cap'; allowance: GrantAllowance };

/** Before a grant: is there one left? (The ledger's compare-and-set decides the same in one statement.) */
export function grantVerdict(a: GrantAllowance): GrantVerdict {
  return a.used < a.max ? { kind: 'grant' } : { kind: 'refuse', reason: 'grant_cap', allowance: a };
}

/** "1 of 3 grants used, 2 left" — the board's, the state comment's and `/fixloop status`'s words. */
export function grantWords(a: Pick<GrantAllowance, 'used' | 'max' | 'left'>): string {
  if (a.max === 0 && a.used === 0) return 'no grants of one more attempt are allowed for this Task';
  const of = `${a.used} of ${a.max} grant${a.max === 1 ? '' : 's'} of one more attempt used`;
  return a.left === 0 ? `${of}, none left` : `${of}, ${a.left} left`;
}

/** How a person opens more grants: the Task's own cap through the API (or the configured cap, when the Task has none). */
export function grantCapHowToRaise(taskId: number, a: GrantAllowance): string {
  const api = `PUT /api/tasks/${taskId}/budget with {"maxGrants": ${a.used + 1}} or more`;
  return a.own
    ? `Only a person raising this Task's own cap opens more: ${api}.`
    : `Only a person raising the cap opens more: for this Task, ${api}; for every Task, a higher TASK_MAX_GRANTS (maxGrants in the configuration file).`;
}

/** The refusal of a grant past the cap, in people's words: what was used and how to open more. */
export function grantCapMessage(taskId: number, a: GrantAllowance): string {
  const used =
    a.max === 0 && a.used === 0
      ? 'this Task allows no grants of one more attempt'
      : `${a.used} of ${a.max} grant${a.max === 1 ? '' : 's'} of one more attempt for this Task ${a.used === 1 ? 'was' : 'were'} used`;
  return `No more attempts can be granted: ${used}. ${grantCapHowToRaise(taskId, a)}`;
}

export type GrantCapChange = { kind: 'unchanged' } | { kind: 'changed'; before: GrantAllowance; after: GrantAllowance };

/** A person sets the Task's own cap (null: back to the configured one); the decision row says from what to what. */
export function grantCapChange(
  used: number,
  configured: number,
  ownBefore: number | null,
  ownAfter: number | null,
): GrantCapChange {
  if (ownBefore === ownAfter) return { kind: 'unchanged' };
  return {
    kind: 'changed',
    before: grantAllowance(used, configured, ownBefore),
    after: grantAllowance(used, configured, ownAfter),
  };
}
