// SPEC C1, C5, G1, G2, H1, H2: the budget is rows, one notice per Task, the marker is the stop flag.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { DATABASE_KINDS } from '../support/databases.js';
import { startHarness, REPO, SECRET, type Harness } from '../support/harness.js';
import { checkRunPayload, delivery, post } from '../support/deliveries.js';

const sha = (n: number) => n.toString(16).padStart(40, 'a');

async function redPush(h: Harness, n: number, output: string, pr = 7) {
  const d = delivery(
    'check_run',
    checkRunPayload({
      repo: REPO,
      sha: sha(n),
      id: 1000 + n,
      name: 'test',
      pr: { number: pr, headSha: sha(n) },
      output,
    }),
  );
  const res = await post(h.url, d, SECRET);
  assert.equal(res.status, 202, JSON.stringify(res.body));
  await h.app.settle();
  return d.id;
}

for (const kind of DATABASE_KINDS) {
  describe(`budget and notice (${kind})`, () => {
    let h: Harness;
    let taskId: number;
    before(async () => {
      h = await startHarness(kind, { env: { TASK_CI_AUTO_RESUME_MAX_ATTEMPTS: '2' } });
      const created = await h.api('POST', '/api/tasks', {
        repository: 'acme/shop',
        pullRequest: 7,
        branch: 'agent/fix',
      });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      taskId = created.body.id;
      assert.deepEqual(
        created.body.runs.map((r: any) => [r.action, r.autoResume, r.state]),
        [['start', false, 'completed']],
      );
    });
    after(() => h.close());

    test('C1/G1: budget 2 — two resumes for two different failures, then one notice, then nothing', async () => {
      const first = await redPush(h, 1, 'FAIL src/a.test.ts > adds\nexpected 2, got 3');
      assert.equal(h.runner.starts.length, 1);
      // The decision log follows the delivery from the edge to the claim.
      const trail = (await h.api('GET', `/api/deliveries?delivery=${first}`)).body.decisions
        .map((d: any) => d.outcome)
        .reverse();
      assert.deepEqual(trail, ['stored', 'claimed']);
      h.runner.finish(h.runner.starts[0]!.runId);
      await h.app.settle();

      await redPush(h, 2, 'FAIL src/b.test.ts > parses\nTypeError: x is undefined');
      assert.equal(h.runner.starts.length, 2);
      h.runner.finish(h.runner.starts[1]!.runId);
      await h.app.settle();

      await redPush(h, 3, 'FAIL src/c.test.ts > renders\nsnapshot mismatch');
      assert.equal(h.runner.starts.length, 2, 'no third resume');
      let view = (await h.api('GET', `/api/tasks/${taskId}`)).body;
      assert.equal(view.attempts.length, 2);
      assert.equal(view.notice?.reason, 'budget_spent');
      assert.equal(view.notice.attemptsUsed, 2);
      assert.equal(view.notice.headSha, sha(3));
      assert.equal((await h.api('GET', '/api/inbox')).body.notices.length, 1);

      await redPush(h, 4, 'FAIL src/d.test.ts > anything');
      view = (await h.api('GET', `/api/tasks/${taskId}`)).body;
      assert.equal(h.runner.starts.length, 2);
      assert.equal(view.attempts.length, 2);
      assert.equal((await h.api('GET', '/api/inbox')).body.notices.length, 1, 'still exactly one notice');
      const decisions = (await h.api('GET', `/api/deliveries?taskId=${taskId}`)).body.decisions;
      assert.ok(
        decisions.some((d: any) => d.outcome === 'refused' && d.reason === 'notice_filed'),
        'push 4 is a read: notice_filed',
      );
      // H1: the machine's runs are stamped as such.
      assert.deepEqual(
        view.runs.map((r: any) => [r.action, r.autoResume]),
        [
          ['start', false],
          ['resume', true],
          ['resume', true],
        ],
      );
      // H2: each attempt's failing output was stored as a gate rejection.
      assert.equal(view.rejections.filter((r: any) => r.source === 'gate').length, 2);
      assert.match(h.runner.starts[0]!.prompt, /expected 2, got 3/);
    });
  });

  describe(`unchanged failure (${kind})`, () => {
    test('C5: the same failure on a new commit resumes nothing and the notice says so', async () => {
      const h = await startHarness(kind, { runner: undefined });
      try {
        const { body } = await h.api('POST', '/api/tasks', {
          repository: 'acme/shop',
          pullRequest: 8,
          branch: 'agent/x',
        });
        await redPush(h, 11, 'FAIL test/x.test.ts\nAssertionError at 12:01:33 in /tmp/run-123/x.js', 8);
        h.runner.finish(h.runner.starts[0]!.runId);
        await h.app.settle();
        await redPush(h, 12, 'FAIL test/x.test.ts\nAssertionError at 13:45:09 in /tmp/run-987/x.js', 8);
        assert.equal(h.runner.starts.length, 1);
        const view = (await h.api('GET', `/api/tasks/${body.id}`)).body;
        assert.equal(view.notice.reason, 'unchanged_failure');
        assert.match(view.notice.message, /same failure/);
      } finally {
        await h.close();
      }
    });
  });
}
