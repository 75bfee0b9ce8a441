// L1: runs whose agent a fixloop process on this host started and then lost (it died) are adopted:
// ended if the agent is gone too, else watched until it exits (decision 0013).
import type { Dispatcher } from './dispatch.js';
import type { Logger } from './ports.js';
import type { ReconcileLedger } from './reconcile-port.js';

/**
 * L1: every unfinished run whose agent was started on this host, decided by core/stranded-run.ts —
 * at start-up, and periodically on every running replica (main.ts), since a sibling replica on this
 * host can die while this one runs. Runs this process already watches are counted, not watched twice.
 */
export async function adoptStrandedRuns(deps: {
  ledger: ReconcileLedger;
  logger: Logger;
  dispatcher: Dispatcher;
  host: string;
}): Promise<{ ended: number; watching: number }> {
  const out = { ended: 0, watching: 0 };
  for (const { run, process } of await deps.ledger.unfinishedRunsOn(deps.host)) {
    // One run that cannot be settled now (a failed write) does not hold back the others: it is
    // found again by the next pass.
    try {
      const fate = await deps.dispatcher.adoptStranded(run, process);
      if (fate === 'ended') out.ended++;
      if (fate === 'watching') out.watching++;
    } catch (err) {
      deps.logger.error({ err, runId: run.id }, 'stranded run not settled; tried again on the next pass');
    }
  }
  return out;
}
