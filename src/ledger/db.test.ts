// SQLite's WAL checkpoint threshold (decision 0040): commits leave their pages in the log until it
// passes 16000 pages, so a few large checkpoints replace one every 1000 pages; closing the database
// checkpoints the log into the file and removes it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, statSync } from 'node:fs';
import { sql } from 'kysely';
import { createTestDatabase } from '../../test/support/databases.js';
import { openDatabase } from './db.js';

test('SQLite keeps 8 MB of commits in the WAL (past the default 1000 pages) and checkpoints it on close', async () => {
  const tdb = await createTestDatabase('sqlite');
  const path = tdb.url.slice('sqlite:'.length);
  const db = openDatabase(tdb.url);
  try {
    const { rows } = await sql<{ wal_autocheckpoint: number }>`pragma wal_autocheckpoint`.execute(db.kysely);
    assert.equal(rows[0]?.wal_autocheckpoint, 16000);
    await sql`create table filler (body blob)`.execute(db.kysely);
    for (let i = 0; i < 32; i++) {
      await sql`insert into filler (body) values (randomblob(262144))`.execute(db.kysely);
    }
    // At SQLite's default the log would have been copied into the file three times by now.
    assert.ok(statSync(`${path}-wal`).size > 8 * 1024 * 1024, 'the commits are still in the WAL');
    assert.ok(statSync(path).size < 1024 * 1024, 'nothing was checkpointed into the database file yet');
  } finally {
    await db.close();
  }
  assert.equal(existsSync(`${path}-wal`), false, 'closing checkpoints the log and removes it');
  assert.ok(statSync(path).size > 8 * 1024 * 1024, 'the database file holds every commit');
  await tdb.drop();
});
