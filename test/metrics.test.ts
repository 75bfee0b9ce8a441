// SPEC N2: GET /metrics, scraped and parsed strictly (test/support/prometheus.ts), through the real
// pipeline: signed webhooks move the in-process counters and the acknowledgement histogram, and the
// ledger-derived series (attempts, runs, the Inbox, stops, spend) are read from the database at scrape
// time, on SQLite and PostgreSQL. The poll tick histogram and the GitHub request series move with the
// fake GitHub. Behind the API token or FIXLOOP_METRICS_TOKEN, 401 otherwise.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { DATABASE_KINDS } from './support/databases.js';
import { startHarness, API_TOKEN, REPO, SECRET, type Harness } from './support/harness.js';
import { checkRunPayload, delivery, post } from './support/deliveries.js';
import { parsePrometheus, valueOf, type Family } from './support/prometheus.js';
import { startFakeGitHub } from './support/fake-github/server.js';
import { BOT_LOGIN, FakeClock, openOnFake } from './support/github-harness.js';
import { taskWithRedHead } from './support/loop-driver.js';
import { until } from './support/server-process.js';
import { createGitHub } from '../src/github/client.js';
import { createMetrics } from '../src/metrics/metrics.js';

const METRICS_TOKEN = 'test-metrics-token';
const sha = (n: number) => n.toString(16).padStart(40, 'b');

async function scrape(url: string, token: string | null = API_TOKEN): Promise<Map<string, Family>> {
  const headers: Record<string, string> = token === null ? {} : { authorization: `Bearer ${token}` };
  const res = await fetch(`${url}/metrics`, { headers });
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
  return parsePrometheus(await res.text());
}

/** The value, 0 when the series is absent (a labelled counter before its first event). */
const v = (m: Map<string, Family>, name: string, labels: Record<string, string> = {}): number =>
  valueOf(m, name, labels) ?? 0;

async function redCheck(h: Harness, n: number, output: string): Promise<void> {
  const d = delivery(
    'check_run',
    checkRunPayload({ repo: REPO, sha: sha(n), id: 500 + n, name: 'test', pr: { number: 9, headSha: sha(n) }, output }),
  );
  const res = await post(h.url, d, SECRET);
  assert.equal(res.status, 202, JSON.stringify(res.body));
  await h.app.settle();
}

describe('GET /metrics authentication (N2)', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness('sqlite', { env: { FIXLOOP_METRICS_TOKEN: METRICS_TOKEN } });
  });
  after(() => h.close());

  test('N2: 401 without a bearer token, with a wrong one, and with a run-like token; 200 with the API token and with the metrics token', async () => {
    for (const headers of [{}, { authorization: 'Bearer wrong' }, { authorization: `Basic ${API_TOKEN}` }] as Record<
      string,
      string
    >[]) {
      const res = await fetch(`${h.url}/metrics`, { headers });
      assert.equal(res.status, 401, JSON.stringify(headers));
      assert.match(res.headers.get('www-authenticate') ?? '', /^Bearer/);
      assert.doesNotMatch(await res.text(), /fixloop_/, 'nothing of the metrics leaks to a refused scrape');
    }
    for (const token of [API_TOKEN, METRICS_TOKEN]) {
      const m = await scrape(h.url, token);
      assert.ok(m.get('fixloop_deliveries_total')?.help, 'the series carry HELP text');
    }
  });

  test('N2: the metrics token opens /metrics only, not the API', async () => {
    const res = await fetch(`${h.url}/api/tasks`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
    assert.equal(res.status, 401);
  });
});

for (const kind of DATABASE_KINDS) {
  describe(`GET /metrics through the pipeline (${kind})`, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(kind, { env: { TASK_CI_AUTO_RESUME_MAX_ATTEMPTS: '1' } });
      const created = await h.api('POST', '/api/tasks', {
        repository: 'acme/shop',
        pullRequest: 9,
        branch: 'agent/fix',
      });
      assert.equal(created.status, 201, JSON.stringify(created.body));
    });
    after(() => h.close());

    test('N2: every named series is there, with HELP and TYPE, before anything happened', async () => {
      const m = await scrape(h.url);
      const expected: Record<string, string> = {
        fixloop_deliveries_total: 'counter',
        fixloop_refusals_total: 'counter',
        fixloop_stops_total: 'counter',
        fixloop_attempts_in_flight: 'gauge',
        fixloop_attempts_unsettled: 'gauge',
        fixloop_runs: 'gauge',
        fixloop_notices_open: 'gauge',
        fixloop_spend_total: 'counter',
        fixloop_poll_tick_seconds: 'histogram',
        fixloop_github_requests_total: 'counter',
        fixloop_github_rate_limit_remaining: 'gauge',
        fixloop_outbox_depth: 'gauge',
        fixloop_webhook_ack_seconds: 'histogram',
        fixloop_ledger_up: 'gauge',
      };
      for (const [name, type] of Object.entries(expected)) {
        const f = m.get(name);
        assert.ok(f, `${name} is exposed`);
        assert.equal(f.type, type, name);
        assert.ok(f.help.length > 10, `${name} has HELP text`);
      }
      assert.equal(v(m, 'fixloop_ledger_up'), 1);
      assert.equal(v(m, 'fixloop_outbox_depth'), 0, 'no outbox reports yet');
      assert.equal(valueOf(m, 'fixloop_runs', { state: 'running' }), 0, 'known states show at 0');
    });

    test('N2: a red check_run moves deliveries, the ack histogram, attempts and runs; a spend report moves spend; the stop moves stops and the Inbox', async () => {
      const before = await scrape(h.url);
      await redCheck(h, 1, 'FAIL src/cart.test.ts\nexpected 3, got 4');
      assert.equal(h.runner.starts.length, 1, 'the agent was resumed');
      const run = h.runner.starts[0]!;
      const during = await scrape(h.url);

      const moved = (m: Map<string, Family>, name: string, labels: Record<string, string> = {}) =>
        v(m, name, labels) - v(before, name, labels);
      assert.equal(moved(during, 'fixloop_deliveries_total', { outcome: 'stored' }), 1);
      assert.equal(moved(during, 'fixloop_deliveries_total', { outcome: 'claimed' }), 1);
      assert.equal(moved(during, 'fixloop_webhook_ack_seconds_count', { status: '202' }), 1);
      assert.ok(v(during, 'fixloop_webhook_ack_seconds_sum', { status: '202' }) > 0);
      assert.equal(v(during, 'fixloop_attempts_in_flight', { state: 'running' }), 1);
      assert.equal(v(during, 'fixloop_runs', { state: 'running' }), 1);

      const spent = await fetch(`${h.url}/api/run/spend`, {
        method: 'POST',
        headers: { authorization: `Bearer ${run.runToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 1.5, sandbox: 0.25 }),
      });
      assert.equal(spent.status, 200, await spent.text());
      h.runner.finish(run.runId);
      await h.app.settle();
      // The run's end is written after the runner's callback returns: wait for it in the ledger.
      await until(
        `run ${run.runId} to end in the ledger`,
        async () => (await h.api('GET', `/api/runs/${run.runId}`)).body.state !== 'running',
        10_000,
        20,
      );
      const ended = await scrape(h.url);
      assert.equal(v(ended, 'fixloop_runs', { state: 'running' }), 0, 'the run ended');
      assert.equal(v(ended, 'fixloop_spend_total', { kind: 'model' }), 1.5);
      assert.equal(v(ended, 'fixloop_spend_total', { kind: 'sandbox' }), 0.25);

      // Budget 1: the next different red stops the loop with one notice; the one after is refused.
      await redCheck(h, 2, 'FAIL src/tax.test.ts\nTypeError: rate is undefined');
      await redCheck(h, 3, 'FAIL src/ship.test.ts\nexpected free shipping');
      const stopped = await scrape(h.url);
      assert.equal(h.runner.starts.length, 1, 'no second resume');
      assert.equal(v(stopped, 'fixloop_stops_total', { reason: 'budget_spent' }), 1);
      assert.equal(v(stopped, 'fixloop_notices_open'), 1);
      assert.equal(moved(stopped, 'fixloop_deliveries_total', { outcome: 'noticed' }), 1);
      assert.equal(moved(stopped, 'fixloop_refusals_total', { reason: 'notice_filed' }), 1);
      assert.equal(moved(stopped, 'fixloop_webhook_ack_seconds_count', { status: '202' }), 3);
    });

    test('N2: the ledger-derived series are read from the database, so another instance on it reports the same', async () => {
      const other = await startHarness(kind, { db: h.db });
      try {
        const [mine, theirs] = await Promise.all([scrape(h.url), scrape(other.url)]);
        for (const [name, labels] of [
          ['fixloop_stops_total', { reason: 'budget_spent' }],
          ['fixloop_notices_open', {}],
          ['fixloop_spend_total', { kind: 'model' }],
        ] as const) {
          assert.equal(v(theirs, name, labels), v(mine, name, labels), name);
          assert.ok(v(theirs, name, labels) > 0, `${name} is the database's, not this process's`);
        }
        assert.equal(
          v(theirs, 'fixloop_deliveries_total', { outcome: 'stored' }),
          0,
          'in-process counters are its own',
        );
      } finally {
        await other.close();
      }
    });
  });
}

describe('GET /metrics with the poll and GitHub (N2)', () => {
  test('N2: a poll tick moves the tick histogram, the GitHub request counter and the rate-limit gauge', async () => {
    const fake = await startFakeGitHub();
    const clock = new FakeClock();
    fake.state.now = () => clock.now();
    const token = fake.addUserToken(BOT_LOGIN);
    const metrics = createMetrics({ processMetrics: false });
    const github = createGitHub({
      apiUrl: fake.url,
      auth: { kind: 'token', token },
      throttle: { spaceWrites: false },
      retry: { backoffUnitMs: 1 },
      observe: metrics.github,
    });
    const h = await openOnFake('sqlite', { fake, clock, token }, { adapters: { github, metrics } });
    try {
      await taskWithRedHead(h, 21, sha(7), 'FAIL src/cart.test.ts: expected 3 to be 4');
      const apiBefore = fake.requestsTo(/./, 'api').length;
      const before = await scrape(h.url);
      assert.equal(
        valueOf(before, 'fixloop_github_rate_limit_remaining', { resource: 'core' }),
        undefined,
        'no GitHub answer yet: absent, not a remaining 0',
      );
      clock.advance(120_000);
      await h.tick();
      const after = await scrape(h.url);
      assert.equal(v(after, 'fixloop_poll_tick_seconds_count') - v(before, 'fixloop_poll_tick_seconds_count'), 1);
      const total = (m: Map<string, Family>) =>
        (m.get('fixloop_github_requests_total')?.samples ?? []).reduce((n, s) => n + s.value, 0);
      const counted = total(after) - total(before);
      assert.ok(
        v(after, 'fixloop_github_requests_total', { status_class: '2xx' }) >= 2,
        'the PR and its checks were read',
      );
      assert.equal(counted, fake.requestsTo(/./, 'api').length - apiBefore, 'every API request is counted, once');
      assert.equal(valueOf(after, 'fixloop_github_rate_limit_remaining', { resource: 'core' }), 4999);
    } finally {
      await h.close();
      fake.assertNoViolations();
      await fake.close();
    }
  });
});
