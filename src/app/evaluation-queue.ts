// Runs evaluations after the ack, one at a time, in arrival order. Each stored event is marked
// evaluated only after its evaluation finished, together with its decision rows (decision-writer.ts),
// so one left pending by a crash is swept up at start-up (decision 0005). Exactly-once never
// depends on this queue: the ledger's constraints decide (decision 0003).
import type { ClassifyDelivery } from '../core/neutral-events.js';
import type { Evaluator, StoredLoopEvent } from './evaluate.js';
import type { DecisionWriter } from './decision-writer.js';
import type { Logger } from './ports.js';
import type { DeliveryLog } from './ledger-port.js';

export interface EvaluationQueue {
  push(items: StoredLoopEvent[]): void;
  /** Evaluate events stored but never evaluated (a crash after the ack). */
  sweep(): Promise<number>;
  /** Resolves when everything pushed so far is evaluated and marked. */
  idle(): Promise<void>;
  size(): number;
}

/** The sweep reads what is still pending; nothing else of the ledger. */
export type QueueLedger = Pick<DeliveryLog, 'pendingEvents'>;

export function createEvaluationQueue(deps: {
  evaluator: Pick<Evaluator, 'evaluate'>;
  ledger: QueueLedger;
  logger: Logger;
  decisions: DecisionWriter;
  /** How a stored delivery classifies again: by the host that owns its event name (decision 0060). */
  classify: ClassifyDelivery;
}): EvaluationQueue {
  const { classify } = deps;
  const items: StoredLoopEvent[] = [];
  let running = false;
  let waiters: Array<() => void> = [];

  async function run(): Promise<void> {
    running = true;
    // The decision rows of what is evaluated back to back commit together (decision-writer.ts).
    const release = deps.decisions.hold();
    for (let item = items.shift(); item; item = items.shift()) {
      try {
        const r = await deps.evaluator.evaluate(item);
        // An evaluation the ledger could not complete stays pending for the next sweep (C4).
        const failed = r.kind === 'refused' && r.reason === 'ledger_unavailable';
        if (item.eventId !== null && !failed) deps.decisions.evaluated(item.eventId);
      } catch (err) {
        deps.logger.error({ err, eventId: item.eventId }, 'evaluation failed');
      }
    }
    running = false;
    release();
    const w = waiters;
    waiters = [];
    if (w.length === 0) return;
    await deps.decisions.drain();
    for (const f of w) f();
  }

  const queue: EvaluationQueue = {
    push(batch) {
      items.push(...batch);
      if (!running) void run();
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
        const found: StoredLoopEvent[] = [];
        for (const p of pending) {
          // Classification is pure: the stored body classifies now as it did when it was acknowledged.
          const c = classify(p.eventName, safeParse(p.payload), p.deliveryId);
          if (c.kind === 'event') found.push({ eventId: p.id, deliveryId: p.deliveryId, event: c.event });
          else
            deps.logger.error(
              { eventId: p.id, kind: c.kind },
              'a pending event no longer classifies as an event; left pending',
            );
        }
        queue.push(found);
        await queue.idle();
      }
    },
    idle() {
      if (!running && items.length === 0) return deps.decisions.drain();
      return new Promise<void>((r) => waiters.push(r));
    },
    size: () => items.length + (running ? 1 : 0),
  };
  return queue;
}

function safeParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
