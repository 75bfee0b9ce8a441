// The closed list of reasons the K guards stop the loop for, and the verdict shape they share
// (SPEC K3, K4, K6, K9, G1). Each guard decides in its own file; this list is what the notice, the
// ledger row, the event log and the UI name. K7 (one attempt in flight) is a refusal, not a stop:
// the red result is retried on the next tick (E2), so it is listed apart.

export const GUARD_STOP_REASONS = [
  'thrash_repeat', // K3: this attempt's diff repeats an earlier attempt's
  'thrash_aba', // K3: the diffs alternate A, B, A
  'forbidden_change', // K4: a push touched workflows, lockfiles, snapshots, test expectations or skip markers
  'cost_ceiling', // K6: spend plus the next attempt's expected cost passes the Task's ceiling
  'wake_cap_window', // K9: 5 automatic wakes in 10 minutes
  'wake_cap_since_human', // K9: 20 automatic wakes since a person last acted on the Task
] as const;
export type GuardStopReason = (typeof GUARD_STOP_REASONS)[number];

/** K7: refusals (the loop is not stopped; the result is offered again on a later tick). */
export const GUARD_REFUSALS = ['attempt_in_flight'] as const;
export type GuardRefusal = (typeof GUARD_REFUSALS)[number];

/** A guard's answer: allow, or stop with one reason and a sentence for people. */
export type GuardVerdict<R extends GuardStopReason = GuardStopReason> =
  { kind: 'allow' } | { kind: 'stop'; reason: R; detail: string };

/** Suggested notice wording, in the voice of core/notice.ts (`fixloop stopped for … : <why>`). */
export const GUARD_STOP_WHY: Record<GuardStopReason, string> = {
  thrash_repeat: "the last fix repeats an earlier attempt's change, so the loop is going round in circles",
  thrash_aba: 'the fixes alternate between two changes (A, B, A), so the loop is going round in circles',
  forbidden_change:
    "the last push changed what judges the fix (tests' expectations, skip markers, CI workflows, snapshots or lockfiles) instead of the code",
  cost_ceiling: "the next attempt would pass the Task's cost ceiling",
  wake_cap_window: 'the agent was woken too often in a short time',
  wake_cap_since_human: 'the agent was woken too many times since a person last acted on the Task',
};
