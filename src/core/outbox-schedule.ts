// When a notice delivery that failed is tried again, or given up (SPEC G1, P4): exponential backoff
// with jitter, capped, and a give-up after a fixed number of tries. Pure: the jitter fraction and
// the clock are parameters (decision 0025).

export interface OutboxSchedule {
  /** Tries in all, the first included; the one that fails at this count gives up. */
  readonly maxAttempts: number;
  /** The delay after the first failure, before jitter (ms). */
  readonly initialMs: number;
  /** No delay grows past this (ms). */
  readonly maxMs: number;
}

export type AfterFailure = { kind: 'retry'; delayMs: number } | { kind: 'give_up' };

/**
 * After the `attempts`-th try failed: retry after base·2^(attempts−1), capped at `maxMs`, of which
 * the upper half is jittered by `jitter` ∈ [0, 1) ("equal jitter": never sooner than half the base,
 * so a sink that is down is not hammered, and replicas that failed together spread out). A sink's
 * own Retry-After (`notBeforeMs`) is honoured up to `maxMs`.
 */
export function afterFailure(
  s: OutboxSchedule,
  attempts: number,
  jitter: number,
  notBeforeMs: number | null = null,
): AfterFailure {
  if (attempts >= s.maxAttempts) return { kind: 'give_up' };
  const base = Math.min(s.maxMs, s.initialMs * 2 ** Math.max(0, attempts - 1));
  const j = Math.min(Math.max(jitter, 0), 1);
  const jittered = base / 2 + (base / 2) * j;
  const wanted = notBeforeMs === null ? jittered : Math.max(jittered, Math.min(notBeforeMs, s.maxMs));
  return { kind: 'retry', delayMs: Math.round(wanted) };
}

/** A fraction in [0, 1) from a random token (the Random port gives tokens, not numbers). */
export function fractionOf(token: string): number {
  const bytes = Buffer.from(token, 'base64url');
  let n = 0;
  for (let i = 0; i < Math.min(6, bytes.length); i++) n = n * 256 + bytes[i]!;
  return bytes.length === 0 ? 0 : n / 256 ** Math.min(6, bytes.length);
}
