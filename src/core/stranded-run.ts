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
 */
export function strandedRunEnd(detail: string, hadOutcome: boolean): { state: 'completed' | 'failed'; detail: string } {
  return hadOutcome
    ? { state: 'completed', detail: `${detail}; it had reported its outcome, which stands` }
    : { state: 'failed', detail };
}

/** The line added to a run's log when it is ended this way, so the log says why it stops there. */
export function strandedRunLogLine(detail: string): string {
  return `\n[fixloop: ${detail}]\n`;
}
