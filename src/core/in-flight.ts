// One attempt in flight per pull request (SPEC K7): a new attempt is refused while any attempt of the
// pull request is queued, running or awaiting progress. This is the rule; holding it across replicas
// is the ledger's job (a constraint or compare-and-set), not process memory (N1).
import type { AttemptState } from './attempt-state.js';
import type { GuardRefusal } from './reasons.js';

export type InFlightVerdict =
  | { kind: 'allow' }
  | { kind: 'refuse'; reason: Extract<GuardRefusal, 'attempt_in_flight'>; detail: string; attemptIds: number[] };

export function isInFlight(state: AttemptState): boolean {
  switch (state) {
    case 'queued':
    case 'running':
    case 'awaiting_progress':
      return true;
    case 'acknowledged':
    case 'retryable':
      return false;
  }
}

/** K7: `attempts` are every attempt of the pull request (any Task bound to it). */
export function inFlightVerdict(attempts: ReadonlyArray<{ id: number; state: AttemptState }>): InFlightVerdict {
  const busy = attempts.filter((a) => isInFlight(a.state));
  if (busy.length === 0) return { kind: 'allow' };
  const ids = busy.map((a) => a.id).sort((a, b) => a - b);
  const list = busy.map((a) => `${a.id} (${a.state})`).join(', ');
  return {
    kind: 'refuse',
    reason: 'attempt_in_flight',
    detail: `already in flight for this pull request: attempt ${list}`,
    attemptIds: ids,
  };
}
