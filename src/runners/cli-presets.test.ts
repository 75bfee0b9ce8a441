// The presets of Gemini CLI, OpenCode and Amp (SPEC L1, R2): their exact argv, the config each writes for
// fixloop's MCP server (never the run token: the CLI expands it from the environment), and a run through
// the command runner with a fake CLI of the same name: prompt on stdin, placeholders filled, no secret in
// argv. The real CLIs run in test/contract/ (gemini-cli, opencode, amp).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { RunSpec } from '../app/ports.js';
import { createCommandRunner } from './command.js';
import { AMP_MCP_FILE, ampThreadsContinue } from './amp-preset.js';
import { DEFAULT_GEMINI_ALLOWED_TOOLS, geminiResume } from './gemini-preset.js';
import { OPENCODE_CONFIG_FILE, opencodeRun } from './opencode-preset.js';
import type { RunnerPreset } from './presets.js';

const dirs: string[] = [];
after(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

const PROMPT = 'CI is red.\n"; rm -rf / #\nFix it.';
const SPEC: RunSpec = {
  taskId: 1,
  runId: 5,
  attemptId: 1,
  repository: 'acme/widgets',
  pullRequest: 42,
  branch: 'agent/fix',
  headSha: null,
  resumeRef: 'session-abc-0123',
  prompt: PROMPT,
  runToken: 'run-token-secret',
  apiUrl: 'http://127.0.0.1:9999',
};

interface FakeRun {
  argv: string[];
  stdin: string;
  cwd: string;
  env: Record<string, string>;
  runDir: string;
  log: string;
}

/** Runs the preset with a fake binary of the same name that prints its argv, stdin, cwd and env. */
async function runWithFake(preset: RunnerPreset, stdout = ''): Promise<FakeRun> {
  const d = await mkdtemp(join(tmpdir(), 'fixloop-cli-preset-'));
  dirs.push(d);
  const bin = join(d, 'bin');
  await mkdir(bin);
  const cwd = join(d, 'checkout');
  await mkdir(cwd);
  const fake = join(bin, preset.command[0]!);
  await writeFile(
    fake,
    `#!${process.execPath}\nconst stdin = require('node:fs').readFileSync(0, 'utf8');\nprocess.stderr.write(JSON.stringify({ argv: process.argv.slice(2), stdin, cwd: process.cwd(), env: process.env }) + '\\n');\nprocess.stdout.write(${JSON.stringify(stdout)});\n`,
  );
  await chmod(fake, 0o755);
  const workDir = join(d, 'work');
  const runner = createCommandRunner({
    ...preset,
    workDir,
    cwd,
    env: { PATH: `${bin}:${dirname(process.execPath)}`, HOME: d },
  });
  let log = '';
  const exit = await new Promise<{ exitCode: number | null }>((resolveExit, reject) => {
    runner.start(SPEC, { onOutput: (_id, c) => (log += c), onExit: (_id, r) => resolveExit(r) }).catch(reject);
  });
  assert.equal(exit.exitCode, 0, log);
  const seen = JSON.parse(log.split('\n').find((l) => l.startsWith('{"argv"'))!) as Omit<FakeRun, 'runDir' | 'log'>;
  return { ...seen, runDir: join(workDir, `run-${SPEC.runId}`), log };
}

test('R2: geminiResume is `gemini --resume=<session> --output-format=json` in headless mode, every value joined to its option', () => {
  const p = geminiResume({ model: 'gemini-2.5-pro' });
  assert.deepEqual(p.command, [
    'gemini',
    '--resume={resumeRef}',
    '--output-format=json',
    '--approval-mode=auto_edit',
    '--allowed-mcp-server-names=fixloop',
    '--model=gemini-2.5-pro',
  ]);
  assert.equal(p.stdinFromPromptFile, true, 'the prompt on stdin: a non-TTY stdin is headless mode');
  assert.deepEqual(p.runEnv, { GEMINI_CLI_TRUST_WORKSPACE: 'true' });
  assert.ok(p.envAllow.includes('GEMINI_API_KEY') && p.envAllow.includes('GOOGLE_GEMINI_BASE_URL'));
  assert.deepEqual(geminiResume({ approvalMode: 'yolo' }).command[3], '--approval-mode=yolo');
  assert.throws(() => geminiResume({ approvalMode: 'ask' as never }), /approvalMode/);
});

test("R2/L1: the Gemini run: prompt on stdin, fixloop's MCP server and allowed tools in the checkout's .gemini/settings.json, merged over the workspace's own", async () => {
  const preset = geminiResume({ allowedTools: ['run_shell_command(npm test)'] });
  // What the workspace's files put there first (workspace.files): kept, and joined.
  const before = preset.beforeStart!;
  const r = await runWithFake({
    ...preset,
    beforeStart: async (ctx) => {
      await mkdir(join(ctx.cwd, '.gemini'));
      await writeFile(
        join(ctx.cwd, '.gemini', 'settings.json'),
        JSON.stringify({ model: { name: 'pro' }, tools: { allowed: ['run_shell_command(make)'] } }),
      );
      await before(ctx);
    },
  });
  assert.equal(r.stdin, PROMPT);
  assert.equal(r.argv[0], '--resume=session-abc-0123');
  assert.equal(r.env.GEMINI_CLI_TRUST_WORKSPACE, 'true');
  const settings = JSON.parse(await readFile(join(r.cwd, '.gemini', 'settings.json'), 'utf8'));
  assert.deepEqual(settings, {
    model: { name: 'pro' },
    mcpServers: {
      fixloop: {
        httpUrl: '${FIXLOOP_API_URL}/mcp',
        headers: { Authorization: 'Bearer ${FIXLOOP_RUN_TOKEN}' },
        trust: true,
      },
    },
    tools: { allowed: ['run_shell_command(make)', 'run_shell_command(npm test)'] },
  });
  assert.ok(!JSON.stringify(settings).includes(SPEC.runToken));
  assert.ok(!r.argv.some((a) => a.includes('rm -rf') || a.includes(SPEC.runToken)));
  // The default list: the git the agent needs to push.
  assert.ok(DEFAULT_GEMINI_ALLOWED_TOOLS.includes('run_shell_command(git push)'));
});

test('R2: opencodeRun is `opencode run --session=<id> --format=json`; its MCP config is named by OPENCODE_CONFIG', () => {
  const p = opencodeRun({ model: 'anthropic/claude-sonnet-4-5', agent: 'build', auto: true });
  assert.deepEqual(p.command, [
    'opencode',
    'run',
    '--session={resumeRef}',
    '--format=json',
    '--model=anthropic/claude-sonnet-4-5',
    '--agent=build',
    '--auto',
  ]);
  assert.deepEqual(opencodeRun().command, ['opencode', 'run', '--session={resumeRef}', '--format=json']);
  assert.deepEqual(p.runEnv, { OPENCODE_CONFIG: `{runDir}/${OPENCODE_CONFIG_FILE}` });
  assert.deepEqual(JSON.parse(p.runFiles![OPENCODE_CONFIG_FILE]!).mcp.fixloop, {
    type: 'remote',
    url: '{env:FIXLOOP_API_URL}/mcp',
    headers: { Authorization: 'Bearer {env:FIXLOOP_RUN_TOKEN}' },
    enabled: true,
  });
  assert.deepEqual(JSON.parse(opencodeRun({ mcp: 'stdio' }).runFiles![OPENCODE_CONFIG_FILE]!).mcp.fixloop.command, [
    'fixloop',
    'mcp',
  ]);
});

test('R2/L1: the OpenCode run: prompt on stdin, OPENCODE_CONFIG names the file in the run directory, its cost read from the JSON events', async () => {
  const events = readFileSync(
    new URL('../../test/fixtures/agent-output/opencode-1.18.33.jsonl', import.meta.url),
    'utf8',
  );
  const r = await runWithFake(opencodeRun(), events);
  assert.equal(r.stdin, PROMPT);
  assert.deepEqual(r.argv, ['run', '--session=session-abc-0123', '--format=json']);
  assert.equal(r.env.OPENCODE_CONFIG, join(r.runDir, OPENCODE_CONFIG_FILE));
  assert.match(readFileSync(r.env.OPENCODE_CONFIG, 'utf8'), /"url": "\{env:FIXLOOP_API_URL\}\/mcp"/);
  assert.match(
    r.log,
    /\[fixloop: the agent's output says: \$0\.0003, 100 input tokens \(0 cached\), 10 output tokens, session ses_/,
  );
});

test('R2: ampThreadsContinue is `amp threads continue --execute --stream-json --mcp-config <file> -- <thread>`', () => {
  assert.deepEqual(ampThreadsContinue().command, [
    'amp',
    'threads',
    'continue',
    '--execute',
    '--stream-json',
    '--mcp-config',
    `{runDir}/${AMP_MCP_FILE}`,
    '--',
    '{resumeRef}',
  ]);
  assert.deepEqual(
    ampThreadsContinue({ mode: 'smart', settingsFile: '/etc/amp/settings.json', allowAll: true }).command.slice(7),
    ['--mode', 'smart', '--settings-file', '/etc/amp/settings.json', '--dangerously-allow-all', '--', '{resumeRef}'],
  );
  assert.deepEqual(JSON.parse(ampThreadsContinue().runFiles![AMP_MCP_FILE]!), {
    fixloop: { url: '${FIXLOOP_API_URL}/mcp', headers: { Authorization: 'Bearer ${FIXLOOP_RUN_TOKEN}' } },
  });
  assert.ok(ampThreadsContinue().envAllow.includes('AMP_API_KEY'));
});

test('R2/L1: the Amp run: prompt on stdin, the thread after `--`, tokens read from the stream JSON', async () => {
  const stream = readFileSync(new URL('../../test/fixtures/agent-output/amp-stream.jsonl', import.meta.url), 'utf8');
  const r = await runWithFake(ampThreadsContinue(), stream);
  assert.equal(r.stdin, PROMPT);
  assert.deepEqual(r.argv.slice(-2), ['--', 'session-abc-0123']);
  assert.equal(r.argv[r.argv.indexOf('--mcp-config') + 1], join(r.runDir, AMP_MCP_FILE));
  assert.ok(!r.argv.some((a) => a.includes('rm -rf') || a.includes(SPEC.runToken)));
  assert.match(r.log, /no cost printed, 25566 input tokens \(12416 cached\), 8 output tokens, session T-2775dc92/);
});

test('presets refuse values a CLI could read as an option', () => {
  assert.throws(() => geminiResume({ model: '--yolo' }), /model/);
  assert.throws(() => geminiResume({ allowedTools: [''] }), /allowedTools/);
  assert.throws(() => opencodeRun({ model: '-x' }), /model/);
  assert.throws(() => opencodeRun({ agent: 'a\nb' }), /agent/);
  assert.throws(() => ampThreadsContinue({ mode: '--dangerously-allow-all' }), /mode/);
  assert.throws(() => ampThreadsContinue({ settingsFile: '' }), /settingsFile/);
});

test('the command runner refuses a preset variable that would shadow a run variable or a secret', () => {
  for (const name of ['FIXLOOP_RUN_TOKEN', 'DATABASE_URL', 'A-B'])
    assert.throws(
      () => createCommandRunner({ command: ['x'], workDir: tmpdir(), runEnv: { [name]: 'v' } }),
      /not one a preset may set/,
    );
});
