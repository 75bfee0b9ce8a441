// The two group-commit writes of the hot path, written per dialect because they are most of what a
// delivery costs (bench/): storing a batch of deliveries (events, pending marks, decision rows —
// SPEC A1, A3, decision 0005) and recording decision rows together with the events they finish.
// Both are one transaction; dedupe stays the unique index on events.identity (decision 0003).
//   SQLite: one synchronous better-sqlite3 transaction of prepared single-row statements, run while
//           holding Kysely's connection so it never interleaves with a Kysely transaction.
//   PostgreSQL: one statement (data-modifying CTEs) per batch: one round trip, atomic on its own.
import { CompiledQuery, type Kysely } from 'kysely';
import type BetterSqlite3 from 'better-sqlite3';
import type { DecisionInput, IncomingDelivery, StoreResult } from '../app/ports.js';
import type { Database } from './schema.js';
import type { Db } from './db.js';

export interface BatchWrites {
  /** Store the batch; each delivery's decision row says `stored` (with its event id) or `duplicate`. */
  storeDeliveries(batch: IncomingDelivery[], alsoRecord: DecisionInput[], at: string): Promise<StoreResult[]>;
  /** Decision rows, and the events whose evaluation they finish, in one transaction. */
  recordDecisions(rows: DecisionInput[], evaluated: number[], at: string): Promise<void>;
}

const EVENT_COLUMNS = ['identity', 'kind', 'event_name', 'delivery_id', 'repository', 'sha', 'verdict', 'summary', 'payload', 'received_at'] as const;
const DECISION_COLUMNS = ['delivery_id', 'event_name', 'identity', 'event_id', 'task_id', 'attempt_id', 'outcome', 'reason', 'detail', 'at'] as const;

type Value = string | number | null;

function eventValues(d: IncomingDelivery, at: string): Value[] {
  return [d.identity, d.kind, d.eventName, d.deliveryId, d.repository, d.sha, d.verdict, d.summary, d.payload, at];
}

function decisionValues(d: DecisionInput, at: string): Value[] {
  return [d.deliveryId ?? null, d.eventName ?? null, d.identity ?? null, d.eventId ?? null, d.taskId ?? null, d.attemptId ?? null, d.outcome, d.reason ?? null, d.detail ?? null, at];
}

/** The decision row of a stored or duplicate delivery (the ledger decides which: it owns the dedupe). */
function storeDecision(d: IncomingDelivery, r: StoreResult): DecisionInput {
  return {
    deliveryId: d.deliveryId,
    eventName: d.eventName,
    identity: d.identity,
    eventId: r.kind === 'stored' ? r.eventId : null,
    outcome: r.kind,
    reason: r.kind === 'duplicate' ? 'identity_seen' : null,
  };
}

/** Index of the first delivery with each identity: later copies in the same batch are duplicates. */
function firstOfEach(batch: IncomingDelivery[]): Map<string, number> {
  const first = new Map<string, number>();
  batch.forEach((d, i) => {
    if (!first.has(d.identity)) first.set(d.identity, i);
  });
  return first;
}

export function createBatchWrites(db: Db): BatchWrites {
  return db.sqlite ? sqliteWrites(db.kysely, db.sqlite) : postgresWrites(db.kysely);
}

function sqliteWrites(k: Kysely<Database>, sqlite: BetterSqlite3.Database): BatchWrites {
  const insertEvent = sqlite.prepare<Value[], { id: number }>(
    `insert into events (${EVENT_COLUMNS.join(', ')}) values (${EVENT_COLUMNS.map(() => '?').join(', ')}) on conflict (identity) do nothing returning id`,
  );
  const insertPending = sqlite.prepare<[number]>('insert into pending_events (event_id) values (?)');
  const deletePending = sqlite.prepare<[number]>('delete from pending_events where event_id = ?');
  const insertDecision = sqlite.prepare<Value[]>(`insert into decisions (${DECISION_COLUMNS.join(', ')}) values (${DECISION_COLUMNS.map(() => '?').join(', ')})`);

  const store = sqlite.transaction((batch: IncomingDelivery[], alsoRecord: DecisionInput[], at: string): StoreResult[] => {
      for (const d of alsoRecord) insertDecision.run(...decisionValues(d, at));
      const first = firstOfEach(batch);
      return batch.map((d, i) => {
        let r: StoreResult = { kind: 'duplicate' };
        if (first.get(d.identity) === i) {
          const row = insertEvent.get(...eventValues(d, at));
          if (row) {
            insertPending.run(row.id);
            r = { kind: 'stored', eventId: row.id };
          }
        }
        insertDecision.run(...decisionValues(storeDecision(d, r), at));
        return r;
      });
  });

  const record = sqlite.transaction((rows: DecisionInput[], evaluated: number[], at: string): void => {
    for (const d of rows) insertDecision.run(...decisionValues(d, at));
    for (const id of evaluated) deletePending.run(id);
  });

  // BEGIN IMMEDIATE: a write transaction from the start, so it never has to upgrade a read lock.
  // Kysely has one SQLite connection behind a mutex; holding it keeps these synchronous
  // transactions from landing inside one of Kysely's (which awaits between its statements).
  const exclusive = <T>(f: () => T): Promise<T> => k.connection().execute(async () => f());

  return {
    storeDeliveries: (batch, alsoRecord, at) => exclusive(() => store.immediate(batch, alsoRecord, at)),
    recordDecisions: (rows, evaluated, at) => exclusive(() => record.immediate(rows, evaluated, at)),
  };
}

function postgresWrites(k: Kysely<Database>): BatchWrites {
  /** `($1::text, …, $n::text), …` for `rows` rows of `cols` text parameters after `offset`, with a leading row number. */
  const valuesList = (rows: number, cols: number, offset: number, casts: readonly string[]) =>
    Array.from({ length: rows }, (_, r) => `(${r}, ${casts.map((c, j) => `$${offset + r * cols + j + 1}::${c}`).join(', ')})`).join(', ');

  const EVENT_CASTS = EVENT_COLUMNS.map(() => 'text');
  const DECISION_CASTS = DECISION_COLUMNS.map((c) => (c === 'event_id' || c === 'task_id' || c === 'attempt_id' ? 'int' : 'text'));
  const insertDecisions = (source: string) => `insert into decisions (${DECISION_COLUMNS.join(', ')}) select ${DECISION_COLUMNS.join(', ')} from ${source} order by ord`;

  // Texts of recent batch shapes, kept (a few dozen at most) so a steady load builds none.
  const storeText = new Map<string, string>();
  function storeSql(events: number, extra: number): string {
    const key = `${events}/${extra}`;
    let text = storeText.get(key);
    if (text) return text;
    if (storeText.size >= 64) storeText.delete(storeText.keys().next().value!);
    const ev = EVENT_COLUMNS.length;
    const parts: string[] = [
      `v (ord, ${EVENT_COLUMNS.join(', ')}) as (values ${valuesList(events, ev, 0, EVENT_CASTS)})`,
      // ON CONFLICT: a concurrent batch (another replica) holding the identity makes this a duplicate.
      // Inserted in identity order, so two batches sharing identities wait on each other, never deadlock.
      `ins as (insert into events (${EVENT_COLUMNS.join(', ')}) select ${EVENT_COLUMNS.join(', ')} from v order by identity on conflict (identity) do nothing returning id, identity)`,
      `pend as (insert into pending_events (event_id) select id from ins)`,
      `dec as (insert into decisions (${DECISION_COLUMNS.join(', ')}) select v.delivery_id, v.event_name, v.identity, ins.id, null, null, ` +
        `case when ins.id is null then 'duplicate' else 'stored' end, case when ins.id is null then 'identity_seen' end, null, v.received_at ` +
        `from v left join ins on ins.identity = v.identity order by v.ord)`,
    ];
    if (extra > 0) {
      parts.push(`x (ord, ${DECISION_COLUMNS.join(', ')}) as (values ${valuesList(extra, DECISION_COLUMNS.length, events * ev, DECISION_CASTS)})`);
      parts.push(`xdec as (${insertDecisions('x')})`);
    }
    text = `with ${parts.join(', ')} select id, identity from ins`;
    storeText.set(key, text);
    return text;
  }

  return {
    async storeDeliveries(batch, alsoRecord, at) {
      const first = firstOfEach(batch);
      // Copies inside the batch are duplicates without asking the database; their rows join the extras.
      const unique = [...first.values()].map((i) => batch[i]!);
      const extras = [...alsoRecord, ...batch.filter((d, i) => first.get(d.identity) !== i).map((d) => storeDecision(d, { kind: 'duplicate' }))];
      if (unique.length === 0) {
        await this.recordDecisions(extras, [], at);
        return batch.map(() => ({ kind: 'duplicate' }) as const);
      }
      const params: Value[] = [];
      for (const d of unique) params.push(...eventValues(d, at));
      for (const d of extras) params.push(...decisionValues(d, at));
      const { rows } = await k.executeQuery<{ id: number; identity: string }>(CompiledQuery.raw(storeSql(unique.length, extras.length), params));
      const idOf = new Map(rows.map((r) => [r.identity, r.id]));
      return batch.map((d, i): StoreResult => {
        const id = first.get(d.identity) === i ? idOf.get(d.identity) : undefined;
        return id !== undefined ? { kind: 'stored', eventId: id } : { kind: 'duplicate' };
      });
    },

    async recordDecisions(rows, evaluated, at) {
      if (rows.length === 0 && evaluated.length === 0) return;
      const params: Value[] = [];
      const parts: string[] = [];
      if (evaluated.length > 0) {
        params.push(`{${evaluated.join(',')}}`);
        parts.push(`done as (delete from pending_events where event_id = any($1::int[]))`);
      }
      if (rows.length > 0) {
        parts.push(`x (ord, ${DECISION_COLUMNS.join(', ')}) as (values ${valuesList(rows.length, DECISION_COLUMNS.length, params.length, DECISION_CASTS)})`);
        for (const d of rows) params.push(...decisionValues(d, at));
      }
      const text = rows.length > 0 ? `with ${parts.join(', ')} ${insertDecisions('x')}` : `delete from pending_events where event_id = any($1::int[])`;
      await k.executeQuery(CompiledQuery.raw(text, params));
    },
  };
}
