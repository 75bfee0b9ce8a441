// The helper thread checkpoints a live WAL database through a connection of its own: the pages reach
// the database file, nothing is lost or torn, and the WAL starts over only when the main connection's
// next write finds every frame copied — which is why, under load, the main connection copies what
// was committed during the helper's checkpoint (sqlite-checkpointer.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
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
  const write = (rows: number) =>
    db.transaction(() => {
      for (let i = 0; i < rows; i++) insert.run('x'.repeat(6000));
    })();
  t.after(() => {
    if (db.open) db.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const mainCheckpoint = () =>
    (db.pragma('wal_checkpoint(PASSIVE)') as Array<{ log: number; checkpointed: number }>)[0]!;
  return { path, db, write, mainCheckpoint };
}

test('the helper copies every committed frame into the database file itself, and the data reads back whole', async (t) => {
  const { path, write } = walDatabase(t);
  write(200);
  const helper = startCheckpointHelper(path);
  t.after(() => helper.close());
  const r = await helper.checkpoint();
  assert.equal(r.busy, 0);
  assert.ok(r.log > 200, `a WAL of ${r.log} frames`);
  assert.equal(r.checkpointed, r.log);
  // The database file alone, copied while both connections are open and the WAL still holds every
  // frame: what the helper wrote into it is all there is to read.
  const copy = `${path}.copy`;
  copyFileSync(path, copy);
  const alone = new BetterSqlite3(copy, { readonly: true });
  t.after(() => alone.close());
  assert.equal((alone.prepare('select count(*) as n from t').get() as { n: number }).n, 200);
  assert.equal(alone.pragma('integrity_check', { simple: true }), 'ok');
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
  await assert.rejects(
    helper.checkpoint(),
    (e: unknown) => e instanceof CheckpointHelperError && e.reason === 'closed',
  );
  await helper.close(); // closing twice is harmless

  // A file that is not there is never created: the helper only opens what the main connection made.
  const missingPath = join(dirname(path), 'none.sqlite');
  const missing = startCheckpointHelper(missingPath);
  await assert.rejects(
    missing.checkpoint(),
    (e: unknown) => e instanceof CheckpointHelperError && e.reason === 'thread_failed',
  );
  await missing.close();
  assert.equal(existsSync(missingPath), false);
});

test('one checkpoint at a time on the helper', async (t) => {
  const { path, write } = walDatabase(t);
  write(50);
  const helper = startCheckpointHelper(path);
  t.after(() => helper.close());
  const first = helper.checkpoint();
  await assert.rejects(helper.checkpoint(), (e: unknown) => e instanceof CheckpointHelperError && e.reason === 'busy');
  assert.equal((await first).busy, 0);
});

test('closing while a checkpoint is in flight lets it finish, then ends the thread', async (t) => {
  const { path, write } = walDatabase(t);
  write(100);
  const helper = startCheckpointHelper(path);
  const inFlight = helper.checkpoint();
  const closed = helper.close();
  assert.equal((await inFlight).busy, 0);
  await closed; // the reply must not let go of the thread close() is waiting for
  await assert.rejects(
    helper.checkpoint(),
    (e: unknown) => e instanceof CheckpointHelperError && e.reason === 'closed',
  );
});
