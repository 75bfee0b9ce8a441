// Decision 0014: the dispatch lease is the attempt's updated_at, and start-up reconciliation takes a
// dispatch only by compare-and-set on both its status and a lapsed lease — so a renewal that lands
// between reconciliation's read and its write wins.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestDatabase, DATABASE_KINDS } from '../../test/support/databases.js';
import { openDatabase } from './db.js';
import { migrateToLatest } from './migrations.js';
import { createLedger } from './ledger.js';

for (const kind of DATABASE_KINDS) {
  describe(`dispatch lease (${kind})`, () => {
    test('a renewal after reconciliation read the attempt keeps it; without one, the lapsed lease is taken once', async () => {
      const tdb = await createTestDatabase(kind);
      const db = openDatabase(tdb.url);
      let t = Date.parse('2026-11-30T10:00:00Z');
      try {
        await migrateToLatest(db.kysely, db.dialect);
        const ledger = createLedger(db, { now: () => new Date(t) });
        // One Task each: K7 allows one attempt in flight per pull request.
        const claim = async (n: number) => {
          const created = await ledger.createTask({ work: 'shop', repository: 'acme/shop', pullRequest: n, branch: `agent/fix-${n}`, resumeRef: null });
          assert.ok('task' in created);
          const c = await ledger.claimAttempt({ taskId: created.task.id, coordinate: `sha-${n}`, source: 'gate', headSha: `sha-${n}`, fingerprint: `f${n}`, rejection: { checkName: 'test', body: 'red', eventId: null } });
          assert.equal(c.kind, 'claimed');
          const began = await ledger.beginDispatch(c.attempt.id, 'claimed', `token-${n}`);
          assert.ok(began);
          return { id: c.attempt.id, taskId: created.task.id };
        };
        const first = await claim(1);
        const second = await claim(2);
        const [renewed, abandoned] = [first.id, second.id];

        t += 60_000; // both leases are a minute old
        const olderThan = new Date(t - 30_000).toISOString();
        const seen = await ledger.attemptsWithStatus(['dispatching'], olderThan);
        assert.deepEqual(seen.map((a) => a.id), [renewed, abandoned], 'reconciliation reads both as stale');

        // The first one's dispatcher is alive after all: it renews before reconciliation writes.
        assert.equal(await ledger.renewDispatch(renewed), true);
        assert.equal(await ledger.expireDispatch(renewed, olderThan, 'gone'), false, 'the renewal wins');
        assert.equal(await ledger.expireDispatch(abandoned, olderThan, 'gone'), true);
        assert.equal(await ledger.expireDispatch(abandoned, olderThan, 'gone'), false, 'taken once');

        assert.equal((await ledger.listAttempts(first.taskId))[0]?.status, 'dispatching');
        assert.equal((await ledger.listAttempts(second.taskId))[0]?.status, 'dispatch_unknown');
        assert.equal(await ledger.renewDispatch(abandoned), false, 'a lease that was taken cannot be renewed');
      } finally {
        await db.close();
        await tdb.drop();
      }
    });
  });
}
