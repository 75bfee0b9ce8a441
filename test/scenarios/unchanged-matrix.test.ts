// SPEC C5, K2, T5, T6 (decision 0029): a twelve-job matrix failing the same way on two heads stops the
// loop whatever order its jobs report in — one attempt, one notice that says the failure was
// unchanged — while a head that fixed half the matrix gets its second attempt, and empty outputs
// never pass for an unchanged failure. Through the webhook path, on both databases.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { DATABASE_KINDS } from '../support/databases.js';
import { startHarness, REPO, SECRET, type Harness } from '../support/harness.js';
import { checkRunPayload, checkSuitePayload, delivery, post, workflowRunPayload } from '../support/deliveries.js';
import { FakeClock } from '../support/github-harness.js';

/** A small seeded generator (mulberry32): the same seed, the same shuffle, on every run. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function shuffled<T>(items: readonly T[], random: () => number): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

const JOBS = ['ubuntu-latest', 'macos-latest', 'windows-latest'].flatMap((os) =>
  [18, 20, 22, 23].map((node) => `test (${os}, node ${node})`),
);

/** The failure a job reports, with the noise one run of it differs from the next by. */
function failureOf(job: string, random: () => number): string {
  const n = (max: number) => 1 + Math.floor(random() * max);
  const stamp = new Date(Date.parse('2026-11-30T09:00:00Z') + n(86_400_000)).toISOString();
  const tmp = job.includes('windows')
    ? `C:\\Users\\runneradmin\\AppData\\Local\\Temp\\vitest-${n(99999)}\\cart.test.ts`
    : job.includes('macos')
      ? `/var/folders/${n(99)}x/${n(9999)}q/T/vitest-${n(99999)}/cart.test.ts`
      : `/tmp/vitest-${n(99999)}/cart.test.ts`;
  return [
    `FAIL  src/cart.test.ts > cart > adds an item to an empty cart`,
    `AssertionError: expected 3 to deeply equal 2`,
    ` ❯ ${tmp}:${n(200)}:${n(40)}`,
    `Test Files  1 failed | ${n(40)} passed (${n(40) + 1})`,
    `     Tests  1 failed | ${n(300)} passed (${n(300) + 1})`,
    `  Start at  ${String(n(23)).padStart(2, '0')}:${String(n(59)).padStart(2, '0')}:${String(n(59)).padStart(2, '0')}`,
    `  Duration  ${n(90)}.${n(99)}s (transform ${n(900)}ms, setup ${n(90)}ms, collect ${n(3000)}ms)`,
    `${stamp} ##[error]Process completed with exit code 1.`,
  ].join('\n');
}

const sha = (pr: number, head: number) => `${pr.toString(16).padStart(4, '0')}${head}`.padEnd(40, 'c');

/** One result of a head: a job's check run, or the suite and workflow run that sum them up. */
type Report = { job: string; red: boolean } | { aggregate: 'suite' | 'workflow' };

/** Each report of a head, one delivery at a time and evaluated before the next, as a matrix trickles in. */
async function report(
  h: Harness,
  pr: number,
  head: number,
  reports: readonly Report[],
  random: () => number,
  firstId = pr * 1000 + head * 100,
) {
  const s = sha(pr, head);
  let id = firstId - 1;
  for (const r of reports) {
    id++;
    const payload =
      'aggregate' in r
        ? r.aggregate === 'suite'
          ? checkSuitePayload({ repo: REPO, sha: s, id, pr: { number: pr, headSha: s } })
          : workflowRunPayload({ repo: REPO, sha: s, id, pr: { number: pr, headSha: s } })
        : checkRunPayload({
            repo: REPO,
            sha: s,
            id,
            name: r.job,
            conclusion: r.red ? 'failure' : 'success',
            pr: { number: pr, headSha: s },
            ...(r.red ? { output: failureOf(r.job, random) } : {}),
          });
    const event = 'aggregate' in r ? (r.aggregate === 'suite' ? 'check_suite' : 'workflow_run') : 'check_run';
    const res = await post(h.url, delivery(event, payload), SECRET);
    assert.equal(res.status, 202, JSON.stringify(res.body));
    await h.app.settle();
  }
}

/** The matrix in a shuffled order, with its suite and workflow run somewhere among the jobs. */
function matrix(random: () => number, red: (job: string) => boolean): Report[] {
  const jobs: Report[] = shuffled(JOBS, random).map((job) => ({ job, red: red(job) }));
  for (const aggregate of ['suite', 'workflow'] as const)
    jobs.splice(Math.floor(random() * (jobs.length + 1)), 0, { aggregate });
  return jobs;
}

for (const kind of DATABASE_KINDS) {
  describe(`an unchanged failure across a matrix (${kind})`, () => {
    let h: Harness;
    let nextPr = 100;
    before(async () => {
      h = await startHarness(kind, { env: { TASK_CI_AUTO_RESUME_MAX_ATTEMPTS: '3' } });
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

    /** The first head fails all twelve jobs; its one attempt runs and ends (the agent pushed). */
    async function firstHeadAnswered(task: { id: number; pr: number }, random: () => number): Promise<void> {
      await report(
        h,
        task.pr,
        1,
        matrix(random, () => true),
        random,
      );
      const view = (await h.api('GET', `/api/tasks/${task.id}`)).body;
      assert.equal(view.attempts.length, 1, 'the first head: one attempt for the whole matrix');
      const start = h.runner.starts.find((s) => view.attempts[0].runId === s.runId);
      assert.ok(start, 'the attempt was dispatched');
      h.runner.finish(start.runId);
      await h.app.settle();
    }

    test('T6/C5: the 12-job matrix failing the same way twice, in 20 shuffled orders: one attempt, one unchanged notice', async () => {
      for (let seed = 1; seed <= 20; seed++) {
        const random = seeded(seed);
        const task = await newTask();
        await firstHeadAnswered(task, random);
        await report(
          h,
          task.pr,
          2,
          matrix(random, () => true),
          random,
        );
        const view = (await h.api('GET', `/api/tasks/${task.id}`)).body;
        const trail = (await h.api('GET', `/api/deliveries?taskId=${task.id}`)).body.decisions
          .filter((d: any) => d.outcome !== 'stored')
          .map((d: any) => `${d.outcome} ${d.reason} ${d.detail}`);
        assert.equal(view.attempts.length, 1, `seed ${seed}: no second attempt\n${trail.join('\n')}`);
        assert.equal(view.notice?.reason, 'unchanged_failure', `seed ${seed}: ${JSON.stringify(view.notice)}`);
        assert.match(view.notice.message, /came back unchanged/);
        assert.match(view.notice.message, /all 12 failing checks fail as before/);
        assert.equal(view.notice.headSha, sha(task.pr, 2));
        const notices = (await h.api('GET', '/api/inbox')).body.notices.filter((n: any) => n.taskId === task.id);
        assert.equal(notices.length, 1, `seed ${seed}: exactly one notice`);
      }
    });

    test('T6: half the matrix fixed, in 10 shuffled orders: a second attempt, never an unchanged notice', async () => {
      const fixed = new Set(JOBS.filter((_, i) => i % 2 === 0));
      for (let seed = 101; seed <= 110; seed++) {
        const random = seeded(seed);
        const task = await newTask();
        await firstHeadAnswered(task, random);
        await report(
          h,
          task.pr,
          2,
          matrix(random, (job) => !fixed.has(job)),
          random,
        );
        const view = (await h.api('GET', `/api/tasks/${task.id}`)).body;
        assert.equal(view.attempts.length, 2, `seed ${seed}: the second head gets its attempt`);
        assert.equal(view.attempts[1].headSha, sha(task.pr, 2));
        assert.equal(view.notice, null, `seed ${seed}: no notice`);
      }
    });

    test('T6: one job of the matrix failing differently on the new head is a change: a second attempt', async () => {
      const random = seeded(7);
      const task = await newTask();
      await firstHeadAnswered(task, random);
      const other = JOBS[5]!;
      const s = sha(task.pr, 2);
      await report(
        h,
        task.pr,
        2,
        JOBS.filter((j) => j !== other).map((job) => ({ job, red: true })),
        random,
      );
      let view = (await h.api('GET', `/api/tasks/${task.id}`)).body;
      assert.equal(view.attempts.length, 1, 'eleven jobs as before: the twelfth decides');
      const decisions = (await h.api('GET', `/api/deliveries?taskId=${task.id}`)).body.decisions;
      assert.ok(
        decisions.some((d: any) => d.reason === 'awaiting_matrix'),
        'the wait is recorded with its reason',
      );
      const res = await post(
        h.url,
        delivery(
          'check_run',
          checkRunPayload({
            repo: REPO,
            sha: s,
            id: task.pr * 1000 + 299,
            name: other,
            pr: { number: task.pr, headSha: s },
            output: 'FAIL src/cart.test.ts > cart > removes an item\nTypeError: cart.remove is not a function',
          }),
        ),
        SECRET,
      );
      assert.equal(res.status, 202);
      await h.app.settle();
      view = (await h.api('GET', `/api/tasks/${task.id}`)).body;
      assert.equal(view.attempts.length, 2);
      assert.equal(view.notice, null);
    });

    test('T5: the same job failing with an empty output on two heads is not "unchanged": a second attempt', async () => {
      const task = await newTask();
      // An empty output: the check run reports no title, summary or text at all.
      const empty = async (head: number) => {
        const s = sha(task.pr, head);
        const payload = checkRunPayload({
          repo: REPO,
          sha: s,
          id: task.pr * 1000 + head,
          name: 'lint',
          pr: { number: task.pr, headSha: s },
        });
        const res = await post(h.url, delivery('check_run', payload), SECRET);
        assert.equal(res.status, 202);
        await h.app.settle();
      };
      await empty(1);
      let view = (await h.api('GET', `/api/tasks/${task.id}`)).body;
      assert.equal(view.attempts.length, 1);
      h.runner.finish(view.attempts[0].runId);
      await h.app.settle();
      await empty(2);
      view = (await h.api('GET', `/api/tasks/${task.id}`)).body;
      assert.equal(view.attempts.length, 2, 'an empty output twice is no evidence that nothing changed');
      assert.equal(view.notice, null);
      const claimed = (await h.api('GET', `/api/deliveries?taskId=${task.id}`)).body.decisions.find(
        (d: any) => d.outcome === 'claimed',
      );
      assert.match(claimed.detail, /degraded_evidence: lint \(empty_output\)/);
    });

    test('T6: a failing job that never reports on the new head waits out triage.matrixSettleMinutes, then counts as changed', async () => {
      const clock = new FakeClock(Date.now());
      const other = await startHarness(kind, {
        adapters: { clock },
        configExtra: { triage: { matrixSettleMinutes: 20 } },
      });
      try {
        const pr = 77;
        const created = await other.api('POST', '/api/tasks', {
          repository: 'acme/shop',
          pullRequest: pr,
          branch: 'agent/fix',
        });
        const random = seeded(42);
        const jobs = JOBS.slice(0, 3);
        await report(
          other,
          pr,
          1,
          jobs.map((job) => ({ job, red: true })),
          random,
        );
        let v = (await other.api('GET', `/api/tasks/${created.body.id}`)).body;
        assert.equal(v.attempts.length, 1);
        other.runner.finish(v.attempts[0].runId);
        await other.app.settle();
        // The new head: two of the three fail as before; the third never reports.
        await report(
          other,
          pr,
          2,
          jobs.slice(0, 2).map((job) => ({ job, red: true })),
          random,
        );
        clock.advance(19 * 60_000);
        // A re-run of a job that failed as before (a new check run) is judged again, and still waits.
        await report(other, pr, 2, [{ job: jobs[1]!, red: true }], random, 90_001);
        v = (await other.api('GET', `/api/tasks/${created.body.id}`)).body;
        assert.equal(v.attempts.length, 1, 'inside the settle time: still waiting for the third job');
        clock.advance(2 * 60_000);
        await report(other, pr, 2, [{ job: jobs[0]!, red: true }], random, 90_002);
        v = (await other.api('GET', `/api/tasks/${created.body.id}`)).body;
        assert.equal(v.attempts.length, 2, 'past the settle time: the missing job is a change');
        assert.equal(v.notice, null);
        const claimed = (await other.api('GET', `/api/deliveries?taskId=${created.body.id}`)).body.decisions.find(
          (d: any) => d.outcome === 'claimed',
        );
        assert.match(claimed.detail, /missing: test \(ubuntu-latest, node 22\) did not report a failure again/);
      } finally {
        await other.close();
      }
    });
  });
}
