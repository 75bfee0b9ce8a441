// Every closed list of reasons, in one file: what can become of a delivery, why the loop refused to
// resume, why it stopped and filed its one notice, and why the edge rejected a delivery. Shared by
// the verdicts, the decision log rows, the API and the events, so a reason never drifts between them.
// SPEC: A1–A4, D, C2–C5, G1–G2, K3–K9, T1–T6.

/** What became of a delivery or an evaluation step (the decision log's `outcome`). */
export const OUTCOMES = [
  'rejected', // signed, but the body is unusable (malformed JSON, shape does not match the event)
  'ignored', // a handled event that carries nothing for the loop (ping, installation, …)
  'dropped', // a CI result that is not completed (A4)
  'duplicate', // the identity was stored before (A3)
  'stored', // a new event was committed
  'refused', // the loop will not act on it, with a reason (D)
  'claimed', // an attempt row was written (C2)
  'dispatched', // the runner accepted the resumed run
  'reported', // the resumed run reported its outcome or spend (I2, K6)
  'noticed', // the one Inbox notice was filed (G1)
  'failed', // dispatch or evaluation failed; nothing further was sent
  'acted', // a person acted from the dashboard or the API (M4, H1); the reason is one of PERSON_ACTIONS
  'rerun', // the head's failed jobs were re-run through the host, or the host refused; the reason is one of RERUN_REASONS
  'reopened', // T3: the approval an `approval_required` stop waited for was given (a completed result on its head)
  'updated', // issue 36: fixloop updated a branch behind its base through the host (no model run); the reason is one of BRANCH_UPDATE_REASONS
  'requeued', // issue 36: a fixed head was put back in the merge queue, or the host refused; the reason says which
] as const;
export type Outcome = (typeof OUTCOMES)[number];

/** What became of a re-run of a head's failed jobs (app/rerun.ts): the reason of a `rerun` decision row. */
export const RERUN_REASONS = [
  'rerun_requested', // the host accepted the re-run of the failed jobs for every workflow run asked
  'rerun_refused', // not re-run: the host refused (403: the token may not re-run; not a CI job), or the job was unreadable
  'rerun_unconfirmed', // no answer, or a 5xx, to the request: the host may have started it, so it is never sent again
] as const;
export type RerunReason = (typeof RERUN_REASONS)[number];

/** What became of fixloop's update of a branch behind its base (app/gate/branch.ts): the reason of an `updated` row. */
export const BRANCH_UPDATE_REASONS = [
  'branch_updated', // the host accepted the update (a merge of the base, or a rebase, as the host does it): a new head follows
  'branch_update_refused', // the host refused it (the head moved meanwhile, no permission, a conflict after all); a person or the next head decides
  'branch_update_unavailable', // the repository's host offers no branch update to fixloop (or no host access is configured)
] as const;
export type BranchUpdateReason = (typeof BRANCH_UPDATE_REASONS)[number];

/** Why the loop refused to resume (SPEC D plus the budget and ledger rules). */
export const REFUSALS = [
  'result_green',
  'result_not_actionable', // cancelled, neutral, skipped, stale
  'result_unsettled', // completed with no conclusion: never a pass, never a failure
  'no_work', // the repository belongs to no Work fixloop holds
  'not_data_repo', // a repository of the Work that is not its data repo
  'no_task', // no Task for this pull request or branch
  'fork_pull_request',
  'superseded_head', // B5: the result is not about the pull request's head
  'no_usable_time', // B5: no pointer and no time to order by
  'notice_filed', // G2: the marker is the stop flag
  'task_parked', // K5: no answer to the hand-off in time; never re-enters the loop on its own
  'stop_flag', // the global stop flag is set
  'stop_flag_unreadable', // …or cannot be read: fail closed
  'task_done',
  'task_cancelled',
  'pr_merged',
  'pr_closed',
  'branch_deleted',
  'run_in_flight', // a run is queued or running for the Task
  'run_question', // a run is parked on a question to a person
  'run_failed', // a person's run failed (a failed automatic run is left to its attempt, I5)
  'run_cancelled', // a person's cancel is never undone by a webhook
  'loop_off', // budget 0 (C1), or a person turned the loop off for this Task (M4)
  'coordinate_claimed', // C2: another delivery already claimed this coordinate
  'budget_spent', // C1/G1
  'unchanged_failure', // C5, T6: the last head's failures, all of them, on a new commit (unchanged-failure.ts)
  'awaiting_matrix', // T6: every failure so far is one of the last head's; the rest of the head decides
  'red_on_base', // T1: the check fails on the base branch's head too (triage.ts)
  'rerun_requested', // T2: transient; the failed jobs were asked to run again instead of an attempt
  'rerun_in_flight', // T2: transient; another evaluation already asked for this head's re-run
  'runs_approved', // T3, issue 35: the agent's push waited for approval, and fixloop approved its runs (runner.approveWorkflows)
  'summary_of_jobs', // T1, T2: a suite or workflow run only sums up the head's failing jobs, each judged on its own
  'over_budget_after_claim', // C3: the claim pushed the Task past its budget
  'ledger_unavailable', // C4: fail closed
  'not_a_rejection', // a review that requested nothing, or a bot that is not allow-listed (F1)
  // F2: a comment is only a doorbell; why it did not ring.
  'doorbell_own_identity',
  'doorbell_untrusted_bot',
  'doorbell_unknown_author',
  'doorbell_no_row',
  'doorbell_gate_row',
  'doorbell_other_pull_request',
  'doorbell_too_old',
  'doorbell_already_consumed',
  // F1/F2 standing (core/standing.ts): who may steer. A review's, or a stored rejection's, author…
  'author_without_standing', // …is a person whose association the Work does not trust, or whose permission on the repository is below its minimum
  'bot_lookalike', // …is not of type Bot but carries an allow-listed bot's login
  'standing_unreadable', // …is a person whose permission or access level the host could not say; a kept review is asked again on the next poll
  // …and the same for a comment's author, and for the row a comment rings for.
  'doorbell_author_without_standing',
  'doorbell_bot_lookalike',
  'doorbell_row_without_standing',
  // `/fixloop <command>` on the pull request (comment-command.ts): whose author has no standing, or
  // that could not be applied (e.g. `retry` while the loop has not stopped).
  'command_without_standing',
  'skip_label', // the pull request carries `fixloop:skip` (skip-label.ts)
  'command_not_applied',
  'not_adopted', // a pull request no adoption rule takes (or a fork: never adopted)
  'attempt_in_flight', // K7: one attempt in flight per pull request; retried by the poll
  'wake_cap_window', // K9: too many automatic wakes in the window; retried once it has room
  'grant_cap', // V4: a person's grant of one more attempt past the Task's cap on grants (the approve-one label)
] as const;
export type Refusal = (typeof REFUSALS)[number];

/**
 * T2: why a transient failure went on to the agent after all; the reason of its `claimed` row (a
 * re-run could not be had, so the failure is treated as any other).
 */
export const RERUN_FALLBACKS = [
  'rerun_unavailable', // no re-run mechanism, or no check run to re-run
  'rerun_budget_spent', // the head's re-run budget is used, or configured 0
  'rerun_refused', // the host refused the re-run (e.g. 403: the token may not re-run jobs)
] as const;
export type RerunFallback = (typeof RERUN_FALLBACKS)[number];

/** What a person did from the dashboard or the API (M4), the reason of an `acted` decision row (H1). */
export const PERSON_ACTIONS = [
  'approve_one', // K5: one more automatic attempt, a new stop round
  'resume', // H1: a person's run, their message as the prompt (`autoResume: false`)
  'loop_off', // the Task's own switch: the gate refuses `loop_off`
  'loop_on',
  'park', // K5: never re-enters the loop on its own
  'unpark',
  'cancel_run', // the run is cancelled and its agent stopped
  'resend_notice', // a notice delivery that was given up is sent again (G1, P4)
  'set_grant_cap', // V4: the Task's own cap on grants of one more attempt (raising it opens more)
  'stop_all', // the global stop flag (D)
  'start_all',
] as const;
export type PersonAction = (typeof PERSON_ACTIONS)[number];

/** Why a signed delivery was rejected or ignored at the edge. */
export const EDGE_REASONS = [
  'malformed_json',
  'shape_mismatch',
  'missing_event_header',
  'not_completed',
  'ping',
  'installation',
  'not_actionable_event',
  'own_status', // M4: fixloop's own `fixloop` commit status
] as const;
// Q1 (decisions 0032, 0076): a delivery from a host about a repository that is not its Works' is
// ignored at the edge (core/route.ts hostMismatch) with the receiving host's own reason, which its
// folder defines (`Host.noWorkReason`, app/hosts.ts): stored values that never change.

/**
 * Why a K guard stops the loop (K3, K4, K6, K9). K7 (one attempt in flight) is a refusal, not a
 * stop: the red result is offered again on a later tick (E2), so it is listed apart.
 */
export const GUARD_STOP_REASONS = [
  'thrash_repeat', // K3: this attempt's diff repeats an earlier attempt's
  'thrash_aba', // K3: the diffs alternate A, B, A
  'forbidden_change', // K4: a push touched workflows, lockfiles, snapshots, test expectations or skip markers
  'cost_ceiling', // K6: spend plus the next attempt's expected cost passes the Task's ceiling
  'wake_cap_window', // K9: 5 automatic wakes in 10 minutes
  'wake_cap_since_human', // K9: 20 automatic wakes since a person last acted on the Task
  'diff_too_large', // issue 36: the agent's changes since the loop began pass the Work's bound on lines or files (diff-bound.ts)
] as const;
export type GuardStopReason = (typeof GUARD_STOP_REASONS)[number];

/** K7's refusal (the loop is not stopped; the result is offered again on a later tick). */
export const GUARD_REFUSALS = ['attempt_in_flight'] as const;
export type GuardRefusal = (typeof GUARD_REFUSALS)[number];

/**
 * Issue 36: why a Work's rule for a check (works[].checks, core/check-rules.ts) handed a failure of
 * that check to a person.
 */
export const CHECK_RULE_STOP_REASONS = [
  'check_rule_person', // the check's rule allows 0 attempts: its failures always go to a person
  'check_rule_spent', // the check's rule allows N attempts and N were spent on it (other checks keep the budget)
  'check_rule_paths', // a fix for the check changed a file outside the paths its rule allows
] as const;
export type CheckRuleStopReason = (typeof CHECK_RULE_STOP_REASONS)[number];

/** Why the loop stopped for a Task and filed its one notice (G1). */
export const STOP_REASONS = [
  'budget_spent',
  'unchanged_failure',
  'parked',
  'dispatch_unconfirmed', // I5: a dispatch died before its start was known; never re-sent, so a person decides
  'agent_unreachable', // I5: the run ended without one call from its agent; a retry would fail the same way
  'agent_needs_person', // R2: the agent's vendor session waits for its user (Devin's `blocked`); a person answers it
  'approval_required', // T3: a check waits for a person's approval (action_required); the agent cannot clear it
  'no_ci', // T4: no check run or status appeared on the new head after an attempt within the wait
  'interrupted_twice', // V4: a restart interrupted the same attempt's run again after its one free re-offer
  'run_timeout', // issue 35: an automatic run was still unfinished past its window (runTimeoutMinutes); it was ended
  'queue_ejected', // issue 36: the merge queue removed the pull request for a reason no agent can fix (a conflict with a queued change, a timeout, a person)
  ...GUARD_STOP_REASONS,
  ...CHECK_RULE_STOP_REASONS,
  'bot_repeats_findings', // issue 36: an allow-listed bot's review repeats the findings of a round the agent already answered (bot-findings.ts)
] as const;
export type StopReason = (typeof STOP_REASONS)[number];
