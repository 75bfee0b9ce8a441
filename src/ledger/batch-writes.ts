// The two group-commit writes of the hot path, written per dialect because they are most of what a
// delivery costs (bench/): storing a batch of deliveries (events, pending marks, decision rows —
// SPEC A1, A3, decision 0005) and recording decision rows together with the events they finish.
// Both are one transaction; dedupe stays the unique index on events.identity (decision 0003).
//   SQLite: one synchronous better-sqlite3 transaction of prepared single-row statements, run while
//           holding Kysely's connection so it never interleaves with a Kysely transaction.
//   PostgreSQL: one prepared statement (data-modifying CTEs) per batch: one round trip, atomic on its own.
import type { Kysely } from 'kysely';
import type BetterSqlite3 from 'better-sqlite3';
import type Pg from 'pg';
import type { DecisionInput, IncomingDelivery, StoreResult } from '../app/ports.js';
import type { Database } from './schema.js';
import type { Db } from './db.js';

export interface BatchWrites {
  /** Store the batch; each delivery's decision row says `stored` (with its event id) or `duplicate`. */
  storeDeliveries(batch: IncomingDelivery[], alsoRecord: DecisionInput[], at: string): Promise<StoreResult[]>;
  /** Decision rows, and the events whose evaluation they finish, in one transaction. */
  recordDecisions(rows: DecisionInput[], evaluated: number[], at: string): Promise<void>;
}

const EVENT_COLUMNS = [
  'identity',
  'kind',
  'event_name',
  'delivery_id',
  'repository',
  'sha',
  'verdict',
  'summary',
  'payload',
  'received_at',
] as const;
const DECISION_COLUMNS = [
  'delivery_id',
  'event_name',
  'identity',
  'event_id',
  'task_id',
  'attempt_id',
  'outcome',
  'reason',
  'detail',
  'at',
] as const;
/** PostgreSQL array types of the decision columns before `at`, for unnest. */
const DECISION_ARRAYS = DECISION_COLUMNS.slice(0, -1).map((c) =>
  c === 'event_id' || c === 'task_id' || c === 'attempt_id' ? 'int' : 'text',
);

type Value = string | number | Uint8Array | null;

function eventValues(d: IncomingDelivery, at: string): Value[] {
  return [d.identity, d.kind, d.eventName, d.deliveryId, d.repository, d.sha, d.verdict, d.summary, d.payload, at];
}

function decisionValues(d: DecisionInput, at: string): Value[] {
  return [
    d.deliveryId ?? null,
    d.eventName ?? null,
    d.identity ?? null,
    d.eventId ?? null,
    d.taskId ?? null,
    d.attemptId ?? null,
    d.outcome,
    d.reason ?? null,
    d.detail ?? null,
    at,
  ];
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
  if (db.sqlite) return sqliteWrites(db.kysely, db.sqlite);
  if (db.pg) return postgresWrites(db.pg);
  throw new Error('a database needs its SQLite handle or its PostgreSQL pool');
}

function sqliteWrites(k: Kysely<Database>, sqlite: BetterSqlite3.Database): BatchWrites {
  // A payload given as bytes binds as a blob: cast, it is stored as the text those UTF-8 bytes are.
  const insertEvent = sqlite.prepare<Value[], { id: number }>(
    `insert into events (${EVENT_COLUMNS.join(', ')}) values (${EVENT_COLUMNS.map((c) => (c === 'payload' ? 'cast(? as text)' : '?')).join(', ')}) on conflict (identity) do nothing returning id`,
  );
  const insertPending = sqlite.prepare<[number]>('insert into pending_events (event_id) values (?)');
  const deletePending = sqlite.prepare<[number]>('delete from pending_events where event_id = ?');
  const insertDecision = sqlite.prepare<Value[]>(
    `insert into decisions (${DECISION_COLUMNS.join(', ')}) values (${DECISION_COLUMNS.map(() => '?').join(', ')})`,
  );

  const store = sqlite.transaction(
    (batch: IncomingDelivery[], alsoRecord: DecisionInput[], at: string): StoreResult[] => {
      for (const d of alsoRecord) insertDecision.run(...decisionValues(d, at));
      const first = firstOfEach(batch);
      return batch.map((d, i) => {
        let r: StoreResult = { kind: 'duplicate' };
        if (first.get(d.identity) === i) {
          // RETURNING gives the id, or nothing when the identity is already stored (A3).
          const row = insertEvent.get(...eventValues(d, at));
          if (row) {
            insertPending.run(row.id);
            r = { kind: 'stored', eventId: row.id };
          }
        }
        insertDecision.run(...decisionValues(storeDecision(d, r), at));
        return r;
      });
    },
  );

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

function postgresWrites(pool: Pg.Pool): BatchWrites {
  // Decision rows go in as one array per column (unnest), so their statements do not change with
  // the number of rows; event rows, whose payloads are large, as one parameter per value (no array
  // escaping of 12 KB bodies; a payload given as bytes is sent as such, in binary, not re-encoded).
  // Each statement is prepared by name, once per connection: parsing and planning it again for
  // every batch cost PostgreSQL as much as the inserts (bench/).
  const decisionsFrom = (first: number) =>
    `insert into decisions (${DECISION_COLUMNS.join(', ')}) select ${DECISION_COLUMNS.slice(0, -1).join(', ')}, $${first + DECISION_ARRAYS.length}::text ` +
    `from unnest(${DECISION_ARRAYS.map((c, j) => `$${first + j}::${c}[]`).join(', ')}) with ordinality as x(${DECISION_COLUMNS.slice(0, -1).join(', ')}, ord) order by ord`;

  // Named (prepared) only for the batch sizes a steady load repeats; PostgreSQL keeps each per
  // connection. Sizes are rounded up to a power of two (rows of nulls fill the rest and are left
  // out), so a connection prepares at most seven shapes, not one per batch size: each new shape on
  // each connection costs a parse and its first plans before the load reaches its steady state.
  const NAMED_UP_TO = 64;
  const storeTexts = new Map<number, string>();
  function storeSql(events: number): string {
    const known = storeTexts.get(events);
    if (known) return known;
    const ev = EVENT_COLUMNS.length;
    const values = Array.from(
      { length: events },
      (_, r) => `(${r}, ${EVENT_COLUMNS.map((_, j) => `$${r * ev + j + 1}::text`).join(', ')})`,
    ).join(', ');
    const text =
      `with given (ord, ${EVENT_COLUMNS.join(', ')}) as (values ${values}), ` +
      `v as (select * from given where identity is not null), ` +
      // ON CONFLICT: a concurrent batch (another replica) holding the identity makes this a duplicate.
      // Inserted in identity order, so two batches sharing identities wait on each other, never deadlock.
      `ins as (insert into events (${EVENT_COLUMNS.join(', ')}) select ${EVENT_COLUMNS.join(', ')} from v order by identity on conflict (identity) do nothing returning id, identity), ` +
      `pend as (insert into pending_events (event_id) select id from ins), ` +
      `dec as (insert into decisions (${DECISION_COLUMNS.join(', ')}) select v.delivery_id, v.event_name, v.identity, ins.id, null, null, ` +
      `case when ins.id is null then 'duplicate' else 'stored' end, case when ins.id is null then 'identity_seen' end, null, v.received_at ` +
      `from v left join ins on ins.identity = v.identity order by v.ord), ` +
      `xdec as (${decisionsFrom(events * ev + 1)}) ` +
      `select id, identity from ins`;
    if (events <= NAMED_UP_TO) storeTexts.set(events, text);
    return text;
  }
  const RECORD_SQL = `with done as (delete from pending_events where event_id = any($1::int[])) ${decisionsFrom(2)}`;

  async function recordDecisions(rows: DecisionInput[], evaluated: number[], at: string): Promise<void> {
    if (rows.length === 0 && evaluated.length === 0) return;
    await pool.query({ name: 'fixloop_record', text: RECORD_SQL, values: [evaluated, ...decisionArrays(rows), at] });
  }

  return {
    recordDecisions,
    async storeDeliveries(batch, alsoRecord, at) {
      const first = firstOfEach(batch);
      // Copies inside the batch are duplicates without asking the database; their rows join the extras.
      const unique = [...first.values()].map((i) => batch[i]!);
      const extras = [
        ...alsoRecord,
        ...batch.filter((d, i) => first.get(d.identity) !== i).map((d) => storeDecision(d, { kind: 'duplicate' })),
      ];
      if (unique.length === 0) {
        await recordDecisions(extras, [], at);
        return batch.map(() => ({ kind: 'duplicate' }) as const);
      }
      const n = unique.length <= NAMED_UP_TO ? shapeFor(unique.length) : unique.length;
      const values: unknown[] = [];
      for (const d of unique) values.push(...eventValues(d, at));
      for (let pad = unique.length; pad < n; pad++) values.push(...EVENT_COLUMNS.map(() => null));
      values.push(...decisionArrays(extras), at);
      const { rows } = await pool.query<{ id: number; identity: string }>({
        ...(n <= NAMED_UP_TO ? { name: `fixloop_store_${n}` } : {}),
        text: storeSql(n),
        values,
      });
      const idOf = new Map(rows.map((r) => [r.identity, r.id]));
      return batch.map((d, i): StoreResult => {
        const id = first.get(d.identity) === i ? idOf.get(d.identity) : undefined;
        return id !== undefined ? { kind: 'stored', eventId: id } : { kind: 'duplicate' };
      });
    },
  };
}

/** The prepared shape a batch of `n` events uses: the next power of two. */
export function shapeFor(n: number): number {
  let shape = 1;
  while (shape < n) shape *= 2;
  return shape;
}

/** One array per decision column (all but `at`), row order kept. */
function decisionArrays(rows: DecisionInput[]): Value[][] {
  const columns: Value[][] = DECISION_ARRAYS.map(() => []);
  for (const d of rows) decisionValues(d, '').forEach((v, j) => j < columns.length && columns[j]!.push(v));
  return columns;
}
