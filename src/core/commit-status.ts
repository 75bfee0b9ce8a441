// The `fixloop` commit status on the pull request's head (SPEC P3, with K5 and K8): what the loop is
// doing, in one line, where people already look ("attempt 1 of 2 running", "needs a person: budget
// spent"). fixloop's own context is never read back as a CI result, so its `failure` cannot ring the
// loop it reports on.
import type { LoopState } from './loop-state.js';
import type { StopReason } from './reasons.js';

/** The status context fixloop writes; a CI result of this context is fixloop's own, never CI's. */
export const COMMIT_STATUS_CONTEXT = 'fixloop';
/** GitHub refuses a description longer than this. */
export const COMMIT_STATUS_DESCRIPTION_MAX = 140;

export type CommitStatusState = 'pending' | 'success' | 'failure';

export interface CommitStatus {
  state: CommitStatusState;
  description: string;
}

export interface CommitStatusFacts {
  loopState: LoopState;
  attemptsUsed: number;
  /** Automatic attempts allowed: the budget plus a person's grants. */
  attemptsAllowed: number;
  /** The current stop's reason; null when the loop has not stopped. */
  stopReason: StopReason | null;
  /** Why `off`: the skip label or a person's switch (both show `off` on the board). */
  skipLabel: boolean;
  /** The global stop flag (D): no pull request is acted on. */
  globalStop: boolean;
}

/** The stop reasons in a few words; a reason without its own words falls back to its name. */
export const STOP_SHORT: Partial<Record<StopReason, string>> = {
  budget_spent: 'budget spent',
  unchanged_failure: 'the last fix changed nothing',
  parked: 'parked, no answer in time',
  dispatch_unconfirmed: 'agent start unconfirmed',
  agent_unreachable: 'the agent never reached fixloop',
  agent_needs_person: 'the agent waits for a person',
  approval_required: 'a check waits for approval',
  no_ci: 'no CI ran on the new head',
  interrupted_twice: 'restarts stopped the agent twice',
  run_timeout: 'the agent ran past its window',
  queue_ejected: 'the merge queue removed it',
  thrash_repeat: 'the fixes repeat',
  thrash_aba: 'the fixes go round in circles',
  forbidden_change: 'a push changed what judges the fix',
  cost_ceiling: 'cost ceiling reached',
  wake_cap_window: 'too many wakes in 10 minutes',
  wake_cap_since_human: 'too many wakes since a person acted',
  check_rule_person: "the check's rule: a person",
  check_rule_spent: "the check's attempts are spent",
  check_rule_paths: 'a fix went outside its paths',
  diff_too_large: 'the fix grew too large',
  bot_repeats_findings: 'a review bot repeats itself',
};

/**
 * The status for the head, or null while there is nothing to say: the loop has not acted on this
 * pull request (K8's rule for the state comment), so an untouched pull request gets no status.
 * `failure` only when a person is needed (the loop stopped or parked); `pending` while the loop works;
 * `success` otherwise, so a required `fixloop` check never blocks a pull request the loop is not on.
 */
export function commitStatusOf(f: CommitStatusFacts): CommitStatus | null {
  const of = `${f.attemptsUsed} of ${f.attemptsAllowed}`;
  if (f.globalStop) return ok('success', 'off: automation is stopped for every pull request');
  switch (f.loopState) {
    case 'off':
      return ok('success', f.skipLabel ? 'off: the fixloop:skip label is on' : 'off: a person turned the loop off');
    case 'parked':
      return ok('failure', `parked: needs a person (${of} attempts used)`);
    case 'needs_person':
      return ok('failure', `needs a person: ${f.stopReason ? (STOP_SHORT[f.stopReason] ?? f.stopReason) : 'stopped'}`);
    case 'agent_running':
      return ok('pending', `attempt ${Math.max(f.attemptsUsed, 1)} of ${f.attemptsAllowed} running`);
    case 'awaiting_progress':
      return ok('pending', `attempt ${Math.max(f.attemptsUsed, 1)} of ${f.attemptsAllowed}: waiting for CI on the fix`);
    case 'interrupted': // V4: not a person's to handle; the next start offers it again, free
      return ok('pending', 'interrupted by a restart: will be offered again');
    case 'idle':
      return f.attemptsUsed > 0 ? ok('success', `watching: ${of} automatic attempts used`) : null;
  }
}

/** A fixloop status, not CI's: never a result, never a red check of the green gate. */
export function isOwnStatusContext(context: string): boolean {
  return context === COMMIT_STATUS_CONTEXT;
}

/** What the ledger keeps of the last status written, to write only when it changes. */
export function commitStatusKey(s: CommitStatus): string {
  return `${s.state}:${s.description}`;
}

function ok(state: CommitStatusState, description: string): CommitStatus {
  return {
    state,
    description:
      description.length > COMMIT_STATUS_DESCRIPTION_MAX
        ? `${description.slice(0, COMMIT_STATUS_DESCRIPTION_MAX - 1)}…`
        : description,
  };
}
