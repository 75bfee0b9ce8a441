// Issue 36 item 5: the bound on diff growth, through the real pipeline against the fake GitHub's
// compare endpoint (which counts each file's added and removed lines as GitHub does). A push touching
// 40 files against a Work bound of 20 is stopped at the push — on its webhook, before CI says anything
// of it and before it could buy another attempt — with a notice naming the size and the bound in
// words; growth over several pushes is measured since the loop began; a one-line fix under the
// defaults is never stopped.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { DATABASE_KINDS } from '../support/databases.js';
import { startGitHubHarness, redHead, sha, type GitHubHarness } from '../support/github-harness.js';
import type { FakeCompareFile } from '../support/fake-github/state.js';
import { delivery, post, pullRequestPayload } from '../support/deliveries.js';
import { REPO, SECRET } from '../support/harness.js';

const REPO_NAME = 'acme/shop';

const work = (diffBound?: { lines?: number; files?: number }) => ({
  works: [
    {
      name: 'shop',
      account: 'acme',
      repositories: [{ name: REPO_NAME, role: 'data' }],
      ...(diffBound ? { diffBound } : {}),
    },
  ],
});

/** `n` files, each changing `lines` lines (half removed, half added). */
const files = (n: number, lines = 2, dir = 'src'): FakeCompareFile[] =>
  Array.from({ length: n }, (_, i) => ({
    path: `${dir}/module-${i}.ts`,
    patch: [
      `@@ -1,${lines / 2} +1,${lines / 2} @@`,
      ...Array.from({ length: lines / 2 }, (_, j) => `-const v${j} = ${j};`),
      ...Array.from({ length: lines / 2 }, (_, j) => `+const v${j} = ${j + 1};`),
    ].join('\n'),
  }));

const oneLineFix: FakeCompareFile = {
  path: 'src/price.ts',
  patch: '@@ -12,1 +12,1 @@\n-  return total;\n+  return Math.round(total);',
};

async function openTask(h: GitHubHarness, pr: number, branch: string): Promise<number> {
  const { body: task } = await h.api('POST', '/api/tasks', { repository: REPO_NAME, pullRequest: pr, branch });
  h.fake.addPull(REPO_NAME, pr, { headSha: sha('0'), headRef: branch });
  return task.id as number;
}

async function noticesOf(h: GitHubHarness, taskId: number): Promise<Array<{ reason: string; message: string }>> {
  return (await h.api('GET', '/api/inbox')).body.notices.filter((n: { taskId: number }) => n.taskId === taskId);
}

/** The agent's push reaches GitHub's webhook (`synchronize`), and nothing else: no CI yet, no tick. */
async function pushedByWebhook(h: GitHubHarness, pr: number, from: string, to: string, branch: string) {
  h.clock.advance(60_000);
  h.fake.setHead(REPO_NAME, pr, sha(to));
  const p = pullRequestPayload({ repo: REPO, number: pr, action: 'synchronize', headSha: sha(to), branch });
  p.before = sha(from);
  p.after = sha(to);
  const res = await post(h.url, delivery('pull_request', p), SECRET);
  assert.ok(res.status < 300, JSON.stringify(res.body));
  await h.app.settle();
}

for (const kind of DATABASE_KINDS) {
  describe(`the bound on diff growth (${kind})`, () => {
    test('a push touching 40 files against a Work bound of 20 is stopped at its webhook, the notice naming the size and the bound', async () => {
      const h = await startGitHubHarness(kind, {
        env: { TASK_CI_AUTO_RESUME_MAX_ATTEMPTS: '5' },
        configExtra: work({ files: 20 }),
      });
      try {
        const taskId = await openTask(h, 51, 'agent/runaway');
        await redHead(h, 51, '1', 'FAIL src/price.test.ts > rounds the total');
        assert.equal(h.runner.starts.length, 1);

        // The agent answers a one-line failure by rewriting 40 files (2 changed lines each).
        h.fake.setCompare(REPO_NAME, sha('1'), sha('2'), files(40));
        await pushedByWebhook(h, 51, '1', '2', 'agent/runaway');
        const notices = await noticesOf(h, taskId);
        assert.deepEqual(
          notices.map((n) => n.reason),
          ['diff_too_large'],
          'stopped at the push itself, before any CI result for it',
        );
        assert.match(notices[0]!.message, /grew past this Work's bound on changed lines or files/);
        assert.match(notices[0]!.message, /touch 40 files and 80 changed lines/);
        assert.match(notices[0]!.message, /bound of 20 files or 1,000 changed lines/);

        // CI's red on the over-grown head buys nothing, and the notice stays the one notice.
        await redHead(h, 51, '2', 'FAIL src/price.test.ts > rounds the total');
        assert.equal(h.runner.starts.length, 1, 'no attempt after the over-grown push');
        assert.equal((await noticesOf(h, taskId)).length, 1);
        const pull = h.fake.state.pulls[`${REPO_NAME}#51`]!;
        assert.deepEqual(pull.labels ?? [], ['fixloop:needs-human'], 'handed to a person');
      } finally {
        await h.close();
      }
    });

    test('growth over several pushes counts: the loop is measured since it began, not push by push', async () => {
      const h = await startGitHubHarness(kind, {
        env: { TASK_CI_AUTO_RESUME_MAX_ATTEMPTS: '5' },
        configExtra: work({ lines: 100 }),
      });
      try {
        const taskId = await openTask(h, 52, 'agent/creep');
        await redHead(h, 52, '1', 'FAIL src/cart.test.ts > totals');
        // Push 1: 60 changed lines — within 100; the next red is answered.
        h.fake.setCompare(REPO_NAME, sha('1'), sha('2'), files(3, 20, 'src/a'));
        await redHead(h, 52, '2', 'FAIL src/cart.test.ts > taxes');
        assert.equal(h.runner.starts.length, 2);
        assert.deepEqual(await noticesOf(h, taskId), []);
        // Push 2 adds another 60 on its own (within the bound), but 120 since the loop began.
        h.fake.setCompare(REPO_NAME, sha('2'), sha('3'), files(3, 20, 'src/b'));
        h.fake.setCompare(REPO_NAME, sha('1'), sha('3'), [...files(3, 20, 'src/a'), ...files(3, 20, 'src/b')]);
        await redHead(h, 52, '3', 'FAIL src/cart.test.ts > discounts');
        assert.equal(h.runner.starts.length, 2, 'the third red is not answered');
        const notices = await noticesOf(h, taskId);
        assert.deepEqual(
          notices.map((n) => n.reason),
          ['diff_too_large'],
        );
        assert.match(
          notices[0]!.message,
          /touch 6 files and 120 changed lines, over this Work's bound of 50 files or 100 changed lines/,
        );
      } finally {
        await h.close();
      }
    });

    test('a one-line fix under the default bound is never stopped: the loop goes on', async () => {
      const h = await startGitHubHarness(kind, { env: { TASK_CI_AUTO_RESUME_MAX_ATTEMPTS: '5' } });
      try {
        const taskId = await openTask(h, 53, 'agent/one-line');
        await redHead(h, 53, '1', 'FAIL src/price.test.ts > rounds the total');
        h.fake.setCompare(REPO_NAME, sha('1'), sha('2'), [oneLineFix]);
        await pushedByWebhook(h, 53, '1', '2', 'agent/one-line');
        assert.deepEqual(await noticesOf(h, taskId), []);
        await redHead(h, 53, '2', 'FAIL src/tax.test.ts > sums the tax');
        assert.equal(h.runner.starts.length, 2, 'the next red is answered');
        assert.deepEqual(await noticesOf(h, taskId), []);
      } finally {
        await h.close();
      }
    });
  });
}
