// A run left `queued` or `running` by a fixloop process that died (SPEC L1, I4; issue 2 §9). The
// process's life is the run's life, but a fixloop process that died (SIGKILL, a crash) took the
// child handle with it, so nobody hears the agent exit. At start-up, and then every little while
// on every replica (a sibling may die while this one runs), each run whose agent process was marked
// (runners/process-mark.ts) is decided:
//   another host started it      → leave it to that host;
//   the fixloop that started it still runs (this one, or another replica on this host) → leave it: it will hear the exit;
//   otherwise, its agent is gone → the run ended while nobody watched: exit status unknown;
//   otherwise, its agent runs    → watch it, and end the run when it exits (its output is lost).
// A run so ended is `completed` when its agent reported its outcome (to any fixloop process: the
// outcome settles its attempt, I5), `failed` when it did not (its attempt is retryable, I3).
// Runs with no mark (the http runner, whose platform reports the end) are never stranded.
// V4, I4: an agent found gone at start-up most likely died with its fixloop (a crash, a container
// stopped whole): like an agent a shutdown stopped after its grace, its run is *interrupted*, and its
// attempt is offered again once, free (interruptedRunFate). One watched to its own exit is not.

/** Where an agent process lives and who started it: written when it starts. */
export interface ProcessMark {
  /** The machine's host name: only a process there can check the pids. */
  host: string;
  pid: number;
  /** Names this one process beyond its pid (boot id and start time), or '' where that is unknown. */
  since: string;
  /**
   * The fixloop process that started the agent and listens for its exit; `instance` is random per
   * process, so a later fixloop that is given the same pid is not taken for it.
   */
  owner: { pid: number; since: string; instance: string };
}

/** A stored mark, or null when the text is not one (a bad row must not stop start-up). */
export function parseProcessMark(text: string | null): ProcessMark | null {
  if (!text) return null;
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return null;
  }
  const m = v as Partial<ProcessMark> | null;
  const o = m?.owner as Partial<ProcessMark['owner']> | undefined;
  const ok =
    typeof m?.host === 'string' &&
    Number.isSafeInteger(m.pid) &&
    typeof m.since === 'string' &&
    Number.isSafeInteger(o?.pid) &&
    typeof o?.since === 'string' &&
    typeof o?.instance === 'string';
  return ok ? (m as ProcessMark) : null;
}

export type Liveness = 'elsewhere' | 'owned' | 'alive' | 'gone';

export type StrandedRunFate = { kind: 'end'; detail: string } | { kind: 'watch' } | { kind: 'leave' };

export const ENDED_UNSEEN =
  'the agent process ended while no fixloop process was watching it; its exit status is unknown';
export const ENDED_WATCHED =
  'the agent process, watched since the fixloop process that started it was found gone, has exited; its exit status is unknown';

export function strandedRunFate(liveness: Liveness): StrandedRunFate {
  switch (liveness) {
    case 'gone':
      return { kind: 'end', detail: ENDED_UNSEEN };
    case 'alive':
      return { kind: 'watch' };
    case 'owned':
    case 'elsewhere':
      return { kind: 'leave' };
  }
}

/**
 * How a stranded run ends, once its agent is gone: by its outcome when the agent reported one — the
 * run did what it was for, whatever its unknown exit status — and as a machine's failure otherwise.
 * `interrupted` (V4): the agent was found gone without an outcome, so it died with the fixloop that
 * started it rather than ending on its own; one watched until it exited ran its course.
 */
export function strandedRunEnd(
  detail: string,
  hadOutcome: boolean,
): { state: 'completed' | 'failed'; detail: string; interrupted: boolean } {
  return hadOutcome
    ? { state: 'completed', detail: `${detail}; it had reported its outcome, which stands`, interrupted: false }
    : detail === ENDED_UNSEEN
      ? { state: 'failed', detail: `${detail}; ${REOFFER_WORDS}`, interrupted: true }
      : { state: 'failed', detail, interrupted: false };
}

/** What the run log and the decision log say of an interrupted run's attempt. */
const REOFFER_WORDS = 'it counts as interrupted by a restart, and its attempt is offered again once, free';

/** The line a shutdown writes when it stops an agent still running after the grace (V4). */
export function interruptedByShutdown(graceMs: number): string {
  return `fixloop was shutting down and the agent was still running after the ${Math.round(graceMs / 1000)} s grace, so it was stopped; ${REOFFER_WORDS}`;
}

/** V4: what becomes of an attempt whose latest run an interruption ended. */
export type InterruptedRunFate =
  | { kind: 'none' } // not interrupted, not ended yet, or settled by its outcome: the ordinary rules apply
  | { kind: 'reoffer' } // the same attempt is dispatched again; the budget is not spent (C3 counts rows)
  | { kind: 'notice'; reason: 'interrupted_twice' }; // interrupted again after its free re-offer: a person is told

/**
 * V4, I5: an interrupted run's attempt is offered again once, free; a second interruption of the same
 * attempt files the Task's notice instead, so a service that keeps restarting never loops for free.
 * An agent that reported its outcome before it was stopped is judged by that outcome (I2).
 */
export function interruptedRunFate(f: {
  runEnded: boolean;
  interrupted: boolean;
  hadOutcome: boolean;
  interruptions: number;
}): InterruptedRunFate {
  if (!f.runEnded || !f.interrupted || f.hadOutcome) return { kind: 'none' };
  return f.interruptions < 1 ? { kind: 'reoffer' } : { kind: 'notice', reason: 'interrupted_twice' };
}

/** The line added to a run's log when it is ended this way, so the log says why it stops there. */
export function strandedRunLogLine(detail: string): string {
  return `\n[fixloop: ${detail}]\n`;
}
