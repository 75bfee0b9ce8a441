// N1: migrations are safe when two replicas start at once; readiness reports them applied.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestDatabase } from './support/databases.js';
import { openDatabase } from '../src/ledger/db.js';
import { migrateToLatest, migrationsApplied } from '../src/ledger/migrations.js';
import { sql } from 'kysely';
import { createLedger, unfinishedMarkedRuns } from '../src/ledger/ledger.js';

test('N1: two replicas migrating one PostgreSQL database at the same moment both succeed, once', async () => {
  const db = await createTestDatabase('postgres');
  const a = openDatabase(db.url);
  const b = openDatabase(db.url);
  try {
    assert.equal(await migrationsApplied(a.kysely, a.dialect), false);
    await Promise.all([migrateToLatest(a.kysely, 'postgres'), migrateToLatest(b.kysely, 'postgres')]);
    assert.equal(await migrationsApplied(a.kysely, a.dialect), true);
    // Each migration recorded exactly once, though two replicas ran the migrator together.
    const rows = (await a.kysely.selectFrom('kysely_migration' as never).selectAll().execute()) as Array<{ name: string }>;
    assert.deepEqual(rows.map((r) => r.name).sort(), ['0001_core_loop', '0002_poll_and_handoff', '0003_outcomes_and_guards', '0004_inline_payloads', '0005_run_process', '0006_unfinished_runs']);
  } finally {
    await a.close();
    await b.close();
    await db.drop();
  }
});

test('N1: SQLite migrates once and a second start is a no-op', async () => {
  const db = await createTestDatabase('sqlite');
  const a = openDatabase(db.url);
  try {
    await migrateToLatest(a.kysely, 'sqlite');
    await migrateToLatest(a.kysely, 'sqlite');
    assert.equal(await migrationsApplied(a.kysely, a.dialect), true);
  } finally {
    await a.close();
    await db.drop();
  }
});

test('N1: on PostgreSQL a 12 KB delivery is stored compressed in its own row, with nothing in the TOAST table', async () => {
  const db = await createTestDatabase('postgres');
  const a = openDatabase(db.url);
  try {
    await migrateToLatest(a.kysely, 'postgres');
    const payload = JSON.stringify({ text: Array.from({ length: 400 }, (_, i) => `line ${i}: https://api.github.com/repos/acme/shop/check-runs/${i}`) });
    assert.ok(payload.length > 12_000);
    const l = createLedger(a, { now: () => new Date('2026-01-05T10:00:00Z') });
    await l.storeDeliveries([{ deliveryId: 'd1', eventName: 'check_run', identity: 'check:x', kind: 'github.check', repository: 'acme/shop', sha: 'a'.repeat(40), verdict: 'red', summary: '{}', payload }], []);
    const toast = await sql<{ size: string }>`select pg_relation_size(reltoastrelid) as size from pg_class where relname = 'events'`.execute(a.kysely);
    assert.equal(Number(toast.rows[0]!.size), 0, 'the TOAST table holds nothing');
    const stored = await sql<{ payload: string; raw: number }>`select payload, pg_column_size(payload) as raw from events`.execute(a.kysely);
    assert.equal(stored.rows[0]!.payload, payload, 'read back byte for byte');
    assert.ok(Number(stored.rows[0]!.raw) < payload.length / 2, 'kept compressed');
  } finally {
    await a.close();
    await db.drop();
  }
});

// The periodic stranded-run pass (decision 0013) asks for the unfinished runs every 30 s: the plan of
// the ledger's own query uses the partial index, not a scan of every run ever started.
for (const kind of ['sqlite', 'postgres'] as const) {
  test(`0006: the unfinished-runs query is answered from the partial index (${kind})`, async () => {
    const db = await createTestDatabase(kind);
    const a = openDatabase(db.url);
    try {
      await migrateToLatest(a.kysely, kind);
      const query = unfinishedMarkedRuns(a.kysely).compile();
      let plan: string;
      if (kind === 'sqlite') {
        plan = a.sqlite!.prepare(`explain query plan ${query.sql}`).all(...(query.parameters as unknown[])).map((r: any) => r.detail).join('\n');
      } else {
        // A handful of rows is cheaper to scan; the question is whether the index can serve the
        // query. One connection, so the setting applies to the EXPLAIN.
        plan = await a.kysely.connection().execute(async (c) => {
          await sql`set enable_seqscan = off`.execute(c);
          const rows = await c.executeQuery<{ 'QUERY PLAN': string }>({ ...query, sql: `explain ${query.sql}` } as never);
          return rows.rows.map((r) => r['QUERY PLAN']).join('\n');
        });
      }
      assert.match(plan, /runs_unfinished/, plan);
    } finally {
      await a.close();
      await db.drop();
    }
  });
}
