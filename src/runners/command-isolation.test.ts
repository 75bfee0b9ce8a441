// The command runner's isolation (SPEC L3), with real processes: an agent of another user gets that
// uid and gid and its own HOME, reads its run directory but cannot write it, owns its checkout
// (and a link it plants there cannot make the cleanup remove anything outside), and, in a bwrap
// sandbox, stops with the runner (a signal reaches it through bwrap).
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { RunSpec } from '../app/ports.js';
import { runSpecFixture } from '../../test/support/fixtures.js';
import { createCommandRunner, type CommandRunnerOptions } from './command.js';
import { createWorkspacePreparer } from './workspace.js';
import type { AgentIsolation } from './isolation.js';

const NODE = process.execPath;
const NOBODY = { uid: 65534, gid: 65534 };
const GIT = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
const dirs: string[] = [];
after(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

/** A deployment directory the agent's user may pass through (as /srv/fixloop would be). */
async function deployment(): Promise<string> {
  const d = await mkdtemp(join(tmpdir(), 'fixloop-runner-isolation-'));
  await chmod(d, 0o711);
  dirs.push(d);
  return d;
}

const asNobody = (workDir: string): AgentIsolation => ({
  kind: 'user',
  user: { ...NOBODY, home: join(workDir, 'agent-home') },
});

/** Runs once, returning the agent's output and exit. */
async function runOnce(opts: CommandRunnerOptions, s: RunSpec = runSpecFixture()) {
  const runner = createCommandRunner(opts);
  let output = '';
  let ended!: (r: { state: string; exitCode: number | null }) => void;
  const exit = new Promise<{ state: string; exitCode: number | null }>((r) => (ended = r));
  await runner.start(s, { onOutput: (_id, chunk) => (output += chunk), onExit: (_id, r) => ended(r) });
  return { exit: await exit, output };
}

/** An agent that says who it is, what it can read and write, as one JSON line. */
const WHOAMI = `
const fs = require('node:fs');
const can = (f) => { try { return f() ?? true; } catch (e) { return e.code; } };
process.stdout.write(JSON.stringify({
  uid: process.getuid(), gid: process.getgid(), groups: process.getgroups(), home: process.env.HOME,
  cwd: process.cwd(),
  prompt: can(() => fs.readFileSync(process.env.FIXLOOP_PROMPT_FILE, 'utf8')),
  writeRunDir: can(() => fs.writeFileSync('planted', 'x')),
  writeHome: can(() => fs.writeFileSync(process.env.HOME + '/.session', 'x')),
}));
`;

describe('L3: the command runner isolates its agent', () => {
  test('L3: with isolation user the agent runs as that uid and gid, no groups of fixloop, with its own HOME', async () => {
    const workDir = join(await deployment(), 'runs');
    const { exit, output } = await runOnce({
      command: [NODE, '-e', WHOAMI],
      workDir,
      env: { PATH: process.env.PATH, HOME: '/root' },
      isolation: asNobody(workDir),
    });
    assert.equal(exit.state, 'completed', output);
    const seen = JSON.parse(output);
    assert.deepEqual([seen.uid, seen.gid, seen.groups], [NOBODY.uid, NOBODY.gid, [NOBODY.gid]]);
    assert.equal(seen.home, join(workDir, 'agent-home'), "not fixloop's /root");
    assert.equal(seen.writeHome, true, 'its HOME is its own (sessions live there)');
    assert.equal(seen.prompt, 'CI is red: fix it.', 'it reads its prompt');
    assert.equal(seen.writeRunDir, 'EACCES', 'but cannot write where fixloop writes');
    const runDir = seen.cwd;
    const [dirStat, promptStat] = [await stat(runDir), await stat(join(runDir, 'prompt.md'))];
    assert.deepEqual([dirStat.uid, dirStat.gid, dirStat.mode & 0o777], [process.getuid!(), NOBODY.gid, 0o750]);
    assert.deepEqual([promptStat.uid, promptStat.gid, promptStat.mode & 0o777], [process.getuid!(), NOBODY.gid, 0o640]);
    assert.equal((await stat(workDir)).mode & 0o777, 0o711, 'the work directory is searchable, not listable');
  });

  test("L3: the agent's checkout is its own to commit in, and a link it plants cannot make the cleanup remove anything outside", async () => {
    const base = await deployment();
    const workDir = join(base, 'runs');
    // A local repository with the agent's branch.
    const bare = join(base, 'git', 'acme', 'widgets.git');
    await mkdir(dirname(bare), { recursive: true });
    const git = (args: string[], cwd?: string) =>
      execFileSync(GIT, args, { cwd, env: { PATH: process.env.PATH ?? '', HOME: base, GIT_CONFIG_NOSYSTEM: '1' } });
    git(['init', '--quiet', '--bare', '--initial-branch=main', bare]);
    const seed = join(base, 'seed');
    git(['init', '--quiet', '--initial-branch=main', seed]);
    await writeFile(join(seed, 'README.md'), 'widgets\n');
    git(['add', '-A'], seed);
    git(['-c', 'user.name=a', '-c', 'user.email=a@b', 'commit', '--quiet', '-m', 'one'], seed);
    git(['push', '--quiet', bare, 'HEAD:refs/heads/fix/ci'], seed);
    await chmod(join(base, 'git'), 0o755);
    // What the agent must not be able to have removed: a folder of fixloop's, outside the checkout.
    const precious = join(base, 'precious');
    await mkdir(precious);
    await writeFile(join(precious, 'keep'), 'fixloop');

    const isolation = asNobody(workDir);
    const agent = `
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
fs.writeFileSync('fix.txt', 'fixed\\n');
execFileSync(${JSON.stringify(GIT)}, ['add', 'fix.txt']);
execFileSync(${JSON.stringify(GIT)}, ['commit', '--quiet', '-m', 'fix']);
fs.symlinkSync(${JSON.stringify(precious)}, 'escape');
process.stdout.write(execFileSync(${JSON.stringify(GIT)}, ['log', '--format=%s']).toString());
`;
    const s = runSpecFixture();
    const { exit, output } = await runOnce(
      {
        command: [NODE, '-e', agent],
        workDir,
        env: { PATH: process.env.PATH, HOME: '/root' },
        isolation,
        workspace: createWorkspacePreparer({ root: workDir, cloneUrl: () => bare, git: GIT, owner: NOBODY }),
      },
      s,
    );
    assert.equal(exit.state, 'completed', output);
    assert.deepEqual(output.trim().split('\n'), ['fix', 'one'], 'the agent committed in its checkout');
    assert.equal(existsSync(join(workDir, `run-${s.runId}`, 'repo')), false, 'the checkout is gone after the run');
    assert.equal(readFileSync(join(precious, 'keep'), 'utf8'), 'fixloop', 'the cleanup did not follow the link');
  });

  test('L3: in a bwrap sandbox the agent stops with the runner: the signal reaches it inside', async () => {
    const workDir = join(await deployment(), 'runs');
    const mark = `fixloop-sleeper-${randomBytes(4).toString('hex')}`;
    const runner = createCommandRunner({
      command: [NODE, '-e', "console.log('ready'); setInterval(() => {}, 1000)", mark],
      workDir,
      env: { PATH: process.env.PATH, HOME: '/root' },
      isolation: {
        kind: 'bwrap',
        bwrap: 'bwrap',
        user: { ...NOBODY, home: join(workDir, 'agent-home') },
        hide: { dirs: [], files: [] },
      },
    });
    let output = '';
    let ended!: () => void;
    const exit = new Promise<void>((r) => (ended = r));
    await runner.start(runSpecFixture(), { onOutput: (_id, c) => (output += c), onExit: () => ended() });
    /** Processes whose command line names the agent (bwrap's own included); a zombie's is empty. */
    const left = () =>
      readdirSync('/proc')
        .filter((n) => /^\d+$/.test(n))
        .filter((pid) => {
          try {
            return readFileSync(`/proc/${pid}/cmdline`, 'latin1').includes(mark);
          } catch {
            return false;
          }
        });
    for (let i = 0; i < 200 && !output.includes('ready'); i++) await new Promise((r) => setTimeout(r, 25));
    assert.match(output, /ready/, 'the agent runs inside the sandbox');
    const t0 = Date.now();
    await runner.stopAll(10_000);
    await exit;
    assert.ok(Date.now() - t0 < 1_500, 'SIGTERM reached it: no wait for the SIGKILL, nor for its pipes');
    for (let i = 0; i < 40 && left().length > 0; i++) await new Promise((r) => setTimeout(r, 50));
    assert.deepEqual(left(), [], 'nothing of it is left');
  });
});
