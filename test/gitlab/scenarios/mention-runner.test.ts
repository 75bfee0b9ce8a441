// Issue 35 item 6 on both databases: the mention runner on a GitLab merge request. A failed pipeline
// job resumes `@claude` (run by the team in GitLab CI) with a note on the merge request, in GitLab's
// words, posted as fixloop's own GitLab identity; the agent's push to the source branch ends the run as
// action taken, and nothing else is needed from it. GitLab Duo (decision 0074) is mentioned by its flow's
// service account, as the person whose GitLab token is FIXLOOP_GITLAB_MENTION_TOKEN (`as: user`): a
// Duo flow's mention trigger refuses a bot's mention.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { DATABASE_KINDS } from '../../support/databases.js';
import {
  GL_BOT,
  GL_PROJECT,
  openOnFakeGitLab,
  redPush,
  sha,
  startGitLabHarness,
  startGitLabWorld,
} from '../../support/gitlab-harness.js';
import { until } from '../../support/server-process.js';
import { attemptRows } from '../../support/loop-driver.js';

const IID = 70;

for (const kind of DATABASE_KINDS) {
  describe(`the mention runner on GitLab (${kind})`, () => {
    test('a failed job mentions @claude in a note on the merge request; its push ends the run as action taken', async () => {
      const h = await startGitLabHarness(kind, {
        configExtra: { runner: { kind: 'mention', agent: 'claude' } },
        adapters: { runner: undefined, adoptEveryMs: 20 },
      });
      try {
        h.openMergeRequest(IID, { headSha: sha('0') });
        const created = await h.api('POST', '/api/tasks', {
          repository: GL_PROJECT,
          pullRequest: IID,
          branch: `agent/${IID}`,
        });
        assert.equal(created.status, 201, JSON.stringify(created.body));
        const taskId = created.body.id as number;

        await redPush(h, IID, '1', 'FAIL src/cart.test.ts: expected 3 to be 4', { finish: false });
        const note = await until('the mention note', async () =>
          h.notes(IID).find((n) => n.body.startsWith('@claude')),
        );
        assert.equal(note.author, GL_BOT, "posted as fixloop's own identity");
        assert.match(note.body, /^@claude `test` is failing on this merge request at 111111111111\./);
        assert.match(note.body, /FAIL src\/cart\.test\.ts: expected 3 to be 4/);
        assert.doesNotMatch(note.body, /pull request/);

        // Claude, in the team's GitLab CI, pushes its fix to the source branch.
        const oldrev = h.push(IID, sha('2'));
        const pushed = await h.hook('Merge Request Hook', h.mergeRequestHook(IID, { action: 'update', oldrev }));
        assert.equal(pushed.status, 202);
        const [row] = await until('the attempt acknowledged by the push', async () => {
          const rows = await attemptRows(h.app, taskId);
          return rows[0]?.state === 'acknowledged' ? rows : null;
        });
        assert.equal(row!.outcome, 'action_taken');
        assert.equal((await h.api('GET', `/api/tasks/${taskId}`)).body.notice, null);
      } finally {
        await h.close();
      }
    });

    test("GitLab Duo: a failed job mentions the Duo flow's service account, in a note posted as the person (as: user)", async () => {
      const world = await startGitLabWorld();
      const h = await openOnFakeGitLab(kind, world, {
        env: { GITLAB_URL: world.fake.url, FIXLOOP_GITLAB_MENTION_TOKEN: world.fake.addToken('dana-dev') },
        configExtra: { runner: { kind: 'mention', agent: 'duo', trigger: '@duo-developer-acme' } },
        adapters: { runner: undefined, adoptEveryMs: 20 },
      });
      try {
        h.openMergeRequest(IID + 1, { headSha: sha('3') });
        const created = await h.api('POST', '/api/tasks', {
          repository: GL_PROJECT,
          pullRequest: IID + 1,
          branch: `agent/${IID + 1}`,
        });
        assert.equal(created.status, 201, JSON.stringify(created.body));
        const taskId = created.body.id as number;

        await redPush(h, IID + 1, '4', 'FAIL src/api.test.ts: the order has no id', { finish: false });
        const note = await until('the mention note', async () =>
          h.notes(IID + 1).find((n) => n.body.startsWith('@duo-developer-acme')),
        );
        assert.equal(note.author, 'dana-dev', "posted with the person's GitLab token, not fixloop's");
        assert.match(note.body, /^@duo-developer-acme `test` is failing on this merge request at 444444444444\./);
        assert.match(note.body, /FAIL src\/api\.test\.ts: the order has no id/);
        assert.equal(h.notes(IID + 1).filter((n) => n.author === GL_BOT && n.body.startsWith('@')).length, 0);

        // Duo Developer pushes its fix to the source branch: the run ends as action taken.
        const oldrev = h.push(IID + 1, sha('5'));
        const pushed = await h.hook('Merge Request Hook', h.mergeRequestHook(IID + 1, { action: 'update', oldrev }));
        assert.equal(pushed.status, 202);
        const [row] = await until('the attempt acknowledged by the push', async () => {
          const rows = await attemptRows(h.app, taskId);
          return rows[0]?.state === 'acknowledged' ? rows : null;
        });
        assert.equal(row!.outcome, 'action_taken');
      } finally {
        await h.close();
        await world.fake.close();
      }
    });
  });
}
