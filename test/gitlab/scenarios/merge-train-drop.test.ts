// Issue 36 item 1 on GitLab, both databases (decision 0075): a merge train drop told to a person. GitLab
// cancels the train pipeline of a merge request it drops, and says why only in a system note on it
// ("removed this merge request from the merge train because …"); a cancelled train pipeline makes
// fixloop read that note. A reason no agent can fix (a conflict, a person's removal) files the Task's
// one notice, as GitHub's `dequeued` does; a pipeline only restarted behind another's removal (the
// merge request joined the train again) tells nobody; nothing runs an agent either way.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { DATABASE_KINDS } from '../../support/databases.js';
import { GL_PROJECT, sha, startGitLabHarness, type GitLabHarness } from '../../support/gitlab-harness.js';

const train = (iid: number) => `refs/merge-requests/${iid}/train`;

/** A Task on merge request `iid`, its latest system note about the train `note`, its train pipeline cancelled. */
async function cancelledTrain(h: GitLabHarness, iid: number, note: string) {
  h.openMergeRequest(iid, { headSha: sha('a') });
  const created = await h.api('POST', '/api/tasks', {
    repository: GL_PROJECT,
    pullRequest: iid,
    branch: `agent/${iid}`,
  });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  h.fake.addNote(GL_PROJECT, iid, { body: 'started a merge train', author: 'maintainer', system: true });
  h.fake.addNote(GL_PROJECT, iid, { body: note, author: 'maintainer', system: true });
  const pipeline = h.runPipeline(iid, sha('7'), [{ name: 'integration', status: 'canceled' }]);
  const hook = h.pipelineHook(pipeline, 'canceled');
  hook.object_attributes.ref = train(iid);
  const sent = await h.hook('Pipeline Hook', hook);
  assert.equal(sent.status, 202, JSON.stringify(sent.body));
  await h.app.settle();
  return { taskId: created.body.id as number, hook, key: sent.key };
}

const view = async (h: GitLabHarness, id: number) => (await h.api('GET', `/api/tasks/${id}`)).body;

for (const kind of DATABASE_KINDS) {
  describe(`merge train drop (${kind})`, () => {
    for (const [why, note, said] of [
      [
        'a conflict with a merge request ahead',
        'removed this merge request from the merge train because it has merge conflicts',
        /conflicts with a pull request ahead of it in the merge queue.*it has merge conflicts/,
      ],
      [
        'a person’s removal',
        'removed this merge request from the merge train',
        /a person removed it from the merge queue/,
      ],
    ] as const) {
      test(`${why}: the Task's one notice for a person, no attempt; a redelivery files nothing more`, async () => {
        const h = await startGitLabHarness(kind);
        try {
          const { taskId, hook, key } = await cancelledTrain(h, 41, note);
          assert.equal(h.runner.starts.length, 0, 'no agent for what no push can fix');
          const v = await view(h, taskId);
          assert.equal(v.notice?.reason, 'queue_ejected', JSON.stringify(v.notice));
          assert.match(v.notice.message, said);
          assert.equal((await h.hook('Pipeline Hook', hook, { key })).status, 200);
          await h.app.settle();
          const notices = (await h.api('GET', '/api/inbox')).body.notices;
          assert.equal(notices.filter((n: { taskId: number }) => n.taskId === taskId).length, 1, 'one notice');
        } finally {
          await h.close();
        }
      });
    }

    test('a train pipeline only restarted behind another’s removal (it joined the train again): nobody told, no attempt', async () => {
      const h = await startGitLabHarness(kind);
      try {
        const { taskId } = await cancelledTrain(h, 42, 'added this merge request to the merge train at position 2');
        assert.equal(h.runner.starts.length, 0);
        assert.equal((await view(h, taskId)).notice, null);
        const reads = h.fake.requests.filter((r) => r.method === 'GET' && /merge_requests\/42\/notes/.test(r.path));
        assert.ok(reads.length >= 1, 'its notes were read');
      } finally {
        await h.close();
      }
    });
  });
}
