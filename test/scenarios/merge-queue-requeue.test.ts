// Issue 36 item 1, re-queueing (per Work `requeueAfterFix`), against the fake GitHub on both databases:
// the fix of a merge-queue failure, once the poll finds its head passing, is put back in the queue
// with GraphQL `enqueuePullRequest` (expected head: the green one) exactly once; a Work that does not
// ask leaves it to a person.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { DATABASE_KINDS } from '../support/databases.js';
import { startGitHubHarness, nextTick, sha, type GitHubHarness } from '../support/github-harness.js';
import { SECRET, REPO } from '../support/harness.js';
import { checkRunPayload, delivery, post, pullRequestPayload } from '../support/deliveries.js';

const FULL = 'acme/shop';
const WORKS = (requeueAfterFix: boolean) => ({
  works: [
    {
      name: 'shop',
      account: 'acme',
      requeueAfterFix,
      repositories: [{ name: FULL, role: 'data' }],
    },
  ],
});

/** A pull request green on its own whose queue commit fails, and the agent's green fix. */
async function queueFailureFixed(h: GitHubHarness, pr: number): Promise<void> {
  await h.api('POST', '/api/tasks', { repository: FULL, pullRequest: pr, branch: 'agent/fix' });
  h.fake.addPull(FULL, pr, { headSha: sha('1'), headRef: 'agent/fix' });
  h.fake.addCheckRun(FULL, sha('1'), { name: 'test', status: 'completed', conclusion: 'success' });
  await nextTick(h);
  const queueRed = checkRunPayload({
    repo: REPO,
    sha: sha('9'),
    id: 71_001,
    name: 'test',
    output: 'FAIL combined with the queue',
    branch: `gh-readonly-queue/main/pr-${pr}-${sha('1')}`,
    pr: null,
  });
  assert.equal((await post(h.url, delivery('check_run', queueRed), SECRET)).status, 202);
  await h.app.settle();
  assert.equal(h.runner.starts.length, 1, 'one attempt for the queue failure');
  // The agent pushes its fix; it is green on its own.
  h.clock.advance(60_000);
  h.fake.setHead(FULL, pr, sha('2'));
  h.fake.addCheckRun(FULL, sha('2'), { name: 'test', status: 'completed', conclusion: 'success' });
  const push = pullRequestPayload({ repo: REPO, number: pr, action: 'synchronize', headSha: sha('2') });
  push.before = sha('1');
  assert.equal((await post(h.url, delivery('pull_request', push), SECRET)).status, 202);
  h.runner.finish(h.runner.starts[0]!.runId);
  await h.app.settle();
}

for (const kind of DATABASE_KINDS) {
  describe(`merge queue re-queue (${kind})`, () => {
    test('requeueAfterFix: the green fix goes back in the queue once, with its head expected', async () => {
      const h = await startGitHubHarness(kind, { configExtra: WORKS(true) });
      try {
        await queueFailureFixed(h, 70);
        // Enough ticks for the passing head to be read again (a passing Task is read every 10 intervals).
        for (let i = 0; i < 12; i++) await nextTick(h);
        assert.deepEqual(h.fake.state.enqueued, [{ repository: FULL, number: 70, expectedHeadOid: sha('2') }]);
        const decisions = (await h.api('GET', '/api/deliveries?limit=500')).body.decisions as any[];
        assert.equal(decisions.filter((d) => d.outcome === 'requeued' && d.reason === 'requeued').length, 1);
      } finally {
        await h.close();
      }
    });

    test('without requeueAfterFix the pull request is left for a person to queue', async () => {
      const h = await startGitHubHarness(kind, { configExtra: WORKS(false) });
      try {
        await queueFailureFixed(h, 71);
        await nextTick(h);
        await nextTick(h);
        assert.equal(h.fake.state.enqueued, undefined);
      } finally {
        await h.close();
      }
    });
  });
}
