// H1, L1: an agent that opens a pull request registers its Task itself, with its own session as the
// resume reference: hooks/register-task.mjs as Claude Code's PostToolUse hook, Gemini CLI's AfterTool hook
// and Codex's notify.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { API_TOKEN, startHarness, type Harness } from '../support/harness.js';

const SCRIPT = fileURLToPath(new URL('../../hooks/register-task.mjs', import.meta.url));

describe('hooks/register-task.mjs (H1)', () => {
  let h: Harness;
  let dir: string;
  let checkout: string;
  before(async () => {
    h = await startHarness('sqlite');
    dir = mkdtempSync(join(tmpdir(), 'fixloop-hook-'));
    checkout = join(dir, 'shop');
    mkdirSync(checkout);
    execFileSync('git', ['init', '-q', '-b', 'agent/fix-login', checkout]);
  });
  after(async () => {
    await h.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Runs the hook as the agent would (asynchronously: fixloop answers from this same process). */
  async function hook(args: string[], o: { stdin?: string; env?: Record<string, string> } = {}): Promise<string> {
    const child = spawn(process.execPath, [SCRIPT, ...args], {
      env: {
        PATH: `${join(dir, 'bin')}:${dirname(process.execPath)}:/usr/bin:/bin`,
        FIXLOOP_URL: h.url,
        FIXLOOP_API_TOKEN: API_TOKEN,
        ...o.env,
      },
    });
    let stderr = '';
    child.stderr.on('data', (c) => (stderr += c));
    child.stdin.end(o.stdin ?? '');
    const code = await new Promise((r) => child.on('close', r));
    assert.equal(code, 0, 'a hook never fails the agent');
    return stderr;
  }

  const claudeInput = (command: string, stdout: string) =>
    JSON.stringify({
      session_id: '0b7c2f4e-5d1a-4c8e-9f3b-2a6d8e1c4b70',
      cwd: checkout,
      hook_event_name: 'PostToolUse',
      tool_name: 'Bash',
      tool_input: { command },
      tool_response: { stdout, stderr: '', interrupted: false },
    });

  const tasks = async () => (await h.api('GET', '/api/tasks')).body.tasks as any[];

  test('Claude Code: after `gh pr create`, the printed pull request becomes a Task resuming that session', async () => {
    const said = await hook(['claude-code'], {
      stdin: claudeInput('gh pr create --fill', 'Creating pull request\nhttps://github.com/acme/shop/pull/12\n'),
    });
    assert.match(said, /acme\/shop#12 is Task \d+/);
    const [task] = (await tasks()).filter((t) => t.pullRequest === 12);
    assert.equal(task.repository, 'acme/shop');
    assert.equal(task.branch, 'agent/fix-login', "the checkout's branch");
    assert.equal(task.resumeRef, '0b7c2f4e-5d1a-4c8e-9f3b-2a6d8e1c4b70', "the hook's session id");
    assert.equal(
      await hook(['claude-code'], {
        stdin: claudeInput('gh pr create --fill', 'https://github.com/acme/shop/pull/12'),
      }),
      '',
      'registered before: quiet',
    );
  });

  test('Gemini CLI: after `gh pr create` through run_shell_command, the printed pull request becomes a Task resuming that session', async () => {
    const gemini = (command: string, output: string) =>
      JSON.stringify({
        session_id: 'c0f0571a-a022-47ac-a7fb-e0b06f21f69a',
        transcript_path: '/home/agent/.gemini/tmp/shop/chats/session-2026-12-05T12-21-c0f0571a.jsonl',
        cwd: checkout,
        hook_event_name: 'AfterTool',
        timestamp: '2026-12-05T12:21:59.327Z',
        tool_name: 'run_shell_command',
        tool_input: { command, description: 'open the pull request' },
        tool_response: { llmContent: `Output: ${output}\nExit Code: 0`, returnDisplay: output },
      });
    const said = await hook(['gemini'], {
      stdin: gemini('gh pr create --fill', 'https://github.com/acme/shop/pull/15'),
    });
    assert.match(said, /acme\/shop#15 is Task \d+/);
    const [task] = (await tasks()).filter((t) => t.pullRequest === 15);
    assert.equal(task.resumeRef, 'c0f0571a-a022-47ac-a7fb-e0b06f21f69a');
    assert.equal(task.branch, 'agent/fix-login');
    assert.equal(await hook(['gemini'], { stdin: gemini('git push', 'https://github.com/acme/shop/pull/16') }), '');
  });

  test('OpenCode: after `gh pr create` through its bash tool, the printed pull request becomes a Task resuming that session', async () => {
    const call = (command: string, output: string) =>
      JSON.stringify({
        tool: 'bash',
        sessionID: 'ses_7b2f1c9e0ffeAbCdEf123456',
        args: { command },
        output,
        cwd: checkout,
      });
    const said = await hook(['opencode'], {
      stdin: call('gh pr create --fill', 'https://github.com/acme/shop/pull/17\n'),
    });
    assert.match(said, /acme\/shop#17 is Task \d+/);
    const [task] = (await tasks()).filter((t) => t.pullRequest === 17);
    assert.equal(task.resumeRef, 'ses_7b2f1c9e0ffeAbCdEf123456');
    assert.equal(task.branch, 'agent/fix-login');
    assert.equal(await hook(['opencode'], { stdin: call('git push', 'https://github.com/acme/shop/pull/18') }), '');
  });

  test('OpenCode plugin: its tool.execute.after hook registers the pull request as OpenCode calls it, and ignores other tools', async () => {
    const saved = { url: process.env.FIXLOOP_URL, token: process.env.FIXLOOP_API_TOKEN };
    process.env.FIXLOOP_URL = h.url;
    process.env.FIXLOOP_API_TOKEN = API_TOKEN;
    try {
      const plugin: string = new URL('../../hooks/opencode-plugin.js', import.meta.url).href; // plain JS, as OpenCode loads it
      const { FixloopRegisterTask } = await import(plugin);
      const hooks = await FixloopRegisterTask({ directory: checkout });
      const after = hooks['tool.execute.after'];
      await after(
        { tool: 'read', sessionID: 'ses_other', callID: 'c1', args: { filePath: 'README.md' } },
        { title: 'README.md', output: 'https://github.com/acme/shop/pull/19', metadata: {} },
      );
      await after(
        { tool: 'bash', sessionID: 'ses_9c4e2a', callID: 'c2', args: { command: 'gh pr create --fill' } },
        { title: 'gh pr create', output: 'https://github.com/acme/shop/pull/20\n', metadata: {} },
      );
      const mine = (await tasks()).filter((t) => t.pullRequest === 19 || t.pullRequest === 20);
      assert.deepEqual(
        mine.map((t) => [t.pullRequest, t.resumeRef]),
        [[20, 'ses_9c4e2a']],
      );
    } finally {
      process.env.FIXLOOP_URL = saved.url;
      process.env.FIXLOOP_API_TOKEN = saved.token;
      if (saved.url === undefined) delete process.env.FIXLOOP_URL;
      if (saved.token === undefined) delete process.env.FIXLOOP_API_TOKEN;
    }
  });

  test('Claude Code: any other Bash call registers nothing', async () => {
    const before = (await tasks()).length;
    assert.equal(
      await hook(['claude-code'], { stdin: claudeInput('git push', 'https://github.com/acme/shop/pull/13') }),
      '',
    );
    assert.equal((await tasks()).length, before);
  });

  test('Codex: after a turn, the pull request `gh` knows for the checkout becomes a Task resuming that thread', async () => {
    mkdirSync(join(dir, 'bin'), { recursive: true });
    const gh = join(dir, 'bin', 'gh');
    writeFileSync(
      gh,
      `#!/bin/sh\necho '{"url":"https://github.com/acme/shop/pull/14","headRefName":"agent/codex-fix"}'\n`,
    );
    chmodSync(gh, 0o755);
    const note = JSON.stringify({
      type: 'agent-turn-complete',
      'thread-id': '019a5c3e-8f21-7b40-a1d2-3c4e5f607182',
      'turn-id': '1',
      cwd: checkout,
      'input-messages': ['open a pull request'],
      'last-assistant-message': 'Opened https://github.com/acme/shop/pull/14',
    });
    await hook(['codex', note]);
    const [task] = (await tasks()).filter((t) => t.pullRequest === 14);
    assert.equal(task.branch, 'agent/codex-fix');
    assert.equal(task.resumeRef, '019a5c3e-8f21-7b40-a1d2-3c4e5f607182');
    await hook(['codex', note]);
    assert.equal((await tasks()).filter((t) => t.pullRequest === 14).length, 1, 'every later turn is a no-op');
  });

  test('a refusal is one line on stderr, and the agent goes on', async () => {
    const said = await hook(['claude-code'], {
      stdin: claudeInput('gh pr create', 'https://github.com/acme/shop/pull/15'),
      env: { FIXLOOP_API_TOKEN: 'wrong' },
    });
    assert.match(said, /fixloop answered 401/);
    assert.match(await hook(['claude-code'], { stdin: 'not json' }), /unreadable input/);
    assert.match(
      await hook(['claude-code'], {
        stdin: claudeInput('gh pr create', 'https://github.com/acme/shop/pull/15'),
        env: { FIXLOOP_URL: '' },
      }),
      /set FIXLOOP_URL/,
    );
  });
});
