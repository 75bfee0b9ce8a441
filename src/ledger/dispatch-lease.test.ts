// Decision 0014: the dispatch lease is the attempt's updated_at, and start-up reconciliation takes a
// dispatch only by compare-and-set on both its status and a lapsed lease — so a renewal that lands
// between reconciliation's read and its write wins. The mark of an agent found by its environment
// (decision 0011's amendment) is written under the same condition, and never over another mark.
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

    test("an agent found by its environment is marked only while the run has no mark and its attempt's lease is still lapsed", async () => {
      const tdb = await createTestDatabase(kind);
      const db = openDatabase(tdb.url);
      let t = Date.parse('2026-11-30T10:00:00Z');
      try {
        await migrateToLatest(db.kysely, db.dialect);
        const ledger = createLedger(db, { now: () => new Date(t) });
        const dispatching = async (n: number) => {
          const created = await ledger.createTask({ work: 'shop', repository: 'acme/shop', pullRequest: n, branch: `agent/fix-${n}`, resumeRef: null });
          assert.ok('task' in created);
          const c = await ledger.claimAttempt({ taskId: created.task.id, coordinate: `sha-${n}`, source: 'gate', headSha: `sha-${n}`, fingerprint: `f${n}`, rejection: { checkName: 'test', body: 'red', eventId: null } });
          assert.equal(c.kind, 'claimed');
          const began = await ledger.beginDispatch(c.attempt.id, 'claimed', `token-${n}`);
          assert.ok(began);
          return { attemptId: c.attempt.id, runId: began.run.id };
        };
        const found = { host: 'h', pid: 4242, since: 'boot:1', owner: { pid: 0, since: '', instance: 'found-by-environment' } };
        const own = { host: 'h', pid: 4343, since: 'boot:2', owner: { pid: 77, since: 'boot:0', instance: 'live' } };
        const lapsed = await dispatching(1);
        const renewed = await dispatching(2);
        const marked = await dispatching(3);

        t += 60_000;
        const olderThan = new Date(t - 30_000).toISOString();
        assert.equal(await ledger.renewDispatch(renewed.attemptId), true);
        await ledger.setRunProcess(marked.runId, own);

        assert.equal(await ledger.markFoundAgent(renewed.runId, renewed.attemptId, found, olderThan), false, 'a renewed lease keeps its dispatcher');
        assert.equal(await ledger.runProcess(renewed.runId), null);
        assert.equal(await ledger.markFoundAgent(marked.runId, marked.attemptId, found, olderThan), false, 'a mark its dispatcher wrote is kept');
        assert.deepEqual(await ledger.runProcess(marked.runId), own);
        assert.equal(await ledger.markFoundAgent(lapsed.runId, renewed.attemptId, found, olderThan), false, "another attempt's lease says nothing about this run");
        assert.equal(await ledger.markFoundAgent(lapsed.runId, lapsed.attemptId, found, olderThan), true);
        assert.deepEqual(await ledger.runProcess(lapsed.runId), found);
        assert.equal(await ledger.markFoundAgent(lapsed.runId, lapsed.attemptId, found, olderThan), false, 'written once');
        assert.equal(await ledger.expireDispatch(renewed.attemptId, olderThan, 'gone'), false);
      } finally {
        await db.close();
        await tdb.drop();
      }
    });
  });
}
