// I3 from the head alone (issue 35): a head the webhook moved is progress for every attempt awaiting
// it, poll or no poll; the periodic reconciliation uses it for the deadlines too (SPEC I5). Apart from
// the poll's progress check (progress-check.ts) so that the dispatch path can use it without the gate.
import { headProgress, type ProgressSnapshot } from '../core/progress.js';
import { nextAttemptState, progressDeadlinePassed } from '../core/attempt-state.js';
import type { AgentLedger } from './agent-port.js';
import type { Logger } from './ports.js';
import { LOG_EVENTS } from '../core/events.js';

/**
 * I3 from what the ledger knows: for each attempt of the Task awaiting progress, a head other than
 * the one it acted on is progress (acknowledged); with none, and `deadline` given, the deadline
 * passed makes it retryable. Compare-and-set moves, so the poll and this never both move one.
 * Returns how many attempts moved.
 */
export async function progressWithoutPoll(
  deps: { agent: Pick<AgentLedger, 'lives' | 'moveAttempt'>; logger: Logger },
  taskId: number,
  headSha: string | null,
  deadline?: { now: string; intervalMs: number },
): Promise<number> {
  let moved = 0;
  for (const life of await deps.agent.lives(taskId)) {
    if (life.state !== 'awaiting_progress') continue;
    const seen = headProgress(life.headSha ?? baselineHead(life.baseline), headSha);
    const event =
      seen.length > 0
        ? ({ kind: 'progress_seen', progress: seen } as const)
        : deadline && progressDeadlinePassed(life.actionTakenAt ?? life.createdAt, deadline.intervalMs, deadline.now)
          ? ({ kind: 'deadline_passed' } as const)
          : null;
    if (!event) continue;
    const t = nextAttemptState(life.state, event);
    if (t.kind === 'move' && (await deps.agent.moveAttempt(life.attemptId, [life.state], t.to))) {
      moved++;
      deps.logger.info(
        { taskId, attemptId: life.attemptId, to: t.to, why: t.why, headSha },
        LOG_EVENTS.ATTEMPT_PROGRESS,
      );
    }
  }
  return moved;
}

function baselineHead(baseline: string | null): string | null {
  try {
    return baseline ? ((JSON.parse(baseline) as Partial<ProgressSnapshot>).headSha ?? null) : null;
  } catch {
    return null;
  }
}
