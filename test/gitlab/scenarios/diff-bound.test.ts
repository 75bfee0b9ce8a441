// Issue 36 item 5 on GitLab: the bound on diff growth reads the merge request's pushes through
// GitLab's repository compare (which gives diffs, not counts: the lines are read from them). A push
// touching 40 files against the Work's bound of 20 is stopped at its Merge Request hook, before its
// pipeline says anything, with the notice naming the size and the bound in GitLab's words; a one-line
// fix under the defaults goes on to the next attempt.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { DATABASE_KINDS } from '../../support/databases.js';
import {
  GL_PROJECT,
  gitlabWorks,
  redHead,
  sha,
  startGitLabHarness,
  type GitLabHarness,
} from '../../support/gitlab-harness.js';
import type { GlCompareDiff } from '../../support/fake-gitlab/state.js';

const withBound = (diffBound?: { lines?: number; files?: number }) => ({
  works: gitlabWorks().map((w) => ({ ...(w as object), ...(diffBound ? { diffBound } : {}) })),
});

const files = (n: number): GlCompareDiff[] =>
  Array.from({ length: n }, (_, i) => ({
    old_path: `src/module-${i}.ts`,
    new_path: `src/module-${i}.ts`,
    diff: `@@ -1,1 +1,1 @@\n-export const v = ${i};\n+export const v = ${i + 1};\n`,
  }));

async function openTask(h: GitLabHarness, iid: number, branch: string): Promise<number> {
  h.openMergeRequest(iid, { headSha: sha('0'), sourceBranch: branch });
  const created = await h.api('POST', '/api/tasks', { repository: GL_PROJECT, pullRequest: iid, branch });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  return created.body.id as number;
}

/** The agent's push announced by its Merge Request hook (with `oldrev`) and nothing else. */
async function pushHook(h: GitLabHarness, iid: number, c: string): Promise<void> {
  h.clock.advance(60_000);
  const oldrev = h.push(iid, sha(c));
  const res = await h.hook('Merge Request Hook', h.mergeRequestHook(iid, { action: 'update', oldrev }));
  assert.equal(res.status, 202, JSON.stringify(res.body));
  await h.app.settle();
}

const noticesOf = async (h: GitLabHarness, taskId: number) =>
  (
    (await h.api('GET', '/api/inbox')).body.notices as Array<{ taskId: number; reason: string; message: string }>
  ).filter((n) => n.taskId === taskId);

for (const kind of DATABASE_KINDS) {
  describe(`GitLab: the bound on diff growth (${kind})`, () => {
    test('a push touching 40 files against a bound of 20 is stopped at its hook, the notice naming the size and the bound', async () => {
      const h = await startGitLabHarness(kind, {
        env: { TASK_CI_AUTO_RESUME_MAX_ATTEMPTS: '5' },
        configExtra: withBound({ files: 20 }),
      });
      try {
        const taskId = await openTask(h, 61, 'agent/runaway');
        await redHead(h, 61, '1', 'FAIL src/price.test.ts > rounds the total');
        assert.equal(h.runner.starts.length, 1);
        h.fake.setCompare(GL_PROJECT, sha('1'), sha('2'), files(40));
        await pushHook(h, 61, '2');
        const notices = await noticesOf(h, taskId);
        assert.deepEqual(
          notices.map((n) => n.reason),
          ['diff_too_large'],
        );
        assert.match(notices[0]!.message, /acme\/shop-gl!61/);
        assert.match(notices[0]!.message, /touch 40 files and 80 changed lines/);
        assert.match(notices[0]!.message, /bound of 20 files or 1,000 changed lines/);
        // The pipeline's red on the over-grown head buys nothing.
        await redHead(h, 61, '2', 'FAIL src/price.test.ts > rounds the total');
        assert.equal(h.runner.starts.length, 1);
        assert.equal((await noticesOf(h, taskId)).length, 1);
      } finally {
        await h.close();
      }
    });

    test('a one-line fix under the default bound is not stopped', async () => {
      const h = await startGitLabHarness(kind, { env: { TASK_CI_AUTO_RESUME_MAX_ATTEMPTS: '5' } });
      try {
        const taskId = await openTask(h, 62, 'agent/one-line');
        await redHead(h, 62, '1', 'FAIL src/price.test.ts > rounds the total');
        h.fake.setCompare(GL_PROJECT, sha('1'), sha('2'), [
          {
            old_path: 'src/price.ts',
            new_path: 'src/price.ts',
            diff: '@@ -12,1 +12,1 @@\n-  return total;\n+  return Math.round(total);\n',
          },
        ]);
        await pushHook(h, 62, '2');
        assert.deepEqual(await noticesOf(h, taskId), []);
        await redHead(h, 62, '2', 'FAIL src/tax.test.ts > sums the tax');
        assert.equal(h.runner.starts.length, 2, 'the next red is answered');
        assert.deepEqual(await noticesOf(h, taskId), []);
      } finally {
        await h.close();
      }
    });
  });
}
