// Issue 17 (T2): the durable re-run of a head's failed jobs, through the real ledger on both databases
// and fixloop's GitHub adapter against the fake GitHub. One claim wins each of a head's re-runs under
// a storm of evaluations and across two replicas; a budget of 0 asks nothing; a refusal (403) goes to
// the agent with its reason recorded and is never asked again; an unconfirmed request is never re-sent.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { DATABASE_KINDS, createTestDatabase, type TestDatabase } from '../support/databases.js';
import { FakeClock } from '../support/github-harness.js';
import { startFakeGitHub, type FakeGitHub } from '../support/fake-github/server.js';
import { openDatabase, type Db } from '../../src/ledger/db.js';
import { migrateToLatest } from '../../src/ledger/migrations.js';
import { createLedger } from '../../src/ledger/ledger.js';
import { createGitHub } from '../../src/github/client.js';
import { createRerun, RERUN_HOLD_MS, type RerunOutcome, type RerunRequest } from '../../src/app/rerun.js';
import type { Ledger } from '../../src/app/ledger-port.js';
import type { ProviderPort } from '../../src/app/provider-port.js';

const REPO = 'acme/shop';
const HEAD = 'd'.repeat(40);
const WORKFLOW_RUN = 9001;

interface World {
  tdb: TestDatabase;
  fake: FakeGitHub;
  clock: FakeClock;
  github: ProviderPort;
  dbs: Db[];
  /** A ledger on its own connection to the one database: another replica. */
  replica(): Ledger;
  ledger: Ledger;
  taskId: number;
  /** The failing jobs of HEAD, in the workflow run WORKFLOW_RUN. */
  jobs: number[];
}

async function withWorld(kind: 'sqlite' | 'postgres', f: (w: World) => Promise<void>): Promise<void> {
  const tdb = await createTestDatabase(kind);
  const fake = await startFakeGitHub();
  const clock = new FakeClock();
  fake.state.now = () => clock.now();
  const dbs: Db[] = [];
  try {
    const replica = (): Ledger => {
      const db = openDatabase(tdb.url);
      dbs.push(db);
      return createLedger(db, clock);
    };
    const first = replica();
    await migrateToLatest(dbs[0]!.kysely, dbs[0]!.dialect);
    const created = await first.createTask({
      work: 'shop',
      repository: REPO,
      pullRequest: 7,
      branch: 'agent/fix',
      resumeRef: null,
    });
    assert.ok('task' in created);
    const jobs = ['test (node 20)', 'test (node 22)'].map(
      (name) =>
        fake.addCheckRun(REPO, HEAD, { name, conclusion: 'failure', runId: WORKFLOW_RUN, outputTitle: 'runner lost' })
          .id,
    );
    const token = fake.addUserToken('fixloop-user');
    const github = createGitHub({
      apiUrl: fake.url,
      auth: { kind: 'token', token },
      throttle: { spaceWrites: false },
      retry: { backoffUnitMs: 1 },
    });
    await f({ tdb, fake, clock, github, dbs, replica, ledger: first, taskId: created.task.id, jobs });
    fake.assertNoViolations();
  } finally {
    for (const db of dbs) await db.close();
    await fake.close();
    await tdb.drop();
  }
}

function request(w: World, checkRunIds = w.jobs): RerunRequest {
  return { taskId: w.taskId, repository: REPO, headSha: HEAD, checkRunIds, reason: 'runner lost communication' };
}

const reruns = (w: World) => w.fake.requestsTo(/\/actions\/runs\/\d+\/rerun-failed-jobs$/);
const kinds = (outcomes: RerunOutcome[]) =>
  outcomes.reduce<Record<string, number>>((n, o) => ({ ...n, [o.kind]: (n[o.kind] ?? 0) + 1 }), {});

for (const kind of DATABASE_KINDS) {
  describe(`re-run of a head's failed jobs (issue 17, T2) on ${kind}`, () => {
    test('a storm of 50 evaluations for one head asks GitHub once; the other 49 are told it is in flight', async () => {
      await withWorld(kind, async (w) => {
        const rerun = createRerun({ ledger: w.ledger, host: w.github, perHead: 1 });
        const outcomes = await Promise.all(Array.from({ length: 50 }, () => rerun(request(w))));
        assert.deepEqual(kinds(outcomes), { requested: 1, in_flight: 49 });
        assert.equal(reruns(w).length, 1);
        assert.deepEqual(
          w.fake.state.reruns.map((r) => r.runId),
          [WORKFLOW_RUN],
        );
        // Both failing jobs belong to one workflow run: it is asked once, not once per job.
        const [row] = await w.ledger.listReruns(w.taskId, HEAD);
        assert.equal(row?.status, 'requested');
        assert.deepEqual(row?.workflowRunIds, [WORKFLOW_RUN]);
      });
    });

    test('two replicas on one database, 25 evaluations each: exactly one re-run is claimed and asked', async () => {
      await withWorld(kind, async (w) => {
        const a = createRerun({ ledger: w.ledger, host: w.github, perHead: 1 });
        const b = createRerun({ ledger: w.replica(), host: w.github, perHead: 1 });
        const outcomes = await Promise.all(
          Array.from({ length: 50 }, (_, i) => (i % 2 === 0 ? a : b)(request(w, i % 3 === 0 ? [w.jobs[0]!] : w.jobs))),
        );
        assert.deepEqual(kinds(outcomes), { requested: 1, in_flight: 49 });
        assert.equal(reruns(w).length, 1);
        assert.equal((await w.ledger.listReruns(w.taskId, HEAD)).length, 1);
      });
    });

    test('a budget of 0 turns re-runs off: budget_spent, and GitHub is asked nothing', async () => {
      await withWorld(kind, async (w) => {
        const rerun = createRerun({ ledger: w.ledger, host: w.github, perHead: 0 });
        assert.deepEqual(await rerun(request(w)), { kind: 'budget_spent' });
        assert.deepEqual(w.fake.requests, []);
        assert.deepEqual(await w.ledger.listReruns(w.taskId, HEAD), []);
      });
    });

    test("once the head's one re-run is spent, its failing again goes on to the agent (budget_spent)", async () => {
      await withWorld(kind, async (w) => {
        const rerun = createRerun({ ledger: w.ledger, host: w.github, perHead: 1 });
        assert.deepEqual(await rerun(request(w)), { kind: 'requested' });
        // The re-run's jobs are new check runs of the same head; they fail again.
        const again = ['test (node 20)', 'test (node 22)'].map(
          (name) => w.fake.addCheckRun(REPO, HEAD, { name, conclusion: 'failure', runId: WORKFLOW_RUN }).id,
        );
        assert.deepEqual(await rerun(request(w, again)), { kind: 'budget_spent' });
        assert.equal(reruns(w).length, 1);
      });
    });

    test('a budget of 2 re-runs a head twice, then goes on to the agent', async () => {
      await withWorld(kind, async (w) => {
        const rerun = createRerun({ ledger: w.ledger, host: w.github, perHead: 2 });
        assert.deepEqual(await rerun(request(w)), { kind: 'requested' });
        const second = w.fake.addCheckRun(REPO, HEAD, { name: 'test (node 20)', conclusion: 'failure' }).id;
        assert.deepEqual(await rerun(request(w, [second])), { kind: 'requested' });
        const third = w.fake.addCheckRun(REPO, HEAD, { name: 'test (node 20)', conclusion: 'failure' }).id;
        assert.deepEqual(await rerun(request(w, [third])), { kind: 'budget_spent' });
        assert.equal(reruns(w).length, 2);
        assert.deepEqual(
          (await w.ledger.listReruns(w.taskId, HEAD)).map((r) => r.ordinal),
          [1, 2],
        );
      });
    });

    test('GitHub refuses (403): refused with its status and a clear message, recorded, and never asked again', async () => {
      await withWorld(kind, async (w) => {
        w.fake.setRerunPolicy(REPO, 'forbidden');
        const rerun = createRerun({ ledger: w.ledger, host: w.github, perHead: 1 });
        const outcome = await rerun(request(w));
        assert.equal(outcome.kind, 'refused');
        assert.ok(outcome.kind === 'refused');
        assert.equal(outcome.status, 403);
        assert.match(outcome.message, /the token cannot re-run workflows: it needs actions: write/);
        const decisions = await w.ledger.listDecisions({ taskId: w.taskId, limit: 10 });
        assert.deepEqual(
          decisions.map((d) => [d.outcome, d.reason]),
          [['rerun', 'rerun_refused']],
        );
        assert.match(decisions[0]!.detail ?? '', /actions: write/);
        assert.equal(reruns(w).length, 1);

        // The claim stays spent: the same failures, offered again (the poll, a redelivery), ask nothing.
        w.fake.setRerunPolicy(REPO, null);
        assert.deepEqual(await rerun(request(w)), { kind: 'budget_spent' });
        assert.equal(reruns(w).length, 1);
        assert.equal(w.fake.state.reruns.length, 0);
        const [row] = await w.ledger.listReruns(w.taskId, HEAD);
        assert.equal(row?.status, 'refused');
        assert.equal(row?.httpStatus, 403);
      });
    });

    test('a check run that is no Actions job is refused (404), and nothing is re-run', async () => {
      await withWorld(kind, async (w) => {
        const external = w.fake.addCheckRun(REPO, HEAD, { name: 'ci/external', conclusion: 'failure', appSlug: 'ext' });
        const rerun = createRerun({ ledger: w.ledger, host: w.github, perHead: 1 });
        const outcome = await rerun(request(w, [external.id]));
        assert.equal(outcome.kind, 'refused');
        assert.ok(outcome.kind === 'refused');
        assert.equal(outcome.status, 404);
        assert.match(outcome.message, /no GitHub Actions job/);
        assert.equal(reruns(w).length, 0);
      });
    });

    test('while a job of the head still runs nothing is asked; once it finished, one evaluation asks', async () => {
      await withWorld(kind, async (w) => {
        const lint = w.fake.addCheckRun(REPO, HEAD, { name: 'lint', status: 'in_progress', runId: WORKFLOW_RUN });
        const rerun = createRerun({ ledger: w.ledger, host: w.github, perHead: 1 });
        // GitHub would refuse (403) a run with a job still going: the claim waits instead.
        assert.deepEqual(await rerun(request(w)), { kind: 'in_flight' });
        assert.deepEqual(await rerun(request(w, [w.jobs[1]!])), { kind: 'in_flight' });
        assert.equal(reruns(w).length, 0);
        assert.equal((await w.ledger.listReruns(w.taskId, HEAD))[0]?.status, 'waiting');

        lint.status = 'completed';
        lint.conclusion = 'success';
        const outcomes = await Promise.all(Array.from({ length: 10 }, () => rerun(request(w))));
        assert.deepEqual(kinds(outcomes), { requested: 1, in_flight: 9 });
        assert.equal(reruns(w).length, 1);
        const rows = await w.ledger.listReruns(w.taskId, HEAD);
        assert.deepEqual(
          rows.map((r) => [r.ordinal, r.status]),
          [[1, 'requested']],
        );
      });
    });

    test('the hold of a re-run that waited for its jobs counts from the request, not the claim', async () => {
      await withWorld(kind, async (w) => {
        const e2e = w.fake.addCheckRun(REPO, HEAD, { name: 'e2e', status: 'in_progress', runId: WORKFLOW_RUN });
        const rerun = createRerun({ ledger: w.ledger, host: w.github, perHead: 1 });
        assert.deepEqual(await rerun(request(w)), { kind: 'in_flight' });
        w.clock.advance(RERUN_HOLD_MS * 0.6);
        e2e.status = 'completed';
        e2e.conclusion = 'success';
        assert.deepEqual(await rerun(request(w)), { kind: 'requested' });
        w.clock.advance(RERUN_HOLD_MS * 0.6);
        assert.deepEqual(await rerun(request(w)), { kind: 'in_flight' });
        w.clock.advance(RERUN_HOLD_MS * 0.4);
        assert.deepEqual(await rerun(request(w)), { kind: 'budget_spent' });
        assert.equal(reruns(w).length, 1);
      });
    });

    test('a claim still waiting for its jobs past the hold lets the failures through to the agent', async () => {
      await withWorld(kind, async (w) => {
        w.fake.addCheckRun(REPO, HEAD, { name: 'e2e', status: 'queued', runId: WORKFLOW_RUN });
        const rerun = createRerun({ ledger: w.ledger, host: w.github, perHead: 1 });
        assert.deepEqual(await rerun(request(w)), { kind: 'in_flight' });
        w.clock.advance(RERUN_HOLD_MS);
        assert.deepEqual(await rerun(request(w)), { kind: 'budget_spent' });
        assert.equal(reruns(w).length, 0);
      });
    });

    test('when the jobs cannot be read (5xx) nothing is asked: refused, on to the agent, the claim spent', async () => {
      await withWorld(kind, async (w) => {
        // The client retries a read three times; every try fails, for both jobs.
        w.fake.failNext(
          /\/actions\/jobs\/\d+$/,
          Array.from({ length: 8 }, () => 503),
        );
        const rerun = createRerun({ ledger: w.ledger, host: w.github, perHead: 1 });
        const outcome = await rerun(request(w));
        assert.equal(outcome.kind, 'refused');
        assert.ok(outcome.kind === 'refused');
        assert.equal(outcome.status, 503);
        assert.match(outcome.message, /could not be read from GitHub, so it was not re-run/);
        assert.equal(reruns(w).length, 0);
        assert.deepEqual(await rerun(request(w)), { kind: 'budget_spent' });
        assert.equal(reruns(w).length, 0);
      });
    });

    test('an unanswered request (502) is sent once, never again; its failures go to the agent after the hold', async () => {
      await withWorld(kind, async (w) => {
        w.fake.failNext(/\/rerun-failed-jobs$/, [502]);
        const rerun = createRerun({ ledger: w.ledger, host: w.github, perHead: 1 });
        assert.deepEqual(await rerun(request(w)), { kind: 'requested' });
        // Not retried by the client either: GitHub may have started the re-run.
        assert.equal(reruns(w).length, 1);
        const [row] = await w.ledger.listReruns(w.taskId, HEAD);
        assert.equal(row?.status, 'unconfirmed');
        const decisions = await w.ledger.listDecisions({ taskId: w.taskId, limit: 10 });
        assert.deepEqual(
          decisions.map((d) => [d.outcome, d.reason]),
          [['rerun', 'rerun_unconfirmed']],
        );

        // The same failures offered again wait for the re-run's result …
        assert.deepEqual(await rerun(request(w)), { kind: 'in_flight' });
        // … but not for ever: past the hold, with the budget used, they go on to the agent.
        w.clock.advance(RERUN_HOLD_MS);
        assert.deepEqual(await rerun(request(w)), { kind: 'budget_spent' });
        assert.equal(reruns(w).length, 1);
      });
    });
  });
}
