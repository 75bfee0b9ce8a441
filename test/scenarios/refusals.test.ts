// SPEC D (with A4, B5, C1, C4): every situation in which a red result must not resume the agent.
// Each test proves one line of D on both databases: the runner was not started, and the decision
// log records `refused` with the exact reason of src/core/reasons.ts.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { DATABASE_KINDS } from '../support/databases.js';
import { startHarness, REPO, SITE_REPO, SECRET, type Harness } from '../support/harness.js';
import {
  checkRunPayload,
  delivery,
  post,
  pullRequestPayload,
  statusPayload,
  type RepoSpec,
} from '../support/deliveries.js';
import type { Refusal } from '../../src/core/reasons.js';

/** A distinct 40-hex commit per number. */
const sha = (n: number) => n.toString(16).padStart(40, 'c');

interface Sent {
  status: number;
  body: any;
  deliveryId: string;
}

async function send(h: Harness, event: string, payload: unknown): Promise<Sent> {
  const d = delivery(event, payload);
  const res = await post(h.url, d, SECRET);
  await h.app.settle();
  return { ...res, deliveryId: d.id };
}

async function newTask(h: Harness, pullRequest: number): Promise<number> {
  const created = await h.api('POST', '/api/tasks', {
    repository: 'acme/shop',
    pullRequest,
    branch: `agent/pr-${pullRequest}`,
  });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  return created.body.id as number;
}

/** A completed check run for commit `n` of pull request `pr`, whose pointer names `head` (default: the same commit). */
async function check(
  h: Harness,
  pr: number,
  n: number,
  opts: { conclusion?: string | null; head?: number; repo?: RepoSpec; fork?: boolean; output?: string } = {},
): Promise<string> {
  const payload = checkRunPayload({
    repo: opts.repo ?? REPO,
    sha: sha(n),
    id: n,
    name: 'test',
    conclusion: opts.conclusion === undefined ? 'failure' : opts.conclusion,
    pr: { number: pr, headSha: sha(opts.head ?? n), fork: opts.fork ?? false },
    output: opts.output ?? `FAIL check ${n}\nexpected ${n}, got ${n + 1}`,
    branch: `agent/pr-${pr}`,
  });
  const res = await send(h, 'check_run', payload);
  assert.equal(res.status, 202, JSON.stringify(res.body));
  assert.equal(res.body.outcome, 'stored');
  return res.body.identity as string;
}

/** The evaluation decisions (everything but the ingest's own `stored` row) for one event identity. */
async function evaluationOf(
  h: Harness,
  identity: string,
  taskId: number | null,
): Promise<Array<[string, string | null, number | null]>> {
  const path = taskId === null ? '/api/deliveries?limit=1000' : `/api/deliveries?taskId=${taskId}&limit=1000`;
  const res = await h.api('GET', path);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return (res.body.decisions as any[])
    .filter((d) => d.identity === identity && d.outcome !== 'stored')
    .map((d): [string, string | null, number | null] => [d.outcome, d.reason, d.taskId]);
}

async function assertRefused(h: Harness, identity: string, reason: Refusal, taskId: number | null): Promise<void> {
  assert.deepEqual(await evaluationOf(h, identity, taskId), [['refused', reason, taskId]], `decision for ${identity}`);
}

async function taskView(h: Harness, id: number): Promise<any> {
  const res = await h.api('GET', `/api/tasks/${id}`);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body;
}

async function latestRunId(h: Harness, taskId: number): Promise<number> {
  const runs = (await taskView(h, taskId)).runs as any[];
  return runs[runs.length - 1].id as number;
}

async function setRun(h: Harness, runId: number, state: string): Promise<void> {
  const res = await h.api('PATCH', `/api/runs/${runId}`, { state });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.equal(res.body.state, state);
}

for (const kind of DATABASE_KINDS) {
  describe(`SPEC D refusals (${kind})`, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(kind);
    });
    after(() => h.close());

    test('D: a green result refuses to resume (result_green)', async () => {
      const taskId = await newTask(h, 101);
      const id = await check(h, 101, 10101, { conclusion: 'success' });
      assert.equal(h.runner.starts.length, 0);
      await assertRefused(h, id, 'result_green', taskId);
      assert.equal((await taskView(h, taskId)).attempts.length, 0);
    });

    test('D: a cancelled result refuses to resume (result_not_actionable)', async () => {
      const taskId = await newTask(h, 102);
      const id = await check(h, 102, 10201, { conclusion: 'cancelled' });
      assert.equal(h.runner.starts.length, 0);
      await assertRefused(h, id, 'result_not_actionable', taskId);
    });

    test('D: a skipped result refuses to resume (result_not_actionable)', async () => {
      const taskId = await newTask(h, 103);
      const id = await check(h, 103, 10301, { conclusion: 'skipped' });
      assert.equal(h.runner.starts.length, 0);
      await assertRefused(h, id, 'result_not_actionable', taskId);
    });

    test('A4/D: a completed check with no conclusion is unsettled, never a pass (result_unsettled)', async () => {
      const taskId = await newTask(h, 104);
      const id = await check(h, 104, 10401, { conclusion: null });
      assert.equal(h.runner.starts.length, 0);
      await assertRefused(h, id, 'result_unsettled', taskId);
      assert.notEqual((await taskView(h, taskId)).ciState, 'passing');
    });

    test('A4/D: a pending result is dropped at the edge (dropped, not_completed)', async () => {
      const taskId = await newTask(h, 105);
      const res = await send(
        h,
        'status',
        statusPayload({ repo: REPO, sha: sha(10501), context: 'ci/test', state: 'pending', branch: 'agent/pr-105' }),
      );
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal(res.body.outcome, 'dropped');
      assert.equal(h.runner.starts.length, 0);
      const rows = (await h.api('GET', `/api/deliveries?delivery=${encodeURIComponent(res.deliveryId)}`)).body
        .decisions as any[];
      assert.deepEqual(
        rows.map((d) => [d.outcome, d.reason]),
        [['dropped', 'not_completed']],
      );
      const view = await taskView(h, taskId);
      assert.equal(view.ciHeadSha, null, 'nothing was stored, the head did not move');
      assert.equal(view.attempts.length, 0);
    });

    test('D/B5: a superseded head — the pointer names another commit (superseded_head)', async () => {
      const taskId = await newTask(h, 106);
      const id = await check(h, 106, 10601, { head: 10602 });
      assert.equal(h.runner.starts.length, 0);
      await assertRefused(h, id, 'superseded_head', taskId);
      assert.equal((await taskView(h, taskId)).attempts.length, 0);
    });

    test('D: a merged pull request (from prState, not the Task done-transition) refuses (pr_merged)', async () => {
      const taskId = await newTask(h, 107);
      const closed = await send(
        h,
        'pull_request',
        pullRequestPayload({
          repo: REPO,
          number: 107,
          action: 'closed',
          state: 'closed',
          merged: true,
          headSha: sha(10701),
          branch: 'agent/pr-107',
        }),
      );
      assert.equal(closed.status, 202, JSON.stringify(closed.body));
      let view = await taskView(h, taskId);
      assert.equal(view.prState, 'merged');
      assert.equal(view.state, 'open', 'the Task itself is not done');
      const id = await check(h, 107, 10701);
      assert.equal(h.runner.starts.length, 0);
      await assertRefused(h, id, 'pr_merged', taskId);
      view = await taskView(h, taskId);
      assert.equal(view.attempts.length, 0);
    });

    test('D: a closed pull request (not merged) refuses (pr_closed)', async () => {
      const taskId = await newTask(h, 108);
      const closed = await send(
        h,
        'pull_request',
        pullRequestPayload({
          repo: REPO,
          number: 108,
          action: 'closed',
          state: 'closed',
          merged: false,
          headSha: sha(10801),
          branch: 'agent/pr-108',
        }),
      );
      assert.equal(closed.status, 202, JSON.stringify(closed.body));
      const view = await taskView(h, taskId);
      assert.equal(view.prState, 'closed');
      assert.equal(view.state, 'open');
      const id = await check(h, 108, 10801);
      assert.equal(h.runner.starts.length, 0);
      await assertRefused(h, id, 'pr_closed', taskId);
    });

    test('D: a repository of the Work that is not its data repo refuses (not_data_repo)', async () => {
      const taskId = await newTask(h, 109); // acme/shop#109 exists; the red is for acme/shop-site#109
      const id = await check(h, 109, 10901, { repo: SITE_REPO });
      assert.equal(h.runner.starts.length, 0);
      await assertRefused(h, id, 'not_data_repo', null);
      const view = await taskView(h, taskId);
      assert.equal(view.attempts.length, 0, 'the data repo Task with the same number is not resumed');
      assert.equal(view.ciHeadSha, null);
      assert.deepEqual(await evaluationOf(h, id, taskId), []);
    });

    test('D: a run running for the Task refuses a red on a new head (run_in_flight)', async () => {
      const taskId = await newTask(h, 110);
      await check(h, 110, 11001);
      assert.equal(h.runner.starts.filter((s) => s.taskId === taskId).length, 1, 'the first red resumes');
      const before = h.runner.starts.length;
      // The resumed run is not finished: it is still running when the next head goes red.
      assert.equal((await taskView(h, taskId)).runs.at(-1).state, 'running');
      const id = await check(h, 110, 11002, { output: 'FAIL other\nsomething else' });
      assert.equal(h.runner.starts.length, before);
      await assertRefused(h, id, 'run_in_flight', taskId);
      assert.equal((await taskView(h, taskId)).attempts.length, 1);
    });

    test('D: a run set running (PATCH /api/runs) refuses (run_in_flight)', async () => {
      const taskId = await newTask(h, 111);
      await setRun(h, await latestRunId(h, taskId), 'running');
      const id = await check(h, 111, 11101);
      assert.equal(h.runner.starts.filter((s) => s.taskId === taskId).length, 0);
      await assertRefused(h, id, 'run_in_flight', taskId);
    });

    test('D: a run queued for the Task refuses (run_in_flight)', async () => {
      const taskId = await newTask(h, 112);
      await setRun(h, await latestRunId(h, taskId), 'queued');
      const id = await check(h, 112, 11201);
      assert.equal(h.runner.starts.filter((s) => s.taskId === taskId).length, 0);
      await assertRefused(h, id, 'run_in_flight', taskId);
    });

    test('D: a run parked on a question refuses (run_question)', async () => {
      const taskId = await newTask(h, 113);
      await setRun(h, await latestRunId(h, taskId), 'question');
      const id = await check(h, 113, 11301);
      assert.equal(h.runner.starts.filter((s) => s.taskId === taskId).length, 0);
      await assertRefused(h, id, 'run_question', taskId);
    });

    test('D: a failed run refuses, and a red on a new head afterwards stays refused (run_failed)', async () => {
      const taskId = await newTask(h, 114);
      await setRun(h, await latestRunId(h, taskId), 'failed');
      const first = await check(h, 114, 11401);
      await assertRefused(h, first, 'run_failed', taskId);
      const second = await check(h, 114, 11402, { output: 'FAIL a new failure' });
      await assertRefused(h, second, 'run_failed', taskId);
      assert.equal(h.runner.starts.filter((s) => s.taskId === taskId).length, 0);
      assert.equal((await taskView(h, taskId)).attempts.length, 0);
    });

    test("D: a cancelled run refuses — a person's cancel is never undone by a webhook (run_cancelled)", async () => {
      const taskId = await newTask(h, 115);
      await setRun(h, await latestRunId(h, taskId), 'cancelled');
      const first = await check(h, 115, 11501);
      await assertRefused(h, first, 'run_cancelled', taskId);
      const second = await check(h, 115, 11502, { output: 'FAIL a new failure' });
      await assertRefused(h, second, 'run_cancelled', taskId);
      assert.equal(h.runner.starts.filter((s) => s.taskId === taskId).length, 0);
      const view = await taskView(h, taskId);
      assert.equal(view.attempts.length, 0);
      assert.equal(view.runs.at(-1).state, 'cancelled');
    });

    test('D: a done Task refuses (task_done)', async () => {
      const taskId = await newTask(h, 116);
      const patched = await h.api('PATCH', `/api/tasks/${taskId}`, { state: 'done' });
      assert.equal(patched.status, 200, JSON.stringify(patched.body));
      const id = await check(h, 116, 11601);
      assert.equal(h.runner.starts.filter((s) => s.taskId === taskId).length, 0);
      await assertRefused(h, id, 'task_done', taskId);
    });

    test('D: a cancelled Task refuses (task_cancelled)', async () => {
      const taskId = await newTask(h, 117);
      const patched = await h.api('PATCH', `/api/tasks/${taskId}`, { state: 'cancelled' });
      assert.equal(patched.status, 200, JSON.stringify(patched.body));
      const id = await check(h, 117, 11701);
      assert.equal(h.runner.starts.filter((s) => s.taskId === taskId).length, 0);
      await assertRefused(h, id, 'task_cancelled', taskId);
    });

    test('D: the global stop flag set refuses (stop_flag); cleared, a new red head resumes', async () => {
      const taskId = await newTask(h, 118);
      try {
        assert.equal((await h.api('PUT', '/api/stop', { stopped: true })).status, 200);
        const id = await check(h, 118, 11801);
        assert.equal(h.runner.starts.filter((s) => s.taskId === taskId).length, 0);
        await assertRefused(h, id, 'stop_flag', taskId);
        assert.equal((await taskView(h, taskId)).ciState, 'red', 'the event is still ingested');
      } finally {
        assert.equal((await h.api('PUT', '/api/stop', { stopped: false })).status, 200);
      }
      const again = await check(h, 118, 11802, { output: 'FAIL after the stop\nnew failure' });
      const starts = h.runner.starts.filter((s) => s.taskId === taskId);
      assert.equal(starts.length, 1, 'with the flag cleared the new red head resumes');
      assert.equal(starts[0]!.headSha, sha(11802));
      assert.deepEqual(
        (await evaluationOf(h, again, taskId)).map(([o]) => o),
        ['claimed'],
      );
    });

    test('D: a repository that belongs to no Work refuses (no_work)', async () => {
      const before = h.runner.starts.length;
      const id = await check(h, 119, 11901, { repo: { owner: 'other', name: 'repo', id: 999 } });
      assert.equal(h.runner.starts.length, before);
      assert.ok(h.runner.starts.every((s) => s.repository !== 'other/repo'));
      await assertRefused(h, id, 'no_work', null);
    });

    test('D: a fork pull request refuses (fork_pull_request)', async () => {
      const taskId = await newTask(h, 120);
      const id = await check(h, 120, 12001, { fork: true });
      assert.equal(h.runner.starts.filter((s) => s.taskId === taskId).length, 0);
      await assertRefused(h, id, 'fork_pull_request', taskId);
      assert.equal((await taskView(h, taskId)).attempts.length, 0);
    });
  });

  describe(`C1: budget 0 switches the loop off (${kind})`, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(kind, { env: { TASK_CI_AUTO_RESUME_MAX_ATTEMPTS: '0' } });
    });
    after(() => h.close());

    test('C1/D: budget 0 — the event is ingested and the board shows red, nothing is dispatched (loop_off)', async () => {
      const taskId = await newTask(h, 130);
      const id = await check(h, 130, 13001);
      assert.equal(h.runner.starts.length, 0);
      await assertRefused(h, id, 'loop_off', taskId);
      const view = await taskView(h, taskId);
      assert.equal(view.ciState, 'red');
      assert.equal(view.ciHeadSha, sha(13001));
      assert.equal(view.attempts.length, 0);
      assert.equal(view.notice, null);
    });
  });

  describe(`C4: the stop flag unreadable fails closed (${kind})`, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(kind);
    });
    after(() => h.close());

    test('D/C4: the global stop flag unreadable refuses (stop_flag_unreadable)', async () => {
      const taskId = await newTask(h, 140);
      await h.app.db.kysely.schema.dropTable('settings').execute();
      const id = await check(h, 140, 14001);
      assert.equal(h.runner.starts.length, 0);
      await assertRefused(h, id, 'stop_flag_unreadable', taskId);
      const view = await taskView(h, taskId);
      assert.equal(view.attempts.length, 0);
      assert.deepEqual(
        view.runs.map((r: any) => r.action),
        ['start'],
      );
    });
  });

  describe(`C4: the ledger unreadable fails closed (${kind})`, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(kind);
    });
    after(() => h.close());

    test('C4: the attempt ledger unreadable dispatches nothing (ledger_unavailable)', async () => {
      const taskId = await newTask(h, 150);
      await h.app.db.kysely.schema.dropTable('attempts').execute();
      const id = await check(h, 150, 15001);
      assert.equal(h.runner.starts.length, 0);
      await assertRefused(h, id, 'ledger_unavailable', taskId);
      const runs = (await h.app.ledger.listRuns(taskId)).map((r) => r.action);
      assert.deepEqual(runs, ['start'], 'no resumed run was written');
    });
  });

  describe(`C4: the run ledger unreadable fails closed (${kind})`, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(kind);
    });
    after(() => h.close());

    test('C4/D: the run ledger unreadable dispatches nothing and the refusal is recorded (ledger_unavailable)', async () => {
      const taskId = await newTask(h, 160);
      await h.app.db.kysely.schema.dropTable('runs').execute();
      const id = await check(h, 160, 16001);
      assert.equal(h.runner.starts.length, 0);
      await assertRefused(h, id, 'ledger_unavailable', taskId);
    });
  });
}
