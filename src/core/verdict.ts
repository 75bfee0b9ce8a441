// What a completed CI result means for the loop (SPEC B3, A4).
// Red is exactly the board's red; a completed result with no conclusion is unsettled, never a pass.

export type Verdict = 'red' | 'green' | 'inconclusive' | 'unsettled';

const RED_CONCLUSIONS: ReadonlySet<string> = new Set(['failure', 'timed_out', 'action_required', 'startup_failure']);
const RED_STATUS_STATES: ReadonlySet<string> = new Set(['failure', 'error']);
const INCONCLUSIVE: ReadonlySet<string> = new Set(['cancelled', 'neutral', 'skipped', 'stale']);

/** Verdict of a check run, check suite or workflow run conclusion. */
export function verdictOfConclusion(conclusion: string | null | undefined): Verdict {
  if (conclusion == null || conclusion === '') return 'unsettled';
  if (RED_CONCLUSIONS.has(conclusion)) return 'red';
  if (conclusion === 'success') return 'green';
  if (INCONCLUSIVE.has(conclusion)) return 'inconclusive';
  // An unknown conclusion GitHub may add later: do not spend a model run on it.
  return 'unsettled';
}

/** Verdict of a commit status state (success, failure, error; pending never reaches here). */
export function verdictOfStatusState(state: string): Verdict {
  if (RED_STATUS_STATES.has(state)) return 'red';
  if (state === 'success') return 'green';
  return 'unsettled';
}

/** Statuses that carry no verdict yet and are dropped at the edge (A4). */
export const NOT_COMPLETED_STATUSES: ReadonlySet<string> = new Set([
  'queued',
  'in_progress',
  'requested',
  'waiting',
  'pending',
]);
