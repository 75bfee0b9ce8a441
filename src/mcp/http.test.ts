// M3 over streamable HTTP: the SDK's own client against `/mcp` on a loopback port, each run's
// token resolving to its own fake run (I2 first-write outcome, K6 spend, J1 checks).
import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, request, type Server } from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createFakeRuns, type FakeRuns } from '../../test/support/fake-runs.js';
import { createMcpHttpHandler } from './http.js';
import { MCP_TOOL_NAMES } from './server.js';
import { listenLoopback, closeServer } from '../../test/support/loopback.js';

const A = { token: 'token-run-a', runId: 11, taskId: 1, attemptId: 101, repository: 'acme/app', number: 7 };
const B = { token: 'token-run-b', runId: 22, taskId: 2, attemptId: 202, repository: 'acme/app', number: 8 };
const MAX_BODY = 8 * 1024;

let fake: FakeRuns;
let server: Server;
let base: string;
const clients: Client[] = [];
const unexpected: unknown[] = [];

before(async () => {
  const handler = createMcpHttpHandler((token) => fake.resolve(token), {
    maxBodyBytes: MAX_BODY,
    onError: (err) => unexpected.push(err),
  });
  server = createServer((req, res) => {
    if ((req.url ?? '').split('?')[0] === '/mcp') void handler(req, res);
    else res.writeHead(404).end();
  });
  base = await listenLoopback(server);
});

after(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await closeServer(server);
});

beforeEach(() => {
  fake = createFakeRuns([A, B]);
  unexpected.length = 0;
});

async function connect(token: string): Promise<Client> {
  const client = new Client({ name: 'fixloop-test', version: '0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
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

function rawPost(headers: Record<string, string>, body: string): Promise<Response> {
  return fetch(`${base}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body,
  });
}

const initialize = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
});

describe('MCP over HTTP (M3)', () => {
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
      assert.equal(
        (tool.inputSchema as { additionalProperties?: unknown }).additionalProperties,
        false,
        `${tool.name} refuses unknown arguments`,
      );
      assert.ok(tool.description && tool.description.length > 40, `${tool.name} is described`);
    }
    assert.match(tools.find((t) => t.name === 'report_fix_outcome')!.description!, /first write wins/i);
  });

  test("pull_request_checks reads the run's own pull request with the caller's filter (J1)", async () => {
    const client = await connect(A.token);
    const all = await callTool(client, 'pull_request_checks');
    assert.equal(all.isError, undefined);
    const body = JSON.parse(text(all)) as { number: number; entries: unknown[] };
    assert.equal(body.number, A.number);
    assert.equal(body.entries.length, 2);
    assert.deepEqual(all.structuredContent, body);

    const failing = await callTool(client, 'pull_request_checks', { failing: true, log_lines: 2 });
    assert.deepEqual(
      (failing.structuredContent as { entries: Array<{ name: string }> }).entries.map((e) => e.name),
      ['test (run 11)'],
    );
    assert.deepEqual(fake.runs.get(A.token)!.calls, [
      { op: 'checks', input: { failingOnly: false, logLines: 200 } },
      { op: 'checks', input: { failingOnly: true, logLines: 2 } },
    ]);
  });

  test('pull_request_checks refuses log_lines outside 0–2000 without calling the run', async () => {
    const client = await connect(A.token);
    const result = await callTool(client, 'pull_request_checks', { log_lines: 2001 });
    assert.equal(result.isError, true);
    assert.match(text(result), /log_lines/);
    assert.deepEqual(fake.runs.get(A.token)!.calls, []);
  });

  test('report_fix_outcome is first-write: a second outcome for the attempt is refused (I2)', async () => {
    const client = await connect(A.token);
    const first = await callTool(client, 'report_fix_outcome', {
      outcome: 'blocked',
      reason: 'needs a secret rotated',
    });
    assert.equal(first.isError, undefined);
    assert.deepEqual(first.structuredContent, { attemptId: A.attemptId, state: 'acknowledged' });

    const second = await callTool(client, 'report_fix_outcome', { outcome: 'action_taken' });
    assert.equal(second.isError, true);
    assert.match(text(second), /^outcome_already_reported: attempt 101 already has the outcome blocked/);
    assert.deepEqual(fake.runs.get(A.token)!.outcome, { outcome: 'blocked', reason: 'needs a secret rotated' });
  });

  test('report_fix_outcome refuses an unknown outcome and a reason over 500 characters', async () => {
    const client = await connect(A.token);
    assert.equal((await callTool(client, 'report_fix_outcome', { outcome: 'fixed' })).isError, true);
    assert.equal(
      (await callTool(client, 'report_fix_outcome', { outcome: 'blocked', reason: 'x'.repeat(501) })).isError,
      true,
    );
    assert.equal(fake.runs.get(A.token)!.outcome, null);
  });

  test("report_spend adds to the run's spend and returns the total (K6)", async () => {
    const client = await connect(A.token);
    const one = await callTool(client, 'report_spend', { model_cost: 1.25, note: 'first pass' });
    assert.deepEqual(one.structuredContent, { totalSpend: 1.25 });
    const two = await callTool(client, 'report_spend', { sandbox_cost: 0.5 });
    assert.deepEqual(two.structuredContent, { totalSpend: 1.75 });
    assert.deepEqual(
      fake.runs.get(A.token)!.calls.map((c) => c.input),
      [{ model: 1.25, note: 'first pass' }, { sandbox: 0.5 }],
    );
  });

  test('report_spend refuses a negative cost and a call with no cost', async () => {
    const client = await connect(A.token);
    assert.equal((await callTool(client, 'report_spend', { model_cost: -1 })).isError, true);
    const none = await callTool(client, 'report_spend', { note: 'nothing' });
    assert.equal(none.isError, true);
    assert.match(text(none), /^invalid: /);
    assert.deepEqual(fake.runs.get(A.token)!.calls, []);
  });

  test('the tools say what they take and give: report_spend needs a cost, loop_state declares its output', async () => {
    const client = await connect(A.token);
    const { tools } = await client.listTools();
    const spend = tools.find((t) => t.name === 'report_spend')!;
    assert.match(spend.description ?? '', /At least one of model_cost and sandbox_cost is required/);
    const state = tools.find((t) => t.name === 'loop_state')!;
    assert.equal(state.outputSchema?.type, 'object');
    for (const key of ['id', 'attempts', 'run', 'spend', 'budget', 'notice'])
      assert.ok(state.outputSchema?.properties?.[key], `loop_state's output schema has ${key}`);
  });

  test("loop_state reads the run's own Task", async () => {
    const client = await connect(B.token);
    const result = await callTool(client, 'loop_state');
    assert.equal((result.structuredContent as { id: number }).id, B.taskId);
  });

  test("one run's token never reaches another run (I2)", async () => {
    const a = await connect(A.token);
    const b = await connect(B.token);
    await callTool(a, 'report_fix_outcome', { outcome: 'action_taken' });
    await callTool(a, 'report_spend', { model_cost: 3 });

    // Naming the other run, its task or its pull request is refused, not ignored.
    for (const args of [{ run_id: B.runId }, { task: B.taskId }, { pull_request: B.number }]) {
      const refused = await callTool(a, 'loop_state', args);
      assert.equal(refused.isError, true);
      assert.match(text(refused), /Unrecognized key/);
    }

    const stateB = (await callTool(b, 'loop_state')).structuredContent as {
      id: number;
      attempts: Array<{ id: number; outcome: unknown }>;
      spend: { totalSpend: number };
    };
    assert.equal(stateB.id, B.taskId);
    assert.deepEqual(
      stateB.attempts.map((x) => [x.id, x.outcome]),
      [[B.attemptId, null]],
    );
    assert.equal(stateB.spend.totalSpend, 0);
    // B's own first outcome is still its to report.
    assert.deepEqual((await callTool(b, 'report_fix_outcome', { outcome: 'non_actionable' })).structuredContent, {
      attemptId: B.attemptId,
      state: 'acknowledged',
    });
    assert.deepEqual(
      fake.runs.get(A.token)!.calls.map((c) => c.op),
      ['reportOutcome', 'reportSpend'],
    );
    assert.deepEqual(
      fake.runs.get(B.token)!.calls.map((c) => c.op),
      ['loopState', 'reportOutcome'],
    );
  });

  test('every tool is refused once its run has ended, naming run_ended (I4)', async () => {
    const client = await connect(A.token);
    fake.end(A.token);
    const calls: Array<[string, Record<string, unknown>]> = [
      ['pull_request_checks', {}],
      ['report_fix_outcome', { outcome: 'action_taken' }],
      ['report_spend', { model_cost: 1 }],
      ['loop_state', {}],
    ];
    for (const [name, args] of calls) {
      const result = await callTool(client, name, args);
      assert.equal(result.isError, true, name);
      assert.equal(text(result), 'run_ended: run 11 already ended; this token no longer reports');
    }
    assert.equal(fake.runs.get(A.token)!.outcome, null);
    const other = await connect(B.token);
    assert.equal((await callTool(other, 'loop_state')).isError, undefined);
  });

  test('an unexpected failure is "unavailable" with no stack trace or internal text', async () => {
    const client = await connect(A.token);
    fake.breakWith(A.token, new Error('database password=hunter2 exploded'));
    const result = await callTool(client, 'loop_state');
    assert.equal(result.isError, true);
    assert.equal(text(result), 'unavailable: fixloop could not complete loop_state just now; try again later');
    assert.equal(unexpected.length, 1);
  });

  test('a missing token is 401 JSON before any MCP handling', async () => {
    const res = await rawPost({}, initialize);
    assert.equal(res.status, 401);
    // RFC 6750 §3: the error in the challenge, so a client shows fixloop's reason, not "OAuth required".
    assert.match(
      res.headers.get('www-authenticate') ?? '',
      /^Bearer realm="fixloop-mcp", error="invalid_request", error_description="send this run's FIXLOOP_RUN_TOKEN[^"]*"$/,
    );
    const body = (await res.json()) as { error: string; message: string };
    assert.equal(body.error, 'unauthorized');
    assert.match(body.message, /FIXLOOP_RUN_TOKEN/);
    const basic = await rawPost({ authorization: 'Basic dXNlcjpwYXNz' }, initialize);
    assert.equal(basic.status, 401);
  });

  test('an unknown token is 401 JSON, and the SDK client cannot connect with it', async () => {
    const res = await rawPost({ authorization: 'Bearer not-a-run' }, initialize);
    assert.equal(res.status, 401);
    assert.match(
      res.headers.get('www-authenticate') ?? '',
      /error="invalid_token", error_description="unknown run token"/,
    );
    assert.deepEqual(await res.json(), { error: 'unauthorized', message: 'unknown run token' });
    const client = new Client({ name: 'fixloop-test', version: '0' });
    await assert.rejects(
      client.connect(
        new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
          requestInit: { headers: { authorization: 'Bearer not-a-run' } },
        }),
      ),
    );
  });

  test('a body over the cap is 413 and reaches no run', async () => {
    const big = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'report_spend', arguments: { model_cost: 1, note: 'x'.repeat(MAX_BODY) } },
    });
    const res = await rawPost({ authorization: `Bearer ${A.token}` }, big);
    assert.equal(res.status, 413);
    assert.deepEqual(fake.runs.get(A.token)!.calls, []);
  });

  test('GET is 405: the endpoint is stateless and offers no event stream', async () => {
    const res = await fetch(`${base}/mcp`, {
      headers: { authorization: `Bearer ${A.token}`, accept: 'text/event-stream' },
    });
    assert.equal(res.status, 405);
    assert.equal(res.headers.get('allow'), 'POST');
  });
});

describe('/mcp refuses a foreign Host or Origin: DNS rebinding (M3, issue 31)', () => {
  let guarded: Server;
  let port = 0;
  before(async () => {
    const handler = createMcpHttpHandler((token) => fake.resolve(token), {
      onError: (err) => unexpected.push(err),
      addresses: {
        urls: ['http://fixloop-agents.internal:3000', 'https://fixloop.example.com'],
        listenHost: '0.0.0.0',
      },
      proxyTrust: (peer) => (peer === '127.0.0.1' ? 1 : 0),
    });
    guarded = createServer((req, res) => void handler(req, res));
    port = Number(new URL(await listenLoopback(guarded)).port);
  });
  after(() => closeServer(guarded));

  /** A raw request, so Host can be anything a rebound DNS name would make it. */
  function call(headers: Record<string, string>): Promise<{ status: number; body: any }> {
    return new Promise((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port,
          path: '/mcp',
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
        },
        (res) => {
          let text = '';
          res.on('data', (d) => (text += d));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
        },
      );
      req.on('error', reject);
      req.end(initialize);
    });
  }
  const auth = { authorization: `Bearer ${A.token}` };

  test('a rebound name in Host is 403 before the token is looked at, even with a good token', async () => {
    for (const host of ['evil.example', `evil.example:${port}`, '0.0.0.0', '10.1.2.3:3000']) {
      const r = await call({ ...auth, host });
      assert.equal(r.status, 403, host);
      assert.match(r.body.error.message, /Host/);
    }
    assert.equal(fake.runs.get(A.token)!.calls.length, 0);
  });

  test('an Origin of another site is 403; no Origin, or one of fixloop, goes on', async () => {
    const host = `127.0.0.1:${port}`;
    for (const origin of ['https://evil.example', 'null', `http://evil.example:${port}`]) {
      const r = await call({ ...auth, host, origin });
      assert.equal(r.status, 403, origin);
      assert.match(r.body.error.message, /Origin/);
    }
    assert.equal((await call({ ...auth, host })).status, 200);
    assert.equal((await call({ ...auth, host, origin: 'https://fixloop.example.com' })).status, 200);
    assert.equal((await call({ ...auth, host, origin: `http://localhost:${port}` })).status, 200);
  });

  test("the agents' and people's addresses and loopback are fixloop's, whatever the port", async () => {
    for (const host of [
      'fixloop-agents.internal:3000',
      'fixloop.example.com',
      'localhost:9',
      '[::1]:3000',
      '127.0.0.1',
    ])
      assert.equal((await call({ ...auth, host })).status, 200, host);
    assert.equal((await call({ host: 'fixloop.example.com' })).status, 401, 'then the token is asked for');
  });

  test('behind a trusted proxy the forwarded host is the one checked', async () => {
    assert.equal(
      (await call({ ...auth, host: 'fixloop:3000', 'x-forwarded-host': 'fixloop.example.com' })).status,
      200,
    );
    assert.equal((await call({ ...auth, host: '127.0.0.1', 'x-forwarded-host': 'evil.example' })).status, 403);
  });
});
