// Issue 19 (decision 0032): a gitlab Work's project is never read or written through GitHub's API —
// not by the poll, the commit status, the hand-off or the gate — whatever a GitHub repository of the
// same name (a mirror) holds. Both databases: the Task and its attempt are in the ledger.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { DATABASE_KINDS } from '../support/databases.js';
import { startGitHubHarness, type GitHubHarness } from '../support/github-harness.js';

const PROJECT = 'gitlab-org/gitlab-test';
const TOKEN = 'gitlab-token';

for (const kind of DATABASE_KINDS) {
  describe(`GitLab projects beside GitHub access (${kind})`, () => {
    let h: GitHubHarness;
    before(async () => {
      h = await startGitHubHarness(kind, {
        env: { GITLAB_WEBHOOK_SECRET: TOKEN },
        configExtra: {
          works: [
            { name: 'shop', account: 'acme', repositories: [{ name: 'acme/shop', role: 'data' }] },
            { name: 'lab', account: 'gitlab-org', provider: 'gitlab', repositories: [{ name: PROJECT, role: 'data' }] },
          ],
        },
      });
    });
    after(() => h.close());

    test('a red GitLab job buys its attempt, and neither the gate nor the poll asks GitHub about the project', async () => {
      const created = await h.api('POST', '/api/tasks', { repository: PROJECT, pullRequest: 1, branch: 'feature' });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const job = JSON.parse(readFileSync(new URL('../fixtures/gitlab/job-hook.json', import.meta.url), 'utf8'));
      const body = JSON.stringify({
        ...job,
        ref: 'refs/merge-requests/1/head',
        build_status: 'failed',
        build_finished_at: '2026-11-30 08:00:00 UTC',
      });
      const res = await fetch(`${h.url}/api/gitlab/webhooks`, {
        method: 'POST',
        headers: { 'x-gitlab-token': TOKEN, 'x-gitlab-event': 'Job Hook', 'content-type': 'application/json' },
        body,
      });
      assert.equal(res.status, 202, await res.text());
      await h.app.settle();
      assert.equal(h.runner.starts.length, 1);
      h.clock.advance(120_000);
      await h.tick();
      assert.deepEqual(h.fake.requestsTo(/gitlab-org/), []);
      const task = (await h.api('GET', `/api/tasks/${created.body.id}`)).body;
      assert.equal(task.prState, 'open', 'the poll did not read a GitHub pull request for it');
    });
  });
}
