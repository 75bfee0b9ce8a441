// SPEC I1–I4 through the real pipeline on both databases: the fake GitHub, the poll driven tick by
// tick on a fake clock, and the agent's side played by a test holding the run token it was handed.
// Each attempt moves queued → running → awaiting_progress → acknowledged | retryable (I1); the run
// reports one outcome over POST /api/run/outcome (I2); action_taken with no progress within two
// poll intervals, or a run that ends without an outcome, makes the attempt retryable, and a retry is
// a new attempt row that spends the budget (I3); a restart in the middle loses nothing (I4).
// The lifecycle is asserted on `attempts.state` in the database: the ledger is the truth.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { DATABASE_KINDS } from '../support/databases.js';
import { startGitHubHarness, type GitHubHarness } from '../support/github-harness.js';
import { until } from '../support/server-process.js';
import { openDatabase } from '../../src/ledger/db.js';
import {
  PeekingRunner,
  POLL_MS,
  attemptRows,
  decisionsOf,
  endRun,
  nextTick,
  reportOutcome,
  runApi,
  sha,
  startRestartableGitHubHarness,
  taskWithRedHead,
  tasksWithTwoInFlight,
} from '../support/loop-driver.js';

const REPO_NAME = 'acme/shop';

/** A harness whose runner notes each attempt's state at the moment the runner is asked to start it. */
async function start(
  kind: 'sqlite' | 'postgres',
  env?: Record<string, string>,
): Promise<{ h: GitHubHarness; runner: PeekingRunner }> {
  const runner = new PeekingRunner();
  const h = await startGitHubHarness(kind, { runner, ...(env ? { env } : {}) });
  runner.app = h.app;
  return { h, runner };
}

/** The first tick resumes the agent for the red head; returns the run it was handed. */
async function firstResume(h: GitHubHarness, taskId: number) {
  await nextTick(h);
  assert.equal(h.runner.starts.length, 1, 'the red head resumed the agent');
  const spec = h.runner.starts[0]!;
  const rows = await attemptRows(h.app, taskId);
  assert.equal(rows.length, 1);
  assert.equal(spec.attemptId, rows[0]!.id, "the run answers the Task's attempt");
  return spec;
}

for (const kind of DATABASE_KINDS) {
  describe(`attempt lifecycle (${kind})`, () => {
    test('I1/I3: action_taken with no progress for two poll intervals → retryable → retried as a new attempt row (retry:<id>) that spends the budget', async () => {
      const { h, runner } = await start(kind);
      try {
        const taskId = await taskWithRedHead(h, 31, sha('a'), 'FAIL src/cart.test.ts: expected 3 to be 4');
        const first = await firstResume(h, taskId);
        assert.deepEqual(
          runner.statesAtStart,
          ['queued'],
          'claimed as queued; the runner is asked while it is still queued',
        );
        let rows = await attemptRows(h.app, taskId);
        assert.deepEqual(
          rows.map((r) => [r.coordinate, r.state, r.status]),
          [[sha('a'), 'running', 'dispatched']],
          'queued → running once the runner accepted',
        );

        const reported = await reportOutcome(h, first, 'action_taken', 'pushed a fix for the cart total');
        assert.deepEqual(reported, { attemptId: first.attemptId, state: 'awaiting_progress', outcome: 'action_taken' });
        await endRun(h, first);
        rows = await attemptRows(h.app, taskId);
        assert.deepEqual(
          [rows[0]!.state, rows[0]!.outcome],
          ['awaiting_progress', 'action_taken'],
          'the run ending after action_taken keeps waiting for progress',
        );

        // Same head, no re-run: nothing moves on the pull request.
        await nextTick(h); // one interval after the report
        rows = await attemptRows(h.app, taskId);
        assert.deepEqual(
          rows.map((r) => r.state),
          ['awaiting_progress'],
          'still within two poll intervals',
        );
        assert.equal(h.runner.starts.length, 1);

        await nextTick(h); // two intervals after the report: the deadline has passed
        rows = await attemptRows(h.app, taskId);
        assert.equal(rows[0]!.state, 'retryable', 'no progress by the deadline → retryable');
        assert.equal(rows[0]!.outcome, 'action_taken', 'the first-write outcome is kept');
        // The tick that finds it retryable offers the retry (head unchanged): a NEW attempt row.
        assert.equal(rows.length, 2, `retried as a new attempt row: ${JSON.stringify(rows)}`);
        const retry = rows[1]!;
        assert.equal(retry.coordinate, `retry:${rows[0]!.id}`);
        assert.equal(retry.retry_of, rows[0]!.id);
        assert.equal(retry.head_sha, sha('a'));
        assert.deepEqual([retry.state, retry.status], ['running', 'dispatched']);
        assert.equal(h.runner.starts.length, 2, 'the agent was resumed again');
        assert.deepEqual(runner.statesAtStart, ['queued', 'queued']);
        const second = h.runner.starts[1]!;
        assert.equal(second.attemptId, retry.id);
        assert.notEqual(second.runToken, first.runToken, 'a retry has its own run and credential');
        assert.match(second.prompt, /Retry on/, 'the retry frame');
        assert.match(
          second.prompt,
          /Attempt 1 reported `action_taken`, but nothing moved on the pull request/,
          'it names the previous attempt and why it is retried',
        );
        assert.match(second.prompt, /expected 3 to be 4/, 'the failure it was started for follows');

        // A retry spends the budget like any other attempt (default budget: 2).
        const view = (await h.api('GET', `/api/tasks/${taskId}`)).body;
        assert.deepEqual(
          view.attempts.map((a: any) => a.coordinate),
          [sha('a'), `retry:${rows[0]!.id}`],
        );
        const state = await runApi(h, second.runToken, 'GET', '/api/run/state');
        assert.equal(state.status, 200, JSON.stringify(state.body));
        assert.deepEqual(state.body.budget, { max: 2, used: 2, left: 0 });
        assert.deepEqual(
          state.body.attempts.map((a: any) => [a.id, a.state, a.retryOf]),
          [
            [rows[0]!.id, 'retryable', null],
            [retry.id, 'running', rows[0]!.id],
          ],
        );

        // The retryable attempt is retried once; the retry is in flight.
        await nextTick(h);
        await nextTick(h);
        assert.equal((await attemptRows(h.app, taskId)).length, 2);
        assert.equal(h.runner.starts.length, 2);
        assert.deepEqual(await tasksWithTwoInFlight(h.app), []);
      } finally {
        await h.close();
      }
    });

    test('I3: progress instead — the head moved after action_taken → acknowledged, never retried', async () => {
      const { h } = await start(kind);
      try {
        const taskId = await taskWithRedHead(h, 32, sha('a'), 'FAIL one');
        const first = await firstResume(h, taskId);
        await reportOutcome(h, first, 'action_taken', 'pushed');
        await endRun(h, first);

        h.fake.setHead(REPO_NAME, 32, sha('b'));
        h.fake.addCheckRun(REPO_NAME, sha('b'), { name: 'test', status: 'in_progress', conclusion: null });
        await nextTick(h);
        let rows = await attemptRows(h.app, taskId);
        assert.deepEqual(
          rows.map((r) => [r.state, r.outcome]),
          [['acknowledged', 'action_taken']],
          'a new head is progress',
        );

        for (let i = 0; i < 3; i++) await nextTick(h); // well past two intervals
        rows = await attemptRows(h.app, taskId);
        assert.deepEqual(
          rows.map((r) => r.state),
          ['acknowledged'],
          'no retry after progress',
        );
        assert.equal(h.runner.starts.length, 1);
      } finally {
        await h.close();
      }
    });

    test('I3: progress instead — a check re-ran on the same head (newer startedAt) → acknowledged, never retried', async () => {
      const { h } = await start(kind);
      try {
        const taskId = await taskWithRedHead(h, 33, sha('c'), 'FAIL flaky');
        const first = await firstResume(h, taskId);
        await reportOutcome(h, first, 'action_taken', 're-ran the flaky job');
        await endRun(h, first);

        h.clock.advance(30_000);
        const check = h.fake.state.checkRuns[`${REPO_NAME}@${sha('c')}`]![0]!;
        Object.assign(check, {
          status: 'in_progress',
          conclusion: null,
          completedAt: null,
          startedAt: h.clock.now().toISOString(),
        });
        await nextTick(h, POLL_MS - 30_000);
        let rows = await attemptRows(h.app, taskId);
        assert.deepEqual(
          rows.map((r) => [r.state, r.head_sha]),
          [['acknowledged', sha('c')]],
          'a re-run check is progress',
        );

        for (let i = 0; i < 3; i++) await nextTick(h);
        rows = await attemptRows(h.app, taskId);
        assert.deepEqual(
          rows.map((r) => r.state),
          ['acknowledged'],
        );
        assert.equal(h.runner.starts.length, 1);
      } finally {
        await h.close();
      }
    });

    test('I3: a run that ends without an outcome → retryable → retried on the next tick while the head is unchanged', async () => {
      const { h } = await start(kind);
      try {
        const taskId = await taskWithRedHead(h, 34, sha('d'), 'FAIL src/api.test.ts');
        const first = await firstResume(h, taskId);
        // Its agent reached fixloop (RecordingRunner's agents call once as they start), then ended without reporting.
        assert.ok((await h.api('GET', `/api/runs/${first.runId}`)).body.agentSeenAt, 'its agent called fixloop');
        await endRun(h, first, 'retryable');
        let rows = await attemptRows(h.app, taskId);
        assert.deepEqual(
          rows.map((r) => [r.state, r.outcome]),
          [['retryable', null]],
          'ended without an outcome → retryable',
        );
        assert.equal(h.runner.starts.length, 1, 'nothing is retried before the poll looks');
        // The run's token reports nothing more: a retry is a new attempt with its own credential.
        const late = await runApi(h, first.runToken, 'POST', '/api/run/outcome', { outcome: 'action_taken' });
        assert.equal(late.status, 403);
        assert.equal(late.body.error, 'run_ended');

        await nextTick(h);
        rows = await attemptRows(h.app, taskId);
        assert.deepEqual(
          rows.map((r) => [r.coordinate, r.state, r.retry_of]),
          [
            [sha('d'), 'retryable', null],
            [`retry:${rows[0]!.id}`, 'running', rows[0]!.id],
          ],
        );
        assert.equal(h.runner.starts.length, 2);
        const prompt = h.runner.starts[1]!.prompt;
        assert.match(prompt, /Attempt 1 ended without an outcome/);
        assert.match(prompt, /This retry is a new attempt and spends the budget/);

        await nextTick(h);
        assert.equal((await attemptRows(h.app, taskId)).length, 2, 'retried once');
      } finally {
        await h.close();
      }
    });

    test('I5: a run whose agent never called fixloop files one notice naming the likely cause, and is not retried', async () => {
      const { h } = await start(kind);
      try {
        h.runner.silentAgents = true;
        const taskId = await taskWithRedHead(h, 35, sha('e'), 'FAIL src/api.test.ts');
        const first = await firstResume(h, taskId);
        await endRun(h, first); // not one call with its run token: no MCP tool, no API
        const notice: any = await until(
          'the agent_unreachable notice to be filed',
          async () => (await h.api('GET', `/api/tasks/${taskId}`)).body.notice,
          10_000,
          10,
        );
        assert.equal(notice.reason, 'agent_unreachable');
        assert.match(notice.message, /without a single call to fixloop/);
        assert.match(notice.message, /MCP entry could not reach .*\/mcp/);
        assert.equal((await h.api('GET', `/api/runs/${first.runId}`)).body.agentSeenAt, null);
        assert.match((await h.app.ledger.getRunLog(first.runId)) ?? '', /without a single call from its agent/);
        assert.ok(
          (await decisionsOf(h, taskId)).some((d) => d.outcome === 'noticed' && d.reason === 'agent_unreachable'),
        );

        await nextTick(h);
        await nextTick(h);
        assert.equal(h.runner.starts.length, 1, 'not retried the same way into the budget');
        assert.equal((await attemptRows(h.app, taskId)).length, 1);
      } finally {
        await h.close();
      }
    });

    test("I5: an agent platform's PATCH of its run with the run token is its agent reaching fixloop", async () => {
      const { h } = await start(kind);
      try {
        h.runner.silentAgents = true;
        const taskId = await taskWithRedHead(h, 36, sha('f'), 'FAIL src/api.test.ts');
        const first = await firstResume(h, taskId);
        assert.equal((await h.api('GET', `/api/runs/${first.runId}`)).body.agentSeenAt, null);
        const patched = await runApi(h, first.runToken, 'PATCH', `/api/runs/${first.runId}`, { state: 'running' });
        assert.equal(patched.status, 200);
        assert.ok((await h.api('GET', `/api/runs/${first.runId}`)).body.agentSeenAt);
      } finally {
        await h.close();
      }
    });

    test('I3: a run that ends without an outcome after the agent pushed (head moved) is not retried', async () => {
      const { h } = await start(kind);
      try {
        const taskId = await taskWithRedHead(h, 35, sha('e'), 'FAIL before push');
        const first = await firstResume(h, taskId);
        h.fake.setHead(REPO_NAME, 35, sha('f'));
        h.fake.addCheckRun(REPO_NAME, sha('f'), { name: 'test', status: 'in_progress', conclusion: null });
        await endRun(h, first, 'retryable');

        for (let i = 0; i < 4; i++) await nextTick(h);
        const rows = await attemptRows(h.app, taskId);
        assert.deepEqual(
          rows.map((r) => [r.coordinate, r.state]),
          [[sha('e'), 'retryable']],
          "the new head's own verdict drives the loop; no retry",
        );
        assert.equal(h.runner.starts.length, 1);
        assert.equal((await h.api('GET', `/api/tasks/${taskId}`)).body.ciHeadSha, sha('f'));
      } finally {
        await h.close();
      }
    });

    test('I2: non_actionable → acknowledged; no retry, even after the run ended and two intervals passed', async () => {
      const { h } = await start(kind);
      try {
        const taskId = await taskWithRedHead(h, 36, sha('1'), 'FAIL infra: runner lost');
        const first = await firstResume(h, taskId);
        const reported = await reportOutcome(h, first, 'non_actionable');
        assert.deepEqual(reported, { attemptId: first.attemptId, state: 'acknowledged', outcome: 'non_actionable' });
        await endRun(h, first);
        for (let i = 0; i < 4; i++) await nextTick(h);
        const rows = await attemptRows(h.app, taskId);
        assert.deepEqual(
          rows.map((r) => [r.state, r.outcome]),
          [['acknowledged', 'non_actionable']],
        );
        assert.equal(h.runner.starts.length, 1);
      } finally {
        await h.close();
      }
    });

    test('I2: blocked needs a reason; with one → acknowledged, the bounded reason visible in GET /api/run/state and the decision log; no retry', async () => {
      const { h } = await start(kind);
      try {
        const taskId = await taskWithRedHead(h, 37, sha('2'), 'FAIL needs secret');
        const first = await firstResume(h, taskId);

        const bare = await runApi(h, first.runToken, 'POST', '/api/run/outcome', { outcome: 'blocked' });
        assert.equal(bare.status, 400, JSON.stringify(bare.body));
        assert.equal(bare.body.error, 'invalid');
        let rows = await attemptRows(h.app, taskId);
        assert.deepEqual([rows[0]!.state, rows[0]!.outcome], ['running', null], 'a refused report changes nothing');

        const reported = await reportOutcome(
          h,
          first,
          'blocked',
          'the fix needs the\u202e STRIPE_KEY secret,\nwhich only a person has',
        );
        assert.deepEqual(reported, { attemptId: first.attemptId, state: 'acknowledged', outcome: 'blocked' });
        const reason = 'the fix needs the STRIPE_KEY secret, which only a person has';
        const state = await runApi(h, first.runToken, 'GET', '/api/run/state');
        assert.equal(state.status, 200);
        assert.deepEqual(
          state.body.attempts.map((a: any) => [a.id, a.state, a.outcome, a.outcomeReason]),
          [[first.attemptId, 'acknowledged', 'blocked', reason]],
        );
        rows = await attemptRows(h.app, taskId);
        assert.deepEqual(
          [rows[0]!.state, rows[0]!.outcome, rows[0]!.outcome_reason],
          ['acknowledged', 'blocked', reason],
        );
        // Shown to people: the decision log (API token) carries the reason.
        const log = await decisionsOf(h, taskId);
        const row = log.find((d) => d.reason === 'outcome_blocked');
        assert.ok(row, JSON.stringify(log));
        assert.equal(row.attemptId, first.attemptId);
        assert.match(row.detail ?? '', /STRIPE_KEY secret, which only a person has/);

        await endRun(h, first);
        for (let i = 0; i < 4; i++) await nextTick(h);
        rows = await attemptRows(h.app, taskId);
        assert.deepEqual(
          rows.map((r) => r.state),
          ['acknowledged'],
          'blocked acknowledges: no retry',
        );
        assert.equal(h.runner.starts.length, 1);
      } finally {
        await h.close();
      }
    });

    test('I4: a restart in the middle — a running attempt whose run ended meanwhile without an outcome becomes retryable at start-up (and is retried); a queued one is kept and dispatched once; others keep their state', async () => {
      let armed = false;
      const r = await startRestartableGitHubHarness(kind, {
        adapters: {
          // The process "dies" right after a claim: the attempt stays queued, never dispatched.
          fault: (point) => {
            if (point === 'after_claim' && armed) {
              armed = false;
              throw new Error('killed after the claim');
            }
          },
        },
      });
      try {
        let h = r.h;
        const ended = await taskWithRedHead(h, 41, sha('3'), 'FAIL forty-one');
        const running = await taskWithRedHead(h, 42, sha('4'), 'FAIL forty-two');
        const waiting = await taskWithRedHead(h, 44, sha('6'), 'FAIL forty-four');
        await nextTick(h);
        assert.equal(h.runner.starts.length, 3);
        const specOf = (taskId: number) => h.runner.starts.find((s) => s.taskId === taskId)!;
        const [s41, s42, s44] = [specOf(ended), specOf(running), specOf(waiting)];
        assert.ok(s42, 'the run of #42 is still running');

        const queued = await taskWithRedHead(h, 43, sha('5'), 'FAIL forty-three');
        armed = true;
        await nextTick(h);
        assert.equal(h.runner.starts.length, 3, 'the claim for #43 was never dispatched');
        await reportOutcome(h, s44, 'action_taken', 'pushed, waiting for CI');
        const actionAt = h.clock.now().getTime();
        const q = await attemptRows(h.app, queued);
        assert.deepEqual(
          q.map((a) => [a.state, a.status]),
          [['queued', 'claimed']],
        );

        // Down: the runs of #41 and #44 end while fixloop is not there to see it.
        await r.stop();
        const side = openDatabase(r.db.url);
        await side.kysely
          .updateTable('runs')
          .set({ state: 'completed', exit_code: 0 })
          .where('id', 'in', [s41.runId, s44.runId])
          .execute();
        await side.close();
        r.clock.advance(60_000); // past the start-up reconciliation's grace for claimed rows

        h = await r.start();
        const states = async (taskId: number) => (await attemptRows(h.app, taskId)).map((a) => a.state);
        assert.deepEqual(
          await states(ended),
          ['retryable'],
          'its run ended without an outcome → retryable at start-up',
        );
        assert.deepEqual(await states(running), ['running'], 'its run is still running: kept');
        assert.deepEqual(
          await states(waiting),
          ['awaiting_progress'],
          'action_taken already reported: still waiting for progress',
        );
        const q2 = await attemptRows(h.app, queued);
        assert.equal(q2.length, 1);
        assert.notEqual(q2[0]!.state, 'retryable', 'a queued attempt is kept, not made retryable');
        assert.notEqual(q2[0]!.state, 'acknowledged', 'a queued attempt is not dropped');
        assert.deepEqual(
          h.runner.starts.map((s) => s.attemptId),
          [q2[0]!.id],
          'the new process dispatched the kept attempt, and only it',
        );
        assert.deepEqual([q2[0]!.state, q2[0]!.status], ['running', 'dispatched']);
        assert.deepEqual(await tasksWithTwoInFlight(h.app), []);

        // The next tick retries #41 (head unchanged) as a new attempt; nothing else moves yet.
        h.clock.advance(POLL_MS - 60_000);
        await h.tick();
        const rows41 = await attemptRows(h.app, ended);
        assert.deepEqual(
          rows41.map((a) => [a.coordinate, a.state]),
          [
            [sha('3'), 'retryable'],
            [`retry:${rows41[0]!.id}`, 'running'],
          ],
        );
        const retry41 = h.runner.starts.find((s) => s.attemptId === rows41[1]!.id);
        assert.ok(retry41, 'the retry of #41 started the agent');
        assert.match(retry41.prompt, /Attempt 1 ended without an outcome/);
        assert.equal(h.runner.starts.length, 2);
        assert.deepEqual(await states(running), ['running']);
        assert.deepEqual(await states(waiting), ['awaiting_progress'], 'one interval after its report: still waiting');

        // #44's deadline is a time: two intervals after its report it is retryable, restart or not.
        h.clock.advance(actionAt + 2 * POLL_MS - h.clock.now().getTime());
        await h.tick();
        const rows44 = await attemptRows(h.app, waiting);
        assert.equal(rows44[0]!.state, 'retryable');
        assert.equal(rows44[1]?.coordinate, `retry:${rows44[0]!.id}`);
        assert.deepEqual(await tasksWithTwoInFlight(h.app), []);
      } finally {
        await r.close();
      }
    });
  });
}
