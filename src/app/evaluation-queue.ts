// Runs evaluations after the ack, in arrival order, a few at a time. Each stored event is marked
// evaluated only after its evaluation finished, so one left pending by a crash is swept up at
// start-up (SPEC I4 spirit, issue: crash safety). Exactly-once never depends on this queue.
import type { Evaluator, LoopEvent, StoredLoopEvent } from './evaluate.js';
import type { Ledger, Logger } from './ports.js';

export interface EvaluationQueue {
  push(items: StoredLoopEvent[]): void;
  /** Evaluate events stored but never evaluated (a crash after the ack). */
  sweep(): Promise<number>;
  /** Resolves when everything pushed so far is evaluated and marked. */
  idle(): Promise<void>;
  size(): number;
}

export function createEvaluationQueue(deps: { evaluator: Evaluator; ledger: Ledger; logger: Logger; concurrency: number }): EvaluationQueue {
  const items: StoredLoopEvent[] = [];
  let active = 0;
  let done: number[] = [];
  let marking: Promise<void> = Promise.resolve();
  let waiters: Array<() => void> = [];

  function pump(): void {
    while (active < deps.concurrency && items.length > 0) {
      const item = items.shift()!;
      active++;
      deps.evaluator
        .evaluate(item)
        .then(
          // An evaluation the ledger could not complete stays pending for the next sweep (C4).
          (r) => r.kind !== 'refused' || r.reason !== 'ledger_unavailable',
          (err) => {
            deps.logger.error({ err, eventId: item.eventId }, 'evaluation failed');
            return false;
          },
        )
        .then((finished) => {
          active--;
          if (finished && item.eventId !== null) done.push(item.eventId);
          if (items.length === 0 || done.length >= 64) flushDone();
          pump();
          settle();
        });
    }
  }

  function flushDone(): void {
    if (done.length === 0) return;
    const ids = done;
    done = [];
    marking = marking.then(() => deps.ledger.markEvaluated(ids).catch((err) => deps.logger.error({ err }, 'mark evaluated failed')));
  }

  function settle(): void {
    if (active === 0 && items.length === 0) {
      flushDone();
      const w = waiters;
      waiters = [];
      void marking.then(() => w.forEach((f) => f()));
    }
  }

  return {
    push(batch) {
      items.push(...batch);
      pump();
    },
    async sweep() {
      // One pass in id order: an event that stays pending (ledger failure) waits for the next sweep.
      let total = 0;
      let after = 0;
      for (;;) {
        const pending = (await deps.ledger.pendingEvents(200, after)).filter((p) => !items.some((i) => i.eventId === p.id));
        if (pending.length === 0) return total;
        after = pending[pending.length - 1]!.id;
        total += pending.length;
        for (const p of pending) items.push({ eventId: p.id, deliveryId: p.deliveryId, event: JSON.parse(p.summary) as LoopEvent });
        pump();
        await this.idle();
      }
    },
    idle() {
      if (active === 0 && items.length === 0) {
        flushDone();
        return marking;
      }
      return new Promise<void>((r) => waiters.push(r));
    },
    size: () => items.length + active,
  };
}
