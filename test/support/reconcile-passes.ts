// Waiting on the periodic reconciliation (decisions 0013, 0014) instead of sleeping: a test that asserts
// "the passes changed nothing" first needs to know that passes ran, after the moment that matters.
import type { Ledger } from '../../src/app/ledger-port.js';
import { until } from './server-process.js';

export interface ReconcilePasses {
  /** Passes finished asking for stale claims so far. */
  count(): number;
  /**
   * Wait until a whole pass has run that began after this call: the second pass to ask after it
   * began after the call (one pass runs at a time), and a third asking means that one has finished.
   */
  oneAfterNow(what: string): Promise<void>;
}

/**
 * Counts the periodic passes of an in-process fixloop: each ends by asking the ledger for the claims
 * older than its grace (settleStaleClaims), which nothing else asks once start-up is over. The
 * ledger's own method is called through; only the calls are counted.
 */
export function countReconcilePasses(ledger: Pick<Ledger, 'attemptsWithStatus'>): ReconcilePasses {
  let passes = 0;
  const attemptsWithStatus = ledger.attemptsWithStatus.bind(ledger);
  ledger.attemptsWithStatus = async (statuses, olderThan) => {
    const found = await attemptsWithStatus(statuses, olderThan);
    if (statuses.length === 1 && statuses[0] === 'claimed') passes++;
    return found;
  };
  return {
    count: () => passes,
    async oneAfterNow(what) {
      const seen = passes;
      await until(what, async () => passes >= seen + 3);
    },
  };
}
