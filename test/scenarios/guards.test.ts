// SPEC K6, K7, K9 through the real pipeline: the guards that look at a Task's attempts and spend
// before anything is claimed. K7 on PostgreSQL with two replicas on one database (the partial unique
// index is the rule across processes); K6 and K9 on both databases with the poll driven by a fake
// clock. Every assertion about "no attempt" is made on the attempts table itself.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { DATABASE_KINDS } from '../support/databases.js';
import { BOT_LOGIN, startGitHubHarness, type GitHubHarness } from '../support/github-harness.js';
import { REPO, SECRET, startHarness, type Harness } from '../support/harness.js';
import { checkRunPayload, delivery, post, type Delivery } from '../support/deliveries.js';
import { createGitHub } from '../../src/github/client.js';
import type { RunSpec } from '../../src/app/ports.js';
import {
  IN_FLIGHT,
  POLL_MS,
  attemptRows,
  decisionsOf,
  endRun,
  pushRedHead,
  reportOutcome,
  runApi,
  sha,
  tasksWithTwoInFlight,
} from '../support/loop-driver.js';

const REPO_NAME = 'acme/shop';

/** A Task on `pr` whose pull request is in the fake at a head with no checks yet. */
async function task(h: GitHubHarness, pr: number): Promise<number> {
  const created = await h.api('POST', '/api/tasks', {
    repository: REPO_NAME,
    pullRequest: pr,
    branch: `agent/fix-${pr}`,
  });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  h.fake.addPull(REPO_NAME, pr, { headSha: sha('0'), headRef: `agent/fix-${pr}` });
  return created.body.id;
}

/** The agent pushed a new red head; the next poll tick (one interval later) sees it. Returns the run started, if any. */
async function redHeadTick(h: GitHubHarness, pr: number, c: string, output: string): Promise<RunSpec | null> {
  const before = h.runner.starts.length;
  h.clock.advance(POLL_MS);
  pushRedHead(h, pr, sha(c), output);
  await h.tick();
  assert.ok(h.runner.starts.length <= before + 1, 'one red head starts the agent at most once');
  return h.runner.starts.length > before ? h.runner.starts.at(-1)! : null;
}

/** The run says the failure is not for it, and ends: the attempt is out of flight (acknowledged). */
async function acknowledge(h: GitHubHarness, spec: RunSpec): Promise<void> {
  await reportOutcome(h, spec, 'non_actionable');
  await endRun(h, spec);
}

async function inFlightCount(h: Harness, taskId: number): Promise<number> {
  return (await attemptRows(h.app, taskId)).filter((a) => (IN_FLIGHT as readonly string[]).includes(a.state)).length;
}

describe('K7: one attempt in flight per pull request, across replicas (postgres)', () => {
  /** Replica a on the fake GitHub, and replica b: a second server app on the same database. */
  async function twoReplicas(): Promise<{ a: GitHubHarness; b: Harness }> {
    const env = { TASK_CI_AUTO_RESUME_MAX_ATTEMPTS: '5' };
    const a = await startGitHubHarness('postgres', { env });
    const github = createGitHub({
      apiUrl: a.fake.url,
      auth: { kind: 'token', token: a.fake.addUserToken(BOT_LOGIN) },
      throttle: { spaceWrites: false },
      retry: { backoffUnitMs: 1 },
    });
    const b = await startHarness('postgres', {
      db: a.db,
      env,
      adapters: { github, clock: a.clock, startPoll: false, logFetch: { ca: a.fake.blobCa } },
    });
    return { a, b };
  }

  const red = (pr: number, c: string, id: number, completedAt: string, output: string): Delivery =>
    delivery(
      'check_run',
      checkRunPayload({
        repo: REPO,
        sha: sha(c),
        id,
        name: 'test',
        pr: { number: pr, headSha: sha(c) },
        output,
        completedAt,
      }),
    );

  test('the partial unique index itself: two replicas claiming two heads of one Task at once — one row, the other refused as in flight', async () => {
    const { a, b } = await twoReplicas();
    try {
      const taskId = await task(a, 60);
      const claim = (h: Harness, c: string) =>
        h.app.ledger.claimAttempt({
          taskId,
          coordinate: sha(c),
          source: 'gate',
          headSha: sha(c),
          fingerprint: `fp-${c}`,
          rejection: { checkName: 'test', body: c, eventId: null },
        });
      const results = await Promise.all([claim(a, 'a'), claim(b, 'b')]);
      const kinds = results.map((r) => r.kind).sort();
      assert.deepEqual(kinds, ['claimed', 'in_flight'], 'the loser is refused by the index, as a value');
      assert.equal((await attemptRows(a.app, taskId)).length, 1, 'the loser inserted nothing');
      assert.equal(await inFlightCount(a, taskId), 1);
    } finally {
      await b.close();
      await a.close();
    }
  });

  test('two red heads of one pull request delivered at once, split between two replicas: never two attempts in flight; the refused one is recorded', async (t) => {
    const { a, b } = await twoReplicas();
    try {
      const prs = [61, 62, 63, 64, 65, 66];
      const tasks = new Map<number, number>();
      for (const pr of prs) tasks.set(pr, await task(a, pr));

      // Step 1: for each pull request, head A to replica a and head B to replica b, all at once.
      // Pointers are consistent (each delivery's commit is its pull request head); B is the later.
      const pairs = prs.map((pr, i) => ({
        pr,
        A: red(pr, String.fromCharCode(97 + i), 7000 + pr, '2026-11-30T08:00:10Z', `FAIL A of #${pr}`),
        B: red(pr, String.fromCharCode(103 + i), 8000 + pr, '2026-11-30T08:00:20Z', `FAIL B of #${pr}`),
      }));
      const answers = await Promise.all(pairs.flatMap((p) => [post(a.url, p.A, SECRET), post(b.url, p.B, SECRET)]));
      assert.ok(
        answers.every((r) => r.status === 202),
        JSON.stringify(answers.map((r) => r.status)),
      );
      await Promise.all([a.app.settle(), b.app.settle()]);

      assert.deepEqual(await tasksWithTwoInFlight(a.app), [], 'never two attempts in flight for one Task');
      const reasons: string[] = [];
      for (const p of pairs) {
        const taskId = tasks.get(p.pr)!;
        const rows = await attemptRows(a.app, taskId);
        assert.equal(rows.length, 1, `#${p.pr}: one attempt claimed, the other head refused: ${JSON.stringify(rows)}`);
        assert.equal(await inFlightCount(a, taskId), 1);
        const loser = rows[0]!.head_sha === sha(String.fromCharCode(97 + prs.indexOf(p.pr))) ? p.B : p.A;
        const log = (await a.api('GET', `/api/deliveries?delivery=${loser.id}`)).body.decisions as Array<{
          outcome: string;
          reason: string;
          detail: string | null;
        }>;
        const refused = log.find((d) => d.outcome === 'refused');
        assert.ok(refused, `#${p.pr}: the other head's refusal is recorded: ${JSON.stringify(log)}`);
        reasons.push(refused.reason);
        t.diagnostic(`#${p.pr}: ${refused.reason} (${refused.detail ?? ''})`);
      }
      // K7's own refusal, or the earlier gates that also keep a second attempt out (a run in flight, D;
      // a head the other delivery already moved past, B5). Whatever the order, never a second attempt.
      for (const r of reasons) assert.ok(['attempt_in_flight', 'run_in_flight', 'superseded_head'].includes(r), r);
      assert.equal(
        a.runner.starts.length + b.runner.starts.length,
        prs.length,
        'one agent start per pull request across both replicas',
      );

      // Step 2: #61's run reports action_taken and ends: its attempt is still in flight (awaiting progress)
      // while no run is.
      const taskId = tasks.get(61)!;
      const [first] = await attemptRows(a.app, taskId);
      const owner = a.runner.starts.some((s) => s.attemptId === first!.id) ? a : b;
      const other = owner === a ? b : a;
      const spec = owner.runner.starts.find((s) => s.attemptId === first!.id)!;
      await reportOutcome(owner, spec, 'action_taken', 'pushed a fix');
      await endRun(owner, spec);
      assert.deepEqual(
        (await attemptRows(a.app, taskId)).map((r) => r.state),
        ['awaiting_progress'],
      );

      // Step 3: the agent's push C fails. Its red reaches the replica that did not start the run by
      // webhook while both replicas' polls read the moved head at the same moment: the new head is
      // progress at once (issue 35), so the waiting attempt is acknowledged and C's red claimed — by
      // exactly one of the three paths, and never two attempts in flight.
      a.fake.setHead(REPO_NAME, 61, sha('c'));
      a.fake.addCheckRun(REPO_NAME, sha('c'), {
        name: 'test',
        status: 'completed',
        conclusion: 'failure',
        outputSummary: 'FAIL C of #61',
      });
      const c = red(61, 'c', 9061, '2026-11-30T08:00:30Z', 'FAIL C of #61');
      a.clock.advance(POLL_MS);
      const [posted] = await Promise.all([post(other.url, c, SECRET), a.app.poller!.tick(), b.app.poller!.tick()]);
      assert.equal(posted.status, 202);
      await Promise.all([a.app.settle(), b.app.settle()]);
      assert.deepEqual(await tasksWithTwoInFlight(a.app), [], 'never two attempts in flight for one Task');
      const rows = await attemptRows(a.app, taskId);
      assert.deepEqual(
        rows.map((r) => [r.coordinate, r.state]),
        [
          [first!.head_sha, 'acknowledged'],
          [sha('c'), 'running'],
        ],
      );
      assert.equal(a.runner.starts.length + b.runner.starts.length, prs.length + 1, 'one agent start for C');
    } finally {
      await b.close();
      await a.close();
    }
  });
});

for (const kind of DATABASE_KINDS) {
  describe(`K6: the cost ceiling per Task (${kind})`, () => {
    test('spend reported by the run counts; at the ceiling an attempt is allowed, past it the next red is refused before any claim (notice: cost_ceiling)', async () => {
      const h = await startGitHubHarness(kind, {
        env: { TASK_CI_AUTO_RESUME_MAX_ATTEMPTS: '5' },
        configExtra: { guards: { costCeiling: 5, expectedAttemptCost: 2 } },
      });
      try {
        const taskId = await task(h, 71);
        // Nothing spent yet: 0 + the configured expected 2 is below 5.
        const one = await redHeadTick(h, 71, '1', 'FAIL one');
        assert.ok(one, 'the first attempt is allowed');
        const spent = await runApi(h, one.runToken, 'POST', '/api/run/spend', { model: 2.5 });
        assert.equal(spent.status, 200, JSON.stringify(spent.body));
        assert.equal(spent.body.totalSpend, 2.5);
        await acknowledge(h, one);

        // 2.5 spent + 2.5 expected (what an attempt has cost so far) = 5: at the ceiling, not past it.
        const two = await redHeadTick(h, 71, '2', 'FAIL two');
        assert.ok(two, 'below (at) the ceiling the next attempt is allowed');
        assert.equal((await runApi(h, two.runToken, 'POST', '/api/run/spend', { model: 2.5 })).body.totalSpend, 5);
        await acknowledge(h, two);
        assert.equal((await attemptRows(h.app, taskId)).length, 2);

        // 5 spent + 2.5 expected passes 5: refused before anything is claimed or started.
        const three = await redHeadTick(h, 71, '3', 'FAIL three');
        assert.equal(three, null, 'no agent start');
        const rows = await attemptRows(h.app, taskId);
        assert.deepEqual(
          rows.map((r) => r.head_sha),
          [sha('1'), sha('2')],
          'no new attempt row',
        );
        const view = (await h.api('GET', `/api/tasks/${taskId}`)).body;
        assert.ok(
          !view.rejections.some((r: any) => r.headSha === sha('3')),
          'nothing was claimed for the third head (no rejection row either)',
        );
        assert.equal(view.notice?.reason, 'cost_ceiling', JSON.stringify(view.notice));
        assert.equal(view.notice.headSha, sha('3'));
        const inbox = (await h.api('GET', '/api/inbox')).body.notices.filter((n: any) => n.taskId === taskId);
        assert.deepEqual(
          inbox.map((n: any) => n.reason),
          ['cost_ceiling'],
        );
        const log = await decisionsOf(h, taskId);
        const noticed = log.find((d) => d.outcome === 'noticed' && d.reason === 'cost_ceiling');
        assert.ok(noticed, JSON.stringify(log));
        assert.equal(noticed.attemptId, null, 'the stop names no attempt: none was claimed');

        h.clock.advance(POLL_MS);
        await h.tick();
        assert.equal(h.runner.starts.length, 2, 'the stopped loop stays stopped');
      } finally {
        await h.close();
      }
    });

    test('the expected cost alone passes the ceiling: the very first red is refused before it is spent', async () => {
      const h = await startGitHubHarness(kind, { configExtra: { guards: { costCeiling: 1, expectedAttemptCost: 2 } } });
      try {
        const taskId = await task(h, 72);
        assert.equal(await redHeadTick(h, 72, '1', 'FAIL one'), null);
        assert.deepEqual(await attemptRows(h.app, taskId), []);
        assert.equal((await h.api('GET', `/api/tasks/${taskId}`)).body.notice?.reason, 'cost_ceiling');
      } finally {
        await h.close();
      }
    });

    test("CI minutes count toward the ceiling: the check runs' durations, at the configured minute price", async () => {
      const h = await startGitHubHarness(kind, {
        env: { TASK_CI_AUTO_RESUME_MAX_ATTEMPTS: '5' },
        configExtra: { guards: { costCeiling: 5, expectedAttemptCost: 1, ciMinutePrice: 1 } },
      });
      try {
        const taskId = await task(h, 73);
        const one = await redHeadTick(h, 73, '1', 'FAIL one'); // the check took no time: nothing billed
        assert.ok(one);
        await acknowledge(h, one);

        // The agent's push ran CI for 10 minutes: 10 × 1 already passes the ceiling of 5.
        h.clock.advance(POLL_MS);
        h.fake.setHead(REPO_NAME, 73, sha('2'));
        h.fake.addCheckRun(REPO_NAME, sha('2'), {
          name: 'test',
          status: 'completed',
          conclusion: 'failure',
          outputSummary: 'FAIL two',
          startedAt: '2026-11-30T07:50:00Z',
          completedAt: '2026-11-30T08:00:00Z',
        });
        await h.tick();
        const two = h.runner.starts.length > 1 ? h.runner.starts.at(-1)! : null;
        if (two) await acknowledge(h, two);

        // By the next red head at the latest, the 10 CI minutes are spent and the loop stops.
        await redHeadTick(h, 73, '3', 'FAIL three');
        const rows = await attemptRows(h.app, taskId);
        assert.ok(
          rows.length <= 2,
          `no attempt once CI minutes passed the ceiling: ${JSON.stringify(rows.map((r) => r.head_sha))}`,
        );
        assert.equal((await h.api('GET', `/api/tasks/${taskId}`)).body.notice?.reason, 'cost_ceiling');
      } finally {
        await h.close();
      }
    });
  });

  describe(`K9: wake-up caps (${kind})`, () => {
    test('wakes beyond the window are refused wake_cap_window and allowed again once the window passed; beyond the cap since a person acted the loop stops (wake_cap_since_human)', async () => {
      const h = await startGitHubHarness(kind, {
        env: { TASK_CI_AUTO_RESUME_MAX_ATTEMPTS: '5' },
        configExtra: { guards: { wakesPerWindow: 2, wakeWindowMinutes: 10, wakesSinceHuman: 3 } },
      });
      try {
        const taskId = await task(h, 81);
        const one = await redHeadTick(h, 81, '1', 'FAIL one');
        assert.ok(one);
        const firstWakeAt = h.clock.now().getTime();
        await acknowledge(h, one);
        const two = await redHeadTick(h, 81, '2', 'FAIL two');
        assert.ok(two);
        await acknowledge(h, two);

        // Two wakes in the last 10 minutes: the third is refused, nothing claimed, no notice.
        assert.equal(await redHeadTick(h, 81, '3', 'FAIL three'), null);
        assert.deepEqual(
          (await attemptRows(h.app, taskId)).map((r) => r.head_sha),
          [sha('1'), sha('2')],
        );
        let log = await decisionsOf(h, taskId);
        const refusal = log.find((d) => d.reason === 'wake_cap_window');
        assert.ok(refusal, JSON.stringify(log.map((d) => d.reason)));
        assert.equal(refusal.outcome, 'refused');
        assert.match(refusal.detail ?? '', /2 automatic wakes in the last 10 minutes \(cap 2\)/);
        assert.equal(
          (await h.api('GET', `/api/tasks/${taskId}`)).body.notice,
          null,
          'the window clears on its own: a refusal, not a stop',
        );

        h.clock.advance(POLL_MS);
        await h.tick();
        assert.equal(h.runner.starts.length, 2, 'still within the window of the first wake');

        // Once the first wake left the window, the poll's re-offer of the same red head is allowed.
        h.clock.advance(firstWakeAt + 10 * 60_000 + 1000 - h.clock.now().getTime());
        await h.tick();
        assert.equal(h.runner.starts.length, 3, 'allowed again after the window');
        assert.deepEqual(
          (await attemptRows(h.app, taskId)).map((r) => r.head_sha),
          [sha('1'), sha('2'), sha('3')],
        );
        await acknowledge(h, h.runner.starts[2]!);

        // Three wakes since a person last acted: the fourth stops the loop (the window has room).
        assert.equal(await redHeadTick(h, 81, '4', 'FAIL four'), null);
        assert.equal((await attemptRows(h.app, taskId)).length, 3, 'no new attempt row');
        const view = (await h.api('GET', `/api/tasks/${taskId}`)).body;
        assert.equal(view.notice?.reason, 'wake_cap_since_human', JSON.stringify(view.notice));
        log = await decisionsOf(h, taskId);
        assert.ok(
          log.some(
            (d) =>
              d.outcome === 'noticed' &&
              d.reason === 'wake_cap_since_human' &&
              /3 automatic wakes since a person last acted/.test(d.detail ?? ''),
          ),
          JSON.stringify(log),
        );
        assert.deepEqual(h.fake.state.pulls[`${REPO_NAME}#81`]!.labels, ['fixloop:needs-human'], 'handed to a person');

        // Waiting does not lift it.
        h.clock.advance(30 * 60_000);
        await h.tick();
        assert.equal(h.runner.starts.length, 3);
      } finally {
        await h.close();
      }
    });

    test("a person's approve-one after a wake_cap_since_human stop is a person acting: exactly one more wake", async () => {
      const h = await startGitHubHarness(kind, {
        env: { TASK_CI_AUTO_RESUME_MAX_ATTEMPTS: '5' },
        configExtra: { guards: { wakesSinceHuman: 2 } },
      });
      try {
        const taskId = await task(h, 82);
        for (const [c, word] of [
          ['1', 'one'],
          ['2', 'two'],
        ] as const) {
          const spec = await redHeadTick(h, 82, c, `FAIL ${word}`); // distinct words: digits are normalized away (C5)
          assert.ok(spec);
          await acknowledge(h, spec);
        }
        assert.equal(await redHeadTick(h, 82, '3', 'FAIL three'), null);
        assert.equal((await h.api('GET', `/api/tasks/${taskId}`)).body.notice?.reason, 'wake_cap_since_human');
        assert.deepEqual(h.fake.state.pulls[`${REPO_NAME}#82`]!.labels, ['fixloop:needs-human']);

        h.fake.state.pulls[`${REPO_NAME}#82`]!.labels = ['fixloop:needs-human', 'fixloop:approve-one'];
        h.clock.advance(POLL_MS);
        await h.tick(); // grants
        h.clock.advance(POLL_MS);
        await h.tick(); // re-offers the red head
        const log = await decisionsOf(h, taskId);
        assert.ok(
          log.some((d) => d.reason === 'approve_one'),
          'the grant was recorded',
        );
        assert.equal(
          h.runner.starts.length,
          3,
          `approve-one grants one more wake; decisions: ${JSON.stringify(log.slice(0, 6).map((d) => [d.outcome, d.reason, d.detail]))}`,
        );
      } finally {
        await h.close();
      }
    });
  });
}
