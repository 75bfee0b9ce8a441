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

/** A migrated ledger on a fresh database of `kind`, with a clock the test moves. */
async function withLedger(
  kind: (typeof DATABASE_KINDS)[number],
  body: (ledger: ReturnType<typeof createLedger>, clock: { t: number }) => Promise<void>,
): Promise<void> {
  const tdb = await createTestDatabase(kind);
  const db = openDatabase(tdb.url);
  const clock = { t: Date.parse('2026-11-30T10:00:00Z') };
  try {
    await migrateToLatest(db.kysely, db.dialect);
    await body(createLedger(db, { now: () => new Date(clock.t) }), clock);
  } finally {
    await db.close();
    await tdb.drop();
  }
}

/** An attempt being dispatched on a Task of its own (K7 allows one attempt in flight per pull request). */
async function dispatching(ledger: ReturnType<typeof createLedger>, n: number) {
  const created = await ledger.createTask({
    work: 'shop',
    repository: 'acme/shop',
    pullRequest: n,
    branch: `agent/fix-${n}`,
    resumeRef: null,
  });
  assert.ok('task' in created);
  const c = await ledger.claimAttempt({
    taskId: created.task.id,
    coordinate: `sha-${n}`,
    source: 'gate',
    headSha: `sha-${n}`,
    fingerprint: `f${n}`,
    rejection: { checkName: 'test', body: 'red', eventId: null },
  });
  assert.equal(c.kind, 'claimed');
  const began = await ledger.beginDispatch(c.attempt.id, 'claimed', `token-${n}`);
  assert.ok(began);
  return { id: c.attempt.id, taskId: created.task.id, runId: began.run.id };
}

for (const kind of DATABASE_KINDS) {
  describe(`dispatch lease (${kind})`, () => {
    test('a renewal after reconciliation read the attempt keeps it; without one, the lapsed lease is taken once', () =>
      withLedger(kind, async (ledger, clock) => {
        const first = await dispatching(ledger, 1);
        const second = await dispatching(ledger, 2);
        const [renewed, abandoned] = [first.id, second.id];

        clock.t += 60_000; // both leases are a minute old
        const olderThan = new Date(clock.t - 30_000).toISOString();
        const seen = await ledger.attemptsWithStatus(['dispatching'], olderThan);
        assert.deepEqual(
          seen.map((a) => a.id),
          [renewed, abandoned],
          'reconciliation reads both as stale',
        );

        // The first one's dispatcher is alive after all: it renews before reconciliation writes.
        assert.equal(await ledger.renewDispatch(renewed), true);
        assert.equal(await ledger.expireDispatch(renewed, olderThan, 'gone'), false, 'the renewal wins');
        assert.equal(await ledger.expireDispatch(abandoned, olderThan, 'gone'), true);
        assert.equal(await ledger.expireDispatch(abandoned, olderThan, 'gone'), false, 'taken once');

        assert.equal((await ledger.listAttempts(first.taskId))[0]?.status, 'dispatching');
        assert.equal((await ledger.listAttempts(second.taskId))[0]?.status, 'dispatch_unknown');
        assert.equal(await ledger.renewDispatch(abandoned), false, 'a lease that was taken cannot be renewed');
      }));

    test("an agent found by its environment is marked only while the run has no mark and its attempt's lease is still lapsed", () =>
      withLedger(kind, async (ledger, clock) => {
        const found = {
          host: 'h',
          pid: 4242,
          since: 'boot:1',
          owner: { pid: 0, since: '', instance: 'found-by-environment' },
        };
        const own = { host: 'h', pid: 4343, since: 'boot:2', owner: { pid: 77, since: 'boot:0', instance: 'live' } };
        const lapsed = await dispatching(ledger, 1);
        const renewed = await dispatching(ledger, 2);
        const marked = await dispatching(ledger, 3);

        clock.t += 60_000;
        const olderThan = new Date(clock.t - 30_000).toISOString();
        assert.equal(await ledger.renewDispatch(renewed.id), true);
        await ledger.setRunProcess(marked.runId, own);

        assert.equal(
          await ledger.markFoundAgent(renewed.runId, renewed.id, found, olderThan),
          false,
          'a renewed lease keeps its dispatcher',
        );
        assert.equal(await ledger.runProcess(renewed.runId), null);
        assert.equal(
          await ledger.markFoundAgent(marked.runId, marked.id, found, olderThan),
          false,
          'a mark its dispatcher wrote is kept',
        );
        assert.deepEqual(await ledger.runProcess(marked.runId), own);
        assert.equal(
          await ledger.markFoundAgent(lapsed.runId, renewed.id, found, olderThan),
          false,
          "another attempt's lease says nothing about this run",
        );
        assert.equal(await ledger.markFoundAgent(lapsed.runId, lapsed.id, found, olderThan), true);
        assert.deepEqual(await ledger.runProcess(lapsed.runId), found);
        assert.equal(await ledger.markFoundAgent(lapsed.runId, lapsed.id, found, olderThan), false, 'written once');
      }));
  });
}
