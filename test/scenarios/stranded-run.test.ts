// L1, I4: the process's life is the run's life, also across a crash of fixloop itself. fixloop is
// killed (SIGKILL) while its command runner's agent runs; the agent, no longer anyone's child, either
// dies too or keeps running. The restarted process ends the run at once in the first case, watches
// the agent until it exits in the second, and either way the run says why it ended and its attempt
// can be resumed again; nothing is left `running` for good. With replicas on PostgreSQL, a sibling
// that keeps running does the same without waiting for anything to restart.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DATABASE_KINDS, createTestDatabase } from '../support/databases.js';
import { API_TOKEN } from '../support/harness.js';
import { processReconcilePasses } from '../support/reconcile-passes.js';
import { commandAgentEnv, decisionsOf, startServerProcess, taskWithRedPush, until } from '../support/server-process.js';
import { tempDir } from '../support/temp-dir.js';

const AGENT = fileURLToPath(new URL('../support/agent-sleeper.mjs', import.meta.url));
const auth = { authorization: `Bearer ${API_TOKEN}`, 'content-type': 'application/json' };

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    // Exited but not reaped is not alive.
    return !/^\d+ \(.*\) [ZX] /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

/** The resumed run once it runs, as `view` shows it, and the pid its agent wrote. */
async function runningAgent(view: () => Promise<any>, dir: string): Promise<{ runId: number; pid: number }> {
  const run = await until('the resumed run to be running', async () =>
    (await view()).runs.find((r: any) => r.action === 'resume' && r.state === 'running'),
  );
  return {
    runId: run.id,
    pid: Number(
      await until(
        'the agent to start',
        async () => existsSync(join(dir, `pid-${run.id}`)) && readFileSync(join(dir, `pid-${run.id}`), 'utf8'),
      ),
    ),
  };
}

/** The run whose agent a fixloop started and then died at its fault point (SIGKILL), and that agent's pid. */
async function agentLeftByFault(
  fixloop: { child: { signalCode: NodeJS.Signals | null; exitCode: number | null } },
  dir: string,
): Promise<{ runId: number; pid: number }> {
  await until(
    'the fault to kill fixloop',
    async () => fixloop.child.signalCode !== null || fixloop.child.exitCode !== null,
  );
  assert.equal(fixloop.child.signalCode, 'SIGKILL');
  const runId = Number(
    await until('the agent to start', async () =>
      readdirSync(dir)
        .find((f) => f.startsWith('pid-'))
        ?.slice(4),
    ),
  );
  return { runId, pid: Number(await until('its pid', async () => readFileSync(join(dir, `pid-${runId}`), 'utf8'))) };
}

async function killedWhileRunning(
  kind: 'sqlite' | 'postgres',
  agentAfterCrash: 'dies' | 'keeps running',
  killAt: 'running' | 'right after the agent started' | 'before its start was marked' = 'running',
) {
  const db = await createTestDatabase(kind);
  const dir = tempDir('fixloop-stranded-');
  // Killed right after the start, the reconcile grace is left at its default (30 s on PostgreSQL): the
  // restart comes sooner than that, and the process mark alone must settle the attempt.
  // Killed before the mark was written, nothing says the agent started but the agent itself: the
  // restart looks only once the dispatch's lease has lapsed, at once with a grace of 0.
  const grace: Record<string, string> =
    killAt === 'right after the agent started' ? {} : { FIXLOOP_RECONCILE_GRACE_MS: '0' };
  const fault = {
    running: null,
    'right after the agent started': 'after_start:kill',
    'before its start was marked': 'before_mark:kill',
  }[killAt];
  const env = commandAgentEnv({
    dir,
    databaseUrl: db.url,
    agentFile: AGENT,
    envAllow: ['AGENT_DIR'],
    extra: { AGENT_DIR: dir, ...grace },
  });
  // FIXLOOP_FAULT=after_start:kill dies the moment the agent has started, before the attempt is marked
  // dispatched; before_mark:kill earlier still, before the agent's process mark is written.
  const first = await startServerProcess(fault === null ? env : { ...env, FIXLOOP_FAULT: fault }, 'free');
  let second: Awaited<ReturnType<typeof startServerProcess>> | null = null;
  let pid = 0;
  try {
    const task = { id: (await taskWithRedPush(first.url, { pullRequest: 3, sha: 'cafebabe', checkId: 91 })).taskId };
    const viewOf = async (url: string) =>
      (await (await fetch(`${url}/api/tasks/${task.id}`, { headers: auth })).json()) as any;
    const left =
      killAt === 'running' ? await runningAgent(() => viewOf(first.url), dir) : await agentLeftByFault(first, dir);
    const resumed = { id: left.runId };
    pid = left.pid;
    if (killAt === 'running') await first.stop('SIGKILL');
    assert.equal(alive(pid), true, 'the agent outlived fixloop');
    if (agentAfterCrash === 'dies') {
      process.kill(pid, 'SIGKILL');
      await until('the agent to be gone', async () => !alive(pid));
    }

    second = await startServerProcess(env, first.port);
    if (agentAfterCrash === 'keeps running') {
      // Still running, so the run is too: fixloop does not end what it cannot see ending.
      assert.equal((await viewOf(second.url)).runs.find((r: any) => r.id === resumed.id).state, 'running');
      writeFileSync(join(dir, 'release'), '');
    }
    // The run's end is written first, then its log line, then the decision: wait for all three.
    const run = await until('the run to end, saying why', async () => {
      const r = (await (await fetch(`${second!.url}/api/runs/${resumed.id}`, { headers: auth })).json()) as any;
      return !['queued', 'running'].includes(r.state) && String(r.log).includes('[fixloop:') && r;
    });
    const decisions = await until('the run_lost decision', async () => {
      const d = await decisionsOf(second!.url, task.id);
      return d.some((x: any) => x.reason === 'run_lost') && d;
    });
    // V4: an agent found gone died with its fixloop: its attempt is offered again, free (a new run of
    // the same attempt); one watched to its exit ran its course and leaves the attempt retryable.
    const view = await until('the attempt to leave running, or to be offered again', async () => {
      const v = await viewOf(second!.url);
      return (v.attempts[0]?.state !== 'running' || v.attempts[0]?.interruptions > 0) && v;
    });
    return { run, view, decisions };
  } finally {
    if (pid && alive(pid)) process.kill(pid, 'SIGKILL');
    if (first.child.exitCode === null && first.child.signalCode === null) await first.stop('SIGKILL');
    if (second) await second.stop();
    await db.drop();
  }
}

/** A restart that finds the agent started: its attempt dispatched (once, never unknown), the agent watched until it exits. */
function dispatchedAndWatched(
  { run, view, decisions }: Awaited<ReturnType<typeof killedWhileRunning>>,
  why: string,
): void {
  assert.equal(view.attempts.length, 1);
  assert.equal(view.attempts[0].status, 'dispatched', why);
  assert.equal(decisions.filter((d: any) => d.reason === 'dispatch_unknown').length, 0);
  assert.equal(decisions.filter((d: any) => d.outcome === 'dispatched').length, 1);
  assert.equal(run.state, 'failed');
  assert.match(run.log, /watched since the fixloop process that started it was found gone, has exited/);
  assert.equal(view.attempts[0].state, 'retryable');
}

for (const kind of DATABASE_KINDS) {
  describe(`fixloop killed while its agent runs (${kind})`, () => {
    test('the agent died too: on restart its run is failed, says why, and the attempt can be resumed again', async () => {
      const { run, view, decisions } = await killedWhileRunning(kind, 'dies');
      assert.equal(run.state, 'failed');
      assert.match(run.log, /ended while no fixloop process was watching it; its exit status is unknown/);
      assert.ok(run.interruptedAt, 'V4: it died with fixloop, so the run counts as interrupted');
      assert.equal(view.attempts.length, 1, 'V4: no new attempt row, so no budget spent');
      assert.equal(view.attempts[0].interruptions, 1, 'V4: the attempt is offered again, free, once');
      assert.equal(view.runs.filter((r: any) => r.attemptId === view.attempts[0].id).length, 2);
      assert.equal(decisions.filter((d: any) => d.reason === 'run_lost').length, 1);
    });

    test('the agent kept running: it is watched, and its run ends when it exits', async () => {
      const { run, view, decisions } = await killedWhileRunning(kind, 'keeps running');
      assert.equal(run.state, 'failed');
      assert.match(run.log, /watched since the fixloop process that started it was found gone, has exited/);
      assert.equal(view.attempts[0].state, 'retryable');
      assert.equal(decisions.filter((d: any) => d.reason === 'run_lost').length, 1);
    });

    test('killed the moment the agent started: the attempt is dispatched, not unknown, and the agent is watched', async () => {
      dispatchedAndWatched(
        await killedWhileRunning(kind, 'keeps running', 'right after the agent started'),
        'its process mark says the agent started',
      );
    });

    test('killed after the agent started but before its start was recorded: the agent is found by its run id and token, the attempt is dispatched, and the agent is watched', async () => {
      dispatchedAndWatched(
        await killedWhileRunning(kind, 'keeps running', 'before its start was marked'),
        'the agent found running says it started',
      );
    });
  });
}

/**
 * Two replicas on one host; the one that started the agent is killed, while the agent runs or before
 * its start was recorded (then the sibling waits for the dispatch's lease to lapse); the other is
 * never restarted.
 */
async function siblingDiesWhileRunning(
  agentAfterCrash: 'dies' | 'keeps running',
  killAt: 'running' | 'before its start was marked' = 'running',
) {
  const db = await createTestDatabase('postgres');
  const dir = tempDir('fixloop-sibling-');
  const lease: Record<string, string> = killAt === 'running' ? {} : { FIXLOOP_RECONCILE_GRACE_MS: '1000' };
  const env = commandAgentEnv({
    dir,
    databaseUrl: db.url,
    agentFile: AGENT,
    envAllow: ['AGENT_DIR'],
    // LOG_LEVEL=debug: the sibling's passes, as they end (processReconcilePasses).
    extra: { AGENT_DIR: dir, FIXLOOP_ADOPT_EVERY_MS: '200', LOG_LEVEL: 'debug', ...lease },
  });
  const dying = await startServerProcess(
    killAt === 'running' ? env : { ...env, FIXLOOP_FAULT: 'before_mark:kill' },
    'free',
  );
  const sibling = await startServerProcess(env, 'free');
  let pid = 0;
  try {
    // Delivered to the replica that will die, so it is the one that starts the agent.
    const task = { id: (await taskWithRedPush(dying.url, { pullRequest: 4, sha: 'feedface', checkId: 92 })).taskId };
    const viewOf = async () =>
      (await (await fetch(`${sibling.url}/api/tasks/${task.id}`, { headers: auth })).json()) as any;
    const left = killAt === 'running' ? await runningAgent(viewOf, dir) : await agentLeftByFault(dying, dir);
    const resumed = { id: left.runId };
    pid = left.pid;
    if (killAt === 'running') await dying.stop('SIGKILL');
    else {
      // The sibling's periodic pass finds the agent once the lease lapses: the attempt is dispatched,
      // then (a write later) the run running.
      await until('the sibling to find the agent', async () => {
        const v = await viewOf();
        return (
          v.attempts[0]?.status === 'dispatched' && v.runs.find((r: any) => r.id === resumed.id)?.state === 'running'
        );
      });
    }
    assert.equal(alive(pid), true, 'the agent outlived the replica that started it');
    if (agentAfterCrash === 'dies') {
      process.kill(pid, 'SIGKILL');
      await until('the agent to be gone', async () => !alive(pid));
    } else {
      // Whole passes of the sibling go by: the agent still runs, so its run does too.
      const passes = processReconcilePasses(sibling);
      await passes.oneAfterNow('a whole pass of the sibling with the agent running');
      await passes.oneAfterNow('a second whole pass of the sibling');
      assert.equal((await viewOf()).runs.find((r: any) => r.id === resumed.id).state, 'running');
      writeFileSync(join(dir, 'release'), '');
    }
    const run = await until('the sibling to end the run, saying why', async () => {
      const r = (await (await fetch(`${sibling.url}/api/runs/${resumed.id}`, { headers: auth })).json()) as any;
      return !['queued', 'running'].includes(r.state) && String(r.log).includes('[fixloop:') && r;
    });
    const decisions = await until('the run_lost decision', async () => {
      const d = await decisionsOf(sibling.url, task.id);
      return d.some((x: any) => x.reason === 'run_lost') && d;
    });
    // V4: an agent the sibling found gone died with its fixloop, and its attempt is offered again free.
    const view = await until('the attempt to leave running, or to be offered again', async () => {
      const v = await viewOf();
      return (v.attempts[0]?.state !== 'running' || v.attempts[0]?.interruptions > 0) && v;
    });
    return { run, view, decisions, siblingLog: sibling.output() };
  } finally {
    if (pid && alive(pid)) process.kill(pid, 'SIGKILL');
    if (dying.child.exitCode === null && dying.child.signalCode === null) await dying.stop('SIGKILL');
    await sibling.stop();
    await db.drop();
  }
}

describe('a replica dies while its sibling on this host keeps running (postgres)', () => {
  test('the agent died too: the sibling ends the run without any restart, and the attempt can be resumed again', async () => {
    const { run, view, decisions } = await siblingDiesWhileRunning('dies');
    assert.equal(run.state, 'failed');
    // The sibling's pass may come between the replica's death and the agent's: it then saw the agent
    // alive, watched it, and says so. Either way it is the sibling that ended the run.
    assert.match(
      run.log,
      /ended while no fixloop process was watching it|watched since the fixloop process that started it was found gone, has exited/,
    );
    if (/ended while no fixloop process was watching it/.test(run.log)) {
      // V4: found gone, it died with its fixloop: the sibling offers the attempt again, free.
      assert.equal(view.attempts.length, 1);
      assert.equal(view.attempts[0].interruptions, 1);
    } else assert.equal(view.attempts[0].state, 'retryable');
    assert.equal(decisions.filter((d: any) => d.reason === 'run_lost').length, 1);
  });

  test('killed after its agent started but before the start was recorded: the sibling finds the agent once the lease lapses, dispatches the attempt, watches the agent once, and ends the run when it exits', async () => {
    const { run, view, decisions, siblingLog } = await siblingDiesWhileRunning(
      'keeps running',
      'before its start was marked',
    );
    assert.equal(view.attempts[0].status, 'dispatched');
    assert.equal(decisions.filter((d: any) => d.reason === 'dispatch_unknown').length, 0);
    assert.equal(decisions.filter((d: any) => d.outcome === 'dispatched').length, 1);
    assert.equal(run.state, 'failed');
    assert.match(run.log, /watched since the fixloop process that started it was found gone, has exited/);
    assert.equal(siblingLog.match(/run\.stranded_watching/g)?.length, 1);
    assert.equal(view.attempts[0].state, 'retryable');
  });

  test('the agent kept running: the sibling watches it, once, and ends the run when it exits', async () => {
    const { run, view, decisions, siblingLog } = await siblingDiesWhileRunning('keeps running');
    assert.equal(run.state, 'failed');
    assert.match(run.log, /watched since the fixloop process that started it was found gone, has exited/);
    assert.equal(
      siblingLog.match(/run\.stranded_watching/g)?.length,
      1,
      'one watcher, however many passes saw the run',
    );
    assert.equal(view.attempts[0].state, 'retryable');
    assert.equal(decisions.filter((d: any) => d.reason === 'run_lost').length, 1);
  });
});
