// The decision log's writer: evaluation and dispatch steps append rows here, and the rows written
// in one event-loop turn go to the database as one insert (group commit, like the ingest). A row
// lost to a crash is re-derived: its event is still pending and is evaluated again on start-up.
import type { DecisionInput, Ledger, Logger } from './ports.js';

export interface DecisionWriter {
  write(d: DecisionInput): void;
  /** Resolves when every row written so far is committed. */
  drain(): Promise<void>;
}

export function createDecisionWriter(ledger: Ledger, logger: Logger): DecisionWriter {
  let queue: DecisionInput[] = [];
  let scheduled = false;
  let chain: Promise<void> = Promise.resolve();

  function flush(): void {
    scheduled = false;
    const rows = queue;
    queue = [];
    if (rows.length === 0) return;
    chain = chain.then(() =>
      ledger.recordDecisions(rows).catch((err) => logger.error({ err, rows: rows.length }, 'decision log write failed')),
    );
  }

  return {
    write(d) {
      queue.push(d);
      if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
    },
    async drain() {
      if (scheduled) flush();
      await chain;
    },
  };
}
