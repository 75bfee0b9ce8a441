// A run found `running` when fixloop starts (SPEC L1, I4; issue 2 §9). The process's life is the
// run's life, but a process that died (SIGKILL, a crash) took the child handle with it, so nobody
// heard the agent exit. Start-up decides, for each run the command runner left behind on this host:
//   its process is gone    → the run ended while nobody watched: `failed`, exit status unknown;
//   its process is running → watch it, and end the run when it exits (its output is lost);
//   another host started it → leave it to the replica on that host.
// Runs with no process mark (the http runner, whose platform reports the end) are not stranded.

/** Where an agent process lives: written when it starts (runners/process-mark.ts). */
export interface ProcessMark {
  host: string;
  pid: number;
  /** Names this one process beyond its pid (boot id and start time), or '' where that is unknown. */
  since: string;
}

export type Liveness = 'alive' | 'gone' | 'elsewhere';

export type StrandedRunFate = { kind: 'end'; detail: string } | { kind: 'watch' } | { kind: 'leave' };

export const ENDED_UNSEEN = 'the agent process ended while fixloop was not running; its exit status is unknown';
export const ENDED_WATCHED = 'the agent process, watched since fixloop restarted, has exited; its exit status is unknown';

export function strandedRunFate(liveness: Liveness): StrandedRunFate {
  switch (liveness) {
    case 'gone':
      return { kind: 'end', detail: ENDED_UNSEEN };
    case 'alive':
      return { kind: 'watch' };
    case 'elsewhere':
      return { kind: 'leave' };
  }
}

/** The line added to a run's log when it is ended this way, so the log says why it stops there. */
export function strandedRunLogLine(detail: string): string {
  return `\n[fixloop: ${detail}]\n`;
}
