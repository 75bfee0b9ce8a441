// The human gate after a stop (SPEC K5, G2): the loop labels the pull request `fixloop:needs-human`;
// the label `fixloop:approve-one` grants exactly one more automatic attempt (consumed when used); with
// no answer by the deadline the Task is parked, and parked is final — it never re-enters on its own.
// Pure: every time is a parameter.

export const HANDOFF_LABEL = 'fixloop:needs-human';
export const APPROVE_ONE_LABEL = 'fixloop:approve-one';
/** K5: how long a stop waits for a person before the Task is parked (8 hours). */
export const DEFAULT_PARK_AFTER_MS = 8 * 60 * 60 * 1000;

/** An instant: ISO-8601 text or epoch milliseconds. */
export type Instant = string | number;

export interface HandoffInput {
  /** When the loop stopped (the notice marker's time). */
  stoppedAt: Instant;
  now: Instant;
  /** The pull request's labels as read now. */
  labels: readonly string[];
  /** When approve-one was last consumed, if ever; a consumption at or after `stoppedAt` is this stop's. */
  approveOneConsumedAt: Instant | null;
  parkedAt: Instant | null;
  /** Defaults to DEFAULT_PARK_AFTER_MS. */
  parkAfterMs?: number;
}

export type HandoffVerdict =
  | { kind: 'waiting'; parkAt: string } // ISO-8601
  | { kind: 'approve_one' } // grant one attempt; the caller removes the label and records the consumption
  | { kind: 'park' } // the deadline passed with no answer: park now
  | { kind: 'parked' }; // final

/**
 * K5. Order: parked is final; an unconsumed approve-one for this stop grants one attempt (even if the
 * deadline passed but the Task was not parked yet — the label is an answer, and its time is unknown);
 * past the deadline → park; otherwise wait. An unreadable stop or clock time parks (fail toward not
 * spending: parking only means "no automatic re-entry").
 */
export function handoffVerdict(i: HandoffInput): HandoffVerdict {
  const parkAfterMs = i.parkAfterMs ?? DEFAULT_PARK_AFTER_MS;
  if (!Number.isFinite(parkAfterMs) || parkAfterMs < 0)
    throw new RangeError(`parkAfterMs must be a non-negative number, got ${parkAfterMs}`);
  if (i.parkedAt !== null) return { kind: 'parked' };

  const stopped = toMs(i.stoppedAt);
  const now = toMs(i.now);
  if (hasLabel(i.labels, APPROVE_ONE_LABEL) && !consumedForThisStop(i.approveOneConsumedAt, stopped))
    return { kind: 'approve_one' };
  if (Number.isNaN(stopped) || Number.isNaN(now)) return { kind: 'park' };
  const parkAt = stopped + parkAfterMs;
  if (now >= parkAt) return { kind: 'park' };
  return { kind: 'waiting', parkAt: new Date(parkAt).toISOString() };
}

/** GitHub label names are unique regardless of case. */
export function hasLabel(labels: readonly string[], label: string): boolean {
  const want = label.toLowerCase();
  return labels.some((l) => l.toLowerCase() === want);
}

/** Consumed for this stop when consumed at or after it; an unreadable time counts as consumed (fail closed). */
function consumedForThisStop(consumedAt: Instant | null, stopped: number): boolean {
  if (consumedAt === null) return false;
  const at = toMs(consumedAt);
  if (Number.isNaN(at) || Number.isNaN(stopped)) return true;
  return at >= stopped;
}

/** Epoch ms, or NaN when the instant cannot be read. */
function toMs(t: Instant): number {
  if (typeof t === 'number') return Number.isFinite(t) ? t : Number.NaN;
  return Date.parse(t);
}
