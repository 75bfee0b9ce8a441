// Runner presets (SPEC L1): the argv of a non-interactive Claude Code resume and a Codex exec resume,
// the prompt reaching the agent on stdin (never argv), run through the command runner with fake CLIs.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
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
    '{runDir}/mcp.json',
    '--strict-mcp-config',
    '--model',
    'sonnet',
    '--max-turns',
    '30',
  ]);
  assert.equal(p.stdinFromPromptFile, true);
  // fixloop's MCP server over HTTP: Claude expands the run's variables itself, so no secret is in the file.
  assert.deepEqual(JSON.parse(p.runFiles!['mcp.json']!), {
    mcpServers: {
      fixloop: {
        type: 'http',
        url: '${FIXLOOP_API_URL}/mcp',
        headers: { Authorization: 'Bearer ${FIXLOOP_RUN_TOKEN}' },
      },
    },
  });
  assert.deepEqual(JSON.parse(claudeCodeResume({ mcp: 'stdio' }).runFiles!['mcp.json']!).mcpServers.fixloop, {
    type: 'stdio',
    command: 'fixloop',
    args: ['mcp'],
  });
  assert.equal(claudeCodeResume({ mcpConfig: '/etc/agent/mcp.json' }).runFiles, undefined);
  assert.deepEqual(claudeCodeResume({ mcpConfig: null, allowedTools: [] }).command.slice(-2), [
    '--permission-mode',
    'acceptEdits',
  ]);
});

test('L1: codexExecResume puts exec options before `resume <session> -` and never a secret in argv', () => {
  const p = codexExecResume({ model: 'gpt-5-codex' });
  assert.deepEqual(p.command.slice(0, 5), ['codex', 'exec', '--json', '--sandbox', 'workspace-write']);
  assert.deepEqual(p.command.slice(-3), ['resume', '{resumeRef}', '-']);
  // MCP over HTTP: the URL in argv, the token by the name of the variable that holds it.
  assert.ok(p.command.includes('mcp_servers.fixloop.url="{apiUrl}/mcp"'));
  assert.ok(p.command.includes('mcp_servers.fixloop.bearer_token_env_var="FIXLOOP_RUN_TOKEN"'));
  // exec never asks for approval, so an MCP tool that needs it would fail every call; a server it
  // cannot reach ends the run at once instead of spending a model call without the tools.
  assert.ok(p.command.includes('mcp_servers.fixloop.default_tools_approval_mode="approve"'));
  assert.ok(p.command.includes('mcp_servers.fixloop.required=true'));
  // workspace-write keeps .git read-only unless it is a writable root: the agent could not commit.
  assert.ok(p.command.includes('sandbox_workspace_write.writable_roots=["{workspace}/.git"]'));
  assert.ok(p.command.includes('sandbox_workspace_write.network_access=true'));
  assert.ok(p.envAllow.includes('CODEX_API_KEY'), 'codex exec reads CODEX_API_KEY');
  assert.equal(p.stdinFromPromptFile, true);
  const stdio = codexExecResume({ mcp: 'stdio' }).command;
  assert.ok(stdio.includes('mcp_servers.fixloop.command="fixloop"'));
  assert.ok(
    stdio.includes(
      'mcp_servers.fixloop.env_vars=["FIXLOOP_RUN_TOKEN","FIXLOOP_API_URL","FIXLOOP_RUN_ID","FIXLOOP_TASK_ID"]',
    ),
  );
  assert.ok(!stdio.some((a) => a.includes('mcp_servers.fixloop.url')));
  assert.ok(!codexExecResume({ mcpServer: null }).command.some((a) => a.startsWith('mcp_servers.')));
  assert.ok(
    codexExecResume({ writableRoots: ['/srv/cache'] }).command.includes(
      'sandbox_workspace_write.writable_roots=["{workspace}/.git","/srv/cache"]',
    ),
  );
  const full = codexExecResume({ sandbox: 'danger-full-access' }).command;
  assert.ok(!full.some((a) => a.includes('network_access') || a.includes('writable_roots')));
});

test('L1: the Claude preset run: the prompt arrives on stdin, session and workspace substituted, prompt not in argv', async () => {
  const r = await runWithFake(claudeCodeResume());
  assert.equal(r.stdin, PROMPT);
  assert.deepEqual(r.argv.slice(0, 4), ['-p', '--resume', 'session-abc', '--output-format']);
  const runDir = join(r.workDir, `run-${SPEC.runId}`);
  assert.equal(r.argv[r.argv.indexOf('--mcp-config') + 1], `${runDir}/mcp.json`);
  assert.match(readFileSync(join(runDir, 'mcp.json'), 'utf8'), /"url": "\$\{FIXLOOP_API_URL\}\/mcp"/);
  assert.ok(!r.argv.some((a) => a.includes('rm -rf') || a.includes(SPEC.runToken)));
});

test('L1: the Codex preset run: `resume <session> -` with the prompt on stdin', async () => {
  const r = await runWithFake(codexExecResume());
  assert.equal(r.stdin, PROMPT);
  assert.deepEqual(r.argv.slice(-3), ['resume', 'session-abc', '-']);
  assert.ok(r.argv.includes(`mcp_servers.fixloop.url="${SPEC.apiUrl}/mcp"`), '{apiUrl} is substituted');
  assert.ok(r.argv.includes(`sandbox_workspace_write.writable_roots=["${r.cwd}/.git"]`));
  assert.ok(!r.argv.some((a) => a.includes('rm -rf') || a.includes(SPEC.runToken)));
});

test('presets refuse values a CLI could read as an option', () => {
  assert.throws(() => claudeCodeResume({ model: '--dangerously-skip-permissions' }), /model/);
  assert.throws(() => claudeCodeResume({ maxTurns: 0 }), /maxTurns/);
  assert.throws(() => claudeCodeResume({ allowedTools: ['-x'] }), /allowedTools/);
  assert.throws(() => codexExecResume({ model: '-c' }), /model/);
  assert.throws(() => codexExecResume({ mcpServer: { name: 'a.b', command: 'x' } }), /mcpServer/);
  assert.throws(() => codexExecResume({ writableRoots: ['relative/dir'] }), /absolute path/);
});
