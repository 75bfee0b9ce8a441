// Process marks (stranded-run.ts): a restarted fixloop tells a still-running agent from one that
// exited, from a new process that got the same pid, from one on another host, and from one whose
// own fixloop process still runs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { findAgentProcess, livenessOf, markOf } from './process-mark.js';

const onLinux = process.platform === 'linux';
/** A fixloop process that started the agent and is gone: pid_max on Linux is at most 2^22. */
const DEAD_OWNER = { pid: 2 ** 22 + 54321, since: '', instance: 'gone' };

/** The mark of `pid` as the fixloop that started it would have written it, that fixloop being gone. */
const orphanMark = (pid: number) => ({ ...markOf(pid), owner: DEAD_OWNER });

test('a mark names the process, its host and the fixloop process that started it', () => {
  const mark = markOf(process.pid);
  assert.equal(mark.host, hostname());
  assert.equal(mark.pid, process.pid);
  assert.equal(mark.owner.pid, process.pid);
  if (onLinux) assert.match(mark.since, /^[0-9a-f-]+:\d+$/, 'boot id and start time');
  assert.equal(mark.owner.since, mark.since);
});

test("while the fixloop process that started it runs, the agent is that process's to watch", () => {
  assert.equal(livenessOf(markOf(process.pid)), 'owned');
});

test("a previous fixloop process that had this process's pid is not this process: its agents are not owned", () => {
  const mark = markOf(process.pid);
  assert.equal(livenessOf({ ...mark, owner: { ...mark.owner, instance: 'an earlier process' } }), 'alive');
});

test('once its fixloop process is gone, a running agent is alive by its mark', () => {
  assert.equal(livenessOf(orphanMark(process.pid)), 'alive');
});

test('a process that exited is gone', async () => {
  const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 10_000)'], { stdio: 'ignore' });
  await once(child, 'spawn');
  const mark = orphanMark(child.pid!);
  assert.equal(livenessOf(mark), 'alive');
  child.kill('SIGKILL');
  await once(child, 'exit');
  assert.equal(livenessOf(mark), 'gone');
});

const hasPerl = spawnSync('perl', ['-e', '1']).status === 0;

test(
  'an exited process nobody has reaped yet (a zombie) is gone',
  { skip: (!onLinux && 'zombies are read from /proc') || (!hasPerl && 'perl makes the zombie') },
  async () => {
    // A parent whose child exits at once and is never waited for. Perl (Essential on Debian) leaves
    // SIGCHLD alone, so nothing reaps the child; a shell sometimes did, and the test failed now and then.
    const parent = spawn('perl', ['-e', '$| = 1; my $pid = fork; exit 0 if $pid == 0; print "$pid\\n"; sleep 5'], {
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    const [line] = (await once(parent.stdout!, 'data')) as [Buffer];
    const zombie = Number(line.toString().trim());
    try {
      // State Z in /proc/<pid>/stat: exited, not reaped.
      const state = () => readFileSync(`/proc/${zombie}/stat`, 'utf8').replace(/^.*\) /s, '')[0];
      const deadline = Date.now() + 5000;
      while (state() !== 'Z' && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      assert.equal(state(), 'Z');
      assert.doesNotThrow(() => process.kill(zombie, 0), 'its pid still answers');
      assert.equal(livenessOf({ host: hostname(), pid: zombie, since: '', owner: DEAD_OWNER }), 'gone');
    } finally {
      parent.kill('SIGKILL');
    }
  },
);

test('the same pid with another start time is another process: gone', () => {
  const mark = orphanMark(process.pid);
  assert.equal(livenessOf({ ...mark, since: onLinux ? `${mark.since}0` : mark.since }), onLinux ? 'gone' : 'alive');
});

test('a process started on another host is left to that host', () => {
  assert.equal(livenessOf({ ...orphanMark(process.pid), host: `not-${hostname()}` }), 'elsewhere');
});

test('a mark with no usable pid is gone', () => {
  assert.equal(livenessOf({ host: hostname(), pid: 0, since: '', owner: DEAD_OWNER }), 'gone');
  assert.equal(livenessOf({ host: hostname(), pid: 2 ** 22 + 12345, since: '', owner: DEAD_OWNER }), 'gone');
});

/** A stand-in agent carrying a run's id and token, as the command runner gives them; `grandchild` also starts one child of its own, which inherits them. */
async function agentWithEnv(runId: string, token: string, grandchild = false) {
  const code = grandchild
    ? "const c = require('node:child_process').spawn(process.execPath, ['-e', 'setTimeout(() => {}, 10_000)'], { stdio: ['ignore', 'ignore', 'ignore'] }); console.log(c.pid); setTimeout(() => {}, 10_000)"
    : 'setTimeout(() => {}, 10_000)';
  const child = spawn(process.execPath, ['-e', code], {
    stdio: ['ignore', 'pipe', 'ignore'],
    env: { PATH: process.env.PATH ?? '', FIXLOOP_RUN_ID: runId, FIXLOOP_RUN_TOKEN: token },
  });
  await once(child, 'spawn');
  const inner = grandchild ? Number(String((await once(child.stdout!, 'data'))[0]).trim()) : null;
  return {
    pid: child.pid!,
    inner,
    async stop() {
      if (inner) process.kill(inner, 'SIGKILL');
      child.kill('SIGKILL');
      if (child.exitCode === null && child.signalCode === null) await once(child, 'exit');
    },
  };
}

/** The same, orphaned: started by a process that exits at once, as a fixloop killed after the start leaves it. */
async function orphanAgentWithEnv(runId: string, token: string) {
  const code =
    "const c = require('node:child_process').spawn(process.execPath, ['-e', 'setTimeout(() => {}, 10_000)'], { detached: true, stdio: 'ignore' }); console.log(c.pid); c.unref()";
  const starter = spawn(process.execPath, ['-e', code], {
    stdio: ['ignore', 'pipe', 'ignore'],
    env: { PATH: process.env.PATH ?? '', FIXLOOP_RUN_ID: runId, FIXLOOP_RUN_TOKEN: token },
  });
  const pid = Number(String((await once(starter.stdout!, 'data'))[0]).trim());
  if (starter.exitCode === null) await once(starter, 'exit');
  return {
    pid,
    stop() {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    },
  };
}

const gone = async (pid: number) => {
  for (let i = 0; i < 100 && livenessOf({ ...markOf(pid), owner: DEAD_OWNER }) !== 'gone'; i++)
    await new Promise((r) => setTimeout(r, 20));
};

test(
  'an agent whose start was never marked is found by its run id and token; nobody alive started it, so it is to be watched',
  { skip: !onLinux && 'environments are read from /proc' },
  async () => {
    const agent = await orphanAgentWithEnv('7001', 'the-run-token');
    try {
      const mark = findAgentProcess(7001, (t) => t === 'the-run-token');
      assert.ok(mark, 'found');
      assert.equal(mark.pid, agent.pid);
      assert.equal(mark.host, hostname());
      assert.match(mark.since, /^[0-9a-f-]+:\d+$/);
      assert.equal(livenessOf(mark), 'alive');
      assert.equal(
        findAgentProcess(7001, (t) => t === 'another token'),
        null,
        'a process naming the run with another token is not its agent',
      );
      assert.equal(
        findAgentProcess(7002, (t) => t === 'the-run-token'),
        null,
        'another run',
      );
      agent.stop();
      await gone(agent.pid);
      assert.equal(
        findAgentProcess(7001, (t) => t === 'the-run-token'),
        null,
        'gone',
      );
      assert.equal(livenessOf(mark), 'gone');
    } finally {
      agent.stop();
    }
  },
);

test(
  "an agent found among this process's own children is this process's: it hears the exit",
  { skip: !onLinux && 'environments are read from /proc' },
  async () => {
    const agent = await agentWithEnv('7004', 'tok-7004');
    try {
      const mark = findAgentProcess(7004, (t) => t === 'tok-7004');
      assert.equal(mark?.pid, agent.pid);
      assert.equal(livenessOf(mark!), 'owned');
    } finally {
      await agent.stop();
    }
  },
);

test(
  'of an agent and its own children, which inherit its environment, the agent is found',
  { skip: !onLinux && 'environments are read from /proc' },
  async () => {
    const agent = await agentWithEnv('7003', 'tok-7003', true);
    try {
      assert.ok(agent.inner);
      assert.equal(findAgentProcess(7003, (t) => t === 'tok-7003')?.pid, agent.pid);
    } finally {
      await agent.stop();
    }
  },
);
