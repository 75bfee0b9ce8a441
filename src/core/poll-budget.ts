// How much of GitHub's rate limit a poll tick may spend (SPEC E4, N3; decision 0031): slow down
// before the limit runs out, not after. What is left above a reserve (kept for webhooks' reads,
// `pr checks`, writes and re-runs) is spread evenly over the ticks until the window resets; a
// tick that would spend more polls fewer Tasks, oldest read first, and the rest wait a tick.
// Pure: the clock is a parameter.

export interface RateWindow {
  remaining: number;
  limit: number;
  /** When the window resets (ms since the epoch). */
  resetAtMs: number;
}

export type TickBudget = { kind: 'unbounded' } | { kind: 'bounded'; spend: number } | { kind: 'exhausted' };

export function tickBudget(
  window: RateWindow | null,
  nowMs: number,
  intervalMs: number,
  reserveFraction: number,
): TickBudget {
  if (window === null || window.limit <= 0 || window.resetAtMs <= nowMs) return { kind: 'unbounded' };
  const usable = window.remaining - Math.ceil(window.limit * reserveFraction);
  if (usable <= 0) return { kind: 'exhausted' };
  const ticksLeft = Math.max(1, (window.resetAtMs - nowMs) / intervalMs);
  return { kind: 'bounded', spend: Math.max(1, Math.floor(usable / ticksLeft)) };
}

/** The tightest of several resources' budgets (REST and GraphQL are separate windows). */
export function tightest(budgets: readonly TickBudget[]): TickBudget {
  let out: TickBudget = { kind: 'unbounded' };
  for (const b of budgets) {
    if (b.kind === 'exhausted') return b;
    if (b.kind === 'bounded' && (out.kind === 'unbounded' || b.spend < out.spend)) out = b;
  }
  return out;
}
