// Runs evaluations after the ack, in arrival order, in batches. Each stored event is marked
// evaluated only after its evaluation finished, together with its decision rows (decision-writer.ts),
// so one left pending by a crash is swept up at start-up (decision 0005). Exactly-once never
// depends on this queue.
import { classifyDelivery } from '../core/classify.js';
import type { Evaluator, StoredLoopEvent } from './evaluate.js';
import type { DecisionWriter } from './decision-writer.js';
import type { Ledger, Logger } from './ports.js';

export interface EvaluationQueue {
  push(items: StoredLoopEvent[]): void;
  /** Evaluate events stored but never evaluated (a crash after the ack). */
  sweep(): Promise<number>;
  /** Resolves when everything pushed so far is evaluated and marked. */
  idle(): Promise<void>;
  size(): number;
}

/** Evaluation time before the queue yields to I/O (acks waiting behind it), in ms. */
const SLICE_MS = 2;
/** Events evaluated together, their Tasks read once (task-reads.ts). */
const MAX_BATCH = 64;

export function createEvaluationQueue(deps: {
  evaluator: Evaluator;
  ledger: Ledger;
  logger: Logger;
  decisions: DecisionWriter;
  /** Batches evaluated at once. */
  concurrency: number;
  /**
   * How long the first event waits for others to join its batch (ms). Where every read is a
   * round trip (PostgreSQL), a batch of one costs nearly what a batch of dozens does.
   */
  gatherMs?: number;
}): EvaluationQueue {
  const items: StoredLoopEvent[] = [];
  const gatherMs = deps.gatherMs ?? 0;
  let waitingSince = 0;
  let gathering: NodeJS.Timeout | null = null;
  let active = 0;
  let sliceStart = performance.now();
  let waiters: Array<() => void> = [];

  // Time-sliced: on SQLite a whole batch can run in microtasks (its driver is synchronous),
  // holding back the webhook's acks; after a slice of evaluation time the event loop gets a turn.
  const between = (): Promise<void> =>
    performance.now() - sliceStart < SLICE_MS
      ? Promise.resolve()
      : new Promise((resolve) =>
          setImmediate(() => {
            sliceStart = performance.now();
            resolve();
          }),
        );

  function pump(): void {
    while (active < deps.concurrency && items.length > 0) {
      const wait = waitingSince + gatherMs - performance.now();
      if (items.length < MAX_BATCH && wait > 0) {
        gathering ??= setTimeout(() => {
          gathering = null;
          pump();
        }, wait);
        return;
      }
      const batch = items.splice(0, MAX_BATCH);
      active++;
      deps.evaluator
        .evaluateBatch(batch, between)
        .then(
          (results) =>
            results.forEach((r, i) => {
              const id = batch[i]!.eventId;
              // An evaluation the ledger could not complete stays pending for the next sweep (C4).
              if (id !== null && (r.kind !== 'refused' || r.reason !== 'ledger_unavailable'))
                deps.decisions.evaluated(id);
            }),
          (err) => deps.logger.error({ err, events: batch.length }, 'evaluation failed'),
        )
        .then(between)
        .then(() => {
          active--;
          pump();
          settle();
        });
    }
  }

  function settle(): void {
    if (active === 0 && items.length === 0) {
      const w = waiters;
      waiters = [];
      void deps.decisions.drain().then(() => w.forEach((f) => f()));
    }
  }

  return {
    push(batch) {
      if (active === 0) sliceStart = performance.now();
      if (items.length === 0) waitingSince = performance.now();
      items.push(...batch);
      pump();
    },
    async sweep() {
      // One pass in id order: an event that stays pending (ledger failure) waits for the next sweep.
      let total = 0;
      let after = 0;
      for (;;) {
        const pending = (await deps.ledger.pendingEvents(200, after)).filter(
          (p) => !items.some((i) => i.eventId === p.id),
        );
        if (pending.length === 0) return total;
        after = pending[pending.length - 1]!.id;
        total += pending.length;
        for (const p of pending) {
          // Classification is pure: the stored body classifies now as it did when it was acknowledged.
          const c = classifyDelivery(p.eventName, safeParse(p.payload), p.deliveryId);
          if (c.kind === 'event') items.push({ eventId: p.id, deliveryId: p.deliveryId, event: c.event });
          else
            deps.logger.error(
              { eventId: p.id, kind: c.kind },
              'a pending event no longer classifies as an event; left pending',
            );
        }
        pump();
        await this.idle();
      }
    },
    idle() {
      if (active === 0 && items.length === 0) return deps.decisions.drain();
      return new Promise<void>((r) => waiters.push(r));
    },
    size: () => items.length + active,
  };
}

function safeParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
