// SPEC M2, M4, H1, K5: a person's actions over the JSON API with the Bearer token — each changes the
// ledger, is recorded as a person's (`acted`), and the gate honours the per-Task switch.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness, RecordingRunner, REPO, SECRET, type Harness } from '../support/harness.js';
import { checkRunPayload, delivery, post } from '../support/deliveries.js';

const sha = (n: number) => n.toString(16).padStart(40, 'c');

/** A runner that, like the command runner, can stop a run's agent. */
class KillableRunner extends RecordingRunner {
  readonly killed: number[] = [];
  kill(runId: number): boolean {
    this.killed.push(runId);
    return true;
  }
}

async function redPush(h: Harness, n: number, pr: number) {
  const d = delivery(
    'check_run',
    checkRunPayload({
      repo: REPO,
      sha: sha(n),
      id: 3000 + n,
      name: 'test',
      pr: { number: pr, headSha: sha(n) },
      output: `FAIL case ${n}`,
    }),
  );
  assert.equal((await post(h.url, d, SECRET)).status, 202);
  await h.app.settle();
  return d.id;
}

const acted = async (h: Harness, taskId: number) =>
  ((await h.api('GET', `/api/deliveries?taskId=${taskId}`)).body.decisions as any[])
    .filter((d) => d.outcome === 'acted')
    .map((d) => [d.reason, d.detail]);

describe("a person's actions over the API (M4)", () => {
  let h: Harness;
  const runner = new KillableRunner();
  before(async () => {
    h = await startHarness('sqlite', { runner });
  });
  after(() => h.close());

  test('M4: with the loop off for a Task, a red is refused `loop_off`; on again, it resumes', async () => {
    const id = (await h.api('POST', '/api/tasks', { repository: 'acme/shop', pullRequest: 21, branch: 'b21' })).body.id;
    const off = await h.api('PUT', `/api/tasks/${id}/loop`, { on: false });
    assert.equal(off.status, 200);
    assert.equal(off.body.loopOff, true);
    const refused = await redPush(h, 1, 21);
    const trail = (await h.api('GET', `/api/deliveries?delivery=${refused}`)).body.decisions;
    assert.ok(
      trail.some((d: any) => d.outcome === 'refused' && d.reason === 'loop_off'),
      JSON.stringify(trail),
    );
    assert.equal(runner.starts.length, 0);
    assert.equal((await h.api('PUT', `/api/tasks/${id}/loop`, { on: true })).body.loopOff, false);
    await redPush(h, 2, 21);
    assert.equal(runner.starts.length, 1);
    assert.deepEqual(await acted(h, id), [
      ['loop_on', 'a person (api): turned the loop on for this Task'],
      ['loop_off', 'a person (api): turned the loop off for this Task'],
    ]);
  });

  test("M4: cancel a running run: cancelled, its agent killed, and a person's row", async () => {
    const runId = runner.starts[0]!.runId;
    const res = await h.api('POST', `/api/runs/${runId}/cancel`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.state, 'cancelled');
    assert.deepEqual(runner.killed, [runId]);
    const taskId = res.body.taskId;
    assert.equal((await acted(h, taskId))[0]?.[0], 'cancel_run');
    assert.equal((await h.api('POST', `/api/runs/${runId}/cancel`)).status, 409, 'an ended run is not cancelled twice');
  });

  test("M4/H1: resume with a message over the API: a person's run, one at a time", async () => {
    const id = (await h.api('POST', '/api/tasks', { repository: 'acme/shop', pullRequest: 23, branch: 'b23' })).body.id;
    assert.equal((await h.api('POST', `/api/tasks/${id}/resume`, { message: '' })).status, 400);
    const res = await h.api('POST', `/api/tasks/${id}/resume`, { message: 'try the other fix' });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual([res.body.action, res.body.autoResume, res.body.attemptId], ['resume', false, null]);
    assert.match(runner.starts.at(-1)!.prompt, /^try the other fix/);
    assert.equal(
      (await h.api('POST', `/api/tasks/${id}/resume`, { message: 'again' })).status,
      409,
      'one run at a time',
    );
    runner.finish(res.body.id);
    await h.app.settle();
    assert.equal((await h.api('GET', `/api/runs/${res.body.id}`)).body.state, 'completed');
    assert.equal((await acted(h, id))[0]?.[0], 'resume');
  });

  test('M4/K5: approve-one is refused while the loop has not stopped; park and unpark are recorded', async () => {
    const id = (await h.api('POST', '/api/tasks', { repository: 'acme/shop', pullRequest: 22, branch: 'b22' })).body.id;
    assert.equal((await h.api('POST', `/api/tasks/${id}/approve-one`)).status, 409);
    assert.equal((await h.api('POST', '/api/tasks/9999/approve-one')).status, 404);
    assert.notEqual((await h.api('PUT', `/api/tasks/${id}/parked`, { parked: true })).body.parkedAt, null);
    assert.equal((await h.api('PUT', `/api/tasks/${id}/parked`, { parked: false })).body.parkedAt, null);
    assert.deepEqual(
      (await acted(h, id)).map((r) => r[0]),
      ['unpark', 'park'],
    );
  });

  test("M4: PUT /api/stop is recorded as a person's", async () => {
    await h.api('PUT', '/api/stop', { stopped: true });
    await h.api('PUT', '/api/stop', { stopped: false });
    const rows = (await h.api('GET', '/api/deliveries?limit=5')).body.decisions.filter(
      (d: any) => d.outcome === 'acted',
    );
    assert.deepEqual(
      rows.slice(0, 2).map((d: any) => d.reason),
      ['start_all', 'stop_all'],
    );
  });

  test('M4: the board and the Inbox page over the API (newest Task first: #22, #23, #21 by creation)', async () => {
    const first = await h.api('GET', '/api/board?limit=1');
    assert.equal(first.status, 200);
    assert.deepEqual(
      first.body.tasks.map((t: any) => t.pullRequest),
      [22],
    );
    const next = await h.api('GET', `/api/board?limit=2&before=${first.body.nextBefore}`);
    assert.deepEqual(
      next.body.tasks.map((t: any) => t.pullRequest),
      [23, 21],
    );
    assert.equal(next.body.nextBefore, null);
    assert.deepEqual(
      (await h.api('GET', '/api/board?q=b21')).body.tasks.map((t: any) => t.pullRequest),
      [21],
    );
    const inbox = await h.api('GET', '/api/inbox?limit=10');
    // Issue 36: the Inbox over the API also lists the failing base branches (none here).
    assert.deepEqual(inbox.body, { notices: [], nextAfter: null, baseReds: [] });
    assert.ok(Array.isArray((await h.api('GET', '/api/inbox')).body.notices), 'no parameters: the old shape');
  });
});
