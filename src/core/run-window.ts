// Issue 35 (SPEC I5, L1): every automatic run has a window. Whatever its runner — a local process, an
// agent platform told over HTTP, a vendor's session — a run still unfinished this long after it was
// dispatched is ended, and the Task's one notice is filed (run_timeout): a hung agent, or a platform
// that never reports, ends in a person being told, never in silence.
import type { RunState } from './types.js';

/** An hour: a cloud agent's session times out after about one; a local fix of a red build takes minutes. */
export const DEFAULT_RUN_TIMEOUT_MINUTES = 60;

export interface WindowedRun {
  id: number;
  state: RunState;
  /** Only an automatic attempt's run is held to the window; a person's own run is theirs. */
  attemptId: number | null;
  createdAt: string;
}

/** Why the run is past its window (for the notice and the run log), or null while it is not. */
export function runOverdue(run: WindowedRun, windowMs: number, now: string): string | null {
  if (run.attemptId === null) return null;
  if (run.state !== 'queued' && run.state !== 'running') return null;
  const started = Date.parse(run.createdAt);
  // An unreadable start is overdue: a run nobody can date must not hold the loop forever.
  if (Number.isFinite(started) && started + windowMs > Date.parse(now)) return null;
  const minutes = Math.round(windowMs / 60_000);
  return `run ${run.id} was still ${run.state} ${minutes} minute${minutes === 1 ? '' : 's'} after it was dispatched (at ${run.createdAt}), past its window (runTimeoutMinutes)`;
}
