// SPEC K3, K4, K5, G1: the guards on the agent's pushes, through the real pipeline (poll → push guard
// → evaluator → notice → hand-off) against the fake GitHub's compare endpoint. The agent's pushes
// alternating between two states stop the loop (A-B-A); a push editing a CI workflow, or adding a skip
// marker, stops it as a forbidden change; a plain source fix is allowed. Each stop files one notice and
// labels the pull request `fixloop:needs-human`; nothing is resumed after it.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { DATABASE_KINDS } from '../support/databases.js';
import { startGitHubHarness, redHead, sha, type GitHubHarness } from '../support/github-harness.js';
import type { FakeCompareFile } from '../support/fake-github/state.js';
import { STATE_MARKER } from '../../src/core/state-comment.js';
import { checkRunPayload, delivery, post } from '../support/deliveries.js';
import { SECRET } from '../support/harness.js';

const REPO_NAME = 'acme/shop';
const NEEDS_HUMAN = 'fixloop:needs-human';

/**
 * The agent answers the attempt on `from` with a push to `to`: GitHub's compare shows `push` for
 * from...to and `sinceLoopBase` for (the loop's first attempt's head)...to; CI is red again on `to`.
 */
async function agentPush(
  h: GitHubHarness,
  pr: number,
  p: {
    base: string;
    from: string;
    to: string;
    push: FakeCompareFile[];
    sinceLoopBase?: FakeCompareFile[];
    output: string;
  },
) {
  h.fake.setCompare(REPO_NAME, sha(p.from), sha(p.to), p.push);
  if (p.from !== p.base) h.fake.setCompare(REPO_NAME, sha(p.base), sha(p.to), p.sinceLoopBase ?? p.push);
  await redHead(h, pr, p.to, p.output);
}

async function noticesOf(
  h: GitHubHarness,
  taskId: number,
): Promise<Array<{ reason: string; message: string; headSha: string | null }>> {
  return (await h.api('GET', '/api/inbox')).body.notices.filter((n: { taskId: number }) => n.taskId === taskId);
}

const labels = (h: GitHubHarness, pr: number) => h.fake.state.pulls[`${REPO_NAME}#${pr}`]!.labels ?? [];
const stateComment = (h: GitHubHarness, pr: number) =>
  (h.fake.state.comments[`${REPO_NAME}#${pr}`] ?? []).find((c) => c.body.startsWith(STATE_MARKER));
const compares = (h: GitHubHarness) =>
  h.fake.requestsTo(/\/compare\//).map((r) => r.path.replace(/^.*\/compare\//, '').replace(/([0-9a-f])\1{39}/g, '$1'));

/** One line of src/price.ts in three states, and the diffs GitHub shows between them. */
const priceLine = (from: string, to: string, at: number): FakeCompareFile => ({
  path: 'src/price.ts',
  patch: `@@ -${at},3 +${at},3 @@ export function price(cart: Cart) {\n   const total = sum(cart);\n-  return ${from};\n+  return ${to};\n }`,
});

async function openTask(h: GitHubHarness, pr: number, branch: string): Promise<number> {
  const { body: task } = await h.api('POST', '/api/tasks', { repository: REPO_NAME, pullRequest: pr, branch });
  h.fake.addPull(REPO_NAME, pr, { headSha: sha('0'), headRef: branch });
  return task.id as number;
}

for (const kind of DATABASE_KINDS) {
  describe(`guards on the agent's pushes (${kind})`, () => {
    test('K3: A-B-A over three pushes (the code goes X, Y, X) stops the loop with thrash_aba and hands off', async () => {
      const h = await startGitHubHarness(kind, { env: { TASK_CI_AUTO_RESUME_MAX_ATTEMPTS: '5' } });
      try {
        const taskId = await openTask(h, 41, 'agent/aba');
        await redHead(h, 41, '1', 'price total is not rounded');
        assert.equal(h.runner.starts.length, 1);

        // Push 1: base → X. Allowed; CI red again with another failure → attempt 2.
        await agentPush(h, 41, {
          base: '1',
          from: '1',
          to: '2',
          push: [priceLine('total', 'round(total)', 12)],
          output: 'cart rounding breaks the tax sum',
        });
        assert.equal(h.runner.starts.length, 2);
        // Push 2: X → Y. Allowed → attempt 3.
        await agentPush(h, 41, {
          base: '1',
          from: '2',
          to: '3',
          push: [priceLine('round(total)', 'total.toFixed(2)', 12)],
          sinceLoopBase: [priceLine('total', 'total.toFixed(2)', 12)],
          output: 'price returns a string, expected a number',
        });
        assert.equal(h.runner.starts.length, 3);
        assert.deepEqual(labels(h, 41), []);
        assert.deepEqual(await noticesOf(h, taskId), []);

        // Push 3: Y → X again (the line landed elsewhere: only the hunk header differs). Stop.
        await agentPush(h, 41, {
          base: '1',
          from: '3',
          to: '4',
          push: [priceLine('total.toFixed(2)', 'round(total)', 30)],
          sinceLoopBase: [priceLine('total', 'round(total)', 30)],
          output: 'cart rounding breaks the tax sum again',
        });
        assert.equal(h.runner.starts.length, 3, 'the red head of the third push is not resumed');
        const notices = await noticesOf(h, taskId);
        assert.deepEqual(
          notices.map((n) => [n.reason, n.headSha]),
          [['thrash_aba', sha('4')]],
        );
        assert.deepEqual(labels(h, 41), [NEEDS_HUMAN], 'the hand-off label appears');
        assert.match(stateComment(h, 41)!.body, /"reason": "thrash_aba"/);
        // Each push read once (itself and, after the first, the code since the loop began).
        assert.deepEqual(compares(h), ['1...2', '2...3', '1...3', '3...4', '1...4']);

        // Stopped: a later push is a person's; it is neither read nor resumed.
        await agentPush(h, 41, {
          base: '1',
          from: '4',
          to: '5',
          push: [priceLine('round(total)', 'total', 30)],
          output: 'yet another failure',
        });
        assert.equal(h.runner.starts.length, 3);
        assert.equal((await noticesOf(h, taskId)).length, 1);
        assert.equal(compares(h).length, 5);
      } finally {
        await h.close();
      }
    });

    test('K4: a push editing .github/workflows/ci.yml stops the loop with forbidden_change; nothing is resumed after it', async () => {
      const h = await startGitHubHarness(kind, { env: { TASK_CI_AUTO_RESUME_MAX_ATTEMPTS: '5' } });
      try {
        const taskId = await openTask(h, 42, 'agent/ci');
        await redHead(h, 42, '1', 'integration tests time out');
        assert.equal(h.runner.starts.length, 1);
        await agentPush(h, 42, {
          base: '1',
          from: '1',
          to: '2',
          push: [
            { path: 'src/db.ts', patch: '@@ -8,1 +8,1 @@\n-const TIMEOUT = 5_000;\n+const TIMEOUT = 50_000;' },
            {
              path: '.github/workflows/ci.yml',
              patch:
                '@@ -31,1 +31,1 @@\n-      - run: npm run test:integration\n+      - run: npm run test:integration || true',
            },
          ],
          output: 'lint fails on src/db.ts',
        });
        assert.equal(h.runner.starts.length, 1, 'the red head after the forbidden push is not resumed');
        const notices = await noticesOf(h, taskId);
        assert.deepEqual(
          notices.map((n) => n.reason),
          ['forbidden_change'],
        );
        assert.deepEqual(labels(h, 42), [NEEDS_HUMAN]);
        assert.match(stateComment(h, 42)!.body, /"reason": "forbidden_change"/);

        // No further resume: a new red head is a read and nothing else (G2).
        await redHead(h, 42, '3', 'something else fails now');
        assert.equal(h.runner.starts.length, 1);
        assert.equal((await noticesOf(h, taskId)).length, 1);
      } finally {
        await h.close();
      }
    });

    test('K4: a push adding it.skip( stops the loop with forbidden_change', async () => {
      const h = await startGitHubHarness(kind, { env: { TASK_CI_AUTO_RESUME_MAX_ATTEMPTS: '5' } });
      try {
        const taskId = await openTask(h, 43, 'agent/skip');
        await redHead(h, 43, '1', 'cart total is off by one cent');
        await agentPush(h, 43, {
          base: '1',
          from: '1',
          to: '2',
          push: [
            {
              path: 'src/cart.test.ts',
              patch:
                "@@ -14,3 +14,3 @@ describe('cart', () => {\n-  it('totals the cart', () => {\n+  it.skip('totals the cart', () => {\n     expect(total(cart)).toBe(1999);",
            },
          ],
          output: 'coverage below the threshold',
        });
        assert.equal(h.runner.starts.length, 1);
        assert.deepEqual(
          (await noticesOf(h, taskId)).map((n) => n.reason),
          ['forbidden_change'],
        );
        assert.deepEqual(labels(h, 43), [NEEDS_HUMAN]);
      } finally {
        await h.close();
      }
    });

    test('K3/K4: a normal source fix is allowed: the loop goes on to the next attempt, nothing is filed', async () => {
      const h = await startGitHubHarness(kind, { env: { TASK_CI_AUTO_RESUME_MAX_ATTEMPTS: '5' } });
      try {
        const taskId = await openTask(h, 44, 'agent/fix');
        await redHead(h, 44, '1', 'price total is not rounded');
        await agentPush(h, 44, {
          base: '1',
          from: '1',
          to: '2',
          push: [
            { path: 'src/price.ts', patch: '@@ -12,1 +12,1 @@\n-  return total;\n+  return Math.round(total);' },
            {
              path: 'src/price.test.ts',
              patch: "@@ -30,0 +31,3 @@\n+test('rounds the total', () => {\n+  expect(price([1.4])).toBe(1);\n+});",
            },
          ],
          output: 'the tax sum is off by one cent',
        });
        assert.equal(h.runner.starts.length, 2, 'allowed: the next red is resumed');
        assert.deepEqual(await noticesOf(h, taskId), []);
        assert.deepEqual(labels(h, 44), []);
        assert.deepEqual(compares(h), ['1...2']);

        // Read once: later ticks on the same head do not read the push again.
        h.clock.advance(120_000);
        await h.tick();
        assert.deepEqual(compares(h), ['1...2']);
      } finally {
        await h.close();
      }
    });

    test("K4: a red arriving by webhook for the agent's forbidden push buys no run — the guard judges the push on the webhook path too", async () => {
      const h = await startGitHubHarness(kind, { env: { TASK_CI_AUTO_RESUME_MAX_ATTEMPTS: '5' } });
      try {
        const taskId = await openTask(h, 45, 'agent/webhook');
        await redHead(h, 45, '1', 'lint failed');
        assert.equal(h.runner.starts.length, 1);
        // The agent pushes a workflow edit and reports nothing; CI's red comes by webhook before any tick.
        h.fake.setCompare(REPO_NAME, sha('1'), sha('2'), [
          {
            path: '.github/workflows/ci.yml',
            patch: '@@ -1,3 +1,3 @@\n jobs:\n-  lint: npm run lint\n+  lint: true\n',
          },
        ]);
        h.fake.setHead(REPO_NAME, 45, sha('2'));
        h.clock.advance(60_000);
        const red = delivery(
          'check_run',
          checkRunPayload({
            repo: { owner: 'acme', name: 'shop', id: 4242 },
            sha: sha('2'),
            id: 4501,
            name: 'test',
            pr: { number: 45, headSha: sha('2') },
            output: 'tests failed',
            completedAt: h.clock.now().toISOString(),
          }),
        );
        await post(h.url, red, SECRET);
        await h.app.settle();
        assert.equal(h.runner.starts.length, 1, 'no second run for a forbidden push');
        const notices = await noticesOf(h, taskId);
        assert.deepEqual(
          notices.map((n) => n.reason),
          ['forbidden_change'],
        );
        assert.match(notices[0]!.message, /ci\.yml/);
      } finally {
        await h.close();
      }
    });
  });
}
