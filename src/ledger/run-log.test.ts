// A run's log (SPEC L1): appends that race — the agent's output and fixloop's own lines, written
// from separate callbacks — all land, in one statement each, and the log stays within its cap.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestDatabase, DATABASE_KINDS } from '../../test/support/databases.js';
import { openDatabase } from './db.js';
import { migrateToLatest } from './migrations.js';
import { createLedger } from './ledger.js';

for (const kind of DATABASE_KINDS) {
  describe(`run log (${kind})`, () => {
    test('concurrent appends all land; the cap keeps the head and drops the rest', async () => {
      const tdb = await createTestDatabase(kind);
      const db = openDatabase(tdb.url);
      try {
        await migrateToLatest(db.kysely, db.dialect);
        const ledger = createLedger(db, { now: () => new Date('2026-12-01T10:00:00Z') });
        const created = await ledger.createTask({
          work: 'shop',
          repository: 'acme/shop',
          pullRequest: 7,
          branch: 'agent/fix',
          resumeRef: null,
        });
        assert.ok(!('kind' in created));
        const [run] = await ledger.listRuns(created.task.id);
        const lines = Array.from({ length: 40 }, (_, i) => `line ${String(i).padStart(2, '0')}\n`);
        await Promise.all(lines.map((l) => ledger.appendRunLog(run!.id, l, 10_000)));
        const log = (await ledger.getRunLog(run!.id)) ?? '';
        assert.deepEqual(log.split('\n').filter(Boolean).sort(), lines.map((l) => l.trim()).sort(), 'none lost');

        await ledger.appendRunLog(run!.id, 'x'.repeat(20_000), 10_000);
        await ledger.appendRunLog(run!.id, 'after the cap', 10_000);
        const capped = (await ledger.getRunLog(run!.id)) ?? '';
        assert.equal(capped.length, 10_000);
        assert.ok(capped.startsWith(log), 'the head is kept');
        assert.ok(!capped.includes('after the cap'));
      } finally {
        await db.close();
        await tdb.drop();
      }
    });
  });
}
