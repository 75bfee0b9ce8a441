// The `session` runner (SPEC R2, L1, I5; issue 35 item 4) against a fake Devin and a fake Cursor, real
// loopback HTTP servers answering in the vendors' documented shapes: the frame goes to the existing
// session as a message, the session is followed to its end, and that end is the run's — completed,
// failed, waiting for a person, or not finished within the run's timeout (measured by a fake clock).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { RunExit, RunnerCallbacks, RunSpec } from '../src/app/ports.js';
import { createSessionRunner } from '../src/runners/session.js';
import { cursorVendor, devinVendor } from '../src/runners/session-vendors.js';
import { RunnerError } from '../src/runners/errors.js';
import { startFakeDevin } from './support/fake-vendors/devin.js';
import { cursorSignature, cursorWebhookBody, startFakeCursor } from './support/fake-vendors/cursor.js';
import { closeServer, listenLoopback } from './support/loopback.js';
import { CUSTOM_VENDOR, startFakeCustomVendor } from './support/fake-vendors/custom.js';
import { sessionVendorOf } from '../src/wiring.js';
import { customSessionVendorSchema } from '../src/config/runner-schema.js';
import { until } from './support/server-process.js';

const KEY = 'apk_user_test-key';
const HOOK_SECRET = 'cursor-hook-secret';

const spec = (o: Partial<RunSpec> = {}): RunSpec => ({
  taskId: 7,
  runId: 11,
  attemptId: 3,
  repository: 'acme/shop',
  pullRequest: 41,
  branch: 'agent/fix-41',
  headSha: 'a'.repeat(40),
  resumeRef: 'devin-1',
  prompt: 'The check `test` failed: FAIL src/cart.test.ts "quoted" {{sessionId}}',
  runToken: 'run-token',
  apiUrl: 'https://fixloop.example',
  ...o,
});

function recorder(): RunnerCallbacks & { exits: RunExit[]; output: string[] } {
  const exits: RunExit[] = [];
  const output: string[] = [];
  return {
    exits,
    output,
    onExit: (_runId, r) => void exits.push(r),
    onOutput: (_runId, chunk) => void output.push(chunk),
  };
}

/** A clock a test moves; the runner reads its timeout by it. */
const clockAt = (t = Date.parse('2026-11-30T08:00:00Z')) => ({ now: () => t, advance: (ms: number) => (t += ms) });

describe('the session runner with Devin (R2)', () => {
  test('the frame goes to the session as a message; a session driven to finished ends the run completed', async () => {
    const devin = await startFakeDevin(KEY);
    const session = devin.addSession('devin-1', 'blocked', 'working');
    const runner = createSessionRunner({ vendor: devinVendor(devin.url), apiKey: KEY, pollIntervalMs: 10 });
    try {
      const cb = recorder();
      const mark = await runner.start(spec(), cb);
      assert.deepEqual(session.messages, [spec().prompt], 'the frame, byte for byte (no placeholder filled inside it)');
      // The following lives in this process: a later fixloop finds it gone and ends the run interrupted (I4, V4).
      assert.equal(mark?.pid, process.pid);
      assert.equal(mark?.owner.pid, process.pid);
      await until('a poll that reads working', async () => devin.requests.some((r) => r.method === 'GET'), 5000, 5);
      assert.equal(cb.exits.length, 0, 'working keeps the run running');
      session.status_enum = 'finished';
      const [end] = await until('the run to end', async () => (cb.exits.length ? cb.exits : null), 5000, 5);
      assert.deepEqual(end, { state: 'completed', exitCode: null });
      assert.deepEqual(devin.violations, []);
    } finally {
      await runner.stopAll();
      await devin.close();
    }
  });

  test('a session waiting for its user (blocked) ends the run failed, saying a person is needed', async () => {
    const devin = await startFakeDevin(KEY);
    const session = devin.addSession('devin-1', 'finished', 'working');
    const runner = createSessionRunner({ vendor: devinVendor(devin.url), apiKey: KEY, pollIntervalMs: 10 });
    try {
      const cb = recorder();
      await runner.start(spec(), cb);
      await until('a poll', async () => devin.requests.some((r) => r.method === 'GET'), 5000, 5);
      session.status_enum = 'blocked';
      const [end] = await until('the run to end', async () => (cb.exits.length ? cb.exits : null), 5000, 5);
      assert.equal(end!.state, 'failed');
      assert.equal(end!.needsPerson, true);
      assert.match(end!.detail ?? '', /the devin session devin-1 is waiting for a person \(blocked\)/);
    } finally {
      await runner.stopAll();
      await devin.close();
    }
  });

  test('a terminal state left from before the message is not taken for the answer at once', async () => {
    const devin = await startFakeDevin(KEY);
    devin.addSession('devin-1', 'finished', null); // the message is never picked up
    const runner = createSessionRunner({ vendor: devinVendor(devin.url), apiKey: KEY, pollIntervalMs: 10 });
    try {
      const cb = recorder();
      await runner.start(spec(), cb);
      await until('the run to end', async () => (cb.exits.length ? cb.exits : null), 5000, 5);
      const polls = devin.requests.filter((r) => r.method === 'GET').length;
      assert.ok(polls >= 3, `finished was read ${polls} times before it counted`);
      assert.equal(cb.exits[0]!.state, 'completed');
    } finally {
      await runner.stopAll();
      await devin.close();
    }
  });

  test('a session that never finishes ends the run failed at the timeout, with the words why', async () => {
    const devin = await startFakeDevin(KEY);
    devin.addSession('devin-1', 'blocked', 'working');
    const clock = clockAt();
    const runner = createSessionRunner({
      vendor: devinVendor(devin.url),
      apiKey: KEY,
      pollIntervalMs: 10,
      timeoutMs: 60 * 60_000,
      now: clock.now,
    });
    try {
      const cb = recorder();
      await runner.start(spec(), cb);
      await until('two polls', async () => devin.requests.filter((r) => r.method === 'GET').length >= 2, 5000, 5);
      assert.equal(cb.exits.length, 0);
      clock.advance(60 * 60_000);
      const [end] = await until('the run to end', async () => (cb.exits.length ? cb.exits : null), 5000, 5);
      assert.equal(end!.state, 'failed');
      assert.notEqual(end!.needsPerson, true);
      assert.match(end!.detail ?? '', /devin-1 had not finished after 60 minutes \(last state "working"\)/);
    } finally {
      await runner.stopAll();
      await devin.close();
    }
  });

  test('a Task without a resume reference, or a session the vendor does not know, is refused at start', async () => {
    const devin = await startFakeDevin(KEY);
    const runner = createSessionRunner({ vendor: devinVendor(devin.url), apiKey: KEY, pollIntervalMs: 10 });
    try {
      await assert.rejects(
        runner.start(spec({ resumeRef: null }), recorder()),
        (e: unknown) => e instanceof RunnerError && e.code === 'no_session' && /resumeRef/.test(e.message),
      );
      await assert.rejects(
        runner.start(spec({ resumeRef: 'devin-unknown' }), recorder()),
        (e: unknown) => e instanceof RunnerError && e.code === 'http_status' && e.status === 404,
      );
      await assert.rejects(
        createSessionRunner({ vendor: devinVendor(devin.url), apiKey: 'wrong', pollIntervalMs: 10 }).start(
          spec({ resumeRef: 'devin-unknown' }),
          recorder(),
        ),
        (e: unknown) => e instanceof RunnerError && e.status === 401 && !e.message.includes('wrong'),
      );
    } finally {
      await runner.stopAll();
      await devin.close();
    }
  });
});

describe('the session runner with Cursor (R2)', () => {
  test('a followup is sent; FINISHED by its webhook with a good signature ends the run completed', async () => {
    const cursor = await startFakeCursor(KEY);
    const agent = cursor.addAgent('bc_abc123', 'FINISHED');
    const runner = createSessionRunner({
      vendor: cursorVendor(cursor.url),
      apiKey: KEY,
      webhookSecret: HOOK_SECRET,
      pollIntervalMs: 3_600_000, // only the webhook can end it here
    });
    try {
      const cb = recorder();
      await runner.start(spec({ resumeRef: 'bc_abc123' }), cb);
      assert.deepEqual(agent.followups, [spec().prompt]);
      const body = cursorWebhookBody('bc_abc123', 'FINISHED');
      const a = await runner.receiveWebhook!(Buffer.from(body), {
        'x-webhook-signature': cursorSignature(HOOK_SECRET, body),
      });
      assert.equal(a.status, 200);
      assert.deepEqual(cb.exits, [{ state: 'completed', exitCode: null }]);
      assert.deepEqual(cursor.violations, []);
    } finally {
      await runner.stopAll();
      await cursor.close();
    }
  });

  test('a webhook with a bad signature is refused 401 and changes nothing', async () => {
    const cursor = await startFakeCursor(KEY);
    cursor.addAgent('bc_abc123', 'FINISHED');
    const runner = createSessionRunner({
      vendor: cursorVendor(cursor.url),
      apiKey: KEY,
      webhookSecret: HOOK_SECRET,
      pollIntervalMs: 3_600_000,
    });
    try {
      const cb = recorder();
      await runner.start(spec({ resumeRef: 'bc_abc123' }), cb);
      const body = cursorWebhookBody('bc_abc123', 'FINISHED');
      for (const signature of [
        cursorSignature('another-secret', body),
        cursorSignature(HOOK_SECRET, `${body} `), // signed over other bytes
        'sha256=',
        undefined,
      ]) {
        const a = await runner.receiveWebhook!(Buffer.from(body), { 'x-webhook-signature': signature });
        assert.equal(a.status, 401, String(signature));
      }
      assert.deepEqual(cb.exits, [], 'the run is still followed');
      // The good one still ends it: nothing was spent by the bad ones.
      const ok = await runner.receiveWebhook!(Buffer.from(body), {
        'x-webhook-signature': cursorSignature(HOOK_SECRET, body),
      });
      assert.equal(ok.status, 200);
      assert.equal(cb.exits.length, 1);
    } finally {
      await runner.stopAll();
      await cursor.close();
    }
  });

  test('ERROR read by the poll ends the run failed; a webhook without a configured secret is 404', async () => {
    const cursor = await startFakeCursor(KEY);
    const agent = cursor.addAgent('bc_err', 'FINISHED');
    const runner = createSessionRunner({ vendor: cursorVendor(cursor.url), apiKey: KEY, pollIntervalMs: 10 });
    try {
      const cb = recorder();
      await runner.start(spec({ resumeRef: 'bc_err' }), cb);
      assert.equal((await runner.receiveWebhook!(Buffer.from('{}'), {})).status, 404);
      await until('a poll reads RUNNING', async () => cursor.requests.some((r) => r.method === 'GET'), 5000, 5);
      agent.status = 'ERROR';
      const [end] = await until('the run to end', async () => (cb.exits.length ? cb.exits : null), 5000, 5);
      assert.equal(end!.state, 'failed');
      assert.match(end!.detail ?? '', /the cursor session bc_err ended ERROR/);
    } finally {
      await runner.stopAll();
      await cursor.close();
    }
  });
});

describe('the session runner with a vendor described in the config (R2, K6)', () => {
  test('the body template carries the frame, the state is read at its pointer, and the spend too', async () => {
    const vendor = await startFakeCustomVendor(KEY);
    const session = vendor.addSession('s-1', 'done');
    const runner = createSessionRunner({
      vendor: sessionVendorOf({
        kind: 'session',
        vendor: 'custom',
        baseUrl: vendor.url,
        pollIntervalMs: 10,
        timeoutMs: 60_000,
        custom: customSessionVendorSchema.parse(CUSTOM_VENDOR), // as the config file's loader checks it
        devin: null,
        apiKey: KEY,
        webhookSecret: null,
      }),
      apiKey: KEY,
      pollIntervalMs: 10,
    });
    try {
      const cb = recorder();
      await runner.start(spec({ resumeRef: 's-1' }), cb);
      assert.deepEqual(session.messages, [spec().prompt]);
      await until('a poll reading busy', async () => vendor.requests.some((r) => r.method === 'GET'), 5000, 5);
      session.credits = 12;
      session.state = 'waiting_for_user';
      const [end] = await until('the run to end', async () => (cb.exits.length ? cb.exits : null), 5000, 5);
      assert.equal(end!.state, 'failed');
      assert.equal(end!.needsPerson, true);
      assert.match(end!.detail ?? '', /the example-agents session s-1 is waiting for a person \(waiting_for_user\)/);
      assert.deepEqual(end!.spend, { dollars: 3, note: 'reported by example-agents' });
      assert.deepEqual(vendor.violations, []);
    } finally {
      await runner.stopAll();
      await vendor.close();
    }
  });
});

describe('the session runner’s outbound rules', () => {
  test('plain http off this machine is refused; a redirect is an answer, never followed', async () => {
    assert.throws(
      () => createSessionRunner({ vendor: devinVendor('http://api.devin.example'), apiKey: KEY }),
      /must be https/,
    );
    let followed = false;
    const server = createServer((req, res) => {
      if (req.url === '/elsewhere') followed = true;
      res.writeHead(307, { location: '/elsewhere' }).end();
    });
    const url = await listenLoopback(server);
    try {
      const runner = createSessionRunner({ vendor: devinVendor(url), apiKey: KEY });
      await assert.rejects(
        runner.start(spec(), recorder()),
        (e: unknown) => e instanceof RunnerError && e.code === 'http_status' && e.status === 307,
      );
      assert.equal(followed, false);
    } finally {
      await closeServer(server);
    }
  });

  test('an answer larger than the bound is refused, and a slow one times out', async () => {
    const server = createServer((req, res) => {
      if (req.url?.startsWith('/slow')) return; // never answers
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(`{"detail":"${'x'.repeat(4096)}"}`);
    });
    const url = await listenLoopback(server);
    try {
      const big = createSessionRunner({ vendor: devinVendor(url), apiKey: KEY, maxResponseBytes: 1024 });
      await assert.rejects(big.start(spec(), recorder()), /more than the 1024 bytes/);
      const slow = createSessionRunner({
        vendor: { ...devinVendor(url), messagePath: '/slow/{sessionId}' },
        apiKey: KEY,
        requestTimeoutMs: 50,
      });
      await assert.rejects(
        slow.start(spec(), recorder()),
        (e: unknown) => e instanceof RunnerError && e.code === 'timeout',
      );
    } finally {
      await closeServer(server);
    }
  });
});
