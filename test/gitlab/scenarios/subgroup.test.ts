// Issue 19, SPEC Q1/Q2 (decision 0032): a gitlab Work's project may sit in a subgroup
// (`acme/platform/shop`). The loop works there end to end: the merge request opened on agent/* is
// adopted from its hook, its red job resumes the agent, the poll reads the merge request and its
// pipeline through the API, and the hand-off lands on that merge request.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { DATABASE_KINDS } from '../../support/databases.js';
import {
  GL_SUBGROUP_PROJECT,
  finishLast,
  sha,
  startGitLabHarness,
  stateNotes,
  type GitLabHarness,
} from '../../support/gitlab-harness.js';
import { STATE_MARKER } from '../../../src/core/state-comment.js';

async function adopted(h: GitLabHarness, iid: number): Promise<any> {
  h.openMergeRequest(iid, { headSha: sha('a'), sourceBranch: 'agent/subgroup' });
  const r = await h.hook('Merge Request Hook', h.mergeRequestHook(iid, { action: 'open' }));
  assert.equal(r.status, 202, JSON.stringify(r.body));
  await h.app.settle();
  const tasks = (await h.api('GET', '/api/tasks')).body.tasks;
  return tasks.find((t: any) => t.repository === GL_SUBGROUP_PROJECT && t.pullRequest === iid);
}

for (const kind of DATABASE_KINDS) {
  describe(`GitLab project in a subgroup (${kind})`, () => {
    test('Q1/Q2: a merge request in acme/platform/shop is adopted from its hook, its red job resumes the agent, and the poll hands it off there', async () => {
      const h = await startGitLabHarness(kind, {
        project: GL_SUBGROUP_PROJECT,
        env: { TASK_CI_AUTO_RESUME_MAX_ATTEMPTS: '1' },
      });
      try {
        const task = await adopted(h, 3);
        assert.ok(task, 'adopted');
        assert.equal(task.ciHeadSha, sha('a'));
        h.clock.advance(60_000);
        const [job] = h.runPipeline(3, sha('a'), [{ name: 'test', status: 'failed', trace: 'FAIL a' }]).jobs;
        const red = await h.hook('Job Hook', h.jobHook(job!));
        assert.equal(red.status, 202, JSON.stringify(red.body));
        await h.app.settle();
        assert.equal(h.runner.starts.length, 1);
        assert.equal(h.runner.starts[0]!.pullRequest, 3);
        await h.nextTick();
        await finishLast(h);
        const v = (await h.api('GET', `/api/tasks/${task.id}`)).body;
        assert.equal(v.gate.verdict, 'red', 'the poll read the pipeline of the subgroup project');
        assert.deepEqual(v.gate.failing, ['test']);
        assert.equal(stateNotes(h, 3, STATE_MARKER).length, 1, 'the state note is on the merge request');

        // The agent's fix fails again: the budget of one is spent, the loop stops and hands off.
        h.clock.advance(120_000);
        h.push(3, sha('b'));
        h.runPipeline(3, sha('b'), [{ name: 'test', status: 'failed', trace: 'FAIL b' }]);
        await h.tick();
        assert.equal(h.runner.starts.length, 1);
        assert.ok((await h.api('GET', `/api/tasks/${task.id}`)).body.notice, 'a notice was filed');
        assert.deepEqual(h.labels(3), ['fixloop:needs-human']);
        assert.equal(stateNotes(h, 3, STATE_MARKER).length, 1);
      } finally {
        await h.close();
      }
    });

    test('Q1/M2: the API registers a Task for a subgroup project and lists the Tasks of that project', async () => {
      const h = await startGitLabHarness(kind, { project: GL_SUBGROUP_PROJECT });
      try {
        h.openMergeRequest(4, { headSha: sha('c') });
        const created = await h.api('POST', '/api/tasks', {
          repository: GL_SUBGROUP_PROJECT,
          pullRequest: 4,
          branch: 'agent/4',
        });
        assert.equal(created.status, 201, JSON.stringify(created.body));
        const listed = await h.api('GET', `/api/tasks?repository=${encodeURIComponent(GL_SUBGROUP_PROJECT)}`);
        assert.equal(listed.status, 200, JSON.stringify(listed.body));
        assert.deepEqual(
          listed.body.tasks.map((t: any) => t.pullRequest),
          [4],
        );
      } finally {
        await h.close();
      }
    });
  });
}
