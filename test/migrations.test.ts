// N1: migrations are safe when two replicas start at once; readiness reports them applied.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestDatabase, DATABASE_KINDS } from './support/databases.js';
import { openDatabase } from '../src/ledger/db.js';
import { migrateToLatest, migrationsApplied } from '../src/ledger/migrations.js';
import { sql } from 'kysely';
import { createLedger } from '../src/ledger/ledger.js';

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
    assert.deepEqual(rows.map((r) => r.name).sort(), ['0001_core_loop', '0002_poll_and_handoff', '0003_outcomes_and_guards', '0004_inline_payloads', '0005_partial_decision_task_index', '0006_run_process']);
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

for (const kind of DATABASE_KINDS) {
  test(`N1 (${kind}): decision rows without a Task stay out of the Task index, and a Task's log still reads through it`, async () => {
    const db = await createTestDatabase(kind);
    const a = openDatabase(db.url);
    try {
      await migrateToLatest(a.kysely, kind);
      const l = createLedger(a, { now: () => new Date('2026-01-05T10:00:00Z') });
      // Ingest-time rows (no Task yet) and evaluation rows for Tasks 1 and 2.
      await l.recordDecisions([
        ...Array.from({ length: 30 }, (_, i) => ({ deliveryId: `d${i}`, eventName: 'check_run', outcome: 'dropped' as const, reason: 'not_completed' })),
        { deliveryId: 'd-a', outcome: 'refused', reason: 'budget_spent', taskId: 1 },
        { deliveryId: 'd-b', outcome: 'refused', reason: 'stale_head', taskId: 2 },
        { deliveryId: 'd-c', outcome: 'claimed', taskId: 1 },
      ]);
      const log = await l.listDecisions({ taskId: 1, limit: 10 });
      assert.deepEqual(log.map((d) => d.deliveryId), ['d-c', 'd-a']);

      const definition =
        kind === 'sqlite'
          ? (await sql<{ def: string }>`select sql as def from sqlite_master where type = 'index' and name = 'decisions_task'`.execute(a.kysely)).rows[0]?.def
          : (await sql<{ def: string }>`select indexdef as def from pg_indexes where indexname = 'decisions_task'`.execute(a.kysely)).rows[0]?.def;
      assert.match(definition ?? '', /where \(?task_id is not null\)?/i, 'the index leaves out rows without a Task');

      // The query the Task's log runs (task_id = a parameter) is still answered from that index.
      const plan =
        kind === 'sqlite'
          ? (await sql<{ detail: string }>`explain query plan select * from decisions where task_id = ${1} order by id desc limit 10`.execute(a.kysely)).rows.map((r) => r.detail)
          : await a.kysely.connection().execute(async (c) => {
              await sql`set enable_seqscan = off`.execute(c);
              await sql`prepare task_log (int) as select * from decisions where task_id = $1 order by id desc limit 10`.execute(c);
              await sql`set plan_cache_mode = force_generic_plan`.execute(c);
              const rows = (await sql<{ 'QUERY PLAN': string }>`explain execute task_log (1)`.execute(c)).rows.map((r) => r['QUERY PLAN']);
              await sql`deallocate task_log`.execute(c);
              await sql`reset plan_cache_mode`.execute(c);
              await sql`reset enable_seqscan`.execute(c);
              return rows;
            });
      assert.ok(plan.some((line) => line.includes('decisions_task')), `plan uses decisions_task:\n${plan.join('\n')}`);
    } finally {
      await a.close();
      await db.drop();
    }
  });
}
