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

/**
 * The same for a server process (startServerProcess with LOG_LEVEL=debug): it logs each periodic pass,
 * and each liveness pass (keepLoopsAlive, on its own chain), as it ends. `oneAfterNow` waits until
 * one of each has begun after the call and finished: the one running at the call ends first.
 */
export function processReconcilePasses(server: { output(): string }): ReconcilePasses {
  const ended = (msg: string) => server.output().split(`"msg":"${msg}"`).length - 1;
  const count = () => ended('periodic reconciliation pass done');
  return {
    count,
    async oneAfterNow(what) {
      const passes = count();
      const liveness = ended('liveness pass done');
      await until(
        `${what} (a periodic and a liveness pass, as the server's debug log shows them; is LOG_LEVEL=debug?)`,
        async () => count() >= passes + 2 && ended('liveness pass done') >= liveness + 2,
      );
    },
  };
}
