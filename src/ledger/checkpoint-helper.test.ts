// The helper thread checkpoints a live WAL database through a connection of its own: the pages reach
// the database file, nothing is lost or torn, and the WAL starts over only when the main connection's
// next write finds every frame copied — which is why, under load, the main connection copies what
// was committed during the helper's checkpoint (sqlite-checkpointer.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { CheckpointHelperError, startCheckpointHelper } from './checkpoint-helper.js';

function walDatabase(t: { after(f: () => void): void }) {
  const dir = mkdtempSync(join(tmpdir(), 'fixloop-ckpt-'));
  const path = join(dir, 'db.sqlite');
  const db = new BetterSqlite3(path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  // Only the test checkpoints.
  db.pragma('wal_autocheckpoint = 0');
  db.exec('create table t (id integer primary key, body text not null)');
  const insert = db.prepare('insert into t (body) values (?)');
  const write = (rows: number) => db.transaction(() => { for (let i = 0; i < rows; i++) insert.run('x'.repeat(6000)); })();
  t.after(() => {
    if (db.open) db.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const mainCheckpoint = () => (db.pragma('wal_checkpoint(PASSIVE)') as Array<{ log: number; checkpointed: number }>)[0]!;
  return { path, db, write, mainCheckpoint };
}

test('the helper copies every committed frame into the database file, and the data reads back whole', async (t) => {
  const { path, db, write } = walDatabase(t);
  write(200);
  const helper = startCheckpointHelper(path);
  const r = await helper.checkpoint();
  assert.equal(r.busy, 0);
  assert.ok(r.log > 200, `a WAL of ${r.log} frames`);
  assert.equal(r.checkpointed, r.log);
  await helper.close();
  db.close();
  const again = new BetterSqlite3(path, { readonly: true });
  assert.equal((again.prepare('select count(*) as n from t').get() as { n: number }).n, 200);
  assert.equal(again.pragma('integrity_check', { simple: true }), 'ok');
  again.close();
});

test("after the helper's checkpoint copied every frame, the main connection's next write starts the WAL over", async (t) => {
  const { path, write, mainCheckpoint } = walDatabase(t);
  const helper = startCheckpointHelper(path);
  t.after(() => helper.close());
  write(100);
  const r = await helper.checkpoint();
  assert.equal(r.checkpointed, r.log);
  write(1);
  assert.ok(mainCheckpoint().log < 10, 'the write went to the start of the WAL');
});

test('frames the helper did not copy keep the WAL growing until the main connection copies them', async (t) => {
  // Under load those are the commits made while the helper worked; here a reader's open snapshot
  // holds them back just the same way, without a race.
  const { path, db, write, mainCheckpoint } = walDatabase(t);
  const helper = startCheckpointHelper(path);
  t.after(() => helper.close());
  write(100);
  const reader = new BetterSqlite3(path, { readonly: true });
  t.after(() => reader.close());
  reader.exec('begin');
  reader.prepare('select count(*) from t').get();
  write(50);
  const r = await helper.checkpoint();
  assert.ok(r.checkpointed < r.log, 'frames past the reader were left');
  reader.exec('commit');
  write(1);
  const step = mainCheckpoint(); // the main connection's short step
  assert.ok(step.log > r.log, 'the write appended: the WAL did not start over');
  assert.equal(step.checkpointed, step.log);
  write(1);
  assert.ok(mainCheckpoint().log < 10, 'then the next write started it over');
  assert.equal((db.prepare('select count(*) as n from t').get() as { n: number }).n, 152);
});

test('a closed helper, or one whose database is missing, answers with a typed error and holds nothing open', async (t) => {
  const { path } = walDatabase(t);
  const helper = startCheckpointHelper(path);
  await helper.checkpoint();
  await helper.close();
  await assert.rejects(helper.checkpoint(), CheckpointHelperError);
  await helper.close(); // closing twice is harmless

  const missing = startCheckpointHelper(join(tmpdir(), 'fixloop-no-such-dir', 'none.sqlite'));
  await assert.rejects(missing.checkpoint(), (e: unknown) => e instanceof CheckpointHelperError && /helper/.test(e.message));
  await missing.close();
});

test('one checkpoint at a time on the helper', async (t) => {
  const { path, write } = walDatabase(t);
  write(50);
  const helper = startCheckpointHelper(path);
  t.after(() => helper.close());
  const first = helper.checkpoint();
  await assert.rejects(helper.checkpoint(), /already running/);
  assert.equal((await first).busy, 0);
});
