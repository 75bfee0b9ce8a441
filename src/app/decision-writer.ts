// The decision log's writer: evaluation and dispatch steps append rows here, and the rows written
// in one event-loop turn (or while the previous write was in flight) go to the database as one
// insert (group commit, like the ingest), in the same transaction as the events whose evaluation
// finished meanwhile. An event is therefore marked evaluated only together with, or after, its
// decision rows: a row lost to a crash is re-derived, because its event is still pending and is
// evaluated again on start-up. While the evaluation queue has work it holds the writer, so the rows
// of a storm's evaluations commit together (up to HELD_BATCH at a time) rather than one commit per
// event; while the ingest has a group commit queued or in flight it holds it too, and that commit
// carries the rows (decision 0039). Once neither holds it, what is left goes out in the next turn.
import type { Logger } from './ports.js';
import type { DecisionInput, DeliveryLog } from './ledger-port.js';

export interface DecisionWriter {
  write(d: DecisionInput): void;
  /** Mark a stored event evaluated, with the rows written so far. */
  evaluated(eventId: number): void;
  /** Resolves when every row written so far is committed. */
  drain(): Promise<void>;
  /** Gather rows until the returned release is called (or HELD_BATCH of them wait): group commit. */
  hold(): () => void;
  /**
   * Hand the rows and marks waiting now to a transaction that commits anyway (the ingest's group
   * commit), instead of a commit of their own; none while the writer's own write is in flight, so
   * rows keep their order. They count as written once it settles; lost with it, like a failed write.
   */
  carry<T>(commit: (rows: DecisionInput[], evaluated: number[]) => Promise<T>): Promise<T>;
}

/** Rows and marks that go out together while the writer is held. */
const HELD_BATCH = 64;

/** The writer only appends decision rows and marks events evaluated. */
export function createDecisionWriter(ledger: Pick<DeliveryLog, 'recordDecisions'>, logger: Logger): DecisionWriter {
  let rows: DecisionInput[] = [];
  let ids: number[] = [];
  let scheduled = false;
  // One write at a time, in order: what arrives meanwhile waits and goes in the next, bigger one.
  let writing: Promise<void> | null = null;
  let holds = 0;

  function flush(force = false): void {
    scheduled = false;
    if (writing || (rows.length === 0 && ids.length === 0)) return;
    if (!force && holds > 0 && rows.length + ids.length < HELD_BATCH) return;
    const r = rows;
    const e = ids;
    rows = [];
    ids = [];
    writing = ledger
      .recordDecisions(r, e)
      // On failure the events stay pending: the start-up sweep evaluates them again.
      .catch((err) => logger.error({ err, rows: r.length, evaluated: e.length }, 'decision log write failed'))
      .finally(() => {
        writing = null;
        if (rows.length > 0 || ids.length > 0) schedule();
      });
  }

  function schedule(): void {
    // A write in flight schedules the next when it ends.
    if (!scheduled && !writing) {
      scheduled = true;
      setImmediate(flush);
    }
  }

  return {
    write(d) {
      rows.push(d);
      schedule();
    },
    evaluated(eventId) {
      ids.push(eventId);
      schedule();
    },
    async drain() {
      while (writing || rows.length > 0 || ids.length > 0) {
        if (writing) await writing;
        else flush(true);
      }
    },
    carry(commit) {
      if (writing || (rows.length === 0 && ids.length === 0)) return commit([], []);
      const r = rows;
      const e = ids;
      rows = [];
      ids = [];
      const committed = commit(r, e);
      writing = committed
        .then(
          () => undefined,
          (err: unknown) => logger.error({ err, rows: r.length, evaluated: e.length }, 'decision log write failed'),
        )
        .finally(() => {
          writing = null;
          if (rows.length > 0 || ids.length > 0) schedule();
        });
      return committed;
    },
    hold() {
      holds++;
      let released = false;
      return () => {
        if (released) return;
        released = true;
        holds--;
        schedule();
      };
    },
  };
}
