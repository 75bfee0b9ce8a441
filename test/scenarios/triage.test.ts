// SPEC T1–T3: triage before any attempt is claimed, end to end through the webhook path on both
// databases: an approval gate goes to a person, a transient failure asks for a re-run instead of an
// attempt (and reaches the agent when none can be had, with the reason), a check red on the base
// branch too is refused until the base turns green.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { DATABASE_KINDS } from '../support/databases.js';
import { startHarness, REPO, SECRET, type Harness } from '../support/harness.js';
import { checkRunPayload, checkSuitePayload, delivery, post } from '../support/deliveries.js';
import { startGitHubHarness, sha as repeated } from '../support/github-harness.js';
import type { BaseChecks, RerunOutcome, RerunRequest } from '../../src/app/evaluate.js';

/** A fake of the re-run port: it records each request and answers what the test set. */
class FakeRerun {
  readonly requests: RerunRequest[] = [];
  answer: RerunOutcome = { kind: 'requested' };
  readonly request = async (req: RerunRequest): Promise<RerunOutcome> => {
    this.requests.push(req);
    return this.answer;
  };
}

const sha = (pr: number, head: number) => `${pr.toString(16).padStart(4, '0')}${head}`.padEnd(40, 'd');
const RUNNER_LOST =
  'The self-hosted runner: ci-runner-7 lost communication with the server. Verify the machine is running and has a healthy network connection.';

for (const kind of DATABASE_KINDS) {
  describe(`triage (${kind})`, () => {
    let h: Harness;
    const rerun = new FakeRerun();
    const base = new Map<number, BaseChecks>();
    let nextPr = 300;
    before(async () => {
      h = await startHarness(kind, {
        env: { TASK_CI_AUTO_RESUME_MAX_ATTEMPTS: '3' },
        adapters: {
          requestRerun: rerun.request,
          baseChecks: async (_repository, pullRequest) => base.get(pullRequest) ?? null,
        },
      });
    });
    after(() => h.close());

    async function newTask(): Promise<{ id: number; pr: number }> {
      const pr = nextPr++;
      const created = await h.api('POST', '/api/tasks', {
        repository: 'acme/shop',
        pullRequest: pr,
        branch: 'agent/fix',
      });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      return { id: created.body.id, pr };
    }

    async function result(
      task: { pr: number },
      head: number,
      id: number,
      r: { name?: string; conclusion?: string; output?: string },
    ): Promise<void> {
      const s = sha(task.pr, head);
      const payload = checkRunPayload({
        repo: REPO,
        sha: s,
        id,
        name: r.name ?? 'test',
        conclusion: r.conclusion ?? 'failure',
        pr: { number: task.pr, headSha: s },
        ...(r.output !== undefined ? { output: r.output } : {}),
      });
      const res = await post(h.url, delivery('check_run', payload), SECRET);
      assert.equal(res.status, 202, JSON.stringify(res.body));
      await h.app.settle();
    }

    const view = async (task: { id: number }) => (await h.api('GET', `/api/tasks/${task.id}`)).body;
    const decisions = async (task: { id: number }) =>
      (await h.api('GET', `/api/deliveries?taskId=${task.id}`)).body.decisions as any[];

    test('T3: a check waiting for approval (action_required) resumes nothing; the notice tells a person so', async () => {
      const task = await newTask();
      await result(task, 1, 1, { conclusion: 'action_required', output: '' });
      const v = await view(task);
      assert.equal(v.attempts.length, 0);
      assert.equal(v.notice?.reason, 'approval_required');
      assert.match(v.notice.message, /waiting for a person to approve it \(action_required\)/);
      assert.ok((await decisions(task)).some((d) => d.outcome === 'noticed' && d.reason === 'approval_required'));
    });

    test('T3: once the run is approved, its real failure on that head reaches the agent; a green answers the stop too', async () => {
      const task = await newTask();
      await result(task, 1, 1101, { conclusion: 'action_required', output: '' });
      assert.equal((await view(task)).notice?.reason, 'approval_required');
      // A person approves the workflow run on GitHub; it runs and fails for real on the same head.
      await result(task, 1, 1102, { output: 'FAIL src/cart.test.ts > totals\nexpected 3 to be 4' });
      const v = await view(task);
      assert.equal(v.noticeAt, null, 'the stop is answered');
      assert.equal(v.attempts.length, 1, 'the real failure is the agent’s');
      assert.ok((await decisions(task)).some((d) => d.outcome === 'reopened' && d.reason === 'approval_given'));

      const other = await newTask();
      await result(other, 1, 1201, { conclusion: 'action_required', output: '' });
      await result(other, 1, 1202, { conclusion: 'success', output: '' });
      const w = await view(other);
      assert.equal(w.noticeAt, null, 'approved and green: nothing needs a person');
      assert.equal(w.attempts.length, 0);
      // Another approval gate on a new head stops the loop again, with a notice of its own.
      await result(other, 2, 1203, { conclusion: 'action_required', output: '' });
      const again = await view(other);
      assert.notEqual(again.noticeAt, null);
      assert.equal(again.notice?.reason, 'approval_required');
      const inbox = (await h.api('GET', '/api/inbox')).body.notices.filter((n: any) => n.taskId === other.id);
      assert.equal(inbox.length, 2, 'one notice per stop round');
    });

    test('T1/T2: a check suite that sums up jobs triage held back buys no run', async () => {
      const task = await newTask();
      rerun.answer = { kind: 'requested' };
      await result(task, 1, 4101, { output: RUNNER_LOST });
      assert.equal((await view(task)).attempts.length, 0);
      const s = sha(task.pr, 1);
      const suite = checkSuitePayload({ repo: REPO, sha: s, id: 4190, pr: { number: task.pr, headSha: s } });
      assert.equal((await post(h.url, delivery('check_suite', suite), SECRET)).status, 202);
      await h.app.settle();
      assert.equal((await view(task)).attempts.length, 0, 'the suite is the sum of the job re-run already');
      assert.ok((await decisions(task)).some((d) => d.reason === 'summary_of_jobs'));
    });

    test('T2: a runner lost mid-job asks for a re-run of the failed jobs instead of an attempt', async () => {
      const task = await newTask();
      rerun.answer = { kind: 'requested' };
      const before = rerun.requests.length;
      await result(task, 1, 4001, { output: RUNNER_LOST });
      assert.equal((await view(task)).attempts.length, 0);
      const req = rerun.requests.slice(before);
      assert.equal(req.length, 1);
      assert.deepEqual(
        { taskId: req[0]!.taskId, headSha: req[0]!.headSha, ids: req[0]!.checkRunIds, repo: req[0]!.repository },
        { taskId: task.id, headSha: sha(task.pr, 1), ids: [4001], repo: 'acme/shop' },
      );
      assert.match(req[0]!.reason, /runner lost/);
      assert.ok((await decisions(task)).some((d) => d.outcome === 'refused' && d.reason === 'rerun_requested'));

      // The re-run fails again and its re-run is already claimed (in flight): still no attempt.
      rerun.answer = { kind: 'in_flight' };
      await result(task, 1, 4002, { output: RUNNER_LOST });
      assert.equal((await view(task)).attempts.length, 0);
      assert.ok((await decisions(task)).some((d) => d.reason === 'rerun_in_flight'));

      // The head's re-run budget is spent: now it is the agent's, and the claim says why.
      rerun.answer = { kind: 'budget_spent' };
      await result(task, 1, 4003, { output: RUNNER_LOST });
      const v = await view(task);
      assert.equal(v.attempts.length, 1);
      const claimed = (await decisions(task)).find((d) => d.outcome === 'claimed');
      assert.equal(claimed.reason, 'rerun_budget_spent');
    });

    test('T2: a re-run GitHub refuses (403) falls back to the agent, with the reason recorded', async () => {
      const task = await newTask();
      rerun.answer = { kind: 'refused', status: 403, message: 'Resource not accessible by integration' };
      await result(task, 1, 5001, { output: 'Error: ENOSPC: no space left on device, write' });
      assert.equal((await view(task)).attempts.length, 1);
      const claimed = (await decisions(task)).find((d) => d.outcome === 'claimed');
      assert.equal(claimed.reason, 'rerun_refused');
      assert.match(claimed.detail, /403: Resource not accessible by integration/);
    });

    test('T2: a check seen red then green on one commit is flaky: its next red asks for a re-run', async () => {
      const task = await newTask();
      await result(task, 1, 6001, { output: 'FAIL src/clock.test.ts > ticks\nexpected 1 to be 2' });
      let v = await view(task);
      assert.equal(v.attempts.length, 1);
      h.runner.finish(v.attempts[0].runId);
      await h.app.settle();
      // A person re-ran it on the same commit, and it passed.
      await result(task, 1, 6002, { conclusion: 'success' });
      rerun.answer = { kind: 'requested' };
      const before = rerun.requests.length;
      await result(task, 2, 6003, { output: 'FAIL src/clock.test.ts > ticks\nexpected 3 to be 2' });
      v = await view(task);
      assert.equal(v.attempts.length, 1, 'the flaky check buys no run');
      assert.equal(rerun.requests.length, before + 1);
      assert.match(rerun.requests.at(-1)!.reason, /went red then green/);
    });

    test('T1: a check red on the base branch too is refused, "failing on main too", until the base turns green', async () => {
      const task = await newTask();
      base.set(task.pr, { ref: 'main', failing: ['test'] });
      await result(task, 1, 7001, { output: 'FAIL src/shared.test.ts\nexpected true' });
      assert.equal((await view(task)).attempts.length, 0);
      const refused = (await decisions(task)).find((d) => d.reason === 'red_on_base');
      assert.ok(refused);
      assert.match(refused.detail, /failing on main too/);
      // Another check failing is the pull request's own.
      base.set(task.pr, { ref: 'main', failing: ['lint'] });
      // The base turned green for `test`: the next red of the head reaches the agent.
      await result(task, 1, 7002, { output: 'FAIL src/shared.test.ts\nexpected true' });
      assert.equal((await view(task)).attempts.length, 1);
    });

    test('T2: without a re-run mechanism a transient failure reaches the agent, and the claim says so', async () => {
      const other = await startHarness(kind);
      try {
        const created = await other.api('POST', '/api/tasks', { repository: 'acme/shop', pullRequest: 9, branch: 'a' });
        const s = sha(9, 1);
        const payload = checkRunPayload({
          repo: REPO,
          sha: s,
          id: 1,
          name: 'test',
          pr: { number: 9, headSha: s },
          output: '##[error]The runner has received a shutdown signal.',
        });
        assert.equal((await post(other.url, delivery('check_run', payload), SECRET)).status, 202);
        await other.app.settle();
        const v = (await other.api('GET', `/api/tasks/${created.body.id}`)).body;
        assert.equal(v.attempts.length, 1);
        const claimed = (await other.api('GET', `/api/deliveries?taskId=${created.body.id}`)).body.decisions.find(
          (d: any) => d.outcome === 'claimed',
        );
        assert.equal(claimed.reason, 'rerun_unavailable');
      } finally {
        await other.close();
      }
    });

    test('T1–T3 through the poll alone: an approval gate files its notice, a red on base spends nothing, a disk-full job is re-run', async () => {
      const poll = new FakeRerun();
      const gh = await startGitHubHarness(kind, {
        adapters: {
          requestRerun: poll.request,
          baseChecks: async (_repository, pullRequest) =>
            pullRequest === 2 ? { ref: 'main', failing: ['test'] } : { ref: 'main', failing: [] },
        },
      });
      try {
        const tasks: number[] = [];
        const cases: Array<[number, string, { conclusion: string; outputSummary?: string }]> = [
          [1, 'a', { conclusion: 'action_required' }],
          [2, 'b', { conclusion: 'failure', outputSummary: 'FAIL src/shared.test.ts' }],
          [3, 'c', { conclusion: 'failure', outputSummary: 'Error: No space left on device' }],
        ];
        for (const [pr, c, run] of cases) {
          const created = await gh.api('POST', '/api/tasks', {
            repository: 'acme/shop',
            pullRequest: pr,
            branch: `agent/${c}`,
          });
          tasks.push(created.body.id);
          gh.fake.addPull('acme/shop', pr, { headSha: repeated(c), headRef: `agent/${c}` });
          gh.fake.addCheckRun('acme/shop', repeated(c), { name: 'test', status: 'completed', ...run });
        }
        await gh.tick();
        const [gate, onBase, lost] = await Promise.all(
          tasks.map(async (id) => ({
            view: (await gh.api('GET', `/api/tasks/${id}`)).body,
            decisions: (await gh.api('GET', `/api/deliveries?taskId=${id}`)).body.decisions as any[],
          })),
        );
        assert.equal(gate!.view.notice?.reason, 'approval_required');
        assert.ok(onBase!.decisions.some((d) => d.reason === 'red_on_base' && /failing on main too/.test(d.detail)));
        assert.equal(gate!.view.attempts.length + onBase!.view.attempts.length, 0);
        // The poll's red is no stored delivery, but it names its check run: that job is re-run, no attempt.
        const job = gh.fake.state.checkRuns[`acme/shop@${repeated('c')}`]![0]!.id;
        assert.equal(poll.requests.length, 1);
        assert.deepEqual(poll.requests[0]!.checkRunIds, [job]);
        assert.equal(lost!.view.attempts.length, 0);
        assert.ok(lost!.decisions.some((d) => d.reason === 'rerun_requested'));
      } finally {
        await gh.close();
      }
    });
  });
}
