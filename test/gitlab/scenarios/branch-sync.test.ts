// Issue 36 §2 against the fake GitLab: a merge request whose head conflicts with its target branch
// (detailed_merge_status `conflict`) is one attempt with the conflict frame, said in GitLab's words;
// the same head reported again (the poll, the Merge Request Hook) starts nothing. One that only needs
// a rebase (`need_rebase`) is rebased through GitLab's API with no agent run, recorded as fixloop's
// action and counted against the budget, once per head.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { DATABASE_KINDS } from '../../support/databases.js';
import { GL_PROJECT, redHead, sha, startGitLabHarness, type GitLabHarness } from '../../support/gitlab-harness.js';
import { mrKey } from '../../support/fake-gitlab/state.js';

async function newTask(h: GitLabHarness, iid: number, head: string, status: string): Promise<number> {
  h.openMergeRequest(iid, { headSha: head });
  h.fake.state.mergeRequests[mrKey(GL_PROJECT, iid)]!.detailedMergeStatus = status;
  const created = await h.api('POST', '/api/tasks', {
    repository: GL_PROJECT,
    pullRequest: iid,
    branch: `agent/${iid}`,
  });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  return created.body.id;
}

const view = async (h: GitLabHarness, id: number) => (await h.api('GET', `/api/tasks/${id}`)).body;

for (const kind of DATABASE_KINDS) {
  describe(`a head against its target branch, on GitLab (${kind})`, () => {
    test('a conflict: one attempt with the conflict frame; the poll and the hook for the same head start nothing more', async () => {
      const h = await startGitLabHarness(kind);
      try {
        const taskId = await newTask(h, 31, sha('a'), 'conflict');
        await h.tick();
        assert.equal(h.runner.starts.length, 1);
        const prompt = h.runner.starts[0]!.prompt;
        assert.match(prompt, new RegExp(`^Merge conflict on merge request ${GL_PROJECT}!31 at commit a{40}\\.`));
        assert.match(prompt, /conflicts with its base branch "main"/);
        assert.match(prompt, /merge it into the merge request's branch/);
        assert.ok(!prompt.includes('pull request'), 'GitLab’s words');
        assert.ok(!prompt.includes('The block below holds'), 'no CI log is quoted');

        await h.nextTick();
        const hook = h.mergeRequestHook(31);
        hook.object_attributes.detailed_merge_status = 'conflict';
        const sent = await h.hook('Merge Request Hook', hook);
        assert.equal(sent.status, 202, JSON.stringify(sent.body));
        await h.app.settle();
        assert.equal(h.runner.starts.length, 1, 'the same head again starts nothing');
        assert.deepEqual(
          (await view(h, taskId)).attempts.map((a: { source: string }) => a.source),
          ['conflict'],
        );
      } finally {
        await h.close();
      }
    });

    test('a conflict resolved by merging main, which had deleted a test file: not the agent’s change, the loop goes on', async () => {
      const h = await startGitLabHarness(kind);
      try {
        const taskId = await newTask(h, 35, sha('a'), 'conflict');
        await h.tick();
        assert.equal(h.runner.starts.length, 1, 'the conflict attempt');
        h.runner.finish(h.runner.starts[0]!.runId);
        await h.app.settle();
        // main deleted src/legacy.test.ts; the agent merged main and resolved src/price.ts. GitLab names
        // no blob in a comparison: the same patch on both sides is the same change.
        const gone = {
          old_path: 'src/legacy.test.ts',
          new_path: 'src/legacy.test.ts',
          deleted_file: true,
          diff: "@@ -1,3 +0,0 @@\n-test('legacy', () => {\n-  expect(1).toBe(1);\n-});\n",
        };
        h.fake.state.mergeRequests[mrKey(GL_PROJECT, 35)]!.detailedMergeStatus = 'mergeable';
        h.fake.setCompare(GL_PROJECT, sha('a'), sha('b'), [
          {
            old_path: 'src/price.ts',
            new_path: 'src/price.ts',
            diff: '@@ -12,1 +12,1 @@\n-  return total;\n+  return round(total);\n',
          },
          gone,
        ]);
        h.fake.setCompare(GL_PROJECT, sha('a'), 'main', [gone]);
        await redHead(h, 35, 'b', 'price total is not rounded');
        assert.equal((await view(h, taskId)).notice, null, 'no forbidden_change for the base’s own deletion');
        assert.equal(h.runner.starts.length, 2, 'the red after the merge gets the next attempt');
        assert.match(h.runner.starts[1]!.prompt, /price total is not rounded/);
      } finally {
        await h.close();
      }
    });

    test('need_rebase: rebased through GitLab with no agent run, fixloop’s action, counted, once per head', async () => {
      const h = await startGitLabHarness(kind);
      try {
        const taskId = await newTask(h, 32, sha('b'), 'need_rebase');
        await h.tick();
        assert.equal(h.runner.starts.length, 0, 'no model run');
        assert.deepEqual(
          h.fake.state.rebases.map((r) => [r.iid, r.from]),
          [[32, sha('b')]],
        );
        const decisions = (await h.api('GET', `/api/deliveries?taskId=${taskId}&limit=500`)).body.decisions as Array<{
          outcome: string;
          reason: string | null;
          detail: string | null;
        }>;
        assert.deepEqual(
          decisions.filter((d) => d.outcome === 'updated').map((d) => [d.reason, d.detail]),
          [['branch_updated', 'fixloop updated the branch from main; no agent ran']],
        );
        assert.deepEqual(
          (await view(h, taskId)).attempts.map((a: { source: string }) => a.source),
          ['branch_update'],
        );

        // The hook still says need_rebase of the head it replaced: stale, nothing more.
        const hook = h.mergeRequestHook(32);
        hook.object_attributes.detailed_merge_status = 'need_rebase';
        await h.hook('Merge Request Hook', hook);
        await h.app.settle();
        await h.nextTick();
        assert.equal(h.fake.state.rebases.length, 1, 'not repeated');
        assert.equal((await view(h, taskId)).ciHeadSha, h.fake.state.rebases[0]!.to);
        assert.equal(h.runner.starts.length, 0);
      } finally {
        await h.close();
      }
    });
  });
}
