// N1: migrations are safe when two replicas start at once; readiness reports them applied.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestDatabase } from './support/databases.js';
import { openDatabase } from '../src/ledger/db.js';
import { migrateToLatest, migrationsApplied } from '../src/ledger/migrations.js';

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
    assert.deepEqual(rows.map((r) => r.name).sort(), ['0001_core_loop', '0002_poll_and_handoff', '0003_outcomes_and_guards']);
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
