// SPEC G1 (P4), N1: notices reach people through the configured sinks by a durable outbox (decision
// 0025). A real loopback HTTP server is the sink; the notice is caused the way a person sees it (the
// budget of one spent by a second, different failure).
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { sql } from 'kysely';
import { createTestDatabase, DATABASE_KINDS, type TestDatabase } from '../support/databases.js';
import { startHarness, API_TOKEN, REPO, SECRET, type Harness } from '../support/harness.js';
import { checkRunPayload, delivery, post } from '../support/deliveries.js';
import { closeServer, listenLoopback } from '../support/loopback.js';
import type { Logger } from '../../src/app/ports.js';
import { parsePrometheus, valueOf } from '../support/prometheus.js';

const HOOK_SECRET = 'notice-hook-secret';
const sha = (n: number) => n.toString(16).padStart(40, 'b');

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A sink on loopback: answers each request with what `answer` says for its index, recording all of them. */
class SinkServer {
  readonly received: Received[] = [];
  private server: Server | null = null;
  url = '';
  constructor(private answer: (i: number, r: Received) => { status: number; delayMs?: number }) {}
  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const r = { path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
        const i = this.received.push(r) - 1;
        const a = this.answer(i, r);
        const reply = () => {
          res.writeHead(a.status, { 'content-type': 'text/plain' });
          res.end(a.status >= 300 ? 'down' : 'ok');
        };
        if (a.delayMs) setTimeout(reply, a.delayMs);
        else reply();
      });
    });
    this.url = await listenLoopback(this.server);
    return this;
  }
  to(path: string): Received[] {
    return this.received.filter((r) => r.path === path);
  }
  async close(): Promise<void> {
    if (this.server) await closeServer(this.server);
  }
}

function validSignature(r: Received): boolean {
  const want = Buffer.from(`sha256=${createHmac('sha256', HOOK_SECRET).update(r.body, 'utf8').digest('hex')}`);
  const got = Buffer.from(String(r.headers['x-fixloop-signature-256'] ?? ''));
  return got.length === want.length && timingSafeEqual(got, want);
}

async function until(what: string, check: () => boolean | Promise<boolean>, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

function noticesConfig(sinks: unknown[], retry: Record<string, number>) {
  return { notices: { sinks, retry, timeoutSeconds: 2 } };
}

/** A logger that keeps the messages and fields of what was logged (a fake of our own Logger port). */
function recordingLogger(): Logger & { lines: Array<{ level: string; msg: string; obj: any }> } {
  const lines: Array<{ level: string; msg: string; obj: any }> = [];
  const at = (level: string) => (obj: object, msg?: string) => void lines.push({ level, msg: msg ?? '', obj });
  return { lines, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

async function start(
  kind: 'sqlite' | 'postgres',
  configExtra: Record<string, unknown>,
  db?: TestDatabase,
  logger?: Logger,
) {
  return startHarness(kind, {
    env: { TASK_CI_AUTO_RESUME_MAX_ATTEMPTS: '1' },
    configExtra,
    adapters: { outboxEveryMs: 10, ...(logger ? { logger } : {}) },
    ...(db ? { db } : {}),
  });
}

async function redPush(h: Harness, pr: number, n: number) {
  const d = delivery(
    'check_run',
    checkRunPayload({
      repo: REPO,
      sha: sha(pr * 100 + n),
      id: pr * 1000 + n,
      name: 'test',
      pr: { number: pr, headSha: sha(pr * 100 + n) },
      output: [
        'FAIL src/alpha.test.ts > adds\nexpected two, got three',
        'FAIL src/beta.test.ts > parses\nTypeError: x is undefined',
        'FAIL src/gamma.test.ts > renders\nsnapshot mismatch',
      ][n - 1],
    }),
  );
  const res = await post(h.url, d, SECRET);
  assert.equal(res.status, 202, JSON.stringify(res.body));
  await h.app.settle();
}

/** A Task on `pr` whose budget of one is spent by two different failures: its one notice. */
async function causeNotice(h: Harness, pr: number): Promise<number> {
  const created = await h.api('POST', '/api/tasks', {
    repository: 'acme/shop',
    pullRequest: pr,
    branch: `agent/${pr}`,
  });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  await redPush(h, pr, 1);
  const run = h.runner.starts.find((s) => s.pullRequest === pr);
  assert.ok(run, `a resume for #${pr}`);
  h.runner.finish(run.runId);
  await h.app.settle();
  await redPush(h, pr, 2);
  const view = (await h.api('GET', `/api/tasks/${created.body.id}`)).body;
  assert.equal(view.notice?.reason, 'budget_spent', `#${pr} has its notice`);
  return created.body.id;
}

async function outboxRows(h: Harness) {
  return h.app.db.kysely.selectFrom('notice_outbox').selectAll().orderBy('id').execute();
}

for (const kind of DATABASE_KINDS) {
  describe(`notice outbox (${kind})`, () => {
    test('G1/P4: a sink failing three times then answering 2xx gets the notice once more — the fourth try — with one key and a valid signature', async () => {
      const sink = await new SinkServer((i) => ({ status: i < 3 ? 503 : 200 })).start();
      const h = await start(
        kind,
        noticesConfig([{ kind: 'webhook', name: 'ops', url: `${sink.url}/hook`, secret: HOOK_SECRET }], {
          maxAttempts: 6,
          initialSeconds: 0.02,
          maxSeconds: 0.05,
        }),
      );
      try {
        const taskId = await causeNotice(h, 7);
        await until('the delivery', async () => (await outboxRows(h))[0]?.state === 'delivered');
        // Nothing more arrives after the 2xx: a claim pass after it, whose tries are awaited, sends nothing.
        await h.app.outbox.tick();
        assert.equal(sink.received.length, 4);
        const keys = new Set(sink.received.map((r) => r.headers['idempotency-key']));
        assert.equal(keys.size, 1, 'the same idempotency key on every try');
        const notice = (await h.api('GET', '/api/inbox')).body.notices[0];
        assert.deepEqual([...keys], [`notice-${notice.id}-ops`]);
        assert.ok(sink.received.every(validSignature), 'every try is signed with the sink secret');
        const body = JSON.parse(sink.received[3]!.body);
        assert.equal(body.event, 'notice.filed');
        assert.equal(body.notice.taskId, taskId);
        assert.equal(body.notice.repository, 'acme/shop');
        assert.equal(body.notice.pullRequest, 7);
        assert.equal(body.notice.reason, 'budget_spent');
        assert.equal(body.notice.pullRequestUrl, 'https://github.com/acme/shop/pull/7');
        assert.equal(body.notice.message, notice.message);
        const [row] = await outboxRows(h);
        assert.equal(Number(row!.attempts), 4);
        assert.equal(row!.last_error, null);
        assert.deepEqual((await h.api('GET', '/api/outbox')).body.deliveries, [], 'nothing left to show');
        assert.equal(await h.app.ledger.outboxDepth(), 0);
      } finally {
        await h.close();
        await sink.close();
      }
    });

    test('G1/P4: a restart during the backoff loses nothing — the next process delivers', async () => {
      const sink = await new SinkServer((i) => ({ status: i < 1 ? 500 : 204 })).start();
      const config = noticesConfig([{ kind: 'webhook', url: `${sink.url}/hook`, secret: HOOK_SECRET }], {
        maxAttempts: 5,
        initialSeconds: 0.6,
        maxSeconds: 0.6,
      });
      const db = await createTestDatabase(kind);
      try {
        const first = await start(kind, config, db);
        await causeNotice(first, 7);
        await until('the first try', () => sink.received.length === 1);
        await until('its failure recorded', async () => Number((await outboxRows(first))[0]?.attempts) === 1);
        assert.equal(await first.app.ledger.outboxDepth(), 1);
        // N2: the pending delivery is the outbox depth /metrics shows.
        const scraped = await fetch(`${first.url}/metrics`, { headers: { authorization: `Bearer ${API_TOKEN}` } });
        assert.equal(valueOf(parsePrometheus(await scraped.text()), 'fixloop_outbox_depth'), 1);
        await first.close(); // mid-backoff: the retry is due in 0.3–0.6 s
        assert.equal(sink.received.length, 1);

        const second = await start(kind, config, db);
        try {
          await until(
            'the delivery by the new process',
            async () => (await outboxRows(second))[0]?.state === 'delivered',
          );
          assert.equal(sink.received.length, 2);
          assert.equal(sink.received[0]!.headers['idempotency-key'], sink.received[1]!.headers['idempotency-key']);
          assert.ok(sink.received.every(validSignature));
        } finally {
          await second.close();
        }
      } finally {
        await db.drop();
        await sink.close();
      }
    });

    test('G1/P4: a sink that always fails ends `failed` after the configured tries, is listed with its error, and the loop goes on', async () => {
      const sink = await new SinkServer((_i, r) => ({ status: r.path === '/broken' ? 500 : 200 })).start();
      const logger = recordingLogger();
      const h = await start(
        kind,
        noticesConfig(
          [
            { kind: 'webhook', name: 'broken', url: `${sink.url}/broken`, secret: HOOK_SECRET },
            { kind: 'slack', name: 'team', url: `${sink.url}/slack` },
          ],
          { maxAttempts: 3, initialSeconds: 0.01, maxSeconds: 0.02 },
        ),
        undefined,
        logger,
      );
      try {
        await causeNotice(h, 7);
        await until('the broken sink given up', async () =>
          (await outboxRows(h)).some((r) => r.sink === 'broken' && r.state === 'failed'),
        );
        assert.equal(sink.to('/broken').length, 3, 'exactly the configured tries');
        const listed = (await h.api('GET', '/api/outbox?state=failed')).body.deliveries;
        assert.equal(listed.length, 1);
        assert.equal(listed[0].sink, 'broken');
        assert.equal(listed[0].attempts, 3);
        assert.equal(listed[0].repository, 'acme/shop');
        assert.equal(listed[0].pullRequest, 7);
        assert.match(listed[0].lastError, /^HTTP 500: down$/);
        const told = logger.lines.filter((l) => l.obj.sink === 'broken').map((l) => `${l.level} ${l.msg}`);
        assert.deepEqual(told, [
          'warn notice.delivery_failed',
          'warn notice.delivery_failed',
          'error notice.delivery_gave_up',
        ]);
        await until('the team sink delivered', async () =>
          (await outboxRows(h)).some((r) => r.sink === 'team' && r.state === 'delivered'),
        );

        // The loop is unaffected: another Task is evaluated, resumed, and files its own notice.
        const startsBefore = h.runner.starts.length;
        await causeNotice(h, 8);
        assert.equal(h.runner.starts.length, startsBefore + 1, 'the second Task was resumed');
        assert.equal((await h.api('GET', '/api/inbox')).body.notices.length, 2);
        await until('the second notice reached the team sink', () => sink.to('/slack').length === 2);
        const slack = JSON.parse(sink.to('/slack')[1]!.body);
        assert.match(slack.text, /acme\/shop#8/);
        assert.match(slack.text, /the automatic fix budget is spent/);
        assert.match(slack.text, /https:\/\/github\.com\/acme\/shop\/pull\/8/);
      } finally {
        await h.close();
        await sink.close();
      }
    });

    test('G1/P4: a person sends a given-up delivery again, from the API or the dashboard: the sink gets it once more, recorded as theirs', async () => {
      let up = false;
      const sink = await new SinkServer(() => ({ status: up ? 200 : 500 })).start();
      const h = await start(
        kind,
        noticesConfig([{ kind: 'slack', name: 'team', url: `${sink.url}/slack` }], {
          maxAttempts: 2,
          initialSeconds: 0.01,
          maxSeconds: 0.02,
        }),
      );
      try {
        const taskId = await causeNotice(h, 11);
        await until('given up', async () => (await outboxRows(h)).some((r) => r.state === 'failed'));
        const [row] = await outboxRows(h);

        // The dashboard shows it, with the banner on every page and the button in the Inbox.
        const signIn = await fetch(`${h.url}/sign-in`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ token: API_TOKEN }).toString(),
          redirect: 'manual',
        });
        const cookie = (signIn.headers.get('set-cookie') ?? '').split(';')[0]!;
        const inbox = await (await fetch(`${h.url}/inbox`, { headers: { cookie } })).text();
        assert.match(inbox, /1 notice delivery failed/);
        assert.match(inbox, new RegExp(`data-delivery="${row!.id}" data-state="failed"`));
        assert.match(inbox, /HTTP 500: down/);
        const csrf = /name="_csrf" value="([^"]+)"/.exec(inbox)![1]!;

        // A person clicks "Send again" while the sink is still down: it is tried afresh, and fails again.
        const resend = await fetch(`${h.url}/outbox/${row!.id}/resend`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded', cookie, origin: h.url },
          body: new URLSearchParams({ _csrf: csrf }).toString(),
          redirect: 'manual',
        });
        assert.equal(resend.status, 303);
        await until('tried twice more and given up again', async () => sink.to('/slack').length === 4);
        await until('failed again', async () => (await outboxRows(h))[0]!.state === 'failed');

        // Over the API, once the sink is back: delivered, once.
        up = true;
        const again = await h.api('POST', `/api/outbox/${row!.id}/resend`);
        assert.equal(again.status, 200, JSON.stringify(again.body));
        await until('delivered', async () => (await outboxRows(h))[0]!.state === 'delivered');
        assert.equal(sink.to('/slack').length, 5);
        assert.equal((await h.api('POST', `/api/outbox/${row!.id}/resend`)).status, 409, 'only a failed one');
        assert.equal((await h.api('POST', '/api/outbox/999999/resend')).status, 404);

        const acted = ((await h.api('GET', `/api/deliveries?taskId=${taskId}&limit=500`)).body.decisions as any[])
          .filter((d) => d.outcome === 'acted' && d.reason === 'resend_notice')
          .map((d) => d.detail);
        assert.equal(acted.length, 2);
        assert.match(acted.join('\n'), /a person \(dashboard\)/);
        assert.match(acted.join('\n'), /a person \(api\)/);
      } finally {
        await h.close();
        await sink.close();
      }
    });

    test('G1: the notice and its outbox rows are written together — a failing outbox insert files no notice', async () => {
      const sink = await new SinkServer(() => ({ status: 200 })).start();
      const h = await start(
        kind,
        noticesConfig([{ kind: 'webhook', url: `${sink.url}/hook`, secret: HOOK_SECRET }], {
          initialSeconds: 0.01,
          maxSeconds: 0.02,
        }),
      );
      const k = h.app.db.kysely;
      try {
        // Fault injection in the database itself: every insert into the outbox fails.
        if (kind === 'sqlite') {
          await sql`create trigger outbox_fault before insert on notice_outbox begin select raise(abort, 'injected outbox fault'); end`.execute(
            k,
          );
        } else {
          await sql`create function outbox_fault() returns trigger as $$ begin raise exception 'injected outbox fault'; end $$ language plpgsql`.execute(
            k,
          );
          await sql`create trigger outbox_fault before insert on notice_outbox for each row execute function outbox_fault()`.execute(
            k,
          );
        }
        const created = await h.api('POST', '/api/tasks', {
          repository: 'acme/shop',
          pullRequest: 9,
          branch: 'agent/9',
        });
        await redPush(h, 9, 1);
        h.runner.finish(h.runner.starts[0]!.runId);
        await h.app.settle();
        await redPush(h, 9, 2);
        assert.equal((await h.api('GET', '/api/inbox')).body.notices.length, 0, 'no notice without its deliveries');
        const task = await k
          .selectFrom('tasks')
          .select('notice_at')
          .where('id', '=', created.body.id)
          .executeTakeFirst();
        assert.equal(task?.notice_at, null, 'the marker was rolled back with it, so the stop can still be told');
        assert.equal((await outboxRows(h)).length, 0);

        await sql`drop trigger outbox_fault${sql.raw(kind === 'postgres' ? ' on notice_outbox' : '')}`.execute(k);
        await redPush(h, 9, 3);
        assert.equal(
          (await h.api('GET', '/api/inbox')).body.notices.length,
          1,
          'told once the outbox takes rows again',
        );
        await until('its delivery', () => sink.received.length === 1);
      } finally {
        await h.close();
        await sink.close();
      }
    });
  });
}

describe('notice outbox across replicas (postgres)', () => {
  let db: TestDatabase;
  let sink: SinkServer;
  let a: Harness;
  let b: Harness;
  before(async () => {
    db = await createTestDatabase('postgres');
    // A slow sink, so both replicas' passes overlap while a try is in the air.
    sink = await new SinkServer(() => ({ status: 200, delayMs: 80 })).start();
    const config = noticesConfig([{ kind: 'webhook', url: `${sink.url}/hook`, secret: HOOK_SECRET }], {
      initialSeconds: 0.01,
      maxSeconds: 0.02,
    });
    a = await start('postgres', config, db);
    b = await start('postgres', config, db);
  });
  after(async () => {
    await a.close();
    await b.close();
    await db.drop();
    await sink.close();
  });

  test('N1/G1: two workers on one database deliver each notice once', async () => {
    for (const pr of [11, 12, 13]) await causeNotice(a, pr);
    await until('every delivery', async () => (await outboxRows(a)).every((r) => r.state === 'delivered'));
    // A claim pass on each worker after the last 2xx, its tries awaited: neither sends any notice again.
    await Promise.all([a.app.outbox.tick(), b.app.outbox.tick()]);
    const keys = sink.received.map((r) => String(r.headers['idempotency-key']));
    assert.equal(keys.length, 3, `one POST per notice, got ${JSON.stringify(keys)}`);
    assert.equal(new Set(keys).size, 3);
  });
});
