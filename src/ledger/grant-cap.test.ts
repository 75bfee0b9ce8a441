// SPEC V4, K5: the cap on a person's grants is the grant's own compare-and-set, so two replicas
// granting at once never pass it; a person's own cap for the Task opens more. Both databases.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestDatabase, DATABASE_KINDS } from '../../test/support/databases.js';
import { openDatabase, type Db } from './db.js';
import { migrateToLatest } from './migrations.js';
import { createLedger } from './ledger.js';
import type { GrantResult, Ledger } from '../app/ledger-port.js';

const clock = { now: () => new Date('2026-12-04T10:00:00Z') };

/** The loop stops (its notice filed) unless it is stopped already; the round a person's answer acts on. */
async function stop(ledger: Ledger, taskId: number): Promise<number> {
  const before = (await ledger.getTask(taskId))!;
  if (before.noticeAt !== null) return before.stopRound;
  const filed = await ledger.fileNotice({
    taskId,
    reason: 'budget_spent',
    headSha: null,
    message: (used) => `stopped after ${used}`,
  });
  assert.ok(filed, 'the notice was filed: the loop stopped');
  return (await ledger.getTask(taskId))!.stopRound;
}

for (const kind of DATABASE_KINDS) {
  describe(`the grant cap in the ledger (${kind})`, () => {
    test('V4: racing grants from two replicas, round after round, stop exactly at the cap', async () => {
      const tdb = await createTestDatabase(kind);
      const dbs: Db[] = [openDatabase(tdb.url), openDatabase(tdb.url)];
      try {
        await migrateToLatest(dbs[0]!.kysely, dbs[0]!.dialect);
        const [a, b] = dbs.map((db) => createLedger(db, clock)) as [Ledger, Ledger];
        const created = await a.createTask({
          work: 'shop',
          repository: 'acme/shop',
          pullRequest: 7,
          branch: 'agent/fix',
          resumeRef: null,
        });
        assert.ok('task' in created);
        const id = created.task.id;
        const CAP = 3;
        const outcomes: GrantResult['kind'][][] = [];
        for (let round = 0; round < 6; round++) {
          const r = await stop(a, id);
          // Ten people at once, half through each replica, all answering the same stop.
          const results = await Promise.all(
            Array.from({ length: 10 }, (_, i) => (i % 2 === 0 ? a : b).grantApproveOne(id, r, CAP)),
          );
          outcomes.push(results.map((x) => x.kind).sort());
        }
        const granted = outcomes.map((o) => o.filter((k) => k === 'granted').length);
        assert.deepEqual(granted, [1, 1, 1, 0, 0, 0], 'one grant per stop, and none past the cap');
        for (const o of outcomes.slice(3)) assert.deepEqual(o, Array(10).fill('capped'), 'past the cap: capped, all');
        const task = (await a.getTask(id))!;
        assert.equal(task.extraAttempts, CAP);
        assert.notEqual(task.noticeAt, null, 'a refused grant leaves the stop in place');
        const capped = await b.grantApproveOne(id, task.stopRound, CAP);
        assert.deepEqual(capped, { kind: 'capped', used: 3, ownCap: null });
      } finally {
        for (const db of dbs) await db.close();
        await tdb.drop();
      }
    });

    test('V4: the Task’s own cap wins over the configured one: raised it opens more, null goes back', async () => {
      const tdb = await createTestDatabase(kind);
      const db = openDatabase(tdb.url);
      try {
        await migrateToLatest(db.kysely, db.dialect);
        const ledger = createLedger(db, clock);
        const created = await ledger.createTask({
          work: 'shop',
          repository: 'acme/shop',
          pullRequest: 8,
          branch: 'agent/x',
          resumeRef: null,
        });
        assert.ok('task' in created);
        const id = created.task.id;
        assert.equal(created.task.maxGrants, null, 'a new Task has no cap of its own');
        let r = await stop(ledger, id);
        assert.deepEqual(await ledger.grantApproveOne(id, r, 0), { kind: 'capped', used: 0, ownCap: null }, '0 = none');

        assert.deepEqual(await ledger.setMaxGrants(id, 1), { before: null });
        assert.equal((await ledger.getTask(id))!.maxGrants, 1);
        assert.deepEqual(await ledger.grantApproveOne(id, r, 0), { kind: 'granted' }, 'its own cap of 1 wins over 0');
        r = await stop(ledger, id);
        assert.deepEqual(await ledger.grantApproveOne(id, r, 5), { kind: 'capped', used: 1, ownCap: 1 }, 'and over 5');

        assert.deepEqual(await ledger.setMaxGrants(id, null), { before: 1 });
        assert.deepEqual(await ledger.grantApproveOne(id, r, 5), { kind: 'granted' }, 'back to the configured 5');
        assert.equal((await ledger.getTask(id))!.extraAttempts, 2);
        assert.equal(await ledger.setMaxGrants(9999, 3), null, 'no such Task');
        assert.deepEqual(await ledger.grantApproveOne(id, r, 5), { kind: 'changed' }, 'a stale round is not a cap');
      } finally {
        await db.close();
        await tdb.drop();
      }
    });
  });
}
