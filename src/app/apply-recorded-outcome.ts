// SPEC I2, I5: an outcome recorded but whose lifecycle move a crash cut off is moved once its run has
// ended — by the start-up reconciliation and by the liveness pass alike.
import type { AgentLedger } from './agent-port.js';
import { nextAttemptState, type AttemptState, type FixOutcome } from '../core/attempt-state.js';

/**
 * I2, I5: an outcome is two writes, the first-write outcome and then its lifecycle move; a process
 * killed between the two leaves a running attempt that holds its outcome, which its run's end does
 * not move (the outcome decides). Once the run has ended, the move is applied here. True when moved.
 */
export async function applyRecordedOutcome(
  agent: Pick<AgentLedger, 'moveAttempt'>,
  life: {
    attemptId: number;
    state: AttemptState;
    outcome: FixOutcome | null;
    outcomeReason: string | null;
    outcomeAt: string | null;
  },
): Promise<boolean> {
  if (life.outcome === null) return false;
  const t = nextAttemptState(life.state, {
    kind: 'outcome_reported',
    outcome: life.outcome,
    reason: life.outcomeReason ?? undefined,
  });
  if (t.kind !== 'move') return false;
  const extra = t.to === 'awaiting_progress' && life.outcomeAt ? { actionTakenAt: life.outcomeAt } : undefined;
  return agent.moveAttempt(life.attemptId, [life.state], t.to, extra);
}
