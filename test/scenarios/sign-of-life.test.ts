// Issue 35 item 1 (SPEC I3, I5, L1) on both databases: a run's sign of life is a call or a push. An
// agent that does its work and pushes without ever calling fixloop has taken action (its outcome is
// inferred, the new head is its progress) and the red of its push gets the next attempt; only an agent
// that neither calls nor pushes files agent_unreachable. And with the poll configured, a new head seen
// by webhook is progress at once: the red of the agent's fix is judged when it arrives, not on a tick.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { DATABASE_KINDS } from '../support/databases.js';
import { startGitHubHarness } from '../support/github-harness.js';
import { REPO, SECRET } from '../support/harness.js';
import { checkRunPayload, delivery, post } from '../support/deliveries.js';
import { until } from '../support/server-process.js';
import {
  attemptRows,
  decisionsOf,
  endRun,
  nextTick,
  pushRedHead,
  reportOutcome,
  sha,
  taskWithRedHead,
} from '../support/loop-driver.js';

for (const kind of DATABASE_KINDS) {
  describe(`a sign of life is a call or a push (${kind})`, () => {
    test('an agent that pushes without calling fixloop took action, and the red of its push gets the second attempt', async () => {
      const h = await startGitHubHarness(kind);
      try {
        h.runner.silentAgents = true; // it never calls: no MCP tool, no API
        const taskId = await taskWithRedHead(h, 41, sha('a'), 'FAIL src/cart.test.ts: expected 3 to be 4');
        await nextTick(h);
        const first = h.runner.starts[0]!;
        assert.ok(first, 'the red head resumed the agent');

        // The agent pushes its fix, which fails differently, and exits; the push's webhook has not
        // arrived yet: the host's head says it was pushed.
        pushRedHead(h, 41, sha('b'), 'FAIL src/checkout.test.ts: the receipt has no total line');
        await endRun(h, first, 'acknowledged');

        const view = (await h.api('GET', `/api/tasks/${taskId}`)).body;
        assert.equal(view.notice, null, 'a push is a sign of life: no agent_unreachable notice');
        const [row] = await attemptRows(h.app, taskId);
        assert.deepEqual([row!.state, row!.outcome], ['acknowledged', 'action_taken']);
        assert.match(
          (await h.app.ledger.getRunLog(first.runId)) ?? '',
          /without calling fixloop, but the branch moved from aaaaaaaaaaaa to bbbbbbbbbbbb/,
        );
        const inferred = (await decisionsOf(h, taskId)).find((d) => d.reason === 'outcome_action_taken');
        assert.match(inferred?.detail ?? '', /taken as action_taken/, 'the decision log says the outcome was inferred');

        await nextTick(h);
        const rows = await attemptRows(h.app, taskId);
        assert.deepEqual(
          rows.map((r) => r.coordinate),
          [sha('a'), sha('b')],
          'the red of the push is answered by a second attempt',
        );
        assert.equal(h.runner.starts.length, 2);
      } finally {
        await h.close();
      }
    });

    test('an agent that neither calls nor pushes files agent_unreachable, and is not retried', async () => {
      const h = await startGitHubHarness(kind);
      try {
        h.runner.silentAgents = true;
        const taskId = await taskWithRedHead(h, 42, sha('c'), 'FAIL src/api.test.ts');
        await nextTick(h);
        const first = h.runner.starts[0]!;
        await endRun(h, first);
        const notice: any = await until(
          'the agent_unreachable notice',
          async () => (await h.api('GET', `/api/tasks/${taskId}`)).body.notice,
          10_000,
          10,
        );
        assert.equal(notice.reason, 'agent_unreachable');
        assert.match((await h.app.ledger.getRunLog(first.runId)) ?? '', /without a push to the branch/);
        const [row] = await attemptRows(h.app, taskId);
        assert.equal(row!.outcome, null, 'nothing is inferred without a push');
        await nextTick(h);
        assert.equal(h.runner.starts.length, 1);
      } finally {
        await h.close();
      }
    });

    test('with the poll configured, the red of the fix arriving by webhook is judged at once, without a tick', async () => {
      const h = await startGitHubHarness(kind);
      try {
        const taskId = await taskWithRedHead(h, 43, sha('d'), 'FAIL src/tax.test.ts: expected 7 to be 8');
        await nextTick(h);
        const first = h.runner.starts[0]!;
        await reportOutcome(h, first, 'action_taken', 'pushed a fix for the tax total');
        await endRun(h, first, 'awaiting_progress');

        // The fix is pushed and its CI fails; only the webhook tells fixloop (no tick from here on).
        pushRedHead(h, 43, sha('e'), 'FAIL src/invoice.test.ts: rounding differs');
        const d = delivery(
          'check_run',
          checkRunPayload({
            repo: REPO,
            sha: sha('e'),
            id: 4301,
            name: 'test',
            pr: { number: 43, headSha: sha('e') },
            output: 'FAIL src/invoice.test.ts: rounding differs',
            branch: 'agent/fix-43',
          }),
        );
        assert.equal((await post(h.url, d, SECRET)).status, 202);
        await until('the second attempt to start', async () => h.runner.starts.length === 2 || null, 10_000, 5);

        const rows = await attemptRows(h.app, taskId);
        assert.deepEqual(
          rows.map((r) => [r.coordinate, r.state]),
          [
            [sha('d'), 'acknowledged'],
            [sha('e'), rows[1]!.state],
          ],
          'the new head acknowledged the first attempt; its red claimed the second',
        );
      } finally {
        await h.close();
      }
    });
  });
}
