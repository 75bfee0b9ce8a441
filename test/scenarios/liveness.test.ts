// SPEC I5 (with I3, I4, C1, G1, K7): no silent stall, on both databases. Only a person's stop or
// cancel is final: a spawn that fails after the claim leaves its attempt retryable; an action_taken
// on a webhook-only install (no poll) still meets its deadline, and a new head seen by webhook is
// progress; and across kill -9 at random moments around a running agent, every open Task with a red
// head ends up with an attempt progressing, a run active, a notice filed, or the loop off — judged by
// the one rule in src/core/liveness.ts over what the database holds.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DATABASE_KINDS, createTestDatabase, type TestDatabase } from '../support/databases.js';
import { API_TOKEN, REPO, RecordingRunner, SECRET, startHarness, type Harness } from '../support/harness.js';
import { checkRunPayload, delivery, post, pullRequestPayload } from '../support/deliveries.js';
import { FakeClock } from '../support/github-harness.js';
import { startServerProcess, until, type ServerProcess } from '../support/server-process.js';
import { countReconcilePasses } from '../support/reconcile-passes.js';
import { tempDir } from '../support/temp-dir.js';
import { attemptRows, decisionsOf, reportOutcome } from '../support/loop-driver.js';
import { createCommandRunner } from '../../src/runners/command.js';
import { openDatabase } from '../../src/ledger/db.js';
import { createLedger } from '../../src/ledger/ledger.js';
import { createAgentLedger } from '../../src/ledger/agent-ledger.js';
import { livenessSnapshot } from '../../src/app/liveness-snapshot.js';
import { stalledTasks, type LivenessContext, type Stall } from '../../src/core/liveness.js';
import type { RunSpec, RunnerCallbacks } from '../../src/app/ports.js';

const POLL_SECONDS = 5; // the shortest poll interval the config takes: the deadline is two of them
const POLL_MS = POLL_SECONDS * 1000;
const ADOPT_EVERY_MS = 25;
const sha = (n: number) => n.toString(16).padStart(40, 'e');

/** The stalls of every open Task in the database, by the one rule (core/liveness.ts). */
async function stallsIn(
  url: string,
  ctx: Omit<LivenessContext, 'now' | 'stopFlag'>,
  now: () => Date = () => new Date(),
): Promise<Stall[]> {
  const db = openDatabase(url);
  try {
    const clock = { now };
    const ledger = createLedger(db, clock);
    const snapshot = await livenessSnapshot(ledger, createAgentLedger(db, ledger));
    let stopFlag: boolean | 'unreadable';
    try {
      stopFlag = await ledger.readStopFlag();
    } catch {
      stopFlag = 'unreadable';
    }
    return stalledTasks(snapshot, { ...ctx, now: now().toISOString(), stopFlag });
  } finally {
    await db.close();
  }
}

/** A webhook-only fixloop (no GitHub credentials, so no poll) on a fake clock, its periodic pass quick. */
async function webhookOnly(kind: 'sqlite' | 'postgres', runner: RecordingRunner | Harness['runner'], clock: FakeClock) {
  return startHarness(kind, {
    runner: runner as RecordingRunner,
    adapters: { clock, adoptEveryMs: ADOPT_EVERY_MS },
    configExtra: { poll: { intervalSeconds: POLL_SECONDS } },
  });
}

async function newTask(h: Harness, pr: number): Promise<number> {
  const r = await h.api('POST', '/api/tasks', { repository: 'acme/shop', pullRequest: pr, branch: `agent/pr-${pr}` });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  return r.body.id;
}

/** Failures that differ after normalization (digits and hex are noise to the fingerprint, C5). */
const FAILURES = ['the cart total is off', 'tax is rounded the wrong way', 'the coupon is applied twice'];

/** A red check run `id` on commit `head` of pull request `pr`, evaluated before this returns. */
async function red(h: Harness, pr: number, head: string, id: number, failure = 0): Promise<string> {
  const d = delivery(
    'check_run',
    checkRunPayload({
      repo: REPO,
      sha: head,
      id,
      name: 'test',
      pr: { number: pr, headSha: head },
      output: `FAIL src/cart.test.ts: ${FAILURES[failure]}`,
      branch: `agent/pr-${pr}`,
    }),
  );
  const res = await post(h.url, d, SECRET);
  assert.equal(res.status, 202, JSON.stringify(res.body));
  await h.app.settle();
  return res.body.identity as string;
}

/** What the evaluation of delivery `identity` came to: its last decision row. */
async function fateOf(h: Harness, taskId: number, identity: string) {
  return (await decisionsOf(h, taskId)).find((d) => d.identity === identity && d.outcome !== 'stored');
}

/** A runner whose start rejects `failures` times (as a spawn does with file descriptors exhausted), then records. */
class FlakyRunner extends RecordingRunner {
  constructor(private failures: number) {
    super();
  }
  override async start(spec: RunSpec, cb: RunnerCallbacks): Promise<void> {
    if (this.failures > 0) {
      this.failures--;
      throw Object.assign(new Error('spawn EMFILE: too many open files'), { code: 'EMFILE' });
    }
    return super.start(spec, cb);
  }
}

const strict = (everyMs: number) => ({
  maxAttempts: 2,
  pollIntervalMs: POLL_MS,
  claimGraceMs: 60_000 + everyMs,
  settleMs: 2 * everyMs,
});

for (const kind of DATABASE_KINDS) {
  describe(`I5: a spawn that fails after the claim is a machine's failure (${kind})`, () => {
    test('I5: a runner whose start rejects leaves the attempt retryable, its run failed; one poll interval later it is retried, and the retry runs', async () => {
      const clock = new FakeClock();
      const runner = new FlakyRunner(1);
      const h = await webhookOnly(kind, runner, clock);
      try {
        const taskId = await newTask(h, 61);
        await red(h, 61, sha(61), 6101);
        let rows = await attemptRows(h.app, taskId);
        assert.deepEqual(
          rows.map((r) => [r.status, r.state]),
          [['dispatch_failed', 'retryable']],
        );
        assert.equal((await h.api('GET', `/api/runs/${rows[0]!.run_id}`)).body.state, 'failed');
        // Passes go by within the poll interval (each starts the liveness pass unless one still runs): the
        // retry is not due yet.
        const passes = countReconcilePasses(h.app.ledger);
        for (let i = 0; i < 3; i++) await passes.oneAfterNow('periodic passes within the poll interval');
        assert.equal((await attemptRows(h.app, taskId)).length, 1);
        clock.advance(POLL_MS + 1_000); // a poll interval, and the bound (settleMs) after it
        rows = await until('the retry', async () => {
          const r = await attemptRows(h.app, taskId);
          return r.length === 2 && r[1]!.state === 'running' && r;
        });
        assert.equal(rows[1]!.coordinate, `retry:${rows[0]!.id}`);
        assert.equal(rows[1]!.status, 'dispatched');
        assert.equal(runner.starts.length, 1, 'the retry started the agent');
        assert.deepEqual(await stallsIn(h.db.url, strict(ADOPT_EVERY_MS), () => clock.now()), []);
      } finally {
        await h.close();
      }
    });

    test('I5/D: a command that does not exist fails the dispatch; the next red is not refused as run_failed, and once the budget is spent the one notice is filed', async () => {
      const clock = new FakeClock();
      const runner = createCommandRunner({
        command: [join(tmpdir(), `no-such-agent-${randomBytes(4).toString('hex')}`)],
        workDir: tempDir('fixloop-liveness-'),
      });
      const h = await webhookOnly(kind, runner as never, clock);
      try {
        const taskId = await newTask(h, 62);
        await red(h, 62, sha(621), 6201);
        // A new head goes red: the failed run is the machine's, so the gate proceeds (within budget).
        const second = await red(h, 62, sha(622), 6202, 1);
        assert.equal((await fateOf(h, taskId, second))?.outcome, 'claimed');
        let rows = await attemptRows(h.app, taskId);
        assert.deepEqual(
          rows.map((r) => [r.coordinate, r.status, r.state]),
          [
            [sha(621), 'dispatch_failed', 'retryable'],
            [sha(622), 'dispatch_failed', 'retryable'],
          ],
        );
        // The retry of the head is due a poll interval later; the budget (2) is spent, so it files the notice.
        clock.advance(POLL_MS + 1_000); // a poll interval, and the bound (settleMs) after it
        const notice = await until('the notice', async () => (await h.api('GET', `/api/tasks/${taskId}`)).body.notice);
        assert.equal(notice.reason, 'budget_spent');
        assert.equal((await h.api('GET', '/api/inbox')).body.notices.filter((n: any) => n.taskId === taskId).length, 1);
        rows = await attemptRows(h.app, taskId);
        assert.equal(rows.length, 2, 'no attempt past the budget');
        assert.deepEqual(await stallsIn(h.db.url, strict(ADOPT_EVERY_MS), () => clock.now()), []);
      } finally {
        await h.close();
      }
    });
  });

  describe(`I3/I5: action_taken on a webhook-only install, no poll (${kind})`, () => {
    test('I3: no progress by the deadline → retryable without any poll; a later red is no longer refused as in flight, and the retry follows', async () => {
      const clock = new FakeClock();
      const h = await webhookOnly(kind, new RecordingRunner(), clock);
      try {
        assert.equal(h.app.poller, null, 'no GitHub credentials: no poll');
        const taskId = await newTask(h, 63);
        await red(h, 63, sha(63), 6301);
        const run = h.runner.starts[0]!;
        await reportOutcome(h, run, 'action_taken', 'pushed a fix');
        h.runner.finish(run.runId);
        await until('the run to end', async () => (await h.app.ledger.getRun(run.runId))?.state === 'completed');
        // Inside the deadline a red for the same head (a re-run) is only a read: its head is claimed (C2).
        const early = await red(h, 63, sha(63), 6302);
        assert.equal((await fateOf(h, taskId, early))?.reason, 'coordinate_claimed');
        assert.equal((await attemptRows(h.app, taskId)).length, 1, 'and claims nothing');

        clock.advance(2 * POLL_MS);
        await until(
          'the deadline to pass without a poll',
          async () => (await attemptRows(h.app, taskId))[0]!.state === 'retryable',
        );
        const late = await red(h, 63, sha(63), 6303);
        assert.notEqual((await fateOf(h, taskId, late))?.reason, 'attempt_in_flight');

        clock.advance(POLL_MS + 1_000); // a poll interval, and the bound (settleMs) after it
        const rows = await until('the retry', async () => {
          const r = await attemptRows(h.app, taskId);
          // Claimed is not yet started: the attempt leaves `queued` once the runner has taken it.
          return r.length === 2 && r[1]!.state !== 'queued' && r;
        });
        assert.equal(rows[1]!.coordinate, `retry:${rows[0]!.id}`);
        assert.equal(h.runner.starts.length, 2);
        assert.match(h.runner.starts[1]!.prompt, /nothing moved on the pull request/);
      } finally {
        await h.close();
      }
    });

    test('I3: a new head seen by webhook is progress: the attempt is acknowledged at once, and the new head’s red is claimed', async () => {
      const clock = new FakeClock();
      const h = await webhookOnly(kind, new RecordingRunner(), clock);
      try {
        const taskId = await newTask(h, 64);
        await red(h, 64, sha(641), 6401);
        const run = h.runner.starts[0]!;
        await reportOutcome(h, run, 'action_taken', 'pushed a fix');
        h.runner.finish(run.runId);
        await until('the run to end', async () => (await h.app.ledger.getRun(run.runId))?.state === 'completed');
        // The agent's push arrives as the pull request's synchronize, then CI on it goes red.
        const pushed = pullRequestPayload({ repo: REPO, number: 64, action: 'synchronize', headSha: sha(642) });
        pushed.before = sha(641);
        assert.equal((await post(h.url, delivery('pull_request', pushed), SECRET)).status, 202);
        await h.app.settle();
        let rows = await attemptRows(h.app, taskId);
        assert.deepEqual([rows[0]!.state, rows[0]!.outcome], ['acknowledged', 'action_taken'], 'progress, no clock');
        const next = await red(h, 64, sha(642), 6402, 1);
        assert.equal((await fateOf(h, taskId, next))?.outcome, 'claimed');
        rows = await attemptRows(h.app, taskId);
        assert.deepEqual(
          rows.map((r) => [r.coordinate, r.state]),
          [
            [sha(641), 'acknowledged'],
            [sha(642), 'running'],
          ],
        );
      } finally {
        await h.close();
      }
    });

    test('I3: a red on a new head alone (no pull_request delivery) is progress for the attempt before it, and is claimed', async () => {
      const clock = new FakeClock();
      const h = await webhookOnly(kind, new RecordingRunner(), clock);
      try {
        const taskId = await newTask(h, 65);
        await red(h, 65, sha(651), 6501);
        const run = h.runner.starts[0]!;
        await reportOutcome(h, run, 'action_taken');
        h.runner.finish(run.runId);
        await until('the run to end', async () => (await h.app.ledger.getRun(run.runId))?.state === 'completed');
        const next = await red(h, 65, sha(652), 6502, 1);
        assert.equal((await fateOf(h, taskId, next))?.outcome, 'claimed');
        const rows = await attemptRows(h.app, taskId);
        assert.deepEqual(
          rows.map((r) => r.state),
          ['acknowledged', 'running'],
        );
      } finally {
        await h.close();
      }
    });
  });
}

for (const kind of DATABASE_KINDS) {
  describe(`I5: what the periodic pass undoes, and what the ledger refuses (${kind})`, () => {
    test('E2/I5: a red refused at a bad moment on a webhook-only install is offered again from its stored delivery, and claimed', async () => {
      const clock = new FakeClock();
      const h = await webhookOnly(kind, new RecordingRunner(), clock);
      try {
        const taskId = await newTask(h, 66);
        await red(h, 66, sha(661), 6601);
        const run = h.runner.starts[0]!;
        await reportOutcome(h, run, 'action_taken', 'pushed a fix');
        // CI on the agent's push goes red while its run is still running: refused, and nothing polls.
        const refused = await red(h, 66, sha(662), 6602, 1);
        assert.equal((await fateOf(h, taskId, refused))?.reason, 'run_in_flight');
        h.runner.finish(run.runId);
        await until('the run to end', async () => (await h.app.ledger.getRun(run.runId))?.state === 'completed');
        // The bound runs from when the head was seen (the payload's time, an hour past the fake clock).
        clock.advance(2 * 3_600_000);
        const rows = await until('the red to be offered again', async () => {
          const r = await attemptRows(h.app, taskId);
          // Claimed is not yet started: the attempt leaves `queued` once the runner has taken it.
          return r.length === 2 && r[1]!.state !== 'queued' && r;
        });
        assert.deepEqual(
          rows.map((r) => [r.coordinate, r.state]),
          [
            [sha(661), 'acknowledged'],
            [sha(662), 'running'],
          ],
        );
        assert.match(
          h.runner.starts[1]!.prompt,
          /tax is rounded the wrong way/,
          'seeded with the red it was offered for',
        );
        const offered = (await decisionsOf(h, taskId)).filter((d) => d.identity === refused && d.outcome === 'claimed');
        assert.equal(offered.length, 1, 'claimed once, from the stored delivery');
        assert.deepEqual(await stallsIn(h.db.url, strict(ADOPT_EVERY_MS), () => clock.now()), []);
      } finally {
        await h.close();
      }
    });

    test('I5/I2: an outcome recorded but not yet applied when the process died is applied by the periodic pass once its run has ended', async () => {
      const clock = new FakeClock();
      const h = await webhookOnly(kind, new RecordingRunner(), clock);
      try {
        const agent = createAgentLedger(h.app.db, h.app.ledger);
        const taskId = await newTask(h, 69);
        await red(h, 69, sha(691), 6901);
        const run = h.runner.starts[0]!;
        // The report's first write only (the outcome), as a kill -9 between its two writes leaves it.
        assert.ok(await agent.recordOutcome(run.attemptId!, 'non_actionable', 'not ours', clock.now().toISOString()));
        h.runner.finish(run.runId);
        await until('the run to end', async () => (await h.app.ledger.getRun(run.runId))?.state === 'completed');
        // Its run's end leaves it to the outcome (run_ended with an outcome stays); without the pass
        // that applies the recorded outcome it would stay running for good.
        const settled = await until('the outcome to be applied', async () => {
          const [a] = await attemptRows(h.app, taskId);
          return a!.state === 'acknowledged' && a;
        });
        assert.equal(settled.outcome, 'non_actionable');
        assert.deepEqual(await stallsIn(h.db.url, strict(ADOPT_EVERY_MS), () => clock.now()), []);
      } finally {
        await h.close();
      }
    });

    test('I5/I2: an outcome never lands on an attempt its run’s end settled, and a run’s end never overrides an outcome recorded first', async () => {
      const h = await webhookOnly(kind, new RecordingRunner(), new FakeClock());
      try {
        const agent = createAgentLedger(h.app.db, h.app.ledger);
        const first = await newTask(h, 67);
        await red(h, 67, sha(671), 6701);
        const second = await newTask(h, 68);
        await red(h, 68, sha(681), 6801);
        const [a] = await attemptRows(h.app, first);
        const [b] = await attemptRows(h.app, second);
        // a: the run's end wins, so the late outcome is refused.
        assert.equal(await agent.moveAttempt(a!.id, ['running'], 'retryable', { withoutOutcome: true }), true);
        assert.equal(await agent.recordOutcome(a!.id, 'action_taken', null, new Date().toISOString()), false);
        // b: the outcome wins, so the run's end does not make the attempt retryable.
        assert.equal(await agent.recordOutcome(b!.id, 'non_actionable', null, new Date().toISOString()), true);
        assert.equal(await agent.moveAttempt(b!.id, ['running'], 'retryable', { withoutOutcome: true }), false);
        const after = [...(await attemptRows(h.app, first)), ...(await attemptRows(h.app, second))];
        assert.deepEqual(
          after.map((r) => [r.state, r.outcome]),
          [
            ['retryable', null],
            ['running', 'non_actionable'],
          ],
        );
      } finally {
        await h.close();
      }
    });
  });
}

// --- kill -9 trials ----------------------------------------------------------------------------

const AGENT = fileURLToPath(new URL('../support/agent-reporter.mjs', import.meta.url));
const TRIALS = 25;
const TRIAL_ADOPT_EVERY_MS = 100;
const FAULTS = ['after_claim', 'before_start', 'before_mark', 'after_start'] as const;
const apiHeaders = { authorization: `Bearer ${API_TOKEN}`, 'content-type': 'application/json' };

/** A server process on `db`, webhook-only, whose command runner is the reporting agent. */
function trialEnv(db: TestDatabase, dir: string, seed: number): Record<string, string> {
  const configFile = join(dir, 'fixloop.json');
  writeFileSync(
    configFile,
    JSON.stringify({
      works: [{ name: 'shop', account: 'acme', repositories: [{ name: 'acme/shop', role: 'data' }] }],
      // The agents write into `dir`, which only fixloop's user may enter; isolation (L3) has its own tests.
      runner: {
        kind: 'command',
        command: [process.execPath, AGENT],
        envAllow: ['AGENT_DIR', 'TRIAL_SEED'],
        isolation: 'none',
      },
      poll: { intervalSeconds: POLL_SECONDS },
    }),
  );
  return {
    DATABASE_URL: db.url,
    WEBHOOK_SECRET: SECRET,
    FIXLOOP_API_TOKEN: API_TOKEN,
    FIXLOOP_CONFIG: configFile,
    FIXLOOP_WORK_DIR: join(dir, 'runs'),
    FIXLOOP_RECONCILE_GRACE_MS: '0',
    FIXLOOP_ADOPT_EVERY_MS: String(TRIAL_ADOPT_EVERY_MS),
    AGENT_DIR: dir,
    TRIAL_SEED: String(seed),
    LOG_LEVEL: 'warn',
  };
}

/** Start a server; one with a fault point may die during its own start-up (a claim it settles): then start one without. */
async function startTrialServer(
  env: Record<string, string>,
  port: number | 'free',
  fault: string | null,
): Promise<ServerProcess> {
  try {
    return await startServerProcess(fault ? { ...env, FIXLOOP_FAULT: `${fault}:kill` } : env, port);
  } catch (err) {
    if (!fault) throw err;
    return startServerProcess(env, port);
  }
}

const alive = (s: ServerProcess) => s.child.exitCode === null && s.child.signalCode === null;

async function killTrials(kind: 'sqlite' | 'postgres') {
  const db = await createTestDatabase(kind);
  const dir = tempDir('fixloop-liveness-trials-');
  const seed = Number.parseInt(process.env.FIXLOOP_TRIAL_SEED ?? String(Date.now() % 1_000_000), 10);
  let rand = seed >>> 0 || 1;
  const random = (n: number) => {
    rand = (rand * 1103515245 + 12345) >>> 0;
    return (rand >>> 8) % n;
  };
  const env = trialEnv(db, dir, seed);
  const acked: Array<{ deliveryId: string; outcome: string }> = [];
  const kills: string[] = [];
  let server = await startTrialServer(env, 'free', null);
  // Every restart listens where the first did: an agent whose server died reports to the one that
  // replaced it, as it would behind a fixed address.
  const port = server.port;
  try {
    for (let i = 0; i < TRIALS; i++) {
      const pr = 300 + i;
      const head = randomBytes(20).toString('hex');
      try {
        const created = await fetch(`${server.url}/api/tasks`, {
          method: 'POST',
          headers: apiHeaders,
          body: JSON.stringify({ repository: 'acme/shop', pullRequest: pr, branch: `agent/pr-${pr}` }),
        });
        assert.equal(created.status, 201);
        const d = delivery(
          'check_run',
          checkRunPayload({
            repo: REPO,
            sha: head,
            id: 30_000 + i,
            name: 'test',
            pr: { number: pr, headSha: head },
            output: `FAIL trial ${i}\nexpected ${i}, got ${i + 1}`,
            branch: `agent/pr-${pr}`,
          }),
        );
        const sends = [d];
        // Now and then a redelivery and a second job's red on the same head: one attempt per head still.
        if (random(2) === 0) sends.push(d);
        if (random(2) === 0)
          sends.push(
            delivery(
              'check_run',
              checkRunPayload({
                repo: REPO,
                sha: head,
                id: 40_000 + i,
                name: 'lint',
                pr: { number: pr, headSha: head },
              }),
            ),
          );
        for (const s of sends) {
          const res = await post(server.url, s, SECRET);
          if (res.status >= 200 && res.status < 300) acked.push({ deliveryId: s.id, outcome: res.body.outcome });
        }
      } catch {
        // The server died under the request (a fault point reached by another Task's retry): nothing acknowledged is lost.
      }
      // kill -9 at a random moment around the agent's run: before the dispatch, during it, while the
      // agent runs or reports, after it exited.
      const delay = random(700);
      await new Promise((r) => setTimeout(r, delay));
      kills.push(alive(server) ? `timer ${delay} ms` : 'fault');
      if (alive(server)) server.child.kill('SIGKILL');
      await server.exited;
      // Every fifth restart carries a fault point: the narrow windows of the dispatch get their kills too.
      const fault = i % 5 === 4 ? FAULTS[random(FAULTS.length)]! : null;
      server = await startTrialServer(env, port, fault);
    }
    if (!alive(server)) server = await startTrialServer(env, port, null);
    if (server.child.exitCode !== null || server.child.signalCode !== null) throw new Error('no server left');
    // Settling: the rule holds for every Task, nothing acknowledged is left unevaluated.
    const ctx = strict(TRIAL_ADOPT_EVERY_MS);
    let stalls: Stall[] = [];
    await until(
      'every Task to be live by the rule, and every stored delivery evaluated',
      async () => {
        if (!alive(server)) server = await startTrialServer(env, port, null);
        stalls = await stallsIn(db.url, ctx);
        const pending = await withDb(db, (k) => k.selectFrom('pending_events').select('event_id').execute());
        return stalls.length === 0 && pending.length === 0;
      },
      60_000,
      250,
    ).catch((err: unknown) => {
      throw new Error(
        `${(err as Error).message}: ${JSON.stringify(stalls)}\nseed ${seed} (FIXLOOP_TRIAL_SEED to replay); kills: ${kills.join(', ')}\n${server.output().slice(-4000)}`,
      );
    });
    const facts = await withDb(db, async (k) => ({
      events: await k.selectFrom('events').select(['delivery_id', 'identity']).execute(),
      attempts: await k
        .selectFrom('attempts')
        .select(['id', 'task_id', 'coordinate', 'head_sha', 'status', 'state', 'run_id', 'interruptions'])
        .execute(),
      runs: await k
        .selectFrom('runs')
        .select(['id', 'task_id', 'attempt_id', 'state'])
        .where('attempt_id', 'is not', null)
        .execute(),
      notices: await k.selectFrom('notices').select(['task_id', 'round']).execute(),
    }));
    return { facts, acked, kills, seed, dir };
  } finally {
    if (alive(server)) await server.stop('SIGTERM');
    // Agents of killed servers never outlive the test: each exits on its own within seconds.
    await db.drop();
  }
}

async function withDb<T>(
  db: TestDatabase,
  f: (k: ReturnType<typeof openDatabase>['kysely']) => Promise<T>,
): Promise<T> {
  const d = openDatabase(db.url);
  try {
    return await f(d.kysely);
  } finally {
    await d.close();
  }
}

for (const kind of DATABASE_KINDS) {
  describe(`I5: kill -9 at random moments around a running agent, ${TRIALS} trials (${kind})`, () => {
    test(`I5/C2/G1/A1: after every restart and settling, no Task is stalled, no acknowledged delivery is lost, one attempt per head, one notice per round`, async (t) => {
      const { facts, acked, kills, seed, dir } = await killTrials(kind);
      const why = `seed ${seed} (FIXLOOP_TRIAL_SEED to replay); kills: ${kills.join(', ')}`;
      const tally = (xs: string[]) =>
        Object.entries(xs.reduce<Record<string, number>>((m, x) => ({ ...m, [x]: (m[x] ?? 0) + 1 }), {}))
          .map(([k, n]) => `${k} ${n}`)
          .join(', ');
      // What the trials came to, for the reader of the test log.
      t.diagnostic(`${why}`);
      t.diagnostic(`attempts: ${tally(facts.attempts.map((a) => `${a.status}/${a.state}`))}`);
      t.diagnostic(`runs: ${tally(facts.runs.map((r) => r.state))}; notices: ${facts.notices.length}`);
      assert.equal(kills.length, TRIALS, why);
      // A1: every acknowledged delivery was stored (a duplicate's first copy is there too).
      const stored = new Set(facts.events.map((e) => e.delivery_id));
      const lost = acked.filter((a) => a.outcome === 'stored' && !stored.has(a.deliveryId));
      assert.deepEqual(lost, [], `acknowledged deliveries lost; ${why}`);
      assert.ok(acked.length >= TRIALS, `at least one acknowledged delivery per trial; ${why}`);
      // C2: one claim per head; retries are their own rows, each of one head.
      const perHead = new Map<string, number>();
      for (const a of facts.attempts)
        if (a.coordinate === a.head_sha)
          perHead.set(`${a.task_id}@${a.coordinate}`, (perHead.get(`${a.task_id}@${a.coordinate}`) ?? 0) + 1);
      assert.deepEqual(
        [...perHead.entries()].filter(([, n]) => n > 1),
        [],
        `two attempts for one head; ${why}`,
      );
      // C1: no Task ran more attempts than its budget (2), however many kills; and V4: its agent ran
      // no more often than that plus the free re-offers of interrupted runs, at most one per attempt.
      const attemptsPerTask = new Map<number, number>();
      const freePerTask = new Map<number, number>();
      for (const a of facts.attempts) {
        if (a.run_id !== null) attemptsPerTask.set(a.task_id, (attemptsPerTask.get(a.task_id) ?? 0) + 1);
        freePerTask.set(a.task_id, (freePerTask.get(a.task_id) ?? 0) + Number(a.interruptions));
      }
      assert.deepEqual(
        [...attemptsPerTask.entries()].filter(([, n]) => n > 2),
        [],
        `over budget; ${why}`,
      );
      assert.deepEqual(
        facts.attempts.filter((a) => Number(a.interruptions) > 1).map((a) => a.id),
        [],
        `an attempt offered again free more than once; ${why}`,
      );
      const runsPerTask = new Map<number, number>();
      for (const r of facts.runs) runsPerTask.set(r.task_id, (runsPerTask.get(r.task_id) ?? 0) + 1);
      assert.deepEqual(
        [...runsPerTask.entries()].filter(([task, n]) => n > 2 + (freePerTask.get(task) ?? 0)),
        [],
        `over budget; ${why}`,
      );
      // L1/C2: each run's agent started at most once (never a paid run twice).
      for (const f of readdirSync(dir).filter((x) => x.startsWith('start-')))
        assert.ok(readFileSync(join(dir, f), 'utf8').trim().split('\n').length <= 1, `${f} started twice; ${why}`);
      // G1: one notice per round.
      const perRound = new Map<string, number>();
      for (const n of facts.notices)
        perRound.set(`${n.task_id}#${n.round}`, (perRound.get(`${n.task_id}#${n.round}`) ?? 0) + 1);
      assert.deepEqual(
        [...perRound.entries()].filter(([, n]) => n > 1),
        [],
        `two notices in one round; ${why}`,
      );
      // K7: never two attempts in flight for one pull request.
      const inFlight = new Map<number, number>();
      for (const a of facts.attempts)
        if (['queued', 'running', 'awaiting_progress'].includes(a.state))
          inFlight.set(a.task_id, (inFlight.get(a.task_id) ?? 0) + 1);
      assert.deepEqual(
        [...inFlight.entries()].filter(([, n]) => n > 1),
        [],
        `two in flight; ${why}`,
      );
      assert.ok(existsSync(dir));
    });
  });
}
