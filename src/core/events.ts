// The named structured log events fixloop emits (SPEC N2): one closed list, so an operator's alert
// on `ci.autofix_exhausted` keeps working. Every log call for one of these passes the constant as
// its message; docs/events.md has one row per event (when, level, fields), and
// src/core/events.test.ts holds the table, this list and the log calls in src/ to the same names.

export const LOG_EVENTS = {
  /** A completed red CI result for the Task's head was stored as its CI state. */
  CI_CHECK_FAILED: 'ci.check_failed',
  /** The loop stopped for a Task and filed its one notice (G1): a person takes over. */
  CI_AUTOFIX_EXHAUSTED: 'ci.autofix_exhausted',
  /** The runner accepted a resumed run (L1). */
  DISPATCH_STARTED: 'dispatch.started',
  /** A result was not acted on (a refusal, D), or a dispatch failed; with its reason. */
  DISPATCH_DROPPED: 'dispatch.dropped',
  /** Reconciliation found the agent of a dispatch whose start was never recorded. */
  DISPATCH_FOUND_UNMARKED_AGENT: 'dispatch.found_unmarked_agent',
  /** A run whose agent died with the fixloop process that started it was ended. */
  RUN_STRANDED_ENDED: 'run.stranded_ended',
  /** A run's agent outlived the fixloop process that started it; this process watches it now. */
  RUN_STRANDED_WATCHING: 'run.stranded_watching',
  /** V4: a shutdown's grace ended with the agent still running; it is stopped and the run interrupted. */
  RUN_INTERRUPTED: 'run.interrupted',
  /** V4: an interrupted run's attempt was offered again, free (once per attempt). */
  RUN_INTERRUPTED_REOFFERED: 'run.interrupted_reoffered',
  /** Issue 35: an automatic run still unfinished past its window was ended (its agent stopped where it ran here). */
  RUN_TIMED_OUT: 'run.timed_out',
  /** The agent reported its run's outcome (I2). */
  ATTEMPT_OUTCOME_REPORTED: 'attempt.outcome_reported',
  /** An attempt moved on the progress rule (I3): progress seen, retryable, or settled. */
  ATTEMPT_PROGRESS: 'attempt.progress',
  /** I5: a Task left with nothing in flight and nobody told was moved on. */
  LIVENESS_STALLED: 'liveness.stalled',
  /** K3/K4: an agent's push was judged and allowed. */
  GUARD_PUSH_CHECKED: 'guard.push_checked',
  /** K3/K4: an agent's push stopped the loop (thrash, forbidden change). */
  GUARD_PUSH_STOPPED: 'guard.push_stopped',
  /** K3/K4: part of a push could not be read, so it was not judged unchanged. */
  GUARD_PUSH_UNREADABLE: 'guard.push_unreadable',
  /** K3/K4: judging a push failed; the poll tries again. */
  GUARD_PUSH_FAILED: 'guard.push_failed',
  /** P4: a notice reached one of its sinks. */
  NOTICE_DELIVERED: 'notice.delivered',
  /** P4: sending a notice to a sink failed; it is retried later. */
  NOTICE_DELIVERY_FAILED: 'notice.delivery_failed',
  /** P4: a notice's sink failed every retry; nothing more is sent to it. */
  NOTICE_DELIVERY_GAVE_UP: 'notice.delivery_gave_up',
  /** M4/A1: a dashboard sign-in with a wrong token, while its client is not yet throttled. */
  SIGN_IN_REFUSED: 'dashboard.sign_in_refused',
  /** M4/A1: a client's wrong tokens reached the allowance; its sign-ins are refused for the rest of the minute. */
  SIGN_IN_THROTTLED: 'dashboard.sign_in_throttled',
} as const;

export type LogEvent = (typeof LOG_EVENTS)[keyof typeof LOG_EVENTS];

/** Every event name, in catalogue order. */
export const LOG_EVENT_NAMES: readonly LogEvent[] = Object.values(LOG_EVENTS);
