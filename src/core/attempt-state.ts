// The attempt lifecycle (SPEC I1–I4): queued → running → awaiting_progress → acknowledged | retryable,
// as one pure transition function over plain events. The run's outcome is first-write (I2);
// action_taken waits two poll intervals for provider-visible progress (I3); a run that ends without an
// outcome, before or across a restart, leaves the attempt retryable (I3, I4), and so does a runner
// that could not start the run after the claim (I5: a machine's failure is never final). Terminal
// states stay put. V4: a run a shutdown or a crash *interrupted* is not its agent's end: its attempt
// stays running until reconciliation offers it again, free, once (core/stranded-run.ts
// interruptedRunFate; the move back to queued is the ledger's compare-and-set, decision 0043).
import type { Instant } from './handoff.js';
import type { ProgressKind } from './progress.js';

export const ATTEMPT_STATES = ['queued', 'running', 'awaiting_progress', 'acknowledged', 'retryable'] as const;
export type AttemptState = (typeof ATTEMPT_STATES)[number];

/** I2: what a resumed run may report, once. */
export const FIX_OUTCOMES = ['action_taken', 'non_actionable', 'blocked'] as const;
export type FixOutcome = (typeof FIX_OUTCOMES)[number];

/** I2: the most a `blocked` reason shown to people may hold, in characters (code points). */
export const BLOCKED_REASON_MAX = 500;

export type AttemptEvent =
  | { kind: 'dispatched' } // the runner accepted the run: from here the attempt belongs to a run
  | { kind: 'not_started' } // the runner could not start the run (a spawn that failed after the claim)
  | { kind: 'run_started' }
  | { kind: 'outcome_reported'; outcome: FixOutcome; reason?: string | undefined }
  | { kind: 'run_ended'; hadOutcome: boolean }
  | { kind: 'progress_seen'; progress: readonly ProgressKind[] } // detectProgress's answer
  | { kind: 'deadline_passed' } // two poll intervals after action_taken (progressDeadline)
  | { kind: 'restarted'; runEnded: boolean; hadOutcome: boolean }; // I4 start-up reconciliation

/** Why an attempt moved: one closed list for the ledger row and the event log. */
const ATTEMPT_MOVE_WHYS = [
  'dispatched',
  'not_started',
  'run_started',
  'action_taken',
  'non_actionable',
  'blocked',
  'progress',
  'no_progress_by_deadline',
  'ended_without_outcome',
  'restart_ended_without_outcome',
] as const;
export type AttemptMoveWhy = (typeof ATTEMPT_MOVE_WHYS)[number];

/** Why an event was refused; only outcomes are refused (they come from the run, which is told). */
const ATTEMPT_REJECTIONS = [
  'outcome_already_reported', // first write wins (I2)
  'attempt_closed', // the attempt is retryable: its run is over, a retry is a new attempt with its own credential
  'blocked_without_reason', // blocked must say why, for the person it is shown to
] as const;
export type AttemptRejection = (typeof ATTEMPT_REJECTIONS)[number];

export type AttemptTransition =
  | { kind: 'move'; to: AttemptState; why: AttemptMoveWhy }
  | { kind: 'stay' }
  | { kind: 'reject'; reason: AttemptRejection };

const STAY: AttemptTransition = { kind: 'stay' };
const move = (to: AttemptState, why: AttemptMoveWhy): AttemptTransition => ({ kind: 'move', to, why });
const reject = (reason: AttemptRejection): AttemptTransition => ({ kind: 'reject', reason });

/** acknowledged and retryable are final: every event stays (or, for an outcome, is refused). */
export function isTerminalAttemptState(state: AttemptState): boolean {
  switch (state) {
    case 'acknowledged':
    case 'retryable':
      return true;
    case 'queued':
    case 'running':
    case 'awaiting_progress':
      return false;
  }
}

/**
 * I1–I4. Events that do not apply to a state are a `stay` (redeliveries and late reports are normal);
 * only an outcome the attempt can no longer take is a `reject`, so its reporter hears why.
 * An outcome is accepted while `queued` too: the run's own report can overtake the dispatch
 * acknowledgement, and dropping it would make a handled attempt retryable.
 */
export function nextAttemptState(state: AttemptState, event: AttemptEvent): AttemptTransition {
  switch (state) {
    case 'queued':
    case 'running':
      return beforeOutcome(state, event);
    case 'awaiting_progress':
      return afterActionTaken(event);
    case 'acknowledged':
      return event.kind === 'outcome_reported' ? reject('outcome_already_reported') : STAY;
    case 'retryable':
      return event.kind === 'outcome_reported' ? reject('attempt_closed') : STAY;
  }
}

function beforeOutcome(state: 'queued' | 'running', event: AttemptEvent): AttemptTransition {
  switch (event.kind) {
    case 'dispatched':
    case 'run_started':
      return state === 'queued' ? move('running', event.kind) : STAY;
    case 'not_started':
      // I5: nothing ran, so nothing was spent on it but the attempt slot; a retry may go again.
      return state === 'queued' ? move('retryable', 'not_started') : STAY;
    case 'outcome_reported':
      return outcomeMove(event.outcome, event.reason);
    case 'run_ended':
      // With an outcome recorded, that outcome's own event decides where the attempt goes.
      return event.hadOutcome ? STAY : move('retryable', 'ended_without_outcome');
    case 'restarted':
      // I4: a queued attempt is kept; a running one whose run already ended without an outcome is retryable.
      return state === 'running' && event.runEnded && !event.hadOutcome
        ? move('retryable', 'restart_ended_without_outcome')
        : STAY;
    case 'progress_seen': // progress counts only after action_taken (its baseline is the dispatch snapshot)
    case 'deadline_passed': // there is no deadline before action_taken
      return STAY;
  }
}

function afterActionTaken(event: AttemptEvent): AttemptTransition {
  switch (event.kind) {
    case 'outcome_reported':
      return reject('outcome_already_reported');
    case 'progress_seen':
      return event.progress.length > 0 ? move('acknowledged', 'progress') : STAY;
    case 'deadline_passed':
      return move('retryable', 'no_progress_by_deadline');
    case 'dispatched':
    case 'not_started':
    case 'run_started':
    case 'run_ended': // the run ending after action_taken is normal: keep waiting for progress
    case 'restarted': // the deadline is a time, so it still holds across a restart
      return STAY;
  }
}

function outcomeMove(outcome: FixOutcome, reason: string | undefined): AttemptTransition {
  switch (outcome) {
    case 'action_taken':
      return move('awaiting_progress', 'action_taken');
    case 'non_actionable':
      return move('acknowledged', 'non_actionable');
    case 'blocked':
      return boundReason(reason ?? '') === '' ? reject('blocked_without_reason') : move('acknowledged', 'blocked');
  }
}

/**
 * I2: a reason fit to show people. ANSI escape sequences, control, format (bidi, zero-width, tag) and
 * unpaired surrogate characters are removed, line breaks and tabs become spaces, runs of white space collapse, and the
 * text is cut to `max` code points (the last one an ellipsis when cut).
 */
export function boundReason(text: string, max: number = BLOCKED_REASON_MAX): string {
  if (!Number.isInteger(max) || max < 1) throw new RangeError(`max must be a positive integer, got ${max}`);
  const clean = text
    .replace(/(?:\u001b\[|\u009b)[0-?]*[ -/]*[@-~]/g, '') // ANSI colour and cursor sequences, whole
    .replace(/[\t\n\v\f\r\u0085\u2028\u2029]/g, ' ')
    .replace(/[\p{Cc}\p{Cf}\p{Cs}]/gu, '')
    .replace(/\s+/g, ' ')
    .trim();
  const chars = [...clean];
  return chars.length <= max
    ? clean
    : `${chars
        .slice(0, max - 1)
        .join('')
        .trimEnd()}…`;
}

/** I3: when action_taken with no progress makes the attempt retryable: two poll intervals later (epoch ms). */
export function progressDeadline(actionTakenAt: Instant, pollIntervalMs: number): number {
  if (!Number.isFinite(pollIntervalMs) || pollIntervalMs <= 0)
    throw new RangeError(`pollIntervalMs must be a positive number, got ${pollIntervalMs}`);
  const at = toMs(actionTakenAt);
  if (Number.isNaN(at)) throw new RangeError(`actionTakenAt is not a time: ${String(actionTakenAt)}`);
  return at + 2 * pollIntervalMs;
}

/**
 * The clock-taking twin: has the deadline passed at `now`? An unreadable time counts as passed, so
 * an attempt never waits for ever and blocks its pull request (K7); the retry that follows still
 * faces the budget and every guard.
 */
export function progressDeadlinePassed(actionTakenAt: Instant, pollIntervalMs: number, now: Instant): boolean {
  if (!Number.isFinite(pollIntervalMs) || pollIntervalMs <= 0)
    throw new RangeError(`pollIntervalMs must be a positive number, got ${pollIntervalMs}`);
  const at = toMs(actionTakenAt);
  const t = toMs(now);
  if (Number.isNaN(at) || Number.isNaN(t)) return true;
  return t >= at + 2 * pollIntervalMs;
}

/** Epoch ms, or NaN when the instant cannot be read. */
function toMs(t: Instant): number {
  if (typeof t === 'number') return Number.isFinite(t) ? t : Number.NaN;
  return Date.parse(t);
}
