// Row → domain mappings shared by the ledger's adapters (one place, so the two never drift).
import type { Selectable } from 'kysely';
import type { AttemptState, FixOutcome } from '../core/attempt-state.js';
import type { Attempt, AttemptStatus, RejectionSource } from '../core/types.js';
import type { AttemptsTable } from './schema.js';

export function attemptOf(r: Selectable<AttemptsTable>): Attempt {
  return {
    id: r.id,
    taskId: r.task_id,
    coordinate: r.coordinate,
    source: r.source as RejectionSource,
    headSha: r.head_sha,
    fingerprint: r.fingerprint,
    status: r.status as AttemptStatus,
    state: r.state as AttemptState,
    outcome: r.outcome as FixOutcome | null,
    outcomeReason: r.outcome_reason,
    rejectionId: r.rejection_id,
    runId: r.run_id,
    createdAt: r.created_at,
  };
}
