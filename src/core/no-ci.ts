// No CI for the agent's new head (SPEC T4): after an attempt, the pull request moved to a head on
// which no check run and no commit status has appeared for a while — a token whose pushes start no
// workflows, a path filter, a disabled workflow. The loop would wait on that head for ever, silently;
// instead it files its one notice, which says so. Pure: facts in, a verdict out.
import type { AttemptState } from './attempt-state.js';

/** How long a new head may go without any CI before a person is told, by default. */
export const DEFAULT_NO_CI_MINUTES = 10;

export interface NoCiFacts {
  /** The newest attempt of the Task: the head it acted on and where its life is. */
  latestAttempt: { headSha: string | null; state: AttemptState } | null;
  /** The pull request's head now, and when fixloop first saw it (null: not known). */
  head: { sha: string; seenAt: string | null };
  /** Check runs and statuses on the head now (fixloop's own status excluded); null when not read. */
  checksOnHead: number | null;
  /** The loop already stopped, or is off, skipped or parked for this Task. */
  loopIdle: boolean;
  now: string;
  /** 0 turns the rule off. */
  waitMs: number;
}

export type NoCiVerdict =
  | { kind: 'not_applicable' } // nothing waits on this head's CI, or it has CI
  | { kind: 'wait' } // a new head without CI, still within the wait
  | { kind: 'read_checks' } // past the wait: read the head's checks, then decide again
  | { kind: 'notice'; detail: string };

export function noCiVerdict(f: NoCiFacts): NoCiVerdict {
  const a = f.latestAttempt;
  if (f.waitMs <= 0 || f.loopIdle || !a || a.headSha === null || a.headSha === f.head.sha) return none;
  // While the run is still going the agent may push again; a retryable attempt is retried on its head.
  if (a.state !== 'awaiting_progress' && a.state !== 'acknowledged') return none;
  if (f.checksOnHead !== null && f.checksOnHead > 0) return none;
  if (f.head.seenAt === null) return { kind: 'wait' };
  const waited = Date.parse(f.now) - Date.parse(f.head.seenAt);
  if (!(waited >= f.waitMs)) return { kind: 'wait' };
  if (f.checksOnHead === null) return { kind: 'read_checks' };
  const minutes = Math.round(waited / 60_000);
  return {
    kind: 'notice',
    detail: `no check run or status appeared on ${f.head.sha.slice(0, 12)} in ${minutes} minute${minutes === 1 ? '' : 's'} after the attempt on ${a.headSha.slice(0, 12)}`,
  };
}

const none: NoCiVerdict = { kind: 'not_applicable' };
