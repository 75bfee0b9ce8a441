// M3 over stdio: the SDK's own client spawns `fixloop mcp` (the real CLI, under tsx) with
// FIXLOOP_API_URL pointing at a loopback stand-in for the `/api/run/*` routes, backed by fake runs
// with the app's semantics (I2 first-write outcome, run-ended tokens, K6 spend, J1 checks).
import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createFakeRuns, fakeRunApi, type FakeRuns } from '../../test/support/fake-runs.js';
import { MCP_TOOL_NAMES } from './server.js';
import { listenLoopback, closeServer } from '../../test/support/loopback.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CLI = ['--import', 'tsx', 'src/cli/main.ts', 'mcp'];
const A = { token: 'stdio-run-a', runId: 31, taskId: 3, attemptId: 301, repository: 'acme/app', number: 17 };
const B = { token: 'stdio-run-b', runId: 42, taskId: 4, attemptId: 402, repository: 'acme/app', number: 18 };

let fake: FakeRuns;
let api: Server;
let apiUrl: string;
const clients: Client[] = [];

before(async () => {
  api = createServer((req, res) => fakeRunApi((token) => fake.resolve(token))(req, res));
  apiUrl = await listenLoopback(api);
});

after(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await closeServer(api);
});

beforeEach(() => {
  fake = createFakeRuns([A, B]);
});

function childEnv(extra: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith('FIXLOOP_')) env[k] = v;
  return { ...env, LOG_LEVEL: 'warn', ...extra };
}

async function connect(token: string): Promise<Client> {
  const client = new Client({ name: 'fixloop-test', version: '0' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: CLI,
      cwd: ROOT,
      env: childEnv({ FIXLOOP_API_URL: apiUrl, FIXLOOP_RUN_TOKEN: token }),
      stderr: 'pipe',
    }),
  );
  clients.push(client);
  return client;
}

async function callTool(client: Client, name: string, args: Record<string, unknown> = {}): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

function text(result: CallToolResult): string {
  const first = result.content[0];
  assert.ok(first && first.type === 'text');
  return first.text;
}

/**
 * Run `fixloop mcp` to its end: write `request` (if any) on stdin, close stdin once a reply line
 * has come back (at once without a request); its exit code and both outputs.
 */
function runCli(
  env: Record<string, string>,
  request?: unknown,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, CLI, { cwd: ROOT, env: childEnv(env), stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
      if (stdout.includes('\n')) child.stdin.end();
    });
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    if (request === undefined) child.stdin.end();
    else child.stdin.write(`${JSON.stringify(request)}\n`);
  });
}

describe('MCP over stdio: fixloop mcp (M3)', () => {
  test('tools/list shows exactly the four tools, none taking a task, run or pull request', async () => {
    const client = await connect(A.token);
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name).sort(), [...MCP_TOOL_NAMES].sort());
    for (const tool of tools) {
      const props = Object.keys((tool.inputSchema.properties ?? {}) as object);
      assert.ok(
        !props.some((p) => /task|run|pull|pr\b|repo|number|attempt/i.test(p)),
        `${tool.name} takes ${props.join(', ')}`,
      );
    }
  });

  test('each tool reaches the API as the run, and the outcome is first-write (J1, I2, K6)', async () => {
    const client = await connect(A.token);

    const checks = await callTool(client, 'pull_request_checks', { failing: true, log_lines: 3 });
    assert.equal(checks.isError, undefined, text(checks));
    const body = checks.structuredContent as {
      number: number;
      entries: Array<{ name: string; log?: { lines: string[] } }>;
    };
    assert.equal(body.number, A.number);
    assert.deepEqual(
      body.entries.map((e) => [e.name, e.log?.lines.length]),
      [['test (run 31)', 3]],
    );

    const outcome = await callTool(client, 'report_fix_outcome', {
      outcome: 'action_taken',
      reason: 'pushed a fix for the null check',
    });
    assert.deepEqual(outcome.structuredContent, { attemptId: A.attemptId, state: 'awaiting_progress' });
    const again = await callTool(client, 'report_fix_outcome', { outcome: 'blocked', reason: 'changed my mind' });
    assert.equal(again.isError, true);
    assert.match(text(again), /^outcome_already_reported: attempt 301 already has the outcome action_taken/);

    const spend = await callTool(client, 'report_spend', { model_cost: 0.75, sandbox_cost: 0.25, note: 'one resume' });
    assert.deepEqual(spend.structuredContent, { totalSpend: 1 });

    const state = (await callTool(client, 'loop_state')).structuredContent as {
      id: number;
      attempts: Array<{ state: string }>;
      spend: { totalSpend: number };
    };
    assert.equal(state.id, A.taskId);
    assert.deepEqual(
      state.attempts.map((x) => x.state),
      ['awaiting_progress'],
    );
    assert.equal(state.spend.totalSpend, 1);

    assert.deepEqual(fake.runs.get(A.token)!.calls, [
      { op: 'checks', input: { failingOnly: true, logLines: 3 } },
      { op: 'reportOutcome', input: { outcome: 'action_taken', reason: 'pushed a fix for the null check' } },
      { op: 'reportOutcome', input: { outcome: 'blocked', reason: 'changed my mind' } },
      { op: 'reportSpend', input: { model: 0.75, sandbox: 0.25, note: 'one resume' } },
      { op: 'loopState' },
    ]);
    assert.deepEqual(fake.runs.get(B.token)!.calls, []);
  });

  test("one run's server never reaches another run (I2)", async () => {
    const [a, b] = await Promise.all([connect(A.token), connect(B.token)]);
    await callTool(a, 'report_fix_outcome', { outcome: 'non_actionable' });
    const refused = await callTool(a, 'pull_request_checks', { pull_request: B.number });
    assert.equal(refused.isError, true);
    assert.match(text(refused), /Unrecognized key/);

    const checksB = (await callTool(b, 'pull_request_checks')).structuredContent as { number: number };
    assert.equal(checksB.number, B.number);
    assert.deepEqual(
      (await callTool(b, 'report_fix_outcome', { outcome: 'blocked', reason: 'flaky runner' })).structuredContent,
      { attemptId: B.attemptId, state: 'acknowledged' },
    );
    assert.deepEqual(fake.runs.get(A.token)!.outcome, { outcome: 'non_actionable' });
    assert.deepEqual(
      fake.runs.get(A.token)!.calls.map((c) => c.op),
      ['reportOutcome'],
    );
    assert.deepEqual(
      fake.runs.get(B.token)!.calls.map((c) => c.op),
      ['checks', 'reportOutcome'],
    );
  });

  test('after its run ended every tool is refused, naming run_ended (I4)', async () => {
    const client = await connect(A.token);
    fake.end(A.token);
    for (const [name, args] of [
      ['report_fix_outcome', { outcome: 'action_taken' }],
      ['report_spend', { model_cost: 2 }],
      ['loop_state', {}],
      ['pull_request_checks', {}],
    ] as const) {
      const result = await callTool(client, name, args);
      assert.equal(result.isError, true, name);
      assert.equal(text(result), 'run_ended: run 31 already ended; this token no longer reports');
    }
    assert.equal(fake.runs.get(A.token)!.outcome, null);
    assert.equal(fake.runs.get(A.token)!.spend.model, 0);
  });

  test('an unknown token is refused on each call, naming unauthorized', async () => {
    const client = await connect('not-a-run');
    const result = await callTool(client, 'loop_state');
    assert.equal(result.isError, true);
    assert.equal(text(result), 'unauthorized: unknown run token');
  });

  test('an unreachable API is "unavailable", not a crash', async () => {
    const client = new Client({ name: 'fixloop-test', version: '0' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: CLI,
        cwd: ROOT,
        env: childEnv({ FIXLOOP_API_URL: 'http://127.0.0.1:1', FIXLOOP_RUN_TOKEN: A.token }),
        stderr: 'pipe',
      }),
    );
    clients.push(client);
    const result = await callTool(client, 'loop_state');
    assert.equal(result.isError, true);
    assert.match(text(result), /^unavailable: cannot reach fixloop at http:\/\/127\.0\.0\.1:1/);
  });

  test('without FIXLOOP_RUN_TOKEN it refuses to start: exit 2, a clear message, nothing on stdout', async () => {
    const { code, stdout, stderr } = await runCli({ FIXLOOP_API_URL: apiUrl });
    assert.equal(code, 2);
    assert.equal(stdout, '');
    assert.match(stderr, /^fixloop: FIXLOOP_RUN_TOKEN is not set: `fixloop mcp` serves one agent run/);
  });

  test('without FIXLOOP_API_URL it refuses to start the same way', async () => {
    const { code, stdout, stderr } = await runCli({ FIXLOOP_RUN_TOKEN: A.token });
    assert.equal(code, 2);
    assert.equal(stdout, '');
    assert.match(stderr, /FIXLOOP_API_URL is not set/);
  });

  test('stdout carries only MCP messages, and the server exits 0 when the client closes stdin', async () => {
    const init = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
    };
    const { code, stdout, stderr } = await runCli(
      { FIXLOOP_API_URL: apiUrl, FIXLOOP_RUN_TOKEN: A.token, LOG_LEVEL: 'info' },
      init,
    );
    assert.equal(code, 0);
    const lines = stdout.trim().split('\n');
    assert.equal(lines.length, 1);
    const reply = JSON.parse(lines[0]!) as { id: number; result: { serverInfo: { name: string } } };
    assert.equal(reply.id, 1);
    assert.equal(reply.result.serverInfo.name, 'fixloop');
    // The logs went to stderr, and the token is never in them.
    assert.match(stderr, /fixloop mcp serving one run over stdio/);
    assert.ok(!stderr.includes(A.token));
  });
});
