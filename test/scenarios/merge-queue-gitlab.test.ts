// Issue 36 item 1 on GitLab, both databases: a failing job of a merge train's pipeline (ref
// `refs/merge-requests/<iid>/train`, never the merge request's head) is a red of merge request iid,
// answered by one attempt framed as failing only combined with the train, its log read on the
// train's commit; a redelivery and the pipeline's own summary start nothing more. (A train drop for a
// reason no agent can fix is told to a person: test/gitlab/scenarios/merge-train-drop.test.ts.)
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { DATABASE_KINDS } from '../support/databases.js';
import { GL_PROJECT, sha, startGitLabHarness } from '../support/gitlab-harness.js';

const train = (iid: number) => `refs/merge-requests/${iid}/train`;

for (const kind of DATABASE_KINDS) {
  describe(`merge train (${kind})`, () => {
    test('a failing job of the train: one attempt on the head, framed as failing only combined with the train', async () => {
      const h = await startGitLabHarness(kind);
      try {
        const iid = 31;
        h.openMergeRequest(iid, { headSha: sha('a') });
        const created = await h.api('POST', '/api/tasks', {
          repository: GL_PROJECT,
          pullRequest: iid,
          branch: `agent/${iid}`,
        });
        assert.equal(created.status, 201, JSON.stringify(created.body));
        assert.equal((await h.hook('Merge Request Hook', h.mergeRequestHook(iid, { action: 'open' }))).status, 202);
        await h.app.settle();

        const pipeline = h.runPipeline(iid, sha('7'), [
          {
            name: 'integration',
            status: 'failed',
            trace: 'FAIL checkout combined with !30: discounts is not a function',
          },
        ]);
        const job = h.jobHook(pipeline.jobs[0]!);
        job.ref = train(iid);
        const sent = await h.hook('Job Hook', job);
        assert.equal(sent.status, 202, JSON.stringify(sent.body));
        await h.app.settle();

        assert.equal(h.runner.starts.length, 1, 'one attempt');
        const run = h.runner.starts[0]!;
        assert.equal(run.headSha, sha('a'), "on the merge request's head, not the train's commit");
        assert.match(run.prompt, /fails only combined with the queue \(base \+ these merge requests\)/);
        assert.match(run.prompt, /discounts is not a function/, "the failed job's log, read on the train's commit");

        // The same delivery again, and the train pipeline's own summary: nothing more.
        assert.equal((await h.hook('Job Hook', job, { key: sent.key })).status, 200);
        const summary = h.pipelineHook(pipeline, 'failed');
        summary.object_attributes.ref = train(iid);
        await h.hook('Pipeline Hook', summary);
        await h.app.settle();
        assert.equal(h.runner.starts.length, 1, 'still one attempt');
        const view = (await h.api('GET', `/api/tasks/${created.body.id}`)).body;
        assert.equal(view.attempts.length, 1);
      } finally {
        await h.close();
      }
    });
  });
}
