// The group-commit write (A1, A3): every batch size stores exactly its new identities, answers
// duplicate for the rest, and writes one decision row per delivery, on both databases.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestDatabase, DATABASE_KINDS } from '../../test/support/databases.js';
import { openDatabase } from './db.js';
import { migrateToLatest } from './migrations.js';
import { createLedger } from './ledger.js';
import type { IncomingDelivery } from '../app/ledger-port.js';

const delivery = (
  n: number,
  identity = `check:acme/shop@${'a'.repeat(40)}:run:${n}:completed:failure`,
): IncomingDelivery => ({
  deliveryId: `d-${n}`,
  eventName: 'check_run',
  identity,
  kind: 'ci.result',
  repository: 'acme/shop',
  sha: 'a'.repeat(40),
  verdict: 'red',
  summary: '{}',
  payload: JSON.stringify({ n }),
});

for (const kind of DATABASE_KINDS) {
  describe(`the delivery log's group commit (${kind})`, () => {
    test('every batch size from 1 to 20 stores its new identities once and records a decision per delivery', async () => {
      const tdb = await createTestDatabase(kind);
      const db = openDatabase(tdb.url);
      try {
        await migrateToLatest(db.kysely, db.dialect);
        const ledger = createLedger(db, { now: () => new Date('2026-01-05T10:00:00Z') });
        let next = 0;
        let expectedEvents = 0;
        let expectedDecisions = 0;
        for (let size = 1; size <= 20; size++) {
          // A batch: fresh identities, one copy of its first delivery, and one identity stored before.
          const fresh = Array.from({ length: size }, () => delivery(next++));
          const batch = [...fresh, ...(size > 1 ? [fresh[0]!] : []), ...(next > size ? [delivery(0)] : [])];
          const results = await ledger.storeDeliveries(batch, []);
          assert.equal(results.length, batch.length);
          assert.deepEqual(
            results.map((r) => r.kind),
            batch.map((_, i) => (i < size ? 'stored' : 'duplicate')),
            `batch of ${batch.length}`,
          );
          expectedEvents += size;
          expectedDecisions += batch.length;
        }
        const events = await db.kysely.selectFrom('events').select(['identity', 'payload']).execute();
        assert.equal(events.length, expectedEvents, 'one event row per new identity');
        assert.ok(events.every((e) => e.identity !== null && e.payload !== null));
        const decisions = await db.kysely.selectFrom('decisions').select(['outcome']).execute();
        assert.equal(decisions.length, expectedDecisions);
        assert.equal(decisions.filter((d) => d.outcome === 'stored').length, expectedEvents);
        const pending = await db.kysely.selectFrom('pending_events').select('event_id').execute();
        assert.equal(pending.length, expectedEvents, 'each stored event waits for its evaluation');
      } finally {
        await db.close();
        await tdb.drop();
      }
    });

    test("H1: the evaluation's rows carried by a group commit land with it and finish their events' marks", async () => {
      const tdb = await createTestDatabase(kind);
      const db = openDatabase(tdb.url);
      try {
        await migrateToLatest(db.kysely, db.dialect);
        const ledger = createLedger(db, { now: () => new Date('2026-01-05T10:00:00Z') });
        const first = await ledger.storeDeliveries([delivery(1), delivery(2)], []);
        const ids = first.map((r) => (r.kind === 'stored' ? r.eventId : -1));
        const carried = ids.map((eventId) => ({ eventId, outcome: 'refused' as const, reason: 'no_task' as const }));
        const pendingIds = async () =>
          (await db.kysely.selectFrom('pending_events').select('event_id').orderBy('event_id').execute()).map(
            (r) => r.event_id,
          );

        // A batch that fails (a NOT NULL column left empty) takes nothing with it: the marks stay.
        const broken = { ...delivery(3), kind: null } as unknown as IncomingDelivery;
        await assert.rejects(ledger.storeDeliveries([broken], carried, ids));
        assert.deepEqual(await pendingIds(), ids, 'a failed group commit leaves the events pending');
        const refusedBefore = await db.kysely
          .selectFrom('decisions')
          .select('id')
          .where('outcome', '=', 'refused')
          .execute();
        assert.equal(refusedBefore.length, 0, 'and none of its carried rows');

        const next = await ledger.storeDeliveries([delivery(3)], carried, ids);
        assert.equal(next[0]?.kind, 'stored');
        const stored = next[0]?.kind === 'stored' ? next[0].eventId : -1;
        assert.deepEqual(await pendingIds(), [stored], 'the carried marks are gone, the new event waits');
        const refused = await db.kysely
          .selectFrom('decisions')
          .select('event_id')
          .where('outcome', '=', 'refused')
          .orderBy('event_id')
          .execute();
        assert.deepEqual(
          refused.map((r) => r.event_id),
          ids,
        );
      } finally {
        await db.close();
        await tdb.drop();
      }
    });
  });
}
