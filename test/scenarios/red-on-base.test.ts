// SPEC T1 against the fake GitHub: the base branch's checks are read from GitHub itself (check runs
// and statuses of the base ref), so a check red on main too buys no run; once main is green again,
// the next red of the pull request goes to the agent. One read of the base answers a poll interval.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { DATABASE_KINDS } from '../support/databases.js';
import { startGitHubHarness, nextTick, sha, type GitHubHarness } from '../support/github-harness.js';

const REPO = 'acme/shop';

async function redPush(h: GitHubHarness, pr: number, c: string, name = 'test') {
  h.clock.advance(120_000);
  h.fake.setHead(REPO, pr, sha(c));
  h.fake.addCheckRun(REPO, sha(c), { name, status: 'completed', conclusion: 'failure', outputSummary: `FAIL ${name}` });
  await h.tick();
}

const decisions = async (h: GitHubHarness, taskId: number) =>
  (await h.api('GET', `/api/deliveries?taskId=${taskId}&limit=500`)).body.decisions as Array<{
    reason: string | null;
    detail: string | null;
  }>;

const boardTriage = async (h: GitHubHarness, id: number) =>
  ((await h.api('GET', '/api/board?limit=50')).body.tasks as Array<{ id: number; triage: string | null }>).find(
    (t) => t.id === id,
  )?.triage;

for (const kind of DATABASE_KINDS) {
  describe(`red on base, read from GitHub (${kind})`, () => {
    test('T1: a check failing on main too is refused; when main turns green the next red reaches the agent', async () => {
      const h = await startGitHubHarness(kind);
      try {
        const { body: task } = await h.api('POST', '/api/tasks', { repository: REPO, pullRequest: 41, branch: 'x/y' });
        h.fake.addPull(REPO, 41, { headSha: sha('0'), headRef: 'x/y' });
        h.fake.addCheckRun(REPO, 'main', { name: 'test', status: 'completed', conclusion: 'failure' });
        h.fake.addStatus(REPO, 'main', { context: 'ci/legacy', state: 'error' });

        await redPush(h, 41, '1');
        assert.equal(h.runner.starts.length, 0, 'no run for what main fails too');
        const refused = (await decisions(h, task.id)).filter((d) => d.reason === 'red_on_base');
        assert.ok(refused.length >= 1);
        assert.match(refused[0]!.detail ?? '', /test is failing on main too/);
        assert.equal(await boardTriage(h, task.id), 'test is failing on main too', 'the board says why');

        // A check main does not fail is the pull request's own.
        await redPush(h, 41, '2', 'lint');
        assert.equal(h.runner.starts.length, 1, 'lint fails only here');
        h.runner.finish(h.runner.starts[0]!.runId);
        await h.app.settle();

        // main turns green; after the cached read expires, the next red of `test` goes to the agent.
        h.fake.addCheckRun(REPO, 'main', { name: 'test', status: 'completed', conclusion: 'success' });
        await nextTick(h);
        await redPush(h, 41, '3');
        assert.equal(h.runner.starts.length, 2, 'the base is green: re-armed');
        assert.equal(await boardTriage(h, task.id), null, 'an attempt claimed since: nothing held back');
        const baseReads = h.fake.requestsTo(/\/commits\/main\/check-runs/).length;
        assert.ok(baseReads >= 2 && baseReads <= 4, `the base was read once per interval, not per red (${baseReads})`);
      } finally {
        await h.close();
      }
    });

    test('T1: a red held on base stays held when the poll offers it again after main turned green; a new run decides again', async () => {
      const h = await startGitHubHarness(kind);
      try {
        await h.api('POST', '/api/tasks', { repository: REPO, pullRequest: 43, branch: 'q/r' });
        h.fake.addPull(REPO, 43, { headSha: sha('6'), headRef: 'q/r' });
        h.fake.addCheckRun(REPO, 'main', { name: 'test', status: 'completed', conclusion: 'failure' });
        await redPush(h, 43, '7');
        assert.equal(h.runner.starts.length, 0);
        // main is fixed; the pull request's head is the same commit, built on the old main.
        h.fake.addCheckRun(REPO, 'main', { name: 'test', status: 'completed', conclusion: 'success' });
        for (let i = 0; i < 3; i++) await nextTick(h); // the poll re-offers the red head each tick
        assert.equal(h.runner.starts.length, 0, 'that run failed against the failing main: no run for it');
        // The job is re-run on the same head, against the fixed main, and still fails: the pull request's own.
        h.clock.advance(120_000);
        h.fake.addCheckRun(REPO, sha('7'), {
          name: 'test',
          status: 'completed',
          conclusion: 'failure',
          outputSummary: 'FAIL test',
        });
        await h.tick();
        assert.equal(h.runner.starts.length, 1);
      } finally {
        await h.close();
      }
    });

    test('T1: a status failing on main too is refused as well', async () => {
      const h = await startGitHubHarness(kind);
      try {
        await h.api('POST', '/api/tasks', { repository: REPO, pullRequest: 42, branch: 'z/w' });
        h.fake.addPull(REPO, 42, { headSha: sha('4'), headRef: 'z/w' });
        h.fake.addStatus(REPO, 'main', { context: 'ci/legacy', state: 'failure' });
        h.clock.advance(120_000);
        h.fake.setHead(REPO, 42, sha('5'));
        h.fake.addStatus(REPO, sha('5'), { context: 'ci/legacy', state: 'failure', description: 'broken' });
        await h.tick();
        assert.equal(h.runner.starts.length, 0);
      } finally {
        await h.close();
      }
    });
  });
}
