// The re-run claim on both databases (issue 17, migration 0015): the unique (task, head, ordinal) index
// lets one claim win each of a head's re-runs, and a claim is settled once, from `claimed` only.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestDatabase, DATABASE_KINDS } from '../../test/support/databases.js';
import { openDatabase } from './db.js';
import { migrateToLatest } from './migrations.js';
import { createLedger } from './ledger.js';
import type { Ledger } from '../app/ledger-port.js';

const HEAD = 'e'.repeat(40);

async function withLedger(kind: 'sqlite' | 'postgres', f: (ledger: Ledger) => Promise<void>): Promise<void> {
  const tdb = await createTestDatabase(kind);
  const db = openDatabase(tdb.url);
  try {
    await migrateToLatest(db.kysely, db.dialect);
    await f(createLedger(db, { now: () => new Date('2026-12-01T10:00:00Z') }));
  } finally {
    await db.close();
    await tdb.drop();
  }
}

const claim = (ledger: Ledger, ordinal: number, headSha = HEAD) =>
  ledger.claimRerun({ taskId: 1, headSha, ordinal, checkRunIds: [12, 11], reason: 'runner lost' });

for (const kind of DATABASE_KINDS) {
  describe(`reruns on ${kind}`, () => {
    test("one of many concurrent claims of a head's first re-run wins; the rest are told it is taken", async () => {
      await withLedger(kind, async (ledger) => {
        const results = await Promise.all(Array.from({ length: 20 }, () => claim(ledger, 1)));
        assert.equal(results.filter((r) => r.kind === 'claimed').length, 1);
        assert.equal(results.filter((r) => r.kind === 'taken').length, 19);
        const [row] = await ledger.listReruns(1, HEAD);
        assert.deepEqual(
          {
            status: row?.status,
            ordinal: row?.ordinal,
            checkRunIds: row?.checkRunIds,
            workflowRunIds: row?.workflowRunIds,
          },
          { status: 'claimed', ordinal: 1, checkRunIds: [12, 11], workflowRunIds: null },
        );
      });
    });

    test("the head's next re-run and another head's first are claims of their own", async () => {
      await withLedger(kind, async (ledger) => {
        assert.equal((await claim(ledger, 1)).kind, 'claimed');
        assert.equal((await claim(ledger, 2)).kind, 'claimed');
        assert.equal((await claim(ledger, 1, 'f'.repeat(40))).kind, 'claimed');
        assert.deepEqual(
          (await ledger.listReruns(1, HEAD)).map((r) => r.ordinal),
          [1, 2],
        );
      });
    });

    test('a claim is settled once, with what GitHub said; a second settle changes nothing', async () => {
      await withLedger(kind, async (ledger) => {
        const c = await claim(ledger, 1);
        assert.ok(c.kind === 'claimed');
        const refused = { workflowRunIds: [77], httpStatus: 403, detail: 'needs actions: write' };
        assert.equal(await ledger.settleRerun(c.rerun.id, 'refused', refused), true);
        assert.equal(
          await ledger.settleRerun(c.rerun.id, 'requested', { workflowRunIds: [77], httpStatus: null, detail: null }),
          false,
        );
        const [row] = await ledger.listReruns(1, HEAD);
        assert.deepEqual(
          {
            status: row?.status,
            workflowRunIds: row?.workflowRunIds,
            httpStatus: row?.httpStatus,
            detail: row?.detail,
          },
          { status: 'refused', ...refused },
        );
      });
    });
  });
}
