// The Task of a CI result read with its commit's claim (C2, decision 0038): one statement tells a
// storm's later results that the commit is claimed, on both databases.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestDatabase, DATABASE_KINDS } from '../../test/support/databases.js';
import { openDatabase } from './db.js';
import { migrateToLatest } from './migrations.js';
import { createLedger } from './ledger.js';

for (const kind of DATABASE_KINDS) {
  describe(`a Task read with its claim (${kind})`, () => {
    test('C2: claimed only for the commit an attempt holds, on the Task that holds it', async () => {
      const tdb = await createTestDatabase(kind);
      const db = openDatabase(tdb.url);
      try {
        await migrateToLatest(db.kysely, db.dialect);
        const ledger = createLedger(db, { now: () => new Date('2026-12-02T10:00:00Z') });
        const make = async (n: number) => {
          const created = await ledger.createTask({
            work: 'shop',
            repository: 'acme/shop',
            pullRequest: n,
            branch: `agent/fix-${n}`,
            resumeRef: null,
          });
          assert.ok('task' in created);
          return created.task.id;
        };
        const seven = await make(7);
        const eight = await make(8);
        assert.equal(await ledger.findTaskWithClaim('acme/shop', [9], 'sha-1'), null, 'no Task, nothing claimed');
        assert.equal((await ledger.findTaskWithClaim('acme/shop', [7], 'sha-1'))?.claimed, false);

        const c = await ledger.claimAttempt({
          taskId: seven,
          coordinate: 'sha-1',
          source: 'gate',
          headSha: 'sha-1',
          fingerprint: 'f',
          rejection: { checkName: 'test', body: 'red', eventId: null },
        });
        assert.equal(c.kind, 'claimed');

        const found = await ledger.findTaskWithClaim('acme/shop', [7], 'sha-1');
        assert.equal(found?.claimed, true);
        assert.deepEqual(found?.task, await ledger.getTask(seven), 'the same Task as a plain read');
        assert.equal((await ledger.findTaskWithClaim('acme/shop', [7], 'sha-2'))?.claimed, false, 'another commit');
        const other = await ledger.findTaskWithClaim('acme/shop', [8], 'sha-1');
        assert.equal(other?.task.id, eight);
        assert.equal(other?.claimed, false, "another Task's claim is not this one's");
        assert.equal((await ledger.findTaskWithClaim('acme/shop', [8, 7], 'sha-1'))?.task.id, seven, 'oldest first');
      } finally {
        await db.close();
        await tdb.drop();
      }
    });
  });
}
