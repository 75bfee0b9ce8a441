// Runner presets (SPEC L1): the argv of a non-interactive Claude Code resume and a Codex exec resume,
// the prompt reaching the agent on stdin (never argv), run through the command runner with fake CLIs.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { RunSpec } from '../app/ports.js';
import { createCommandRunner } from './command.js';
import { claudeCodeResume, codexExecResume, DEFAULT_CLAUDE_ALLOWED_TOOLS, type RunnerPreset } from './presets.js';

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
  resumeRef: 'session-abc',
  prompt: PROMPT,
  runToken: 'run-token-secret',
  apiUrl: 'http://127.0.0.1:9999',
};

/** Runs the preset with a fake binary of the same name that prints its argv, stdin and cwd as JSON. */
async function runWithFake(
  preset: RunnerPreset,
): Promise<{ argv: string[]; stdin: string; cwd: string; workDir: string }> {
  const d = await mkdtemp(join(tmpdir(), 'fixloop-preset-'));
  dirs.push(d);
  const bin = join(d, 'bin');
  await mkdir(bin);
  const fake = join(bin, preset.command[0]!);
  await writeFile(
    fake,
    `#!${process.execPath}\nconst stdin = require('node:fs').readFileSync(0, 'utf8');\nprocess.stdout.write(JSON.stringify({ argv: process.argv.slice(2), stdin, cwd: process.cwd() }));\n`,
  );
  await chmod(fake, 0o755);
  const workDir = join(d, 'work');
  const runner = createCommandRunner({
    ...preset,
    workDir,
    env: { PATH: `${bin}:${dirname(process.execPath)}`, HOME: d },
  });
  let out = '';
  const exit = await new Promise<{ exitCode: number | null }>((resolveExit, reject) => {
    runner.start(SPEC, { onOutput: (_id, c) => (out += c), onExit: (_id, r) => resolveExit(r) }).catch(reject);
  });
  assert.equal(exit.exitCode, 0, out);
  return { ...(JSON.parse(out) as { argv: string[]; stdin: string; cwd: string }), workDir };
}

test("L1: claudeCodeResume is `claude -p --resume <session>` with stream-json output and fixloop's MCP config only", () => {
  const p = claudeCodeResume({ model: 'sonnet', maxTurns: 30 });
  assert.deepEqual(p.command, [
    'claude',
    '-p',
    '--resume',
    '{resumeRef}',
    '--output-format',
    'stream-json',
    '--verbose',
    '--permission-mode',
    'acceptEdits',
    '--allowedTools',
    ...DEFAULT_CLAUDE_ALLOWED_TOOLS,
    '--mcp-config',
    '{workspace}/.mcp.json',
    '--strict-mcp-config',
    '--model',
    'sonnet',
    '--max-turns',
    '30',
  ]);
  assert.equal(p.stdinFromPromptFile, true);
  assert.deepEqual(claudeCodeResume({ mcpConfig: null, allowedTools: [] }).command.slice(-2), [
    '--permission-mode',
    'acceptEdits',
  ]);
});

test('L1: codexExecResume puts exec options before `resume <session> -` and never a secret in argv', () => {
  const p = codexExecResume({ model: 'gpt-5-codex' });
  assert.deepEqual(p.command.slice(0, 5), ['codex', 'exec', '--json', '--sandbox', 'workspace-write']);
  assert.deepEqual(p.command.slice(-3), ['resume', '{resumeRef}', '-']);
  assert.ok(p.command.includes('mcp_servers.fixloop.command="fixloop"'));
  assert.ok(
    p.command.includes(
      'mcp_servers.fixloop.env_vars=["FIXLOOP_RUN_TOKEN","FIXLOOP_API_URL","FIXLOOP_RUN_ID","FIXLOOP_TASK_ID"]',
    ),
  );
  assert.equal(p.stdinFromPromptFile, true);
  assert.ok(!codexExecResume({ sandbox: 'danger-full-access' }).command.some((a) => a.includes('network_access')));
});

test('L1: the Claude preset run: the prompt arrives on stdin, session and workspace substituted, prompt not in argv', async () => {
  const r = await runWithFake(claudeCodeResume());
  assert.equal(r.stdin, PROMPT);
  assert.deepEqual(r.argv.slice(0, 4), ['-p', '--resume', 'session-abc', '--output-format']);
  const runDir = join(r.workDir, `run-${SPEC.runId}`);
  assert.equal(r.argv[r.argv.indexOf('--mcp-config') + 1], `${runDir}/.mcp.json`);
  assert.ok(!r.argv.some((a) => a.includes('rm -rf') || a.includes(SPEC.runToken)));
});

test('L1: the Codex preset run: `resume <session> -` with the prompt on stdin', async () => {
  const r = await runWithFake(codexExecResume());
  assert.equal(r.stdin, PROMPT);
  assert.deepEqual(r.argv.slice(-3), ['resume', 'session-abc', '-']);
  assert.ok(!r.argv.some((a) => a.includes('rm -rf') || a.includes(SPEC.runToken)));
});

test('presets refuse values a CLI could read as an option', () => {
  assert.throws(() => claudeCodeResume({ model: '--dangerously-skip-permissions' }), /model/);
  assert.throws(() => claudeCodeResume({ maxTurns: 0 }), /maxTurns/);
  assert.throws(() => claudeCodeResume({ allowedTools: ['-x'] }), /allowedTools/);
  assert.throws(() => codexExecResume({ model: '-c' }), /model/);
  assert.throws(() => codexExecResume({ mcpServer: { name: 'a.b', command: 'x' } }), /mcpServer/);
});
