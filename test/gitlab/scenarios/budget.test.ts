// Issue 19, SPEC Q2/Q3 with C1, C5, G1, G2, K5, K8: on GitLab the budget is rows too. Budget 2 buys
// two resumes for two failures, then one notice and the hand-off on the merge request — the
// needs-human label and exactly one note carrying the state — and every later red is a read. The
// same failure on the agent's next commit resumes nothing and the notice says the fix changed nothing.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { DATABASE_KINDS } from '../../support/databases.js';
import {
  GL_BOT,
  GL_PROJECT,
  redHead,
  sha,
  startGitLabHarness,
  stateNotes,
  type GitLabHarness,
} from '../../support/gitlab-harness.js';
import { STATE_MARKER } from '../../../src/core/state-comment.js';

/**
 * The agent pushed `sha(c)` (the Merge Request hook of the push, with `oldrev`), and the pipeline's
 * `test` job failed on it (its Job hook). Returns the Job hook's delivery key.
 */
async function redPush(h: GitLabHarness, iid: number, c: string, trace: string): Promise<string> {
  h.clock.advance(120_000);
  const oldrev = h.push(iid, sha(c));
  const pushed = await h.hook('Merge Request Hook', h.mergeRequestHook(iid, { action: 'update', oldrev }));
  assert.equal(pushed.status, 202, JSON.stringify(pushed.body));
  h.clock.advance(60_000);
  const [job] = h.runPipeline(iid, sha(c), [{ name: 'test', status: 'failed', trace }]).jobs;
  const res = await h.hook('Job Hook', h.jobHook(job!));
  assert.equal(res.status, 202, JSON.stringify(res.body));
  await h.app.settle();
  return res.key;
}

async function trail(h: GitLabHarness, key: string): Promise<string[]> {
  return (await h.api('GET', `/api/deliveries?delivery=${key}`)).body.decisions.map((d: any) => d.outcome).reverse();
}

for (const kind of DATABASE_KINDS) {
  describe(`GitLab budget and hand-off (${kind})`, () => {
    test('Q3/C1/G1/K5: budget 2 — two resumes for two failures, then one notice, the needs-human label and one state note on the merge request, then nothing', async () => {
      const h = await startGitLabHarness(kind, { env: { TASK_CI_AUTO_RESUME_MAX_ATTEMPTS: '2' } });
      try {
        h.openMergeRequest(7, { headSha: sha('0'), sourceBranch: 'agent/fix' });
        const created = await h.api('POST', '/api/tasks', {
          repository: GL_PROJECT,
          pullRequest: 7,
          branch: 'agent/fix',
        });
        assert.equal(created.status, 201, JSON.stringify(created.body));
        const taskId = created.body.id;

        const first = await redPush(h, 7, '1', 'FAIL src/a.test.ts > adds\nexpected 2, got 3');
        assert.equal(h.runner.starts.length, 1);
        assert.deepEqual(await trail(h, first), ['stored', 'claimed']);
        h.runner.finish(h.runner.starts[0]!.runId);
        await h.app.settle();

        await redPush(h, 7, '2', 'FAIL src/b.test.ts > parses\nTypeError: x is undefined');
        assert.equal(h.runner.starts.length, 2);
        h.runner.finish(h.runner.starts[1]!.runId);
        await h.app.settle();

        await redPush(h, 7, '3', 'FAIL src/c.test.ts > renders\nsnapshot mismatch');
        assert.equal(h.runner.starts.length, 2, 'no third resume');
        let view = (await h.api('GET', `/api/tasks/${taskId}`)).body;
        assert.equal(view.attempts.length, 2);
        assert.equal(view.notice?.reason, 'budget_spent');
        assert.equal(view.notice.attemptsUsed, 2);
        assert.equal(view.notice.headSha, sha('3'));
        assert.equal((await h.api('GET', '/api/inbox')).body.notices.length, 1);

        // K5/K8: the next poll hands the merge request to a person: the label, and one note with the state.
        await h.nextTick();
        assert.deepEqual(h.labels(7), ['fixloop:needs-human']);
        const notes = stateNotes(h, 7, STATE_MARKER);
        assert.equal(notes.length, 1, 'one state note');
        assert.match(notes[0]!.body, /"reason": "budget_spent"/);
        assert.equal(notes[0]!.author, GL_BOT);

        // G2: the notice is the stop flag; a fourth red is a read.
        const fourth = await redPush(h, 7, '4', 'FAIL src/d.test.ts > anything');
        await h.nextTick();
        view = (await h.api('GET', `/api/tasks/${taskId}`)).body;
        assert.equal(h.runner.starts.length, 2);
        assert.equal(view.attempts.length, 2);
        assert.equal((await h.api('GET', '/api/inbox')).body.notices.length, 1, 'still exactly one notice');
        assert.deepEqual(await trail(h, fourth), ['stored', 'refused']);
        const decisions = (await h.api('GET', `/api/deliveries?taskId=${taskId}`)).body.decisions;
        assert.ok(decisions.some((d: any) => d.outcome === 'refused' && d.reason === 'notice_filed'));
        assert.equal(stateNotes(h, 7, STATE_MARKER).length, 1, 'still one state note');
        assert.deepEqual(h.labels(7), ['fixloop:needs-human']);
        // H1/H2: the machine's runs are stamped as such, and each attempt's failure is a gate rejection.
        assert.deepEqual(
          view.runs.map((r: any) => [r.action, r.autoResume]),
          [
            ['start', false],
            ['resume', true],
            ['resume', true],
          ],
        );
        assert.equal(view.rejections.filter((r: any) => r.source === 'gate').length, 2);
      } finally {
        await h.close();
      }
    });
  });

  describe(`GitLab unchanged failure (${kind})`, () => {
    test("Q2/C5: the same failure (its job trace differing only by noise) on the agent's next commit resumes nothing, and the notice says so", async () => {
      const h = await startGitLabHarness(kind);
      try {
        h.openMergeRequest(8, { headSha: sha('0'), sourceBranch: 'agent/x' });
        const { body } = await h.api('POST', '/api/tasks', {
          repository: GL_PROJECT,
          pullRequest: 8,
          branch: 'agent/x',
        });
        await redHead(h, 8, 'a', 'FAIL test/x.test.ts\nAssertionError at 12:01:33 in /tmp/run-123/x.js');
        assert.equal(h.runner.starts.length, 1, 'the first failure resumes the agent');
        await redHead(h, 8, 'b', 'FAIL test/x.test.ts\nAssertionError at 13:45:09 in /tmp/run-987/x.js');
        assert.equal(h.runner.starts.length, 1, 'the same failure again resumes nothing');
        const view = (await h.api('GET', `/api/tasks/${body.id}`)).body;
        assert.equal(view.notice?.reason, 'unchanged_failure', JSON.stringify(view.notice));
        assert.match(view.notice.message, /same failure/);
        assert.equal(view.attempts.length, 1);
        // The hand-off follows the stop on the same tick.
        assert.deepEqual(h.labels(8), ['fixloop:needs-human']);
        assert.equal(stateNotes(h, 8, STATE_MARKER).length, 1);
      } finally {
        await h.close();
      }
    });

    test('Q2/C5: a different failure (another job trace) on the next commit is not unchanged: a second attempt, seeded with the trace', async () => {
      const h = await startGitLabHarness(kind);
      try {
        h.openMergeRequest(9, { headSha: sha('0'), sourceBranch: 'agent/y' });
        const { body } = await h.api('POST', '/api/tasks', {
          repository: GL_PROJECT,
          pullRequest: 9,
          branch: 'agent/y',
        });
        await redHead(h, 9, 'c', 'FAIL test/x.test.ts\nAssertionError: expected 1 to be 2');
        await redHead(h, 9, 'd', 'FAIL test/y.test.ts\nTypeError: cannot read properties of undefined');
        assert.equal(h.runner.starts.length, 2);
        const view = (await h.api('GET', `/api/tasks/${body.id}`)).body;
        assert.equal(view.notice, null);
        assert.equal(view.attempts.length, 2);
        assert.match(h.runner.starts[0]!.prompt, /expected 1 to be 2/, 'C6: the prompt carries the failure');
      } finally {
        await h.close();
      }
    });
  });
}
