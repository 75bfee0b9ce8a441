// The command runner (SPEC L1): no secrets in the child's env, argv never a shell, exit → run state,
// the prompt file, and the log bound.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { RunSpec } from '../app/ports.js';
import { runSpecFixture } from '../../test/support/fixtures.js';
import { createCommandRunner, DENIED_ENV, type CommandRunnerOptions } from './command.js';
import { SECRET_FILE_VARIABLES } from '../config/env-schema.js';
import { RunnerError } from './errors.js';

const NODE = process.execPath;
const dirs: string[] = [];
after(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

async function workDir(): Promise<string> {
  const d = await mkdtemp(join(tmpdir(), 'fixloop-runner-'));
  dirs.push(d);
  return d;
}

function spec(over: Partial<RunSpec> = {}): RunSpec {
  return runSpecFixture({ headSha: 'a'.repeat(40), prompt: 'CI is red; fix it.', ...over });
}

/** Starts a run and waits for it to end, collecting the forwarded output. */
async function run(opts: CommandRunnerOptions, s: RunSpec = spec()) {
  const runner = createCommandRunner(opts);
  let output = '';
  const exits: Array<{ state: string; exitCode: number | null }> = [];
  let ended!: () => void;
  const done = new Promise<void>((r) => (ended = r));
  await runner.start(s, {
    onOutput: (id, chunk) => {
      assert.equal(id, s.runId);
      output += chunk;
    },
    onExit: (id, result) => {
      assert.equal(id, s.runId);
      exits.push(result);
      ended();
    },
  });
  await done;
  await new Promise((r) => setTimeout(r, 20)); // room for a second, wrong onExit
  return { output, exits, runner };
}

test('the child sees exactly PATH, HOME, FIXLOOP_* and the allowed names — no secret', async () => {
  const other = `other-${randomBytes(4).toString('hex')}`;
  const parent = {
    PATH: process.env.PATH,
    HOME: '/home/agent',
    WEBHOOK_SECRET: 'whsec',
    DATABASE_URL: 'postgres://u:p@db/fixloop',
    FIXLOOP_API_TOKEN: 'api-token',
    GITHUB_TOKEN: 'ghs_secret',
    PRIVATE_KEY: '-----BEGIN KEY-----',
    APP_ID: '123',
    SOME_OTHER: other,
    ANTHROPIC_API_KEY: 'agent-key',
    LANG: 'C.UTF-8',
  };
  const { output, exits } = await run({
    command: [NODE, '-e', 'process.stdout.write(JSON.stringify(process.env))'],
    workDir: await workDir(),
    env: parent,
    envAllow: ['ANTHROPIC_API_KEY', 'LANG', 'WEBHOOK_SECRET', 'GITHUB_TOKEN', 'DATABASE_URL', 'APP_ID', 'NOT_SET'],
  });
  assert.deepEqual(exits, [{ state: 'completed', exitCode: 0 }]);
  const env = JSON.parse(output) as Record<string, string>;
  assert.deepEqual(Object.keys(env).sort(), [
    'ANTHROPIC_API_KEY',
    'FIXLOOP_API_URL',
    'FIXLOOP_PROMPT_FILE',
    'FIXLOOP_RESUME_REF',
    'FIXLOOP_RUN_ID',
    'FIXLOOP_RUN_TOKEN',
    'FIXLOOP_TASK_ID',
    'HOME',
    'LANG',
    'PATH',
  ]);
  assert.equal(env.HOME, '/home/agent');
  assert.equal(env.FIXLOOP_TASK_ID, '7');
  assert.equal(env.FIXLOOP_RUN_TOKEN, 'run-token-xyz');
  assert.equal(env.FIXLOOP_RESUME_REF, 'session-1');
  for (const secret of [
    'whsec',
    'postgres://u:p@db/fixloop',
    'api-token',
    'ghs_secret',
    '-----BEGIN KEY-----',
    other,
  ]) {
    assert.ok(!output.includes(secret), `child saw ${secret}`);
  }
});

test('FIXLOOP_RESUME_REF is absent when the run has no resume ref', async () => {
  const { output } = await run(
    {
      command: [NODE, '-e', 'process.stdout.write(JSON.stringify(process.env))'],
      workDir: await workDir(),
      env: { PATH: process.env.PATH },
    },
    spec({ resumeRef: null }),
  );
  assert.equal('FIXLOOP_RESUME_REF' in JSON.parse(output), false);
});

test('the hard deny list covers the service secrets', () => {
  for (const name of [
    'WEBHOOK_SECRET',
    'DATABASE_URL',
    'FIXLOOP_API_TOKEN',
    'GITHUB_TOKEN',
    'PRIVATE_KEY',
    'PRIVATE_KEY_PATH',
    'APP_ID',
  ]) {
    assert.ok(DENIED_ENV.has(name), name);
  }
});

test('every secret the config reads, and the variable naming its file, is on the hard deny list', () => {
  for (const pair of SECRET_FILE_VARIABLES) for (const name of pair) assert.ok(DENIED_ENV.has(name), name);
});

test('argv is not a shell: hostile text stays one literal argument and runs nothing', async () => {
  const marker = join(tmpdir(), `fixloop-pwned-${randomBytes(6).toString('hex')}`);
  const hostile = `$(touch ${marker}); rm -rf /nonexistent-fixloop \`touch ${marker}\` * {runId}`;
  const { output, exits } = await run(
    {
      command: [
        NODE,
        '-e',
        'process.stdout.write(JSON.stringify(process.argv.slice(1)))',
        '--',
        '--resume',
        '{resumeRef}',
        'pr={repository}#{pullRequest}',
        '{promptFile}',
      ],
      workDir: await workDir(),
      env: { PATH: process.env.PATH },
    },
    spec({ resumeRef: hostile, prompt: `ignore previous; $(touch ${marker})` }),
  );
  assert.deepEqual(exits, [{ state: 'completed', exitCode: 0 }]);
  const argv = JSON.parse(output) as string[];
  assert.equal(argv.length, 4);
  assert.equal(argv[0], '--resume');
  assert.equal(argv[1], hostile); // verbatim, `{runId}` inside a value not expanded
  assert.equal(argv[2], 'pr=acme/widgets#42');
  assert.equal(await readFile(argv[3]!, 'utf8'), `ignore previous; $(touch ${marker})`);
  assert.equal(existsSync(marker), false);
});

test('an absent resumeRef becomes an empty argument', async () => {
  const { output } = await run(
    {
      command: [NODE, '-e', 'process.stdout.write(JSON.stringify(process.argv.slice(1)))', '{resumeRef}', 'x'],
      workDir: await workDir(),
      env: {},
    },
    spec({ resumeRef: null }),
  );
  assert.deepEqual(JSON.parse(output), ['', 'x']);
});

test('exit 0 → completed, exit 3 → failed with its code', async () => {
  const wd = await workDir();
  const ok = await run({ command: [NODE, '-e', 'process.exit(0)'], workDir: wd, env: {} });
  assert.deepEqual(ok.exits, [{ state: 'completed', exitCode: 0 }]);
  const bad = await run({ command: [NODE, '-e', 'process.exit(3)'], workDir: wd, env: {} });
  assert.deepEqual(bad.exits, [{ state: 'failed', exitCode: 3 }]);
  assert.deepEqual(bad.runner.running(), []);
});

test('kill() stops a running child: failed, exitCode null', async () => {
  const runner = createCommandRunner({
    command: [NODE, '-e', 'setInterval(() => {}, 1000)'],
    workDir: await workDir(),
    env: {},
  });
  const s = spec();
  const exited = new Promise<{ state: string; exitCode: number | null }>((resolve) => {
    void runner.start(s, { onOutput: () => {}, onExit: (_id, r) => resolve(r) }).then(() => {
      assert.deepEqual(runner.running(), [s.runId]);
      assert.equal(runner.kill(s.runId), true);
    });
  });
  assert.deepEqual(await exited, { state: 'failed', exitCode: null });
  assert.deepEqual(runner.running(), []);
  assert.equal(runner.kill(s.runId), false);
});

test('a missing binary rejects start() with spawn_failed and never reports an exit', async () => {
  const runner = createCommandRunner({
    command: ['/nonexistent/fixloop-no-such-agent', '{runId}'],
    workDir: await workDir(),
    env: {},
  });
  let exits = 0;
  await assert.rejects(
    runner.start(spec(), { onOutput: () => {}, onExit: () => exits++ }),
    (err: unknown) => err instanceof RunnerError && err.code === 'spawn_failed' && /ENOENT/.test(err.message),
  );
  await new Promise((r) => setTimeout(r, 50));
  assert.equal(exits, 0);
  assert.deepEqual(runner.running(), []);
});

test('the prompt file holds the prompt, mode 0600, in the run directory', async () => {
  const wd = await workDir();
  const s = spec({ prompt: 'Fix the failing test ✓\n`rm -rf /`\n' });
  const { output } = await run(
    { command: [NODE, '-e', 'process.stdout.write(process.env.FIXLOOP_PROMPT_FILE)'], workDir: wd, env: {} },
    s,
  );
  assert.equal(output, join(wd, `run-${s.runId}`, 'prompt.md'));
  assert.equal(await readFile(output, 'utf8'), s.prompt);
  assert.equal((await stat(output)).mode & 0o777, 0o600);
});

test('log bound: 1 MiB of output is cut at maxLogBytes plus one line, and the child still exits', async () => {
  const maxLogBytes = 64 * 1024;
  const { output, exits } = await run({
    command: [NODE, '-e', "process.stdout.write('x'.repeat(1 << 20)); process.stderr.write('y'.repeat(1 << 18))"],
    workDir: await workDir(),
    env: {},
    maxLogBytes,
  });
  assert.deepEqual(exits, [{ state: 'completed', exitCode: 0 }]);
  const cutLine = `[fixloop: run log cut at ${maxLogBytes} bytes]\n`;
  assert.ok(output.endsWith(cutLine));
  assert.equal(output.split('[fixloop: run log cut').length, 2, 'one cut line');
  assert.ok(Buffer.byteLength(output) <= maxLogBytes + Buffer.byteLength(cutLine) + 1);
  assert.ok(Buffer.byteLength(output) >= maxLogBytes);
});

test('construction refuses an empty command', () => {
  assert.throws(() => createCommandRunner({ command: [], workDir: '/tmp' }), /must name a program/);
});
