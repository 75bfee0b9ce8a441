// The cost ceiling per Task (SPEC K6): each run reports its spend (model, sandbox, CI minutes); the
// next attempt is refused before it is spent when the spend so far plus its expected cost would pass
// the ceiling. CI minutes are priced from the check runs' durations, each rounded up to a whole
// minute as GitHub bills. Amounts are in one currency unit; summed in millionths so 0.1 + 0.2 = 0.3.
import type { GuardVerdict } from './guards.js';

/** One run's reported spend, in currency units. */
export interface Spend {
  model: number;
  sandbox: number;
  ciMinutes: number;
}

/** The fields of a check run the CI price reads. */
export interface TimedRun {
  startedAt: string | null;
  completedAt: string | null;
}

const MINUTE_MS = 60_000;
const MICRO = 1_000_000;

/**
 * Billable minutes: each completed run's duration rounded up to a whole minute. A run not finished
 * (or with an unreadable time) is not billed yet; a negative duration (clock skew) is zero.
 */
export function ciBillableMinutes(checkRuns: readonly TimedRun[]): number {
  let minutes = 0;
  for (const run of checkRuns) {
    if (run.startedAt === null || run.completedAt === null) continue;
    const ms = Date.parse(run.completedAt) - Date.parse(run.startedAt);
    if (Number.isFinite(ms) && ms > 0) minutes += Math.ceil(ms / MINUTE_MS);
  }
  return minutes;
}

/** K6: the CI part of a spend: billable minutes times the price of a minute. */
export function ciMinutesCost(checkRuns: readonly TimedRun[], pricePerMinute: number): number {
  if (!Number.isFinite(pricePerMinute) || pricePerMinute < 0)
    throw new RangeError(`pricePerMinute must be a non-negative number, got ${pricePerMinute}`);
  return fromMicro(ciBillableMinutes(checkRuns) * toMicro(pricePerMinute));
}

/** One spend's total; NaN when any part is not a non-negative finite number. */
export function spendTotal(s: Spend): number {
  const parts = [s.model, s.sandbox, s.ciMinutes];
  if (!parts.every(isAmount)) return Number.NaN;
  return fromMicro(parts.reduce((sum, p) => sum + toMicro(p), 0));
}

/**
 * The expected cost of the next attempt: the mean of the previous attempts' costs (ignoring any that
 * are not non-negative numbers), or the fallback when there is none.
 */
export function expectedNextCost(previousAttemptCosts: readonly number[], fallback: number): number {
  const known = previousAttemptCosts.filter(isAmount);
  if (known.length === 0) return fallback;
  return fromMicro(Math.round(known.reduce((sum, c) => sum + toMicro(c), 0) / known.length));
}

export interface CostInput {
  /** Every reported spend of the Task's runs so far. */
  spent: readonly Spend[];
  /** What the next attempt is expected to cost (expectedNextCost). */
  expectedNext: number;
  /** The Task's ceiling; null = no ceiling. */
  ceiling: number | null;
}

/**
 * K6, checked before the attempt is claimed: stop when spent + expected passes (is greater than) the
 * ceiling. A spend or expectation that is not a non-negative number stops too (fail closed: a
 * negative report must not buy room under the ceiling).
 */
export function costVerdict(input: CostInput): GuardVerdict<'cost_ceiling'> {
  const { ceiling } = input;
  if (ceiling === null) return { kind: 'allow' };
  if (!isAmount(ceiling)) throw new RangeError(`ceiling must be a non-negative number or null, got ${ceiling}`);
  const totals = input.spent.map(spendTotal);
  if (!totals.every(isAmount) || !isAmount(input.expectedNext)) {
    return {
      kind: 'stop',
      reason: 'cost_ceiling',
      detail: 'a reported spend or the expected cost is not a non-negative number, so the ceiling cannot be kept',
    };
  }
  const spent = totals.reduce((sum, t) => sum + toMicro(t), 0);
  const next = toMicro(input.expectedNext);
  if (spent + next > toMicro(ceiling)) {
    return {
      kind: 'stop',
      reason: 'cost_ceiling',
      detail: `spent ${fromMicro(spent)} plus the next attempt's expected ${fromMicro(next)} would pass the ceiling of ${ceiling}`,
    };
  }
  return { kind: 'allow' };
}

function isAmount(n: number): boolean {
  return typeof n === 'number' && Number.isFinite(n) && n >= 0;
}

function toMicro(n: number): number {
  return Math.round(n * MICRO);
}

function fromMicro(n: number): number {
  return n / MICRO;
}
