// Ingest a verified delivery (SPEC A1–A4): classify it, then commit its event and decision row
// together with every other delivery that arrived in the same turn or while the previous commit was
// in flight (group commit, decision 0005). The promise a caller awaits resolves only after that
// commit: a 2xx to the host always means stored.
import type { Classification } from '../core/neutral-events.js';
import { hostMismatch } from '../core/route.js';
import type { Work } from '../core/types.js';
import type { Logger } from './ports.js';
import type { DeliveryLog, DecisionInput, IncomingDelivery, StoreResult } from './ledger-port.js';
import type { LoopEvent, StoredLoopEvent } from './evaluate.js';
import type { EvaluationQueue } from './evaluation-queue.js';
import type { DecisionWriter } from './decision-writer.js';

export interface Delivery {
  deliveryId: string;
  eventName: string;
  /** The body exactly as signed. */
  raw: string;
  /** The id of the host whose receiver verified it (decisions 0032, 0060); absent = the default host. */
  provider?: string;
}

/** What a body reads as: not JSON at all, its classification, or a delivery for another provider's Work. */
type Reading =
  | { kind: 'malformed'; detail: string }
  | Classification
  | { kind: 'ignored'; reason: string; identity: string; repository: string };

/** What ingest asks of the code hosts (app/hosts.ts's registry): the receiving host's classification. */
export interface IngestHosts {
  /** Every host, the default first: a delivery that names no host is the default's. */
  readonly hosts: readonly { readonly id: string }[];
  byId(id: string):
    | {
        ownsEvent(eventName: string): boolean;
        classify(eventName: string, body: unknown, deliveryId: string): Classification;
        /** Q1: the reason a delivery it sent is ignored with, about a repository not its Works'. */
        noWorkReason: string;
      }
    | undefined;
}

function read(d: Delivery, works: readonly Work[] | undefined, hosts: IngestHosts): Reading {
  let body: unknown;
  try {
    body = JSON.parse(d.raw);
  } catch (err) {
    return { kind: 'malformed', detail: `body is not JSON: ${(err as Error).message}`.slice(0, 300) };
  }
  const defaultHost = hosts.hosts[0]?.id ?? '';
  const provider = d.provider ?? defaultHost;
  // Each receiver classifies only its own host's events: another host's event name on its route is unknown.
  const host = hosts.byId(provider);
  const c = classifyByHost(host, d, body);
  if (c === null || host === undefined) return { kind: 'unknown_event' };
  const about = c.kind === 'event' ? c.event : c.kind === 'dropped' ? c : null;
  return about && works && hostMismatch(works, about.repository, provider, defaultHost)
    ? { kind: 'ignored', reason: host.noWorkReason, identity: about.identity, repository: about.repository }
    : c;
}

/** The delivery classified by the host that received it (decision 0060); null when the name is not its. */
function classifyByHost(host: ReturnType<IngestHosts['byId']>, d: Delivery, body: unknown): Classification | null {
  if (!host?.ownsEvent(d.eventName)) return null;
  return host.classify(d.eventName, body, d.deliveryId);
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

/** Ingest only appends to the delivery log: it never reads a Task or an attempt. */
export type IngestLedger = Pick<DeliveryLog, 'storeDeliveries'>;

export function createIngestor(deps: {
  ledger: IngestLedger;
  logger: Logger;
  /** Where newly stored events go after their commit, to be evaluated in arrival order. */
  queue: Pick<EvaluationQueue, 'push'>;
  /**
   * Deliveries per transaction at most: a batch is one commit every request in it waits for, so
   * the cap bounds how long one slow commit can hold back the acks queued behind it.
   */
  maxBatch?: number;
  /** The Works, to ignore a delivery for another provider's Work (decision 0032); absent: none is. */
  works?: readonly Work[];
  /** The code hosts: each classifies what its receiver verified (decision 0060). */
  hosts: IngestHosts;
  /**
   * The evaluation's decision writer: held while a group commit is queued or in flight, so the rows
   * it has waiting ride along in that commit rather than in one of their own.
   */
  decisions?: Pick<DecisionWriter, 'carry' | 'hold'>;
}): Ingestor {
  const maxBatch = deps.maxBatch ?? 256;
  // One batch commits at a time, on both databases: while it is in flight, arrivals pile up into
  // the next, which is what makes batches big under load (decision 0038).
  let committing: Promise<void> | null = null;
  let waiting: Pending[] = [];
  let scheduled = false;
  let releaseWriter: (() => void) | null = null;

  async function commit(batch: Pending[]): Promise<void> {
    const events: Pending[] = batch.filter((p) => p.event !== null);
    const alsoRecord = batch.filter((p) => p.event === null && p.decision !== null).map((p) => p.decision!);
    let results: StoreResult[];
    try {
      const store = (rows: DecisionInput[], evaluated: number[]) =>
        deps.ledger.storeDeliveries(
          events.map((p) => p.event!),
          [...rows, ...alsoRecord],
          evaluated,
        );
      results = await (deps.decisions ? deps.decisions.carry(store) : store([], []));
    } catch (err) {
      // Nothing was committed: every caller in the batch answers 5xx so the host may redeliver.
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
    if (stored.length > 0) deps.queue.push(stored);
  }

  function schedule(): void {
    if (scheduled || committing !== null || waiting.length === 0) return;
    scheduled = true;
    // Let every request that arrived in this turn join the batch, then commit them together.
    setImmediate(() => {
      scheduled = false;
      const batch = waiting.length <= maxBatch ? waiting : waiting.slice(0, maxBatch);
      waiting = waiting.length <= maxBatch ? [] : waiting.slice(maxBatch);
      committing = commit(batch)
        .catch((err) => deps.logger.error({ err }, 'after the group commit'))
        .finally(() => {
          committing = null;
          schedule();
          // Nothing queued behind this commit: the writer commits what is left on its own.
          if (!scheduled && releaseWriter) {
            releaseWriter();
            releaseWriter = null;
          }
        });
    });
  }

  function enqueue(p: Omit<Pending, 'resolve' | 'reject'>): Promise<IngestAnswer> {
    return new Promise<IngestAnswer>((resolve, reject) => {
      waiting.push({ ...p, resolve, reject });
      releaseWriter ??= deps.decisions?.hold() ?? null;
      schedule();
    });
  }

  return {
    ingest(d) {
      const c = read(d, deps.works, deps.hosts);
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
            // A queue's commit is found again by its sha (app/gate/queue-ahead.ts).
            sha: e.kind === 'ci.result' ? e.sha : e.kind === 'queue.group' ? e.headSha : null,
            verdict: e.kind === 'ci.result' ? e.verdict : null,
            summary: summaryOf(e),
            payload: d.raw,
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
      while (waiting.length > 0 || scheduled || committing !== null) {
        if (committing !== null) await committing;
        else await new Promise((r) => setImmediate(r));
      }
    },
  };
}

/**
 * The classified event as stored beside the raw body: without its free text (a check's output, a
 * review's body), which is most of a large delivery and is in the payload already. Evaluation does not
 * read it back (an event left pending is classified again from its payload, evaluation-queue.ts), with
 * one exception: a merge queue's commit (`queue.group`, no free text) is read as stored
 * (ledger/deliveries.ts `queueCommit`), so its fields are a stored format.
 */
function summaryOf(e: LoopEvent): string {
  if (e.kind === 'ci.result') return JSON.stringify({ ...e, output: undefined });
  if (e.kind === 'review.submitted') return JSON.stringify({ ...e, body: undefined });
  return JSON.stringify(e);
}
