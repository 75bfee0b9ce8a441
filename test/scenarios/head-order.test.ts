// SPEC B1, B2, B5: which commit a CI result is about, who may move the Task's head, and that the
// webhook path never reports green. Each refusal is proven twice: the runner was not started, and
// the decision log records `refused` with the exact reason of src/core/reasons.ts.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { DATABASE_KINDS } from '../support/databases.js';
import { startHarness, REPO, SECRET, type Harness } from '../support/harness.js';
import {
  checkRunPayload,
  delivery,
  post,
  pullRequestPayload,
  statusPayload,
  workflowRunPayload,
} from '../support/deliveries.js';
import type { Refusal } from '../../src/core/reasons.js';

/** A distinct 40-hex commit per number. */
const sha = (n: number) => n.toString(16).padStart(40, 'd');
/** Fixed instants, so ordering never depends on the test machine's clock. */
const T0 = Date.parse('2024-05-01T10:00:00.000Z');
const at = (minutes: number) => new Date(T0 + minutes * 60_000).toISOString();

async function send(h: Harness, event: string, payload: unknown): Promise<{ status: number; body: any }> {
  const res = await post(h.url, delivery(event, payload), SECRET);
  await h.app.settle();
  return res;
}

async function stored(h: Harness, event: string, payload: unknown): Promise<string> {
  const res = await send(h, event, payload);
  assert.equal(res.status, 202, JSON.stringify(res.body));
  assert.equal(res.body.outcome, 'stored');
  return res.body.identity as string;
}

async function newTask(h: Harness, pullRequest: number, branch = `agent/pr-${pullRequest}`): Promise<number> {
  const created = await h.api('POST', '/api/tasks', { repository: 'acme/shop', pullRequest, branch });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  return created.body.id as number;
}

async function taskView(h: Harness, id: number): Promise<any> {
  const res = await h.api('GET', `/api/tasks/${id}`);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body;
}

/** A completed check run: commit `n`, reported against pull request `pr` whose head is `head`. */
function checkRun(
  pr: number,
  n: number,
  o: { id?: number; head?: number; conclusion?: string; completedAt: string; output?: string },
) {
  return checkRunPayload({
    repo: REPO,
    sha: sha(n),
    id: o.id ?? n,
    name: 'test',
    conclusion: o.conclusion ?? 'failure',
    completedAt: o.completedAt,
    pr: { number: pr, headSha: sha(o.head ?? n) },
    output: o.output ?? `FAIL commit ${n}\nexpected ${n}`,
    branch: `agent/pr-${pr}`,
  });
}

/** The evaluation decisions (all but the ingest's `stored` row) of one event for one Task. */
async function evaluationOf(h: Harness, identity: string, taskId: number): Promise<Array<[string, string | null]>> {
  const res = await h.api('GET', `/api/deliveries?taskId=${taskId}&limit=1000`);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return (res.body.decisions as any[])
    .filter((d) => d.identity === identity && d.outcome !== 'stored')
    .map((d): [string, string | null] => [d.outcome, d.reason]);
}

async function assertRefused(h: Harness, identity: string, reason: Refusal, taskId: number): Promise<void> {
  assert.deepEqual(await evaluationOf(h, identity, taskId), [['refused', reason]], `decision for ${identity}`);
}

const startsOf = (h: Harness, taskId: number) => h.runner.starts.filter((s) => s.taskId === taskId);

/** The runner's exit is written after its callback returns: wait until no attempt of the Task is in flight (K7). */
async function attemptsSettled(h: Harness, taskId: number): Promise<void> {
  await h.app.settle();
  for (let i = 0; i < 400; i++) {
    const view = await taskView(h, taskId);
    if (view.attempts.every((a: any) => !['queued', 'running'].includes(a.state))) return;
    await new Promise((r) => setTimeout(r, 5));
  }
  assert.fail(`attempts of Task ${taskId} still in flight`);
}

/** Every order of `items` (n! of them). */
function permutations<T>(items: readonly T[]): T[][] {
  if (items.length <= 1) return [[...items]];
  return items.flatMap((x, i) => permutations([...items.slice(0, i), ...items.slice(i + 1)]).map((p) => [x, ...p]));
}

/**
 * Five deliveries GitHub can send within one second when the agent pushes B while CI on A ends:
 * A's check run queued, in progress and completed red, A's workflow run completed red (each
 * pointing at A, the head when it was built), and the `synchronize` from A to B. All carry `T`.
 */
const TIE_EVENTS = ['queued', 'in_progress', 'red_a', 'workflow_a', 'synchronize'] as const;
type TieEvent = (typeof TIE_EVENTS)[number];

function tieDelivery(e: TieEvent, pr: number, a: string, b: string, t: string): { event: string; payload: unknown } {
  const branch = `agent/pr-${pr}`;
  const onA = { number: pr, headSha: a };
  switch (e) {
    case 'queued':
    case 'in_progress':
      return {
        event: 'check_run',
        payload: checkRunPayload({ repo: REPO, sha: a, id: pr, name: 'test', status: e, pr: onA, branch }),
      };
    case 'red_a':
      return {
        event: 'check_run',
        payload: checkRunPayload({
          repo: REPO,
          sha: a,
          id: pr,
          name: 'test',
          completedAt: t,
          pr: onA,
          output: `FAIL on A of ${pr}`,
          branch,
        }),
      };
    case 'workflow_a':
      return {
        event: 'workflow_run',
        payload: workflowRunPayload({ repo: REPO, sha: a, id: pr + 1, conclusion: 'failure', pr: onA, updatedAt: t }),
      };
    case 'synchronize': {
      const p = pullRequestPayload({ repo: REPO, number: pr, action: 'synchronize', headSha: b, branch });
      p.before = a;
      p.after = b;
      p.pull_request.updated_at = t;
      return { event: 'pull_request', payload: p };
    }
  }
}

for (const kind of DATABASE_KINDS) {
  describe(`head order (${kind})`, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(kind);
    });
    after(() => h.close());

    test('B5/B1: a red result for a commit that is not the head its own delivery points to is refused as superseded; the head does not move back', async () => {
      const taskId = await newTask(h, 201);
      // Head B is known (a green result for B, pointing at B).
      await stored(h, 'check_run', checkRun(201, 20102, { conclusion: 'success', completedAt: at(10) }));
      let view = await taskView(h, taskId);
      assert.equal(view.ciHeadSha, sha(20102));
      // A red for the older commit A, whose delivery says the pull request's head is B.
      const id = await stored(h, 'check_run', checkRun(201, 20101, { head: 20102, completedAt: at(5) }));
      assert.equal(startsOf(h, taskId).length, 0);
      await assertRefused(h, id, 'superseded_head', taskId);
      view = await taskView(h, taskId);
      assert.equal(view.ciHeadSha, sha(20102), 'ciHeadSha is not moved back to A');
      assert.equal(view.ciHeadSeenAt, at(10));
      assert.notEqual(view.ciState, 'red', 'the superseded red does not paint the head red');
      assert.equal(view.attempts.length, 0);
    });

    test('B5: a manual re-run on an old commit (new check run id, brand-new completion time, pointer = new head) is refused with no clock involved', async () => {
      const taskId = await newTask(h, 202);
      await stored(h, 'check_run', checkRun(202, 20201, { completedAt: at(0), output: 'FAIL on A' }));
      assert.equal(startsOf(h, taskId).length, 1, 'the red on A resumes');
      h.runner.finish(startsOf(h, taskId)[0]!.runId);
      await h.app.settle();
      await stored(h, 'check_run', checkRun(202, 20202, { completedAt: at(10), output: 'FAIL on B' }));
      assert.equal(startsOf(h, taskId).length, 2, 'the red on the new head B resumes');
      h.runner.finish(startsOf(h, taskId)[1]!.runId);
      await h.app.settle();
      // A person re-runs the job on A an hour later: a new id, a completion time later than any.
      const id = await stored(
        h,
        'check_run',
        checkRun(202, 20201, { id: 20299, head: 20202, completedAt: at(70), output: 'FAIL on A, re-run' }),
      );
      assert.equal(startsOf(h, taskId).length, 2, 'no resume for the old commit');
      await assertRefused(h, id, 'superseded_head', taskId);
      const view = await taskView(h, taskId);
      assert.equal(view.ciHeadSha, sha(20202));
      assert.equal(view.ciHeadSeenAt, at(10), 'the later time of the re-run did not move the head');
      assert.equal(view.attempts.length, 2);
    });

    test('B1: a delivery that points at its own commit but is older than the known head (a redelivery from before the push) does not move the head back', async () => {
      const taskId = await newTask(h, 203);
      await stored(h, 'check_run', checkRun(203, 20302, { conclusion: 'success', completedAt: at(20) }));
      // Captured when A was the head (pointer A), completed before B was seen.
      const id = await stored(h, 'check_run', checkRun(203, 20301, { completedAt: at(15) }));
      assert.equal(startsOf(h, taskId).length, 0);
      await assertRefused(h, id, 'superseded_head', taskId);
      const view = await taskView(h, taskId);
      assert.equal(view.ciHeadSha, sha(20302));
      assert.equal(view.ciHeadSeenAt, at(20));
    });

    test('B5: without a pointer (commit status), a red completed later than the head moves the head and resumes', async () => {
      const branch = 'agent/status-later';
      const taskId = await newTask(h, 204, branch);
      const green = await stored(
        h,
        'status',
        statusPayload({ repo: REPO, sha: sha(20401), context: 'ci/test', state: 'success', updatedAt: at(0), branch }),
      );
      await assertRefused(h, green, 'result_green', taskId);
      assert.equal((await taskView(h, taskId)).ciHeadSha, sha(20401), 'the Task is found by branch');
      const red = await stored(
        h,
        'status',
        statusPayload({ repo: REPO, sha: sha(20402), context: 'ci/test', state: 'failure', updatedAt: at(10), branch }),
      );
      const view = await taskView(h, taskId);
      assert.equal(view.ciHeadSha, sha(20402));
      assert.equal(view.ciHeadSeenAt, at(10));
      assert.equal(view.ciState, 'red');
      assert.equal(startsOf(h, taskId).length, 1);
      assert.equal(startsOf(h, taskId)[0]!.headSha, sha(20402));
      assert.deepEqual(
        (await evaluationOf(h, red, taskId)).map(([o]) => o),
        ['claimed'],
      );
    });

    test('B5: without a pointer, a red status for another commit completed earlier than the head was seen is refused as superseded; the head is unchanged', async () => {
      const branch = 'agent/status-earlier';
      const taskId = await newTask(h, 205, branch);
      await stored(
        h,
        'status',
        statusPayload({ repo: REPO, sha: sha(20502), context: 'ci/test', state: 'success', updatedAt: at(30), branch }),
      );
      const id = await stored(
        h,
        'status',
        statusPayload({ repo: REPO, sha: sha(20501), context: 'ci/test', state: 'error', updatedAt: at(20), branch }),
      );
      assert.equal(startsOf(h, taskId).length, 0);
      await assertRefused(h, id, 'superseded_head', taskId);
      const view = await taskView(h, taskId);
      assert.equal(view.ciHeadSha, sha(20502));
      assert.equal(view.ciHeadSeenAt, at(30));
      assert.notEqual(view.ciState, 'red');
      assert.equal(view.attempts.length, 0);
    });

    test('B5: a delivery with no pointer and no usable time is refused, never given "now" (no_usable_time)', async () => {
      const branch = 'agent/status-no-time';
      const taskId = await newTask(h, 206, branch);
      await stored(
        h,
        'status',
        statusPayload({ repo: REPO, sha: sha(20601), context: 'ci/test', state: 'success', updatedAt: at(0), branch }),
      );
      const id = await stored(
        h,
        'status',
        statusPayload({ repo: REPO, sha: sha(20602), context: 'ci/test', state: 'failure', updatedAt: null, branch }),
      );
      assert.equal(startsOf(h, taskId).length, 0);
      await assertRefused(h, id, 'no_usable_time', taskId);
      const view = await taskView(h, taskId);
      assert.equal(view.ciHeadSha, sha(20601));
      assert.equal(view.ciHeadSeenAt, at(0));
      // …and on a Task that has no head yet, too.
      const fresh = await newTask(h, 207, 'agent/status-no-time-fresh');
      const first = await stored(
        h,
        'status',
        statusPayload({
          repo: REPO,
          sha: sha(20701),
          context: 'ci/test',
          state: 'failure',
          updatedAt: null,
          branch: 'agent/status-no-time-fresh',
        }),
      );
      assert.equal(startsOf(h, fresh).length, 0);
      await assertRefused(h, first, 'no_usable_time', fresh);
      assert.equal((await taskView(h, fresh)).ciHeadSha, null);
    });

    test('B2: a green check for the head never sets ciState passing', async () => {
      const taskId = await newTask(h, 208);
      const id = await stored(h, 'check_run', checkRun(208, 20801, { conclusion: 'success', completedAt: at(0) }));
      await assertRefused(h, id, 'result_green', taskId);
      assert.equal(startsOf(h, taskId).length, 0);
      let view = await taskView(h, taskId);
      assert.equal(view.ciHeadSha, sha(20801));
      assert.equal(view.ciState, 'pending');
      // More green for the same head, a check run and the workflow run: still never passing.
      const again = await stored(
        h,
        'check_run',
        checkRun(208, 20801, { id: 20811, conclusion: 'success', completedAt: at(1) }),
      );
      await assertRefused(h, again, 'result_green', taskId);
      const wf = await stored(
        h,
        'workflow_run',
        workflowRunPayload({
          repo: REPO,
          sha: sha(20801),
          id: 20812,
          conclusion: 'success',
          pr: { number: 208, headSha: sha(20801) },
          updatedAt: at(2),
        }),
      );
      await assertRefused(h, wf, 'result_green', taskId);
      view = await taskView(h, taskId);
      assert.equal(view.ciState, 'pending');
      assert.equal(startsOf(h, taskId).length, 0);
    });

    test('B2: a red after a green on the same head sets red, and a later green does not clear it', async () => {
      const taskId = await newTask(h, 209);
      await stored(h, 'check_run', checkRun(209, 20901, { id: 20901, conclusion: 'success', completedAt: at(0) }));
      assert.equal((await taskView(h, taskId)).ciState, 'pending');
      await stored(h, 'check_run', checkRun(209, 20901, { id: 20902, completedAt: at(1) }));
      let view = await taskView(h, taskId);
      assert.equal(view.ciState, 'red', 'red beats the earlier green');
      assert.equal(view.ciHeadSha, sha(20901));
      assert.equal(startsOf(h, taskId).length, 1, 'the red on the head resumes');
      const green = await stored(
        h,
        'check_run',
        checkRun(209, 20901, { id: 20903, conclusion: 'success', completedAt: at(2) }),
      );
      await assertRefused(h, green, 'result_green', taskId);
      view = await taskView(h, taskId);
      assert.equal(view.ciState, 'red', 'a green after the red never reports the head green');
      assert.equal(startsOf(h, taskId).length, 1);
    });

    // Two jobs of one matrix finish together on the new head B: one green, one red. Both deliveries
    // see head A, both try to move the head; whichever order the writes land in, red must win.
    for (const order of ['green first', 'red first'] as const) {
      test(`B1/B2: a green and a red for the new head delivered together (${order}) — red beats everything, neither writer clobbers the other`, async () => {
        const pr = order === 'green first' ? 210 : 211;
        const taskId = await newTask(h, pr);
        await stored(h, 'check_run', checkRun(pr, pr * 100 + 1, { conclusion: 'success', completedAt: at(0) }));
        assert.equal((await taskView(h, taskId)).ciHeadSha, sha(pr * 100 + 1));
        const headB = pr * 100 + 2;
        const green = delivery(
          'check_run',
          checkRun(pr, headB, { id: headB, conclusion: 'success', completedAt: at(10) }),
        );
        const red = delivery(
          'check_run',
          checkRun(pr, headB, { id: headB + 50, completedAt: at(5), output: 'FAIL matrix job 2' }),
        );
        const pair = order === 'green first' ? [green, red] : [red, green];
        // Handed to the ingestor in one turn (after the webhook's signature check, which the other
        // tests exercise), so both land in one group commit and are evaluated side by side — the
        // arrival order of two HTTP requests is not something a test can pin down.
        const answers = await Promise.all(
          pair.map((d) => h.app.ingestor.ingest({ deliveryId: d.id, eventName: d.event, raw: d.body })),
        );
        assert.deepEqual(
          answers.map((a) => a.status),
          [202, 202],
        );
        await h.app.settle();
        const view = await taskView(h, taskId);
        assert.equal(view.ciHeadSha, sha(headB));
        assert.equal(startsOf(h, taskId).length, 1, 'the red on B resumes once');
        assert.equal(view.ciState, 'red', 'the Task resumed for a red head must show red, not pending');
      });
    }

    test("B1/B5: all 120 orders of five same-second deliveries (A queued, in progress, red; A's workflow red; the synchronize to B) end on head B, no attempt is made on A once B is known, and a red for B is then claimed", async () => {
      const t = '2024-05-01T12:00:00Z'; // GitHub's times are whole seconds: all five carry the same one
      const orders = permutations(TIE_EVENTS);
      assert.equal(orders.length, 120);
      // What the loop really checked, counted, so a change that skips orders or branches cannot pass unseen.
      const checked = { orders: 0, resumedOnA: 0, noAttemptOnA: 0, refusedAfterSync: 0, claimedForB: 0 };
      for (const [i, order] of orders.entries()) {
        const pr = 1000 + i;
        const [z, a, b] = [sha(pr * 10), sha(pr * 10 + 1), sha(pr * 10 + 2)];
        const what = `order ${i}: ${order.join(', ')}`;
        const taskId = await newTask(h, pr);
        // The head before the push: an earlier commit, seen a minute before.
        await stored(
          h,
          'check_run',
          checkRunPayload({
            repo: REPO,
            sha: z,
            id: pr + 2,
            name: 'test',
            conclusion: 'success',
            completedAt: '2024-05-01T11:59:00Z',
            pr: { number: pr, headSha: z },
            branch: `agent/pr-${pr}`,
          }),
        );
        const identities = new Map<TieEvent, string | null>();
        for (const e of order) {
          const d = tieDelivery(e, pr, a, b, t);
          const res = await send(h, d.event, d.payload);
          assert.ok(res.status === 202 || res.status === 200, `${what}: ${e} answered ${res.status}`);
          identities.set(e, res.status === 202 ? (res.body.identity as string) : null);
        }
        const view = await taskView(h, taskId);
        assert.equal(view.ciHeadSha, b, `${what}: the head ends on the new commit`);
        // A red for A is acted on only while A is the head, i.e. evaluated before the synchronize.
        const sync = order.indexOf('synchronize');
        const redBeforeSync = order.indexOf('red_a') < sync || order.indexOf('workflow_a') < sync;
        assert.deepEqual(
          view.attempts.map((x: any) => x.coordinate),
          redBeforeSync ? [a] : [],
          `${what}: attempts`,
        );
        if (redBeforeSync) checked.resumedOnA++;
        else checked.noAttemptOnA++;
        assert.ok(
          startsOf(h, taskId).every((s) => s.headSha === a) && startsOf(h, taskId).length === view.attempts.length,
          `${what}: runs started`,
        );
        for (const e of ['red_a', 'workflow_a'] as const) {
          if (order.indexOf(e) > sync) {
            await assertRefused(h, identities.get(e)!, 'superseded_head', taskId).catch((err) => {
              throw new Error(`${what}: ${e} after the synchronize: ${err.message}`);
            });
            checked.refusedAfterSync++;
          }
        }
        for (const s of startsOf(h, taskId)) h.runner.finish(s.runId);
        await attemptsSettled(h, taskId);

        // Afterwards a red for B, in the same second, whose own pointer names B: claimed.
        const red = await stored(
          h,
          'check_run',
          checkRunPayload({
            repo: REPO,
            sha: b,
            id: pr + 3,
            name: 'test',
            completedAt: t,
            pr: { number: pr, headSha: b },
            output: `FAIL on B of ${pr}`,
            branch: `agent/pr-${pr}`,
          }),
        );
        const decided = await evaluationOf(h, red, taskId);
        assert.deepEqual(
          decided.map(([o]) => o),
          ['claimed'],
          `${what}: the red for B: ${JSON.stringify(decided)}`,
        );
        assert.equal(startsOf(h, taskId).at(-1)!.headSha, b, `${what}: the run resumed for B`);
        const after = await taskView(h, taskId);
        assert.equal(after.ciHeadSha, b);
        assert.equal(after.ciState, 'red');
        checked.claimedForB++;
        checked.orders++;
        for (const s of startsOf(h, taskId)) h.runner.finish(s.runId);
      }
      await h.app.settle();
      // By counting: the synchronize follows at least one of A's two reds in 2/3 of the orders (80), precedes
      // both in 1/3 (40), and each red of A comes after it in half of them (60 + 60).
      assert.deepEqual(checked, {
        orders: 120,
        resumedOnA: 80,
        noAttemptOnA: 40,
        refusedAfterSync: 120,
        claimedForB: 120,
      });
    });

    test("B1: a synchronize off the head moves it even when its time is earlier than the head's (clock skew); the head's time never moves back, so a red for the old commit stays refused", async () => {
      const pr = 1201;
      const taskId = await newTask(h, pr);
      const [a, b] = [sha(pr * 10 + 1), sha(pr * 10 + 2)];
      // A's check completes a second after the push that replaced A, as another GitHub service timed it.
      await stored(h, 'check_run', checkRun(pr, pr * 10 + 1, { conclusion: 'success', completedAt: at(11) }));
      const push = pullRequestPayload({
        repo: REPO,
        number: pr,
        action: 'synchronize',
        headSha: b,
        branch: `agent/pr-${pr}`,
      });
      Object.assign(push, { before: a, after: b });
      push.pull_request.updated_at = at(10);
      await stored(h, 'pull_request', push);
      let view = await taskView(h, taskId);
      assert.equal(view.ciHeadSha, b, 'the push names the commit it replaced: no clock involved');
      assert.equal(view.ciHeadSeenAt, at(11), "the head's time is not moved back");
      const id = await stored(h, 'check_run', checkRun(pr, pr * 10 + 1, { id: pr * 10 + 9, completedAt: at(11) }));
      await assertRefused(h, id, 'superseded_head', taskId);
      view = await taskView(h, taskId);
      assert.equal(view.ciHeadSha, b);
      assert.equal(startsOf(h, taskId).length, 0);
    });

    test('B1: a stale synchronize delivered after a later push (a new delivery of an old event) does not move the head back', async () => {
      const pr = 1202;
      const taskId = await newTask(h, pr);
      const [a, b, c] = [sha(pr * 10 + 1), sha(pr * 10 + 2), sha(pr * 10 + 3)];
      const push = (before: string, after: string, t: string) => {
        const p = pullRequestPayload({
          repo: REPO,
          number: pr,
          action: 'synchronize',
          headSha: after,
          branch: `agent/pr-${pr}`,
        });
        Object.assign(p, { before, after });
        p.pull_request.updated_at = t;
        return p;
      };
      await stored(h, 'check_run', checkRun(pr, pr * 10 + 1, { conclusion: 'success', completedAt: at(0) }));
      await stored(h, 'pull_request', push(a, b, at(10)));
      await stored(h, 'pull_request', push(b, c, at(20)));
      assert.equal((await taskView(h, taskId)).ciHeadSha, c);
      await stored(h, 'pull_request', push(a, b, at(10)));
      const view = await taskView(h, taskId);
      assert.equal(view.ciHeadSha, c, 'the head stays on the later push');
      assert.equal(view.ciHeadSeenAt, at(20));
    });
  });
}
