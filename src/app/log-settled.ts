// The decision-log rows a reconciliation pass writes for an attempt it has settled: the settlement is
// already committed, so a failed write is logged, not retried (SPEC C3).
import type { Logger } from './ports.js';
import type { DecisionInput } from './ledger-port.js';
import type { ReconcileLedger } from './reconcile-port.js';

/** The decision-log rows of a claim already settled: a failed write is logged as such, since no later pass comes back to it. */
export async function logSettled(
  deps: { ledger: ReconcileLedger; logger: Logger },
  a: { id: number; taskId: number },
  rows: DecisionInput[],
): Promise<void> {
  await deps.ledger
    .recordDecisions(rows)
    .catch((err: unknown) =>
      deps.logger.error(
        { err, attemptId: a.id, taskId: a.taskId, rows },
        'claim settled, but its decision-log rows were not written',
      ),
    );
}
