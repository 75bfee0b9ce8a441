// Ingest a verified delivery (SPEC A1–A4): classify it, then commit its event and decision row
// together with every other delivery that arrived in the same turn or while the previous commit was
// in flight (group commit, decision 0005). The promise a caller awaits resolves only after that
// commit: a 2xx to GitHub always means stored.
import { classifyDelivery, type Classification } from '../core/classify.js';
import type { DecisionInput, IncomingDelivery, Ledger, Logger, StoreResult } from './ports.js';
import type { LoopEvent, StoredLoopEvent } from './evaluate.js';
import { createRedeliveryMemo, redeliveryKey } from './redelivery-memo.js';

export interface Delivery {
  deliveryId: string;
  eventName: string;
  /** The body exactly as signed. */
  raw: string;
  /** The same body as received, when it is valid UTF-8: stored as is, not encoded again from `raw`. */
  bytes?: Uint8Array;
  /**
   * Its X-Hub-Signature-256, only once verified: an HMAC of exactly this text under fixloop's own
   * secret, which keys the redelivery memo (redelivery-memo.ts). Never set it from an unverified header.
   */
  verifiedSignature?: string;
}

/** What the memo is charged for a reading: an identity or a short detail. */
const SMALL_READING = 256;

/** What a body reads as: not JSON at all, or its classification. */
type Reading = { kind: 'malformed'; detail: string } | Classification;

function read(d: Delivery): Reading {
  let body: unknown;
  try {
    body = JSON.parse(d.raw);
  } catch (err) {
    return { kind: 'malformed', detail: `body is not JSON: ${(err as Error).message}`.slice(0, 300) };
  }
  return classifyDelivery(d.eventName, body, d.deliveryId);
}

export type IngestAnswer =
  | { status: 202; outcome: 'stored'; identity: string; eventId: number }
  | { status: 200; outcome: 'duplicate' | 'dropped' | 'ignored'; identity: string | null; reason?: string }
  | { status: 400; outcome: 'rejected'; reason: 'malformed_json' | 'shape_mismatch'; detail: string };

interface Pending {
  event: IncomingDelivery | null;
  decision: DecisionInput | null;
  loopEvent: LoopEvent | null;
  resolve(a: IngestAnswer): void;
  reject(e: unknown): void;
  answer: (r: StoreResult | null) => IngestAnswer;
}

export interface Ingestor {
  ingest(d: Delivery): Promise<IngestAnswer>;
  /** Commit whatever is queued now (tests, shutdown). */
  flush(): Promise<void>;
}

export function createIngestor(deps: {
  ledger: Ledger;
  logger: Logger;
  /** Called after commit with the events that were newly stored, for evaluation. */
  onStored(events: StoredLoopEvent[]): void;
  /**
   * Deliveries per transaction at most: a batch is one commit every request in it waits for, so
   * the cap bounds how long one slow commit can hold back the acks queued behind it.
   */
  maxBatch?: number;
  /**
   * Batches committing at once. SQLite has one writer: 1. PostgreSQL takes several (a pool), but
   * every batch is a commit of its own; while the slots are busy, arrivals pile up into the next
   * batch, which is what makes batches big under load.
   */
  maxConcurrentCommits?: number;
  /**
   * The redelivery memo's budget in bytes, each kept reading charged SMALL_READING (default: room
   * for its 1024 entries); 0 turns it off.
   */
  memoBytes?: number;
}): Ingestor {
  const maxBatch = deps.maxBatch ?? 256;
  const memo = createRedeliveryMemo<Reading>({ maxBytes: deps.memoBytes ?? 1024 * SMALL_READING });
  // Only readings that store nothing are kept (not completed, ignored, rejected, not JSON): they are
  // most of a CI storm, and small. A stored event's reading is not: the ledger dedupes its redelivery
  // anyway, and keeping readings that carry free text and an event object made every one of them
  // outlive two scavenges into V8's old generation, where only full mark-compacts collect them
  // (decision 0015: twice the mark-compacts on the all-red benchmark, for no redelivery in it).
  const remember = (key: string, r: Reading): Reading => (r.kind === 'event' ? r : memo.keep(key, r, SMALL_READING));
  const slots = deps.maxConcurrentCommits ?? 1;
  const open = new Set<Promise<void>>();
  let queue: Pending[] = [];
  let scheduled = false;

  async function commit(batch: Pending[]): Promise<void> {
    const events: Pending[] = batch.filter((p) => p.event !== null);
    const alsoRecord = batch.filter((p) => p.event === null && p.decision !== null).map((p) => p.decision!);
    let results: StoreResult[];
    try {
      results = await deps.ledger.storeDeliveries(
        events.map((p) => p.event!),
        alsoRecord,
      );
    } catch (err) {
      // Nothing was committed: every caller in the batch answers 5xx so GitHub may redeliver.
      deps.logger.error({ err, size: batch.length }, 'group commit failed');
      for (const p of batch) p.reject(err);
      return;
    }
    const stored: StoredLoopEvent[] = [];
    events.forEach((p, i) => {
      const r = results[i]!;
      if (r.kind === 'stored' && p.loopEvent)
        stored.push({ eventId: r.eventId, deliveryId: p.event!.deliveryId, event: p.loopEvent });
      p.resolve(p.answer(r));
    });
    for (const p of batch) if (p.event === null) p.resolve(p.answer(null));
    if (stored.length > 0) deps.onStored(stored);
  }

  function schedule(): void {
    if (scheduled || open.size >= slots || queue.length === 0) return;
    scheduled = true;
    // Let every request that arrived in this turn join the batch, then commit them together.
    setImmediate(() => {
      scheduled = false;
      if (open.size >= slots) return; // a slot frees later and schedules again
      const batch = queue.length <= maxBatch ? queue : queue.slice(0, maxBatch);
      queue = queue.length <= maxBatch ? [] : queue.slice(maxBatch);
      const p = commit(batch)
        .catch((err) => deps.logger.error({ err }, 'after the group commit'))
        .finally(() => {
          open.delete(p);
          schedule();
        });
      open.add(p);
      schedule();
    });
  }

  function enqueue(p: Omit<Pending, 'resolve' | 'reject'>): Promise<IngestAnswer> {
    return new Promise<IngestAnswer>((resolve, reject) => {
      queue.push({ ...p, resolve, reject });
      schedule();
    });
  }

  return {
    ingest(d) {
      const key = redeliveryKey(d.eventName, d.deliveryId, d.verifiedSignature);
      const c = key === null ? read(d) : (memo.recall(key) ?? remember(key, read(d)));
      switch (c.kind) {
        case 'malformed': {
          const detail = c.detail;
          return enqueue({
            event: null,
            loopEvent: null,
            decision: {
              deliveryId: d.deliveryId,
              eventName: d.eventName,
              outcome: 'rejected',
              reason: 'malformed_json',
              detail,
            },
            answer: () => ({ status: 400, outcome: 'rejected', reason: 'malformed_json', detail }),
          });
        }
        case 'unknown_event':
          // Acknowledged and ignored: nothing stored.
          return Promise.resolve({ status: 200, outcome: 'ignored', identity: null, reason: 'unknown_event' });
        case 'rejected':
          return enqueue({
            event: null,
            loopEvent: null,
            decision: {
              deliveryId: d.deliveryId,
              eventName: d.eventName,
              outcome: 'rejected',
              reason: c.reason,
              detail: c.detail,
            },
            answer: () => ({ status: 400, outcome: 'rejected', reason: c.reason, detail: c.detail }),
          });
        case 'ignored':
        case 'dropped':
          return enqueue({
            event: null,
            loopEvent: null,
            decision: {
              deliveryId: d.deliveryId,
              eventName: d.eventName,
              identity: c.identity,
              outcome: c.kind,
              reason: c.reason,
            },
            answer: () => ({ status: 200, outcome: c.kind, identity: c.identity, reason: c.reason }),
          });
        case 'event': {
          const e = c.event;
          const incoming: IncomingDelivery = {
            deliveryId: d.deliveryId,
            eventName: d.eventName,
            identity: e.identity,
            kind: e.kind,
            repository: e.repository,
            sha: e.kind === 'github.check' ? e.sha : null,
            verdict: e.kind === 'github.check' ? e.verdict : null,
            summary: summaryOf(e),
            payload: d.bytes ?? d.raw,
          };
          return enqueue({
            event: incoming,
            loopEvent: e,
            decision: null,
            answer: (r) =>
              r?.kind === 'stored'
                ? { status: 202, outcome: 'stored', identity: e.identity, eventId: r.eventId }
                : { status: 200, outcome: 'duplicate', identity: e.identity },
          });
        }
      }
    },
    async flush() {
      while (queue.length > 0 || scheduled || open.size > 0) {
        if (open.size > 0) await Promise.all([...open]);
        else await new Promise((r) => setImmediate(r));
      }
    },
  };
}

/**
 * The classified event as stored beside the raw body: without its free text (a check's output, a
 * review's body), which is most of a large delivery and is in the payload already. Evaluation never
 * reads it back: an event left pending is classified again from its payload (evaluation-queue.ts).
 */
function summaryOf(e: LoopEvent): string {
  if (e.kind === 'github.check') return JSON.stringify({ ...e, output: undefined });
  if (e.kind === 'github.review') return JSON.stringify({ ...e, body: undefined });
  return JSON.stringify(e);
}
