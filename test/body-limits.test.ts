// SPEC A1 (issue 31): every body the server reads is bounded by its route class before any route —
// sign-in, the session, the API token — does work: a declared length past the limit is 413 before a
// byte is read, a chunked body is counted as it arrives (the API's only once the token is checked),
// the 413 closes the connection, and a form or JSON body that does not parse is a 400, never a 500.
// Three 300 MB sign-in bodies at once leave a real server process's memory flat while /healthz keeps
// answering.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RESUME_MESSAGE_MAX } from '../src/app/person-actions.js';
import { BODY_LIMITS } from '../src/http/body-limit.js';
import { csrfOfCookie } from './support/dashboard-session.js';
import { createTestDatabase } from './support/databases.js';
import { startHarness, API_TOKEN, type Harness } from './support/harness.js';
import { commandAgentEnv, startServerProcess } from './support/server-process.js';

const MiB = 1024 * 1024;
const FORM = 'application/x-www-form-urlencoded';

type Answer = { status: number; connection: string | undefined; text: string; sent: number } | { error: string };

/**
 * POST `size` bytes of `fill` to `path`, declared (Content-Length) or chunked, a MiB at a time and
 * honouring backpressure; it stops sending once an answer arrives. Resolves to the answer, or to the
 * error if the connection failed before one came.
 */
function send(
  port: number,
  path: string,
  o: {
    size: number;
    chunked?: boolean;
    type?: string;
    headers?: Record<string, string>;
    prefix?: string;
    /** Ask first (`Expect: 100-continue`) and send only once told to go on. */
    expect?: boolean;
  },
): Promise<Answer> {
  return new Promise((resolve) => {
    let sent = 0;
    let answered = false;
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path,
        method: 'POST',
        headers: {
          'content-type': o.type ?? FORM,
          ...(o.chunked ? {} : { 'content-length': String(o.size) }),
          ...(o.expect ? { expect: '100-continue' } : {}),
          ...o.headers,
        },
      },
      (res) => {
        answered = true;
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c) => (text += c));
        const done = () => resolve({ status: res.statusCode ?? 0, connection: res.headers.connection, text, sent });
        res.on('end', done);
        res.on('error', done);
      },
    );
    req.on('error', (e: NodeJS.ErrnoException) => {
      if (!answered) resolve({ error: e.code ?? e.message });
    });
    const chunk = Buffer.alloc(Math.min(MiB, o.size), 0x61);
    const first = o.prefix ? Buffer.from(o.prefix) : null;
    const pump = (): void => {
      while (sent < o.size && !answered && !req.destroyed) {
        const piece = sent === 0 && first ? first : chunk.subarray(0, Math.min(chunk.length, o.size - sent));
        sent += piece.length;
        if (!req.write(piece)) return void req.once('drain', pump);
      }
      if (sent >= o.size && !req.destroyed) req.end();
    };
    if (o.expect) req.once('continue', pump);
    else pump();
  });
}

const statusOf = (a: Answer) => ('status' in a ? a.status : a.error);

describe('A1: a body limit per route class, before any authentication (issue 31)', () => {
  let h: Harness;
  let port: number;
  let cookie: string;
  let csrf: string;
  let taskId: number;

  before(async () => {
    h = await startHarness('sqlite');
    port = Number(new URL(h.url).port);
    const signIn = await fetch(`${h.url}/sign-in`, {
      method: 'POST',
      headers: { 'content-type': FORM },
      body: new URLSearchParams({ token: API_TOKEN }).toString(),
      redirect: 'manual',
    });
    assert.equal(signIn.status, 303);
    cookie = (signIn.headers.get('set-cookie') ?? '').split(';')[0]!;
    csrf = csrfOfCookie(API_TOKEN, cookie); // sessions are ledger rows now (issue 31, decision 0046)
    taskId = (await h.api('POST', '/api/tasks', { repository: 'acme/shop', pullRequest: 5, branch: 'b' })).body.id;
  });
  after(() => h.close());

  test('A1: sign-in takes a few KB: past its limit, declared or chunked, it is 413 with Connection: close', async () => {
    for (const chunked of [false, true]) {
      const answer = await send(port, '/sign-in', { size: BODY_LIMITS.signIn + 1, chunked, prefix: 'token=x&pad=' });
      assert.ok('status' in answer, `${chunked ? 'chunked' : 'declared'}: ${statusOf(answer)}`);
      assert.equal(answer.status, 413);
      assert.equal(answer.connection, 'close');
      assert.match(answer.text, /larger than this address takes \(at most 4096 bytes\)/);
    }
    // Within the limit the token is looked at as before.
    const fits = await send(port, '/sign-in', { size: BODY_LIMITS.signIn, prefix: 'token=wrong&pad=' });
    assert.equal(statusOf(fits), 401);
  });

  test('A1: a dashboard form takes about a hundred KB — a 10,000-character resume message fits, more than 128 KiB is 413 before the session is read', async () => {
    const message = '✗'.repeat(RESUME_MESSAGE_MAX); // three bytes each, nine when percent-encoded
    const resume = await fetch(`${h.url}/tasks/${taskId}/resume`, {
      method: 'POST',
      headers: { 'content-type': FORM, cookie },
      body: new URLSearchParams({ _csrf: csrf, message }).toString(),
      redirect: 'manual',
    });
    assert.notEqual(resume.status, 413);
    assert.notEqual(resume.status, 400);
    // Without a session, a body past the limit is refused for its size, not for the missing session.
    for (const chunked of [false, true]) {
      const answer = await send(port, `/tasks/${taskId}/resume`, { size: BODY_LIMITS.form + 1, chunked });
      assert.equal(statusOf(answer), 413, chunked ? 'chunked' : 'declared');
    }
    assert.equal(statusOf(await send(port, `/tasks/${taskId}/resume`, { size: 1024 })), 401);
  });

  test('A1: a client that asks first (Expect: 100-continue) is told 413 before it sends a byte; within the limit it is told to go on', async () => {
    const refused = await send(port, '/sign-in', { size: 300 * MiB, expect: true });
    assert.ok('status' in refused, String(statusOf(refused)));
    assert.equal(refused.status, 413);
    assert.equal(refused.sent, 0);
    assert.equal(refused.connection, 'close');
    const api = await send(port, '/api/tasks', { size: 2 * MiB, expect: true, type: 'application/json' });
    assert.deepEqual([statusOf(api), 'sent' in api && api.sent], [413, 0]);
    const fits = await send(port, '/sign-in', { size: 100, expect: true, prefix: 'token=wrong&pad=' });
    assert.equal(statusOf(fits), 401);
  });

  test('A1: the JSON API takes about 1 MB: a declared length past it is 413 before the token is checked; a chunked body is never read before the token, and is 413 past the limit', async () => {
    const json = 'application/json';
    assert.equal(statusOf(await send(port, '/api/tasks', { size: BODY_LIMITS.api + 1, type: json })), 413);
    const anonymous = await send(port, '/api/tasks', { size: 300 * MiB, chunked: true, type: json });
    assert.ok('status' in anonymous, String(statusOf(anonymous)));
    assert.equal(anonymous.status, 401);
    assert.equal(anonymous.connection, 'close', 'the unread rest is not drained');
    const bearer = { authorization: `Bearer ${API_TOKEN}` };
    const over = await send(port, '/api/tasks', {
      size: BODY_LIMITS.api + 1,
      chunked: true,
      type: json,
      headers: bearer,
    });
    assert.equal(statusOf(over), 413);
    const big = JSON.stringify({ repository: 'acme/shop', pullRequest: 6, branch: 'b'.repeat(BODY_LIMITS.api - 200) });
    const within = await fetch(`${h.url}/api/tasks`, {
      method: 'POST',
      headers: { ...bearer, 'content-type': json },
      body: big,
    });
    assert.notEqual(within.status, 413);
    assert.equal(
      (await fetch(`${h.url}/healthz`)).headers.get('connection'),
      'keep-alive',
      'an ordinary request keeps its connection',
    );
  });

  test('A1: a form that does not parse is a 400 with a plain message, a JSON body a 400 of the API; never a 500', async () => {
    const multipart = await fetch(`${h.url}/sign-in`, {
      method: 'POST',
      headers: { 'content-type': 'multipart/form-data; boundary=zzz' },
      body: 'not a multipart body',
    });
    assert.equal(multipart.status, 400);
    assert.equal(await multipart.text(), 'The form could not be read; send it again from the page.');
    const noBoundary = await fetch(`${h.url}/stop`, {
      method: 'POST',
      headers: { 'content-type': 'multipart/form-data', cookie },
      body: `_csrf=${csrf}&stopped=1`,
    });
    assert.equal(noBoundary.status, 400);
    assert.equal((await h.api('GET', '/api/stop')).body.stopped, false, 'nothing was done');
    const json = await fetch(`${h.url}/api/tasks`, {
      method: 'POST',
      headers: { authorization: `Bearer ${API_TOKEN}`, 'content-type': 'application/json' },
      body: '{"repository": "acme/shop", ',
    });
    assert.equal(json.status, 400);
    assert.equal(((await json.json()) as { error: string }).error, 'invalid_body');
  });
});

/** The resident set of process `pid` in bytes, now (VmRSS) or at its peak so far (VmHWM). */
function memory(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const m = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(m![1]) * 1024;
}

const AGENT = fileURLToPath(new URL('./support/agent-counter.mjs', import.meta.url));

test(
  'A1: three concurrent 300 MB sign-in bodies, declared and then chunked — each is refused (413, or its connection closed under it), the server stays within 50 MB of idle, /healthz answers meanwhile',
  { timeout: 120_000, skip: process.platform !== 'linux' && 'reads /proc' },
  async (t) => {
    // Sign-in never reaches the ledger, so one database is enough here.
    const dir = mkdtempSync(join(tmpdir(), 'fixloop-bodies-'));
    const db = await createTestDatabase('sqlite');
    const env = commandAgentEnv({
      dir,
      databaseUrl: db.url,
      agentFile: AGENT,
      envAllow: [],
      // The memory settings `npm start` runs with, as far as NODE_OPTIONS carries them (decision 0010).
      extra: { LOG_LEVEL: 'error', MALLOC_ARENA_MAX: '2', NODE_OPTIONS: '--max-semi-space-size=4' },
    });
    const server = await startServerProcess(env, 'free');
    try {
      const pid = server.child.pid!;
      const port = Number(new URL(server.url).port);
      // Warm up the paths the flood takes, then read the idle footprint.
      await send(port, '/sign-in', { size: 64 * 1024 });
      await send(port, '/sign-in', { size: 64 * 1024, chunked: true });
      await fetch(`${server.url}/healthz`);
      // Time for the warm-up's garbage to go before the idle footprint is read (a memory reading; the
      // high-water mark below bounds the flood whatever this reads).
      await new Promise((r) => setTimeout(r, 500));
      const idle = memory(pid, 'VmRSS');
      // The high-water mark so far (start-up may have set it): the flood must not raise it past idle + 50 MB.
      const highWaterBefore = memory(pid, 'VmHWM');
      let peak = idle;
      const sampler = setInterval(() => (peak = Math.max(peak, memory(pid, 'VmRSS'))), 10);
      let flooding = true;
      const health: number[] = [];
      const healthFailures: string[] = [];
      const probe = (async () => {
        while (flooding) {
          const from = Date.now();
          try {
            const res = await fetch(`${server.url}/healthz`);
            await res.arrayBuffer();
            if (res.status === 200) health.push(Date.now() - from);
            else healthFailures.push(String(res.status));
          } catch (e) {
            healthFailures.push(String((e as { cause?: { code?: string } }).cause?.code ?? e));
          }
          await new Promise((r) => setTimeout(r, 20)); // pacing of the health probe
        }
      })();

      for (const chunked of [false, true]) {
        const answers = await Promise.all(
          Array.from({ length: 3 }, () => send(port, '/sign-in', { size: 300 * MiB, chunked, prefix: 'token=' })),
        );
        // A 413, or the connection closed under a client still sending (it may be reset before it reads the 413).
        const seen = answers.map(statusOf);
        assert.ok(
          seen.every((s) => s === 413 || s === 'EPIPE' || s === 'ECONNRESET'),
          `${chunked ? 'chunked' : 'declared'}: ${seen}`,
        );
        for (const a of answers) if ('status' in a) assert.ok(a.sent < 300 * MiB, `sent ${a.sent} bytes in all`);
      }
      flooding = false;
      await probe;
      clearInterval(sampler);
      // Time for the flood's buffers to be given back: too short a wait reads more, and fails, never passes.
      await new Promise((r) => setTimeout(r, 200));
      const settled = memory(pid, 'VmRSS');
      const highWater = memory(pid, 'VmHWM');

      const mb = (n: number) => `${(n / MiB).toFixed(0)} MiB`;
      const seen = `idle ${mb(idle)}, peak ${mb(peak)}, high-water ${mb(highWaterBefore)} → ${mb(highWater)}, after ${mb(settled)}`;
      t.diagnostic(`${seen}; /healthz at most ${Math.max(...health)} ms`);
      assert.ok(peak - idle <= 50 * MiB, seen);
      assert.ok(highWater <= Math.max(highWaterBefore, idle + 50 * MiB), seen);
      assert.ok(settled - idle <= 50 * MiB, seen);
      assert.deepEqual(healthFailures, [], '/healthz answered 200 every time');
      assert.ok(health.length > 0, '/healthz was asked during the flood');
      assert.ok(Math.max(...health) < 1_000, `/healthz took up to ${Math.max(...health)} ms`);
    } finally {
      await server.stop();
      await db.drop();
      rmSync(dir, { recursive: true, force: true });
    }
  },
);
