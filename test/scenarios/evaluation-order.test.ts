// Decision 0005: deliveries are acknowledged once stored, then evaluated after the ack in the order
// they were stored, each one evaluated and recorded, on both databases.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { DATABASE_KINDS } from '../support/databases.js';
import { REPO, startHarness } from '../support/harness.js';
import { checkRunPayload } from '../support/deliveries.js';

const SHA = 'c'.repeat(40);

for (const kind of DATABASE_KINDS) {
  describe(`evaluation after the ack (${kind})`, () => {
    test('two red checks stored one after the other are both evaluated, the first before the second', async () => {
      const h = await startHarness(kind);
      try {
        const created = await h.api('POST', '/api/tasks', {
          repository: 'acme/shop',
          pullRequest: 7,
          branch: 'agent/fix',
        });
        assert.equal(created.status, 201);
        const red = (id: number) =>
          JSON.stringify(
            checkRunPayload({
              repo: REPO,
              sha: SHA,
              id,
              name: `shard ${id}`,
              pr: { number: 7, headSha: SHA },
              output: 'FAIL a.test.ts',
              completedAt: '2026-01-05T10:00:00Z',
            }),
          );
        const first = await h.app.ingestor.ingest({ deliveryId: 'batch-1', eventName: 'check_run', raw: red(1) });
        assert.equal(first.status, 202);
        const second = await h.app.ingestor.ingest({ deliveryId: 'batch-2', eventName: 'check_run', raw: red(2) });
        assert.equal(second.status, 202);
        await h.app.settle();
        assert.equal(h.app.queue.size(), 0);
        const log = await h.api('GET', '/api/deliveries?limit=50');
        assert.equal(log.status, 200);
        const items = log.body.decisions as Array<{
          deliveryId: string | null;
          outcome: string;
          reason: string | null;
        }>;
        // In arrival order: the first red of the head claims it and resumes the agent; the second is told the head is claimed (C2).
        assert.ok(
          items.some((d) => d.deliveryId === 'batch-1' && d.outcome === 'claimed'),
          'the first claims',
        );
        assert.ok(
          items.some((d) => d.deliveryId === 'batch-2' && d.reason === 'coordinate_claimed'),
          JSON.stringify(items.filter((d) => d.deliveryId === 'batch-2')),
        );
        for (const id of ['batch-1', 'batch-2']) {
          const outcomes = items.filter((d) => d.deliveryId === id).map((d) => d.outcome);
          assert.ok(outcomes.includes('stored'), `${id} stored`);
          assert.ok(
            outcomes.some((o) => o !== 'stored'),
            `${id} evaluated: ${outcomes.join(', ')}`,
          );
        }
      } finally {
        await h.close();
      }
    });
  });
}
