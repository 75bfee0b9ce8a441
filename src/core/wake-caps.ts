// Wake-up caps (SPEC K9): at most 5 automatic wakes (attempts) of the agent in any 10 minutes, and at
// most 20 since a person last acted on the Task. Checked before a wake; time is a parameter.
// Since-a-person is checked first: waiting does not lift it, only a person does.
import type { GuardVerdict } from './guards.js';
import type { Instant } from './handoff.js';

export const DEFAULT_WAKE_CAPS = Object.freeze({ perWindow: 5, windowMs: 10 * 60 * 1000, sinceHuman: 20 });

export interface WakeInput {
  /** When each automatic wake of the Task happened (ISO-8601 or epoch ms). */
  wakes: readonly Instant[];
  now: Instant;
  /** When a person last acted on the Task (comment, label, resume); null = never. */
  lastHumanAt: Instant | null;
  perWindow?: number;
  windowMs?: number;
  sinceHuman?: number;
}

export type WakeVerdict =
  | { kind: 'allow' }
  | Extract<GuardVerdict<'wake_cap_since_human'>, { kind: 'stop' }>
  /** `retryAt`: when the window has room again (ISO-8601). */
  | (Extract<GuardVerdict<'wake_cap_window'>, { kind: 'stop' }> & { retryAt: string | null });

/**
 * K9. A wake at the same instant as the person's action counts as after it, and a wake with an
 * unreadable time counts in both caps; an unreadable person's time counts as never; an unreadable
 * clock stops (each fails toward not waking).
 */
export function wakeVerdict(input: WakeInput): WakeVerdict {
  const perWindow = input.perWindow ?? DEFAULT_WAKE_CAPS.perWindow;
  const windowMs = input.windowMs ?? DEFAULT_WAKE_CAPS.windowMs;
  const sinceHuman = input.sinceHuman ?? DEFAULT_WAKE_CAPS.sinceHuman;
  for (const [name, n] of [
    ['perWindow', perWindow],
    ['sinceHuman', sinceHuman],
  ] as const) {
    if (!Number.isInteger(n) || n < 0) throw new RangeError(`${name} must be a non-negative integer, got ${n}`);
  }
  if (!Number.isFinite(windowMs) || windowMs <= 0)
    throw new RangeError(`windowMs must be a positive number, got ${windowMs}`);

  const wakes = input.wakes.map(toMs);
  const human = input.lastHumanAt === null ? Number.NaN : toMs(input.lastHumanAt);
  const afterHuman = wakes.filter((w) => Number.isNaN(w) || Number.isNaN(human) || w >= human).length;
  if (afterHuman >= sinceHuman) {
    return {
      kind: 'stop',
      reason: 'wake_cap_since_human',
      detail: `${afterHuman} automatic wakes since a person last acted on the Task (cap ${sinceHuman})`,
    };
  }

  const now = toMs(input.now);
  if (Number.isNaN(now))
    return { kind: 'stop', reason: 'wake_cap_window', detail: 'the current time cannot be read', retryAt: null };
  // In the window: after now − window, including any wake stamped later than now (clock skew).
  const inWindow = wakes.filter((w) => Number.isNaN(w) || w > now - windowMs);
  if (inWindow.length >= perWindow) {
    const known = inWindow.filter((w) => !Number.isNaN(w)).sort((a, b) => a - b);
    // Room comes back when enough of the oldest wakes have left the window.
    const freeing = known[inWindow.length - perWindow];
    return {
      kind: 'stop',
      reason: 'wake_cap_window',
      detail: `${inWindow.length} automatic wakes in the last ${Math.round(windowMs / 60000)} minutes (cap ${perWindow})`,
      retryAt: freeing === undefined ? null : new Date(freeing + windowMs).toISOString(),
    };
  }
  return { kind: 'allow' };
}

/** Epoch ms, or NaN when the instant cannot be read. */
function toMs(t: Instant): number {
  if (typeof t === 'number') return Number.isFinite(t) ? t : Number.NaN;
  return Date.parse(t);
}
