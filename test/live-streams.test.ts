// SPEC M4, A1 (issue 31): the dashboard's live-update streams are capped per session (a new one ends
// that session's oldest, which is told `superseded`) and in all (past it a new one is refused with
// 503), and a stream never holds a place a webhook or a health check needs: at the connection cap
// the oldest stream gives way. Six hundred streams from one session leave signed webhooks and
// /healthz answering, on both databases.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { LIVE_STREAMS_PER_SESSION, LIVE_STREAMS_TOTAL, createLiveStreams } from '../src/dashboard/live-streams.js';
import { DATABASE_KINDS } from './support/databases.js';
import { startHarness, API_TOKEN, SECRET, type Harness } from './support/harness.js';
import { delivery, signedHeaders } from './support/deliveries.js';
import { until } from './support/server-process.js';

/** One live stream as its page would see it. */
interface Stream {
  status: number | null;
  events: string[];
  ended: boolean;
  close(): void;
}

/** Open GET /events on a connection of its own; resolves once the answer's head arrived (or the connection failed). */
function openStream(url: string, cookie: string): Promise<Stream> {
  return new Promise((resolve) => {
    const s: Stream = { status: null, events: [], ended: false, close: () => req.destroy() };
    const req = request(`${url}/events`, { agent: false, headers: { cookie, accept: 'text/event-stream' } }, (res) => {
      s.status = res.statusCode ?? 0;
      res.setEncoding('utf8');
      let text = '';
      res.on('data', (chunk: string) => {
        text += chunk;
        for (const m of text.matchAll(/^event: (\w+)$/gm)) s.events.push(m[1]!);
        text = text.slice(text.lastIndexOf('\n') + 1);
      });
      const end = () => (s.ended = true);
      res.on('end', end);
      res.on('close', end);
      res.on('error', end);
      resolve(s);
    });
    req.on('error', () => {
      s.ended = true;
      resolve(s);
    });
    req.end();
  });
}

/** A request on a fresh connection, as GitHub and a health checker make them: its status, or the error. */
function fresh(url: string, o: { method?: string; headers?: Record<string, string>; body?: string } = {}) {
  return new Promise<number | string>((resolve) => {
    const req = request(url, { agent: false, method: o.method ?? 'GET', headers: o.headers }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? e.message));
    req.setTimeout(5_000, () => req.destroy(new Error('no answer within 5 s')));
    req.end(o.body);
  });
}

async function webhook(url: string, n: number): Promise<number | string> {
  const d = delivery('ping', { zen: `live-streams ${n}`, hook_id: n });
  return fresh(`${url}/api/github/webhooks`, { method: 'POST', headers: await signedHeaders(d, SECRET), body: d.body });
}

async function signIn(url: string): Promise<string> {
  const res = await fetch(`${url}/sign-in`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token: API_TOKEN }).toString(),
    redirect: 'manual',
  });
  assert.equal(res.status, 303);
  return (res.headers.get('set-cookie') ?? '').split(';')[0]!;
}

test('M4: the stream places — a session past its cap ends its oldest; past the total a new one gets none', () => {
  const streams = createLiveStreams({ perSession: 2, total: 3 });
  const a1 = streams.open('a')!;
  const a2 = streams.open('a')!;
  const a3 = streams.open('a')!;
  assert.equal(a1.signal.reason, 'superseded');
  assert.ok(!a2.signal.aborted && !a3.signal.aborted);
  assert.equal(streams.size, 2);
  const b1 = streams.open('b')!;
  assert.equal(streams.open('c'), null, 'the total is reached');
  assert.equal(streams.open('b'), null, 'within its own cap, but not within the total');
  const a4 = streams.open('a')!;
  assert.equal(a2.signal.reason, 'superseded', 'a session replaces its own oldest even at the total');
  assert.equal(streams.size, 3);
  b1.end();
  assert.equal(b1.signal.reason, 'gone');
  assert.ok(streams.open('c'), 'a place given back is taken');
  streams.closeAll();
  assert.equal(a4.signal.reason, 'closing');
  assert.equal(streams.size, 0);
});

for (const kind of DATABASE_KINDS) {
  describe(`M4/A1: live-update streams cannot take the server (${kind})`, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(kind, { adapters: { dashboardLivePollMs: 100 } });
    });
    after(() => h.close());

    test(
      `M4/A1: 600 streams from one session — at most ${LIVE_STREAMS_PER_SESSION} stay open, the others are told or cut, while signed webhooks and /healthz answer (${kind})`,
      { timeout: 120_000 },
      async () => {
        const cookie = await signIn(h.url);
        const streams: Stream[] = [];
        const answers: (number | string)[] = [];
        let opening = true;
        const traffic = (async () => {
          for (let n = 1; opening; n++) {
            answers.push(await webhook(h.url, n), await fresh(`${h.url}/healthz`));
            await new Promise((r) => setTimeout(r, 20)); // pacing of the traffic beside the streams
          }
        })();
        // 600 in all: in batches of 50 at once, then the last few one after another, so which are the
        // newest does not depend on the order the server took a batch's requests in.
        const last = LIVE_STREAMS_PER_SESSION;
        for (let i = 0; i < 600 - last; i += 50)
          streams.push(
            ...(await Promise.all(
              Array.from({ length: Math.min(50, 600 - last - i) }, () => openStream(h.url, cookie)),
            )),
          );
        for (let i = 0; i < last; i++) streams.push(await openStream(h.url, cookie));
        assert.equal(streams.length, 600);
        // Once the last ones are open, the earlier ones end within a poll or two.
        await until(
          'all but the newest streams to end',
          async () => streams.filter((s) => !s.ended).length <= LIVE_STREAMS_PER_SESSION,
        );
        opening = false;
        await traffic;

        const live = streams.filter((s) => !s.ended);
        assert.equal(live.length, LIVE_STREAMS_PER_SESSION);
        assert.deepEqual(live, streams.slice(-LIVE_STREAMS_PER_SESSION), 'the newest are the ones open');
        assert.ok(live.every((s) => s.status === 200 && s.events.includes('ready')));
        assert.ok(
          streams.every((s) => s.status === 200 || s.status === null),
          'none refused: a session only ever replaces its own',
        );
        const told = streams.filter((s) => s.events.includes('superseded')).length;
        assert.ok(told >= 600 - 100, `${told} of the ended streams were told why`);
        assert.ok(answers.length >= 4, `${answers.length / 2} webhooks and health checks were sent meanwhile`);
        assert.ok(
          answers.every((s) => s === 200 || s === 202),
          `answers: ${answers.filter((s) => s !== 200 && s !== 202)}`,
        );
        for (const s of live) s.close();
      },
    );

    test(
      `M4/A1: past ${LIVE_STREAMS_TOTAL} streams in all, a new session's stream is refused with 503 and Retry-After (${kind})`,
      { timeout: 60_000 },
      async () => {
        const cookies = await Promise.all(Array.from({ length: LIVE_STREAMS_TOTAL + 1 }, () => signIn(h.url)));
        const streams = await Promise.all(cookies.slice(0, LIVE_STREAMS_TOTAL).map((c) => openStream(h.url, c)));
        assert.ok(streams.every((s) => s.status === 200));
        const refused = await fetch(`${h.url}/events`, { headers: { cookie: cookies.at(-1)! } });
        assert.equal(refused.status, 503);
        assert.equal(refused.headers.get('retry-after'), '30');
        assert.match(await refused.text(), /Too many pages are listening for updates/);
        // One ends: its place is free again.
        streams[0]!.close();
        await until('a place to be given back', async () => (await openStream(h.url, cookies.at(-1)!)).status === 200);
        for (const s of streams) s.close();
      },
    );
  });
}

describe('A1: at the connection cap a live stream gives way to a webhook and a health check', () => {
  const CAP = 8;
  let h: Harness;
  before(async () => {
    h = await startHarness('sqlite', {
      env: { FIXLOOP_MAX_CONNECTIONS: String(CAP) },
      adapters: { dashboardLivePollMs: 100 },
    });
  });
  after(() => h.close());

  test(
    'A1: every connection a stream; a webhook and /healthz still get in, the oldest stream is cut',
    { timeout: 30_000 },
    async () => {
      // Two sessions, four streams each: every place at the cap is a stream in progress.
      const streams: Stream[] = [];
      for (const cookie of [await signIn(h.url), await signIn(h.url)])
        for (let i = 0; i < LIVE_STREAMS_PER_SESSION; i++) streams.push(await openStream(h.url, cookie));
      await until('every stream to be open', async () => streams.every((s) => s.events.includes('ready')));
      assert.equal(streams.filter((s) => !s.ended).length, CAP);

      assert.equal(await webhook(h.url, 1), 200);
      assert.equal(await fresh(`${h.url}/healthz`), 200);
      // The webhook took the oldest stream's place; /healthz that place or the next stream's.
      await until('the oldest stream to be cut', async () => streams[0]!.ended);
      assert.ok(
        streams.slice(2).every((s) => !s.ended),
        'only as many as were needed gave way',
      );
      for (const s of streams) s.close();
    },
  );
});
