// The verdict shape the K guards share and their wording for people (SPEC K3, K4, K6, K9, G1).
// Each guard decides in its own file; the reasons they stop for are listed in reasons.ts.

import type { GuardStopReason } from './reasons.js';

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
  diff_too_large:
    "the agent's changes grew past this Work's bound on changed lines or files, more than a fix for a failing check should need",
};
