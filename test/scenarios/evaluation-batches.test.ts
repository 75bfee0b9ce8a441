// Decision 0005: deliveries stored a few milliseconds apart are evaluated together — the service
// waits EVALUATION_GATHER_MS for company before it reads Tasks and commits decisions — and each is
// still evaluated, on both databases.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { DATABASE_KINDS } from '../support/databases.js';
import { REPO, startHarness } from '../support/harness.js';
import { checkRunPayload } from '../support/deliveries.js';
import { EVALUATION_GATHER_MS } from '../../src/main.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const SHA = 'c'.repeat(40);

for (const kind of DATABASE_KINDS) {
  describe(`evaluation batches (${kind})`, () => {
    test('two red checks stored 5 ms apart wait for each other, then both are evaluated', async () => {
      assert.ok(EVALUATION_GATHER_MS >= 20, 'the window is wide enough for this test to see it');
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
        await sleep(5);
        const second = await h.app.ingestor.ingest({ deliveryId: 'batch-2', eventName: 'check_run', raw: red(2) });
        assert.equal(second.status, 202);
        // Without the window the first would have been evaluated as soon as it was stored.
        assert.equal(h.app.queue.size(), 2, 'both stored events still wait in the queue');
        await h.app.settle();
        assert.equal(h.app.queue.size(), 0);
        const log = await h.api('GET', '/api/deliveries?limit=50');
        assert.equal(log.status, 200);
        const items = log.body.decisions as Array<{ deliveryId: string | null; outcome: string }>;
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
