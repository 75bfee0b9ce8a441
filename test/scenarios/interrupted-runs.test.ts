// V4, I4, I5: a deploy spends nothing. fixloop runs as a real process with a real agent child
// (agent-sleeper.mjs, which runs until told to stop) on a webhook-only install (no poll). On SIGTERM
// it stops taking new work and gives running agents a grace; an agent still running after it — or
// one that died with a fixloop killed by SIGKILL — is an interrupted run, and the next start offers
// its attempt again, free (`attemptsUsed` unchanged), once: a second interruption files one notice.
// Shutdown is prompt whatever a client holds open (a dashboard's live stream, a half-sent request).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DATABASE_KINDS, createTestDatabase, type TestDatabase } from '../support/databases.js';
import { API_TOKEN, REPO, SECRET } from '../support/harness.js';
import { checkRunPayload, delivery, post } from '../support/deliveries.js';
import {
  commandAgentEnv,
  decisionsOf,
  startServerProcess,
  taskWithRedPush,
  until,
  type ServerProcess,
} from '../support/server-process.js';
import { processReconcilePasses } from '../support/reconcile-passes.js';
import { stormDecided } from '../support/storm.js';
import { tempDir } from '../support/temp-dir.js';
import { openDatabase } from '../../src/ledger/db.js';
import { createBoardStore } from '../../src/ledger/board.js';
import { createLedger } from '../../src/ledger/ledger.js';
import { taskTimeline } from '../../src/dashboard/timeline.js';
import { LOOP_STATE_WORDS } from '../../src/core/loop-state.js';

const AGENT = fileURLToPath(new URL('../support/agent-sleeper.mjs', import.meta.url));
const auth = { authorization: `Bearer ${API_TOKEN}`, 'content-type': 'application/json' };
const GRACE_MS = 800;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return !/^\d+ \(.*\) [ZX] /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

interface Setup {
  db: TestDatabase;
  dir: string;
  env: Record<string, string>;
  servers: ServerProcess[];
  start(extra?: Record<string, string>): Promise<ServerProcess>;
  view(url: string, taskId: number): Promise<any>;
  /** The pid the agent of `runId` wrote, once it started. */
  agentPid(runId: number): Promise<number>;
  done(): Promise<void>;
}

async function setup(kind: 'sqlite' | 'postgres', grace = GRACE_MS): Promise<Setup> {
  const db = await createTestDatabase(kind);
  const dir = tempDir('fixloop-interrupted-');
  const env = commandAgentEnv({
    dir,
    databaseUrl: db.url,
    agentFile: AGENT,
    envAllow: ['AGENT_DIR'],
    // No GitHub credentials: no poll, webhooks only — the re-offer must come from start-up itself.
    extra: { AGENT_DIR: dir, FIXLOOP_SHUTDOWN_GRACE_MS: String(grace), FIXLOOP_RECONCILE_GRACE_MS: '0' },
  });
  // The first start takes a free port; every restart listens there too, where its agents reach it.
  let port: number | 'free' = 'free';
  const servers: ServerProcess[] = [];
  const pids: number[] = [];
  return {
    db,
    dir,
    env,
    servers,
    async start(extra = {}) {
      const s = await startServerProcess({ ...env, ...extra }, port);
      port = s.port;
      servers.push(s);
      return s;
    },
    async view(url, taskId) {
      return (await (await fetch(`${url}/api/tasks/${taskId}`, { headers: auth })).json()) as any;
    },
    async agentPid(runId) {
      const file = join(dir, `pid-${runId}`);
      const pid = Number(
        await until(`the agent of run ${runId} to start`, async () => existsSync(file) && readFileSync(file, 'utf8')),
      );
      pids.push(pid);
      return pid;
    },
    async done() {
      writeFileSync(join(dir, 'release'), '');
      for (const s of servers) if (s.child.exitCode === null && s.child.signalCode === null) await s.stop('SIGKILL');
      for (const pid of pids) if (alive(pid)) process.kill(pid, 'SIGKILL');
      await db.drop();
    },
  };
}

/** The automatic run of the Task that is running now, once it is. */
async function runningRun(s: Setup, url: string, taskId: number): Promise<any> {
  return until('a resumed run to be running', async () =>
    (await s.view(url, taskId)).runs.find((r: any) => r.action === 'resume' && r.state === 'running'),
  );
}

/**
 * A start that may only confirm what is there: it passes its periodic reconciliation every 200 ms
 * (V4's re-offer runs there too) and logs each pass (processReconcilePasses).
 */
const WATCHED = { FIXLOOP_ADOPT_EVERY_MS: '200', LOG_LEVEL: 'debug' };

/**
 * Wait until `server` has nothing left to decide, so a test may say what did not happen: start-up
 * reconciliation ran before readiness, every delivery has its decision (the start-up sweep evaluates
 * what was only stored), and a whole periodic pass and liveness pass began and ended after that.
 */
async function nothingLeftToDecide(server: ServerProcess, deliveryIds: string[]): Promise<void> {
  await stormDecided(server.url, auth, deliveryIds);
  await processReconcilePasses(server).oneAfterNow('a whole pass of reconciliation after the start');
}

/** SIGTERM, and how long the process took to exit. */
async function terminate(server: ServerProcess): Promise<{ code: number | null; ms: number }> {
  const t0 = Date.now();
  const code = await server.stop('SIGTERM');
  return { code, ms: Date.now() - t0 };
}

/** The board's loop state of the Task, read from the database while no fixloop runs. */
async function boardLoopState(s: Setup, taskId: number): Promise<string | undefined> {
  const db = openDatabase(s.db.url);
  try {
    return (await createBoardStore(db.kysely).boardPage({ limit: 1, taskId })).rows[0]?.loopState;
  } finally {
    await db.close();
  }
}

/** Whether the Task page (its timeline) says the Task's run was interrupted and will be offered again. */
async function taskPageInterrupted(s: Setup, taskId: number): Promise<boolean | undefined> {
  const db = openDatabase(s.db.url);
  try {
    return (await taskTimeline(createLedger(db, { now: () => new Date() }), taskId))?.interrupted;
  } finally {
    await db.close();
  }
}

for (const kind of DATABASE_KINDS) {
  describe(`a deploy spends nothing (${kind})`, () => {
    test('V4: SIGTERM with the agent outliving the grace; the next start runs the attempt again and attemptsUsed is unchanged; a second interruption files exactly one notice', async () => {
      const s = await setup(kind);
      try {
        const first = await s.start();
        const { taskId, red } = await taskWithRedPush(first.url, { pullRequest: 3, sha: 'feedface', checkId: 31 });
        const run1 = await runningRun(s, first.url, taskId);
        const pid1 = await s.agentPid(run1.id);
        const before = await s.view(first.url, taskId);
        assert.equal(before.attemptsUsed, 1);

        const stopped = await terminate(first);
        assert.equal(stopped.code, 0, first.output());
        assert.ok(stopped.ms >= GRACE_MS, `the agent had its grace (${stopped.ms} ms)`);
        assert.ok(stopped.ms < GRACE_MS + 5_000, `exited soon after the grace (${stopped.ms} ms)`);
        assert.equal(alive(pid1), false, 'the agent was stopped after the grace');
        // Between the deploy's two halves the board says what will happen, never `idle`.
        assert.equal(await boardLoopState(s, taskId), 'interrupted');
        assert.equal(LOOP_STATE_WORDS.interrupted, 'interrupted by a restart: will be offered again');
        assert.equal(await taskPageInterrupted(s, taskId), true);

        const second = await s.start();
        const run2 = await runningRun(s, second.url, taskId);
        assert.notEqual(run2.id, run1.id, 'a new run of the same attempt');
        await s.agentPid(run2.id);
        const again = await s.view(second.url, taskId);
        assert.equal(again.attemptsUsed, 1, 'the interruption spent no attempt');
        assert.equal(again.attempts.length, 1);
        assert.equal(again.attempts[0].id, before.attempts[0].id);
        assert.equal(again.attempts[0].interruptions, 1);
        assert.equal(again.attempts[0].runId, run2.id);
        const firstRun = again.runs.find((r: any) => r.id === run1.id);
        assert.equal(firstRun.state, 'failed');
        assert.ok(firstRun.interruptedAt, 'the first run is marked interrupted');
        const log = (await (await fetch(`${second.url}/api/runs/${run1.id}`, { headers: auth })).json()) as any;
        assert.match(log.log, /still running after the .* grace, so it was stopped/);
        assert.equal(again.notice, null, 'no notice for a first interruption');

        // The same attempt interrupted again: the Task's one notice, and no third run.
        await terminate(second);
        const third = await s.start();
        const noticed = await until('the interrupted_twice notice', async () => {
          const v = await s.view(third.url, taskId);
          return v.notice && v;
        });
        assert.equal(noticed.notice.reason, 'interrupted_twice');
        assert.match(noticed.notice.message, /stopped the agent's run twice for the same attempt/);
        assert.equal(noticed.attemptsUsed, 1);
        assert.equal(noticed.attempts[0].state, 'retryable');
        // A restart more: nothing runs again and nothing is told twice.
        await terminate(third);
        const fourth = await s.start(WATCHED);
        await nothingLeftToDecide(fourth, [red.id]);
        const last = await s.view(fourth.url, taskId);
        assert.equal(last.runs.filter((r: any) => r.action === 'resume').length, 2, 'never a third run');
        const decisions = await decisionsOf(fourth.url, taskId);
        assert.equal(decisions.filter((d: any) => d.outcome === 'noticed').length, 1, 'exactly one notice');
        assert.equal(decisions.filter((d: any) => d.reason === 'run_interrupted').length, 2);
        assert.equal(await boardLoopState(s, taskId), 'needs_person');
        assert.equal(await taskPageInterrupted(s, taskId), false);
      } finally {
        await s.done();
      }
    });

    test('V4: an agent that finishes within the grace is not interrupted; meanwhile readiness answers 503 and webhooks are still stored', async () => {
      const s = await setup(kind, 20_000);
      try {
        const first = await s.start();
        const { taskId, red } = await taskWithRedPush(first.url, { pullRequest: 4, sha: 'beadbead', checkId: 41 });
        const run1 = await runningRun(s, first.url, taskId);
        await s.agentPid(run1.id);

        first.child.kill('SIGTERM');
        // Draining: a load balancer sees it not ready; a delivery is still acknowledged and stored.
        await until('readiness to answer 503', async () => (await fetch(`${first.url}/readyz`)).status === 503);
        const sha = 'abcdef'.padEnd(40, '0');
        const late = delivery(
          'check_run',
          checkRunPayload({ repo: REPO, sha, id: 42, name: 'lint', pr: { number: 4, headSha: sha }, output: 'x' }),
        );
        assert.equal((await post(first.url, late, SECRET)).status, 202);
        assert.equal(first.child.exitCode, null, 'still waiting for the agent');
        writeFileSync(join(s.dir, 'release'), ''); // the agent ends on its own, within the grace
        const t0 = Date.now();
        assert.equal(await first.exited, 0);
        assert.ok(Date.now() - t0 < 5_000, 'exited once its agent had finished');

        const second = await s.start(WATCHED);
        await nothingLeftToDecide(second, [red.id, late.id]);
        const v = await s.view(second.url, taskId);
        const run = v.runs.find((r: any) => r.id === run1.id);
        assert.equal(run.state, 'completed');
        assert.equal(run.interruptedAt, null);
        assert.equal(v.attempts[0].interruptions, 0);
        assert.equal(
          v.runs.filter((r: any) => r.action === 'resume' && r.attemptId === run.attemptId).length,
          1,
          'not offered again',
        );
        // The red of the commit that moved the branch during the run is the agent's push (issue 35): an
        // agent that never called fixloop but pushed took action, and the new red is answered on its own.
        assert.deepEqual(
          v.attempts.map((a: any) => [a.coordinate, a.outcome]),
          [
            ['beadbead'.padEnd(40, '0'), 'action_taken'],
            [sha, v.attempts[1]?.outcome ?? null],
          ],
        );
        // The delivery taken while draining was stored: a redelivery is a duplicate.
        assert.equal((await post(second.url, late, SECRET)).body.outcome, 'duplicate');
      } finally {
        await s.done();
      }
    });

    test('V4: kill -9 while the agent runs (the agent dies with it): the next start offers the attempt again, free, once', async () => {
      const s = await setup(kind);
      try {
        const first = await s.start();
        const { taskId } = await taskWithRedPush(first.url, { pullRequest: 5, sha: 'deafbeef', checkId: 51 });
        const run1 = await runningRun(s, first.url, taskId);
        const pid1 = await s.agentPid(run1.id);
        await first.stop('SIGKILL');
        // A container stopped whole: the agent goes with fixloop.
        process.kill(pid1, 'SIGKILL');
        await until('the agent to be gone', async () => !alive(pid1));

        const second = await s.start();
        const run2 = await runningRun(s, second.url, taskId);
        assert.notEqual(run2.id, run1.id);
        await s.agentPid(run2.id);
        const v = await s.view(second.url, taskId);
        assert.equal(v.attemptsUsed, 1, 'the crash spent no attempt');
        assert.equal(v.attempts[0].interruptions, 1);
        const lost = v.runs.find((r: any) => r.id === run1.id);
        assert.equal(lost.state, 'failed');
        assert.ok(lost.interruptedAt);
        assert.equal(v.notice, null);

        // Killed again while the re-offered run runs: one notice, no third run.
        await second.stop('SIGKILL');
        const pid2 = Number(readFileSync(join(s.dir, `pid-${run2.id}`), 'utf8'));
        process.kill(pid2, 'SIGKILL');
        await until('the second agent to be gone', async () => !alive(pid2));
        const third = await s.start();
        const noticed = await until('the interrupted_twice notice', async () => {
          const w = await s.view(third.url, taskId);
          return w.notice && w;
        });
        assert.equal(noticed.notice.reason, 'interrupted_twice');
        assert.equal(noticed.runs.filter((r: any) => r.action === 'resume').length, 2);
        assert.equal(noticed.attemptsUsed, 1);
      } finally {
        await s.done();
      }
    });

    test('V4: a person who turned the loop off meanwhile is obeyed: the interrupted attempt is not offered again', async () => {
      const s = await setup(kind);
      try {
        const first = await s.start();
        const { taskId, red } = await taskWithRedPush(first.url, { pullRequest: 6, sha: 'c0ffee', checkId: 61 });
        const run1 = await runningRun(s, first.url, taskId);
        await s.agentPid(run1.id);
        const off = await fetch(`${first.url}/api/tasks/${taskId}/loop`, {
          method: 'PUT',
          headers: auth,
          body: JSON.stringify({ on: false }),
        });
        assert.equal(off.status, 200);
        await terminate(first);

        const second = await s.start(WATCHED);
        await nothingLeftToDecide(second, [red.id]);
        const v = await s.view(second.url, taskId);
        assert.equal(v.runs.filter((r: any) => r.action === 'resume').length, 1, 'not offered again');
        assert.equal(v.attempts[0].interruptions, 0);
        assert.equal(
          v.attempts[0].state,
          'retryable',
          'out of flight, for the ordinary rules (which refuse: loop off)',
        );
        assert.equal(v.notice, null);
      } finally {
        await s.done();
      }
    });

    test('V4: with a dashboard live stream and a half-sent request open, SIGTERM exits within the grace and a second or two', async () => {
      const s = await setup(kind);
      try {
        const server = await s.start();
        const signIn = await fetch(`${server.url}/sign-in`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded', origin: server.url },
          body: new URLSearchParams({ token: API_TOKEN }).toString(),
          redirect: 'manual',
        });
        assert.equal(signIn.status, 303);
        const cookie = (signIn.headers.get('set-cookie') ?? '').split(';')[0]!;
        const stream = await fetch(`${server.url}/events`, { headers: { cookie } });
        assert.equal(stream.status, 200);
        const reader = stream.body!.getReader();
        assert.match(new TextDecoder().decode((await reader.read()).value), /event: ready/);
        // A client that sent half a request and waits: it holds its connection open too.
        const socket = connect(server.port, '127.0.0.1');
        await new Promise<void>((r) => socket.once('connect', () => r()));
        socket.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n');
        socket.on('error', () => {});

        const { code, ms } = await terminate(server);
        assert.equal(code, 0, server.output());
        assert.ok(ms < GRACE_MS + 2_500, `exited in ${ms} ms`);
        socket.destroy();
        await reader.cancel().catch(() => {});
      } finally {
        await s.done();
      }
    });
  });
}
