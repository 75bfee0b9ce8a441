// SPEC T4 through the real pipeline: after an attempt the agent pushes a head on which no CI runs (a
// token whose pushes start no workflows, a path filter). Within `triage.noCiMinutes` fixloop waits;
// past it the loop files its one notice, which says so, and the pull request gets the hand-off. A head
// whose CI did start, even only queued, is never told as "no CI".
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { DATABASE_KINDS } from '../support/databases.js';
import { startGitHubHarness, type GitHubHarness } from '../support/github-harness.js';
import { endRun, nextTick, reportOutcome, sha, taskWithRedHead } from '../support/loop-driver.js';

const REPO = 'acme/shop';

/** One attempt on a red head; its agent says it pushed a fix, and the run ends. */
async function attemptThatActed(h: GitHubHarness, pr: number, head: string) {
  const taskId = await taskWithRedHead(h, pr, head, 'FAIL src/cart.test.ts: expected 3 to be 4');
  await nextTick(h);
  assert.equal(h.runner.starts.length, 1);
  const run = h.runner.starts[0]!;
  await reportOutcome(h, run, 'action_taken', 'pushed a fix');
  await endRun(h, run);
  return taskId;
}

const view = async (h: GitHubHarness, id: number) => (await h.api('GET', `/api/tasks/${id}`)).body;

for (const kind of DATABASE_KINDS) {
  describe(`no CI for the agent's new head (${kind})`, () => {
    test('T4: a pushed head with no check run or status for 10 minutes files the notice that says so', async () => {
      const h = await startGitHubHarness(kind, { env: { TASK_CI_AUTO_RESUME_MAX_ATTEMPTS: '3' } });
      try {
        const taskId = await attemptThatActed(h, 51, sha('1'));
        h.fake.setHead(REPO, 51, sha('2')); // the agent's push, and no workflow starts
        await nextTick(h); // the poll sees the new head
        await nextTick(h, 5 * 60_000);
        assert.equal((await view(h, taskId)).notice, null, 'still within the wait');

        await nextTick(h, 6 * 60_000);
        const v = await view(h, taskId);
        assert.equal(v.notice?.reason, 'no_ci');
        assert.match(v.notice.message, /no CI ran on the new head/);
        assert.match(v.notice.message, new RegExp(`no check run or status appeared on ${sha('2').slice(0, 12)}`));
        assert.equal(h.runner.starts.length, 1, 'nothing more was spent');
        await nextTick(h);
        assert.deepEqual(h.fake.state.pulls[`${REPO}#51`]!.labels, ['fixloop:needs-human'], 'the hand-off');
        const inbox = (await h.api('GET', '/api/inbox')).body.notices.filter((n: any) => n.taskId === taskId);
        assert.equal(inbox.length, 1, 'one notice');
      } finally {
        await h.close();
      }
    });

    test('T4: a head whose CI started (queued) or reported a status is not "no CI"; triage.noCiMinutes: 0 turns it off', async () => {
      const h = await startGitHubHarness(kind, { env: { TASK_CI_AUTO_RESUME_MAX_ATTEMPTS: '3' } });
      try {
        const taskId = await attemptThatActed(h, 52, sha('3'));
        h.fake.setHead(REPO, 52, sha('4'));
        h.fake.addCheckRun(REPO, sha('4'), { name: 'test', status: 'queued' });
        for (let i = 0; i < 8; i++) await nextTick(h);
        assert.equal((await view(h, taskId)).notice, null, 'a queued check is CI');
      } finally {
        await h.close();
      }
      const s = await startGitHubHarness(kind, { env: { TASK_CI_AUTO_RESUME_MAX_ATTEMPTS: '3' } });
      try {
        const taskId = await attemptThatActed(s, 53, sha('5'));
        s.fake.setHead(REPO, 53, sha('6'));
        s.fake.addStatus(REPO, sha('6'), { context: 'ci/legacy', state: 'pending' });
        for (let i = 0; i < 8; i++) await nextTick(s);
        assert.equal((await view(s, taskId)).notice, null, 'a status is CI');
      } finally {
        await s.close();
      }
      const off = await startGitHubHarness(kind, {
        env: { TASK_CI_AUTO_RESUME_MAX_ATTEMPTS: '3' },
        configExtra: { triage: { noCiMinutes: 0 } },
      });
      try {
        const taskId = await attemptThatActed(off, 54, sha('7'));
        off.fake.setHead(REPO, 54, sha('8'));
        for (let i = 0; i < 8; i++) await nextTick(off);
        assert.equal((await view(off, taskId)).notice, null, 'turned off');
      } finally {
        await off.close();
      }
    });
  });
}
