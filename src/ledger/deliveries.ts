// The delivery log on Kysely (SPEC A1–A4, H1): the group commit of a batch of deliveries — events,
// their pending marks and one decision row each, in one transaction (decision 0005) — and the
// decision rows of evaluation together with the events they finish. Dedupe is the unique index on
// events.identity (A3, decision 0003), so a redelivery racing its first copy stores nothing twice.
import type { QueueCommit } from '../core/queue-ahead.js';
import type { Kysely, Insertable, Selectable, Transaction } from 'kysely';
import type {
  Decision,
  DecisionInput,
  DeliveryLog,
  IncomingDelivery,
  StoreResult,
  StoredEvent,
} from '../app/ledger-port.js';
import type { Outcome } from '../core/reasons.js';
import type { DecisionObserver } from '../app/metrics-port.js';
import type { Database, DecisionsTable, EventsTable } from './schema.js';
import { CI_RESULT_KINDS, LEGACY_EVENT_KINDS } from './migrations.js';

const NEUTRAL_KIND_OF = new Map<string, string>(LEGACY_EVENT_KINDS);

function decisionRow(d: DecisionInput, at: string): Insertable<DecisionsTable> {
  return {
    delivery_id: d.deliveryId ?? null,
    event_name: d.eventName ?? null,
    identity: d.identity ?? null,
    event_id: d.eventId ?? null,
    task_id: d.taskId ?? null,
    attempt_id: d.attemptId ?? null,
    outcome: d.outcome,
    reason: d.reason ?? null,
    detail: d.detail ?? null,
    at,
  };
}

/** Decision rows, and the events they finish marked evaluated (their pending marks deleted), in `trx`. */
async function finish(trx: Transaction<Database>, rows: DecisionInput[], evaluated: number[], at: string) {
  if (rows.length > 0) {
    await trx
      .insertInto('decisions')
      .values(rows.map((d) => decisionRow(d, at)))
      .execute();
  }
  if (evaluated.length > 0) await trx.deleteFrom('pending_events').where('event_id', 'in', evaluated).execute();
}

/** An event row as the evaluation reads it back: the delivery as signed, to classify again. */
function storedEventOf(
  r: Pick<Selectable<EventsTable>, 'id' | 'identity' | 'kind' | 'event_name' | 'delivery_id' | 'payload'>,
): StoredEvent {
  return {
    id: r.id,
    identity: r.identity,
    // A row written by a replica older than migration 0025 still reads with its neutral kind.
    kind: NEUTRAL_KIND_OF.get(r.kind) ?? r.kind,
    eventName: r.event_name,
    deliveryId: r.delivery_id,
    payload: r.payload,
  };
}

/** The decision row of a stored or duplicate delivery (the ledger decides which: it owns the dedupe). */
function storeDecision(d: IncomingDelivery, r: StoreResult): DecisionInput {
  return {
    deliveryId: d.deliveryId,
    eventName: d.eventName,
    identity: d.identity,
    eventId: r.kind === 'stored' ? r.eventId : null,
    outcome: r.kind === 'stored' ? 'stored' : 'duplicate',
    reason: r.kind === 'stored' ? null : 'identity_seen',
  };
}

export function createDeliveryLog(
  k: Kysely<Database>,
  now: () => string,
  /** Told the rows once their transaction committed (metrics, N2); never awaited. */
  observer?: DecisionObserver,
): DeliveryLog {
  return {
    async storeDeliveries(batch, alsoRecord, evaluated = []) {
      if (batch.length === 0 && alsoRecord.length === 0 && evaluated.length === 0) return [];
      const at = now();
      let committed: DecisionInput[] = [];
      const results = await k.transaction().execute(async (trx) => {
        // The first copy of each identity is offered to the index; later copies in the batch are duplicates.
        const firsts = new Map<string, number>();
        batch.forEach((d, i) => firsts.has(d.identity) || firsts.set(d.identity, i));
        // In identity order: two replicas' batches that share identities wait on each other, never deadlock.
        const offered = [...firsts.values()]
          .map((i) => batch[i]!)
          .sort((a, b) => (a.identity < b.identity ? -1 : a.identity > b.identity ? 1 : 0));
        const inserted =
          offered.length === 0
            ? []
            : await trx
                .insertInto('events')
                .values(
                  offered.map((d) => ({
                    identity: d.identity,
                    kind: d.kind,
                    event_name: d.eventName,
                    delivery_id: d.deliveryId,
                    repository: d.repository,
                    sha: d.sha,
                    verdict: d.verdict,
                    summary: d.summary,
                    payload: d.payload,
                    received_at: at,
                  })),
                )
                .onConflict((oc) => oc.column('identity').doNothing())
                .returning(['id', 'identity'])
                .execute();
        if (inserted.length > 0) {
          await trx
            .insertInto('pending_events')
            .values(inserted.map((r) => ({ event_id: r.id })))
            .execute();
        }
        const idOf = new Map(inserted.map((r) => [r.identity, r.id]));
        const results = batch.map((d, i): StoreResult => {
          const id = firsts.get(d.identity) === i ? idOf.get(d.identity) : undefined;
          return id !== undefined ? { kind: 'stored', eventId: id } : { kind: 'duplicate' };
        });
        const rows = [...alsoRecord, ...batch.map((d, i) => storeDecision(d, results[i]!))];
        await finish(trx, rows, evaluated, at);
        committed = rows;
        return results;
      });
      observer?.committed(committed);
      return results;
    },

    async recordDecisions(rows, evaluated = []) {
      if (rows.length === 0 && evaluated.length === 0) return;
      const at = now();
      await k.transaction().execute((trx) => finish(trx, rows, evaluated, at));
      if (rows.length > 0) observer?.committed(rows);
    },

    async listDecisions({ taskId, deliveryId, limit, beforeId }) {
      let q = k.selectFrom('decisions').selectAll().orderBy('id', 'desc').limit(limit);
      if (taskId !== undefined) q = q.where('task_id', '=', taskId);
      if (deliveryId !== undefined) q = q.where('delivery_id', '=', deliveryId);
      if (beforeId !== undefined) q = q.where('id', '<', beforeId);
      const rows = await q.execute();
      return rows.map((r): Decision => ({
        id: r.id,
        at: r.at,
        deliveryId: r.delivery_id,
        eventName: r.event_name,
        identity: r.identity,
        eventId: r.event_id,
        taskId: r.task_id,
        attemptId: r.attempt_id,
        outcome: r.outcome as Outcome,
        reason: r.reason,
        detail: r.detail,
      }));
    },

    async lastRedEvent(repository, sha) {
      const r = await k
        .selectFrom('events')
        .select(['id', 'identity', 'kind', 'event_name', 'delivery_id', 'payload'])
        .where('kind', 'in', CI_RESULT_KINDS)
        .where('repository', '=', repository)
        .where('sha', '=', sha)
        .where('verdict', '=', 'red')
        // Evaluated only: one still pending is the evaluation queue's, and will be evaluated anyway.
        .where(({ not, exists, selectFrom }) =>
          not(
            exists(
              selectFrom('pending_events').select('event_id').whereRef('pending_events.event_id', '=', 'events.id'),
            ),
          ),
        )
        .orderBy('id', 'desc')
        .executeTakeFirst();
      return r ? storedEventOf(r) : null;
    },

    async headCheckEvents(repository, sha, limit) {
      const rows = await k
        .selectFrom('events')
        .select(['id', 'identity', 'kind', 'event_name', 'delivery_id', 'payload', 'verdict', 'received_at'])
        .where('kind', 'in', CI_RESULT_KINDS)
        .where('repository', '=', repository)
        .where('sha', '=', sha)
        .orderBy('id', 'desc')
        .limit(limit)
        .execute();
      return rows.reverse().map((r) => ({ ...storedEventOf(r), verdict: r.verdict, receivedAt: r.received_at }));
    },

    async queueCommit(repository, sha) {
      const rows = await k
        .selectFrom('events')
        .select(['id', 'summary'])
        .where('kind', '=', 'queue.group')
        .where('repository', '=', repository)
        .where('sha', '=', sha)
        .orderBy('id')
        .limit(8)
        .execute();
      return queueCommitOf(rows);
    },

    async pendingEvents(limit, afterId) {
      const rows = await k
        .selectFrom('pending_events')
        .innerJoin('events', 'events.id', 'pending_events.event_id')
        .select([
          'events.id',
          'events.identity',
          'events.kind',
          'events.event_name',
          'events.delivery_id',
          'events.payload',
        ])
        .where('pending_events.event_id', '>', afterId)
        .orderBy('pending_events.event_id')
        .limit(limit)
        .execute();
      return rows.map(storedEventOf);
    },
  };
}

/**
 * The queue's commit from its stored `queue.group` events (the summary is the whole event: it has no
 * free text): where it was built and for which pull request, and the order of its build and its merge.
 */
function queueCommitOf(rows: readonly { id: number; summary: string }[]): QueueCommit | null {
  let commit: QueueCommit | null = null;
  for (const row of rows) {
    const e = parseQueueGroup(row.summary);
    if (e === null) continue;
    commit ??= { sha: e.headSha, parentSha: e.parentSha, pullRequest: e.pullRequest, builtSeq: null, mergedSeq: null };
    if (e.merged) commit.mergedSeq ??= row.id;
    else commit.builtSeq ??= row.id;
  }
  return commit;
}

function parseQueueGroup(
  summary: string,
): { headSha: string; parentSha: string; pullRequest: number; merged: boolean } | null {
  try {
    const e = JSON.parse(summary) as {
      headSha?: unknown;
      parentSha?: unknown;
      pullRequest?: unknown;
      merged?: unknown;
    };
    return typeof e.headSha === 'string' && typeof e.parentSha === 'string' && Number.isSafeInteger(e.pullRequest)
      ? { headSha: e.headSha, parentSha: e.parentSha, pullRequest: e.pullRequest as number, merged: e.merged === true }
      : null;
  } catch {
    return null;
  }
}
