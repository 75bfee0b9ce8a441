// When the host keeps refusing one kind of write (a token without `statuses: write` answers 403),
// that write is held back, exponentially longer each time it is refused again (1 min → 1 h), and
// told once per episode: the first refusal reports, later ones extend the wait quietly, and a write
// that goes through ends the episode. Pure: time is a parameter. Issue 31, decision 0047.

export interface HostBackoff {
  /** Epoch ms before which the write is not tried. */
  readonly until: number;
  /** The wait just set; the next refusal doubles it, up to the maximum. */
  readonly delayMs: number;
}

export interface HostBackoffPolicy {
  readonly initialMs: number;
  readonly maxMs: number;
}

export const DEFAULT_HOST_BACKOFF: HostBackoffPolicy = { initialMs: 60_000, maxMs: 3_600_000 };

/** Is the write still held back at `nowMs`? */
export function heldBack(state: HostBackoff | null | undefined, nowMs: number): boolean {
  return state != null && nowMs < state.until;
}

/**
 * The episode after a refusal at `nowMs`: the first refusal starts it (`report: true`, the one warning
 * and the one count of the episode), each later one doubles the wait and reports nothing.
 */
export function afterRefusal(
  state: HostBackoff | null | undefined,
  nowMs: number,
  policy: HostBackoffPolicy = DEFAULT_HOST_BACKOFF,
): { state: HostBackoff; report: boolean } {
  const delayMs = state == null ? policy.initialMs : Math.min(state.delayMs * 2, policy.maxMs);
  return { state: { until: nowMs + delayMs, delayMs }, report: state == null };
}

/** Refusals that a retry will not cure: the credentials lack the permission, or cannot see the repository. */
export function isPermissionRefusal(status: number | null | undefined): boolean {
  return status === 403 || status === 404;
}
