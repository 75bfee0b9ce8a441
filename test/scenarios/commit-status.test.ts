// SPEC P3: the `fixloop` commit status on the pull request's head says what the loop is doing,
// where people already look: "attempt 1 of 2 running" while the agent works, "needs a person:
// budget spent" after the stop, "off" when a person turns it off. It is written only when it
// changes, and fixloop never reads its own status back as a CI result.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { DATABASE_KINDS } from '../support/databases.js';
import { startGitHubHarness, nextTick, sha, type GitHubHarness } from '../support/github-harness.js';
import { delivery, post, statusPayload } from '../support/deliveries.js';
import { SECRET } from '../support/harness.js';

const REPO = 'acme/shop';

/** fixloop's statuses on the commit, oldest first. */
const ownStatuses = (h: GitHubHarness, c: string) =>
  (h.fake.state.statuses[`${REPO}@${sha(c)}`] ?? []).filter((s) => s.context === 'fixloop');
const latestOwn = (h: GitHubHarness, c: string) => ownStatuses(h, c).at(-1);

async function until<T>(what: string, read: () => T | undefined, ok: (v: T | undefined) => boolean): Promise<T> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const v = read();
    if (ok(v)) return v as T;
    if (Date.now() > deadline) assert.fail(`${what}: still ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const statusIs = (h: GitHubHarness, c: string, state: string, description: string) =>
  until(
    `fixloop status on ${c}`,
    () => latestOwn(h, c),
    (s) => s?.state === state && s?.description === description,
  );

/** A red check on a new head, seen by the poll; the run it starts keeps running. */
async function redPush(h: GitHubHarness, pr: number, c: string, output: string) {
  h.clock.advance(120_000);
  h.fake.setHead(REPO, pr, sha(c));
  h.fake.addCheckRun(REPO, sha(c), { name: 'test', status: 'completed', conclusion: 'failure', outputSummary: output });
  await h.tick();
}

for (const kind of DATABASE_KINDS) {
  describe(`the fixloop commit status (${kind})`, () => {
    test('P3: the status follows the loop through two attempts to the stop, and says why a person is needed', async () => {
      const h = await startGitHubHarness(kind, {
        env: { TASK_CI_AUTO_RESUME_MAX_ATTEMPTS: '2', FIXLOOP_PUBLIC_URL: 'https://fixloop.example' },
        adapters: { commitStatusEveryMs: 20 },
      });
      try {
        const { body: task } = await h.api('POST', '/api/tasks', { repository: REPO, pullRequest: 31, branch: 'a/b' });
        h.fake.addPull(REPO, 31, { headSha: sha('0'), headRef: 'a/b' });
        await nextTick(h);
        assert.deepEqual(ownStatuses(h, '0'), [], 'nothing to say before the loop acts');

        await redPush(h, 31, '1', 'first failure');
        assert.equal(h.runner.starts.length, 1);
        const running = await statusIs(h, '1', 'pending', 'attempt 1 of 2 running');
        assert.equal(running.targetUrl, `https://fixloop.example/tasks/${task.id}`);
        h.runner.finish(h.runner.starts[0]!.runId);
        await h.app.settle();

        await redPush(h, 31, '2', 'second failure');
        assert.equal(h.runner.starts.length, 2);
        await statusIs(h, '2', 'pending', 'attempt 2 of 2 running');
        h.runner.finish(h.runner.starts[1]!.runId);
        await h.app.settle();

        await redPush(h, 31, '3', 'third failure'); // budget spent: the stop
        assert.equal(h.runner.starts.length, 2);
        await statusIs(h, '3', 'failure', 'needs a person: budget spent');

        // Its own red status is not CI's: later ticks start nothing and write nothing new.
        const written = ownStatuses(h, '3').length;
        await nextTick(h);
        await nextTick(h);
        assert.equal(h.runner.starts.length, 2);
        assert.equal(ownStatuses(h, '3').length, written, 'written once per change, not per tick');
        const log = (await h.api('GET', `/api/deliveries?taskId=${task.id}&limit=500`)).body.decisions as Array<{
          reason: string | null;
        }>;
        assert.ok(!log.some((d) => d.reason === 'attempt_in_flight'));

        // A person turns the loop off: the status says so within seconds, without a poll tick.
        assert.equal((await h.api('PUT', `/api/tasks/${task.id}/loop`, { on: false })).status, 200);
        await statusIs(h, '3', 'success', 'off: a person turned the loop off');
      } finally {
        await h.close();
      }
    });

    test("P3: a `fixloop` status failure delivered by webhook is fixloop's own and rings nothing", async () => {
      const h = await startGitHubHarness(kind);
      try {
        await h.api('POST', '/api/tasks', { repository: REPO, pullRequest: 32, branch: 'c/d' });
        h.fake.addPull(REPO, 32, { headSha: sha('5'), headRef: 'c/d' });
        await nextTick(h);
        const res = await post(
          h.url,
          delivery(
            'status',
            statusPayload({
              repo: { owner: 'acme', name: 'shop' },
              sha: sha('5'),
              context: 'fixloop',
              state: 'failure',
              branch: 'c/d',
            }),
          ),
          SECRET,
        );
        assert.equal(res.status, 200);
        assert.equal(res.body.outcome, 'ignored');
        assert.equal(res.body.reason, 'own_status');
        // Nor does the poll read it back as a red check.
        h.fake.addStatus(REPO, sha('5'), { context: 'fixloop', state: 'failure', description: 'needs a person' });
        await nextTick(h);
        assert.equal(h.runner.starts.length, 0);
      } finally {
        await h.close();
      }
    });

    test('P3: handoff.commitStatus: false writes no status', async () => {
      const h = await startGitHubHarness(kind, {
        env: { TASK_CI_AUTO_RESUME_MAX_ATTEMPTS: '1' },
        configExtra: { handoff: { commitStatus: false } },
        adapters: { commitStatusEveryMs: 20 },
      });
      try {
        await h.api('POST', '/api/tasks', { repository: REPO, pullRequest: 33, branch: 'e/f' });
        h.fake.addPull(REPO, 33, { headSha: sha('6'), headRef: 'e/f' });
        await redPush(h, 33, '7', 'a failure');
        assert.equal(h.runner.starts.length, 1);
        // No watch and no publisher exist when it is off: the poll's pass (which writes the status when it
        // is on, as the tests above show) and the drained lanes are all there is to wait for.
        await nextTick(h);
        assert.deepEqual(ownStatuses(h, '7'), []);
      } finally {
        await h.close();
      }
    });
  });
}
