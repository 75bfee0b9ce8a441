// SPEC A1, a hardened edge: slow headers and bodies are cut within their bounds, the bytes held for
// bodies not yet verified are bounded (503 with Retry-After beyond it) and a flood of forged 25 MiB
// bodies keeps the server within 100 MB of idle while a red sent meanwhile still reaches the agent,
// open connections are capped without locking GitHub out, the HMAC is over the raw bytes, and large
// text from CI is kept once, bounded wherever it is shown.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { request } from 'node:http';
import { createHmac } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../src/config/config.js';
import { MAX_CHECK_NAME_CHARS, MAX_REJECTION_BODY_CHARS } from '../src/core/bounded-text.js';
import { createTestDatabase, DATABASE_KINDS } from './support/databases.js';
import { startHarness, REPO, SECRET, type Harness } from './support/harness.js';
import { checkRunPayload, delivery, post, signedHeaders, statusPayload } from './support/deliveries.js';
import { commandAgentEnv, startServerProcess, taskWithRedPush, until } from './support/server-process.js';

const MiB = 1024 * 1024;
const WEBHOOK = '/api/github/webhooks';
const sha = (n: number) => n.toString(16).padStart(40, 'c');
const FORGED = `sha256=${'0'.repeat(64)}`;

/** A raw connection, for clients that misbehave on purpose; resolves once connected. */
function open(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const s = connect(port, '127.0.0.1', () => resolve(s));
    s.once('error', reject);
  });
}

/** What the server sent on `s` until it closed the connection, and how long after `from` it closed. */
function untilClosed(s: Socket, from: number): Promise<{ text: string; afterMs: number }> {
  let text = '';
  s.on('data', (c) => (text += c));
  s.on('error', () => {});
  return new Promise((resolve) => s.once('close', () => resolve({ text, afterMs: Date.now() - from })));
}

/** Send `bytes` one by one, every `everyMs`, until the socket closes. */
function trickle(s: Socket, bytes: string, everyMs: number): void {
  let i = 0;
  const t = setInterval(() => {
    if (s.destroyed || i >= bytes.length) return clearInterval(t);
    s.write(bytes[i++]!);
  }, everyMs);
  s.once('close', () => clearInterval(t));
}

/** A signed red check run on acme/shop#`pr` with `output`, large on request. */
function red(n: number, pr: number, output: string, name = 'test') {
  return delivery(
    'check_run',
    checkRunPayload({ repo: REPO, sha: sha(n), id: 7000 + n, name, pr: { number: pr, headSha: sha(n) }, output }),
  );
}

test('A1: the edge defaults cut a slow client within 10 s and bound what is held before the signature check', () => {
  const config = loadConfig({ env: { WEBHOOK_SECRET: SECRET } });
  assert.ok(config.edge.headersTimeoutMs <= 10_000 && config.edge.requestTimeoutMs <= 10_000);
  assert.ok(config.edge.headersTimeoutMs <= config.edge.requestTimeoutMs);
  assert.equal(config.edge.maxConnections, 512);
  assert.equal(config.webhookMaxInflightBytes, 32 * MiB);
  // Raising the body cap raises the default allowance with it; setting it below the cap is an error.
  assert.equal(
    loadConfig({ env: { WEBHOOK_SECRET: SECRET, WEBHOOK_MAX_BYTES: String(40 * MiB) } }).webhookMaxInflightBytes,
    40 * MiB,
  );
  assert.throws(
    () => loadConfig({ env: { WEBHOOK_SECRET: SECRET, WEBHOOK_MAX_INFLIGHT_BYTES: String(MiB) } }),
    /WEBHOOK_MAX_INFLIGHT_BYTES/,
  );
  assert.throws(
    () => loadConfig({ env: { WEBHOOK_SECRET: SECRET, FIXLOOP_HEADERS_TIMEOUT_MS: '20000' } }),
    /FIXLOOP_HEADERS_TIMEOUT_MS/,
  );
});

describe('A1: slow clients, the unverified-bytes bound, the connection cap', () => {
  const HEADERS_MS = 1_000;
  const REQUEST_MS = 2_000;
  const CAP = 32;
  // The bounds are checked every half second (src/http/router.ts): a cut comes within that of its bound.
  const SLACK_MS = 900;
  let h: Harness;
  let port: number;
  before(async () => {
    h = await startHarness('sqlite', {
      env: {
        FIXLOOP_HEADERS_TIMEOUT_MS: String(HEADERS_MS),
        FIXLOOP_REQUEST_TIMEOUT_MS: String(REQUEST_MS),
        FIXLOOP_MAX_CONNECTIONS: String(CAP),
        WEBHOOK_MAX_BYTES: String(MiB),
        WEBHOOK_MAX_INFLIGHT_BYTES: String(MiB),
      },
    });
    port = Number(new URL(h.url).port);
  });
  after(() => h.close());

  test('A1: headers sent a byte at a time are cut at the headers bound with 408', { timeout: 10_000 }, async () => {
    const s = await open(port);
    const from = Date.now();
    const closed = untilClosed(s, from);
    trickle(s, `POST ${WEBHOOK} HTTP/1.1\r\nHost: x\r\nX-GitHub-Event: check_run\r\nX-Slow: ${'a'.repeat(200)}`, 50);
    const { text, afterMs } = await closed;
    assert.match(text, /^HTTP\/1\.1 408/);
    assert.ok(afterMs >= HEADERS_MS - 50 && afterMs <= HEADERS_MS + SLACK_MS, `cut after ${afterMs} ms`);
  });

  test('A1: a connection that sends nothing is cut at the headers bound', { timeout: 10_000 }, async () => {
    const s = await open(port);
    const { afterMs } = await untilClosed(s, Date.now());
    assert.ok(afterMs <= HEADERS_MS + SLACK_MS, `cut after ${afterMs} ms`);
  });

  test('A1: a body sent a byte at a time is cut at the request bound with 408', { timeout: 10_000 }, async () => {
    const s = await open(port);
    const from = Date.now();
    const closed = untilClosed(s, from);
    s.write(
      `POST ${WEBHOOK} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n` +
        `X-GitHub-Event: check_run\r\nX-Hub-Signature-256: ${FORGED}\r\n\r\n`,
    );
    trickle(s, '{"a":"' + 'b'.repeat(900), 50);
    const { text, afterMs } = await closed;
    assert.match(text, /^HTTP\/1\.1 408/);
    assert.ok(afterMs >= REQUEST_MS - 50 && afterMs <= REQUEST_MS + SLACK_MS, `cut after ${afterMs} ms`);
  });

  test(
    'A1: past the unverified-bytes bound a delivery gets 503 with Retry-After, and gets in once the slow body is cut',
    { timeout: 15_000 },
    async () => {
      // A slow body declares 600 KiB of the 1 MiB allowance and then barely sends.
      const slow = await open(port);
      const cut = untilClosed(slow, Date.now());
      slow.write(
        `POST ${WEBHOOK} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${600 * 1024}\r\n` +
          `X-GitHub-Event: check_run\r\nX-Hub-Signature-256: ${FORGED}\r\n\r\n{`,
      );
      // Room for the server to reserve the slow body's share. Not an absence check: too short a wait
      // lets the big delivery in, and the 503 asserted below fails loudly.
      await new Promise((r) => setTimeout(r, 100));
      const big = red(1, 11, `FAIL ${'x'.repeat(500 * 1024)}`);
      const refused = await fetch(`${h.url}${WEBHOOK}`, {
        method: 'POST',
        headers: await signedHeaders(big, SECRET),
        body: big.body,
      });
      assert.equal(refused.status, 503);
      assert.equal(refused.headers.get('retry-after'), '10');
      assert.equal(refused.headers.get('connection'), 'close');
      assert.equal(((await refused.json()) as { error: string }).error, 'busy');
      // Sent chunked (no length to reserve up front), it is refused as soon as a chunk does not fit.
      const chunked = await new Promise<number>((resolve, reject) => {
        const req = request(
          { host: '127.0.0.1', port, path: WEBHOOK, method: 'POST', headers: { 'x-hub-signature-256': FORGED } },
          (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
            req.destroy();
          },
        );
        req.on('error', (e) => reject(new Error(`no answer before the connection failed: ${e.message}`)));
        for (let i = 0; i < 8; i++) req.write(Buffer.alloc(64 * 1024, 0x20));
      });
      assert.equal(chunked, 503);
      // A small delivery still fits beside the slow body.
      assert.equal((await post(h.url, red(2, 12, 'expected 1, got 2'), SECRET)).status, 202);
      // Once the slow body is cut, its share is given back: the big delivery gets in.
      await cut;
      assert.equal((await post(h.url, big, SECRET)).status, 202);
    },
  );

  test(
    'A1: idle connections past the cap — the cap holds, the longest-idle make room, a delivery is answered',
    { timeout: 15_000 },
    async () => {
      const count = () => new Promise<number>((r, j) => h.app.server.getConnections((e, n) => (e ? j(e) : r(n))));
      // Counted after the cap's own listener has made room for each one (connection-cap.ts).
      let accepted = 0;
      const onConnection = () => accepted++;
      h.app.server.on('connection', onConnection);
      const idle = await Promise.all(Array.from({ length: CAP * 3 }, () => open(port)));
      const closed = idle.map((s) => untilClosed(s, Date.now()));
      // The cap holds once the server has taken every one of them, not merely after a while.
      await until(`the server to take all ${CAP * 3} connections`, async () => accepted >= CAP * 3, 5_000, 10);
      h.app.server.off('connection', onConnection);
      assert.ok((await count()) <= CAP, `${await count()} connections open`);
      const answer = await post(h.url, red(3, 13, 'expected 3, got 4'), SECRET);
      assert.equal(answer.status, 202);
      assert.ok((await count()) <= CAP);
      // The idle ones that kept their place are cut at the headers bound all the same.
      const cuts = await Promise.all(closed);
      assert.ok(Math.max(...cuts.map((c) => c.afterMs)) <= HEADERS_MS + SLACK_MS + 200);
    },
  );
});

describe('A1: the signature is an HMAC of the exact bytes', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness('sqlite');
  });
  after(() => h.close());
  const events = async () =>
    Number(
      (
        await h.app.db.kysely
          .selectFrom('events')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
  const sign = (bytes: Buffer | string) => `sha256=${createHmac('sha256', SECRET).update(bytes).digest('hex')}`;
  const send = (body: Buffer, signature: string) =>
    fetch(`${h.url}${WEBHOOK}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-github-event': 'ping',
        'x-github-delivery': 'utf8-1',
        'x-hub-signature-256': signature,
      },
      body: new Uint8Array(body),
    });

  test('A1: a body signed over its bytes that is not UTF-8 verifies, then is refused as malformed (400); nothing is stored', async () => {
    const body = Buffer.concat([Buffer.from('{"zen":"'), Buffer.from([0xff, 0xfe, 0xc3]), Buffer.from('"}')]);
    const before = await events();
    const res = await send(body, sign(body));
    assert.equal(res.status, 400);
    assert.deepEqual(await res.json(), {
      status: 400,
      outcome: 'rejected',
      reason: 'malformed_json',
      detail: 'body is not valid UTF-8',
    });
    // Signed over the text it decodes to (U+FFFD in place of the bad bytes), it is not the bytes sent: 401.
    assert.equal((await send(body, sign(body.toString('utf8')))).status, 401);
    assert.equal(await events(), before);
  });

  test('A1: multi-byte UTF-8 in a signed delivery verifies and is stored as sent', async () => {
    const d = red(4, 14, 'attendu « 3 », reçu ✗ 😀');
    assert.equal((await post(h.url, d, SECRET)).status, 202);
    const row = await h.app.db.kysely
      .selectFrom('events')
      .select('payload')
      .where('delivery_id', '=', d.id)
      .executeTakeFirstOrThrow();
    assert.equal(row.payload, d.body);
  });
});

for (const kind of DATABASE_KINDS) {
  describe(`A1: large text from CI is kept once and bounded where it is shown (${kind})`, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(kind, { env: { WEBHOOK_MAX_BYTES: String(12 * MiB) } });
    });
    after(() => h.close());

    test('A1/H2/C6: a 5 MiB output and a 5 MiB check name: the payload holds them once; the rejection, the event summary, the Task view, the decision log and the prompt hold bounded copies', async () => {
      const created = await h.api('POST', '/api/tasks', {
        repository: 'acme/shop',
        pullRequest: 21,
        branch: 'agent/fix',
      });
      assert.equal(created.status, 201);
      const output = `HEAD-OF-OUTPUT\n${'o'.repeat(5 * MiB)}\nTAIL-OF-OUTPUT`;
      const name = `NAME-START ${'n'.repeat(5 * MiB)}`;
      const d = red(5, 21, output, name);
      assert.equal((await post(h.url, d, SECRET)).status, 202);
      await h.app.settle();
      assert.equal(h.runner.starts.length, 1, 'the red reached the agent');

      const rejection = await h.app.db.kysely
        .selectFrom('rejections')
        .select(['body', 'check_name'])
        .where('task_id', '=', created.body.id)
        .executeTakeFirstOrThrow();
      assert.ok(rejection.body.length <= MAX_REJECTION_BODY_CHARS);
      assert.ok(
        rejection.body.startsWith('Tests failed\n\nHEAD-OF-OUTPUT') && rejection.body.endsWith('TAIL-OF-OUTPUT'),
      );
      assert.match(rejection.body, /\[… fixloop cut \d+ characters here …\]/);
      assert.ok(rejection.check_name!.length <= MAX_CHECK_NAME_CHARS && rejection.check_name!.startsWith('NAME-START'));
      const event = await h.app.db.kysely
        .selectFrom('events')
        .select(['payload', 'summary'])
        .where('delivery_id', '=', d.id)
        .executeTakeFirstOrThrow();
      assert.equal(event.payload, d.body, 'the payload is the one full copy');
      assert.ok(event.summary.length < 4_000, `summary of ${event.summary.length} characters`);

      const view = await fetch(`${h.url}/api/tasks/${created.body.id}`, {
        headers: { authorization: `Bearer test-api-token` },
      }).then((r) => r.text());
      assert.ok(view.length < 16_000, `Task view of ${view.length} characters`);
      const log = await fetch(`${h.url}/api/deliveries?taskId=${created.body.id}`, {
        headers: { authorization: `Bearer test-api-token` },
      }).then((r) => r.text());
      assert.ok(log.length < 16_000, `decision log of ${log.length} characters`);
      const prompt = h.runner.starts[0]!.prompt;
      assert.ok(prompt.length < 24_000, `prompt of ${prompt.length} characters`);
      assert.ok(prompt.includes('HEAD-OF-OUTPUT') && prompt.includes('TAIL-OF-OUTPUT'));
    });

    test('A1/A3: a status with a 5 MiB context gets a short identity; a redelivery is still a duplicate', async () => {
      const d = delivery(
        'status',
        statusPayload({ repo: REPO, sha: sha(6), context: `ctx ${'c'.repeat(5 * MiB)}`, state: 'failure' }),
      );
      const first = await post(h.url, d, SECRET);
      assert.equal(first.status, 202);
      assert.ok(first.body.identity.length < 400, `identity of ${first.body.identity.length} characters`);
      const again = await post(h.url, { ...d, id: `${d.id}-again` }, SECRET);
      assert.deepEqual([again.status, again.body.outcome], [200, 'duplicate']);
      const other = delivery(
        'status',
        statusPayload({ repo: REPO, sha: sha(6), context: `ctx ${'c'.repeat(5 * MiB)}x`, state: 'failure' }),
      );
      assert.equal((await post(h.url, other, SECRET)).status, 202, 'another long context is another result');
    });
  });
}

/** The resident set of process `pid`, in bytes (Linux). */
function rss(pid: number): number {
  return Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) * 1024;
}

/** POST a 25 MiB body with a forged signature, honouring backpressure; resolves to the answer's status and Retry-After. */
function forged(
  port: number,
  body: Buffer,
): Promise<{ status: number; retryAfter: string | null } | { error: string }> {
  return new Promise((resolve) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: WEBHOOK,
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'content-length': String(body.length),
          'x-github-event': 'check_run',
          'x-hub-signature-256': FORGED,
        },
      },
      (res) => {
        res.resume();
        resolve({ status: res.statusCode ?? 0, retryAfter: (res.headers['retry-after'] as string) ?? null });
        req.destroy();
      },
    );
    req.on('error', (e: NodeJS.ErrnoException) => resolve({ error: e.code ?? e.message }));
    let sent = 0;
    const pump = (): void => {
      while (sent < body.length) {
        const ok = req.write(body.subarray(sent, sent + MiB));
        sent += MiB;
        if (!ok) return void req.once('drain', pump);
      }
      req.end();
    };
    pump();
  });
}

const AGENT = fileURLToPath(new URL('./support/agent-counter.mjs', import.meta.url));

for (const kind of DATABASE_KINDS) {
  test(
    `A1: 64 concurrent 25 MiB bodies with a forged signature — each is answered 401 or 503, the server stays within 100 MB of idle, and a red sent meanwhile reaches the agent (${kind})`,
    { timeout: 90_000, skip: process.platform !== 'linux' && 'reads /proc' },
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'fixloop-edge-'));
      const db = await createTestDatabase(kind);
      const counter = join(dir, 'agents');
      const env = commandAgentEnv({
        dir,
        databaseUrl: db.url,
        agentFile: AGENT,
        envAllow: ['COUNTER_FILE'],
        // The memory settings `npm start` runs with, as far as NODE_OPTIONS carries them (decision 0010).
        extra: {
          COUNTER_FILE: counter,
          LOG_LEVEL: 'error',
          MALLOC_ARENA_MAX: '2',
          NODE_OPTIONS: '--max-semi-space-size=4',
        },
      });
      const server = await startServerProcess(env, 'free');
      try {
        const pid = server.child.pid!;
        const port = Number(new URL(server.url).port);
        // Warm up every path the flood and the red take, then read the idle footprint.
        await post(server.url, delivery('ping', { zen: 'warm', hook_id: 1 }), SECRET);
        await forged(port, Buffer.alloc(64 * 1024, 0x61));
        // Time for the warm-up's garbage to go before the idle footprint is read (a memory reading, not
        // an absence check: the peak is bounded against it, and the high-water mark is checked too).
        await new Promise((r) => setTimeout(r, 500));
        const idle = rss(pid);
        let peak = idle;
        const sampler = setInterval(() => (peak = Math.max(peak, rss(pid))), 10);

        const body = Buffer.alloc(25 * MiB, 0x61);
        const flood = Promise.all(Array.from({ length: 64 }, () => forged(port, body)));
        // Pacing: the red is sent while the flood is under way; the answers asserted below show it was.
        await new Promise((r) => setTimeout(r, 50));
        const { taskId } = await taskWithRedPush(server.url, { pullRequest: 31, sha: 'e1', checkId: 9100 });
        const answers = await flood;
        clearInterval(sampler);

        const statuses = answers.map((a) => ('status' in a ? a.status : a.error));
        assert.ok(
          answers.every((a) => 'status' in a && (a.status === 401 || (a.status === 503 && a.retryAfter === '10'))),
          `answers: ${JSON.stringify(statuses)}`,
        );
        assert.ok(statuses.includes(401) && statuses.includes(503), `answers: ${JSON.stringify(statuses)}`);
        assert.ok(peak - idle <= 100 * MiB, `peak ${(peak / MiB).toFixed(0)} MiB, idle ${(idle / MiB).toFixed(0)} MiB`);
        const started = await until('the agent to start', async () =>
          existsSync(counter) ? readFileSync(counter, 'utf8').trim().split('\n') : null,
        );
        assert.equal(started.length, 1);
        assert.equal(JSON.parse(started[0]!).taskId, String(taskId));
      } finally {
        await server.stop();
        await db.drop();
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );
}
