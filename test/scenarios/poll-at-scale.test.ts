// SPEC N3, E1, E4 (decision 0031): the poll at scale. The open-Task query is served by an index on
// both databases; due Tasks are claimed in slices by the per-pull-request lease, so replicas split
// them; ETags live in the ledger, shared by replicas and restarts; branch protection is read once
// per base branch, 404 included; an unchanged pull request costs only its share of one GraphQL
// glance; the hand-off's writes never hold a tick back; and the poll slows down before the rate
// limit runs out.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { createTestDatabase, DATABASE_KINDS } from '../support/databases.js';
import { startFakeGitHub, type FakeGitHub } from '../support/fake-github/server.js';
import { FakeClock, openOnFake, sha, BOT_LOGIN } from '../support/github-harness.js';
import { openDatabase, type Db } from '../../src/ledger/db.js';
import { migrateToLatest } from '../../src/ledger/migrations.js';
import { createLedger } from '../../src/ledger/ledger.js';
import { dueTasks } from '../../src/ledger/poll-state.js';
import { createGitHub, type CreateGitHubOptions } from '../../src/github/client.js';
import { createPoller, type PollDeps } from '../../src/app/poll.js';
import type { Evaluator } from '../../src/app/evaluate.js';
import type { Ledger } from '../../src/app/ledger-port.js';

const REPO = 'acme/shop';
const silent = { debug() {}, info() {}, warn() {}, error() {} };

async function ledgerOn(kind: 'sqlite' | 'postgres', clock: FakeClock) {
  const testDb = await createTestDatabase(kind);
  const db = openDatabase(testDb.url);
  await migrateToLatest(db.kysely, kind);
  return {
    db,
    ledger: createLedger(db, clock),
    url: testDb.url,
    async close() {
      await db.close();
      await testDb.drop();
    },
  };
}

async function openTasks(ledger: Ledger, numbers: number[]) {
  const ids: number[] = [];
  for (const n of numbers) {
    const r = await ledger.createTask({
      work: 'shop',
      repository: REPO,
      pullRequest: n,
      branch: `agent/${n}`,
      resumeRef: null,
    });
    ids.push((r as { task: { id: number } }).task.id);
  }
  return ids;
}

/** A poller on a real ledger and the fake GitHub, with an evaluator that only counts what it is offered. */
function pollerOn(
  ledger: Ledger,
  fake: FakeGitHub,
  clock: FakeClock,
  extra: Partial<PollDeps> = {},
  gh: Partial<CreateGitHubOptions> = {},
) {
  const offered: number[] = [];
  const evaluator = {
    evaluate: async () => {
      offered.push(1);
      return {};
    },
    reofferRejections: async () => [],
  } as unknown as Evaluator;
  const github = createGitHub({
    apiUrl: fake.url,
    auth: { kind: 'token', token: fake.addUserToken(BOT_LOGIN) },
    throttle: { spaceWrites: false },
    retry: { backoffUnitMs: 1 },
    etags: ledger,
    ...gh,
  });
  const poller = createPoller({
    ledger,
    host: github,
    logger: silent,
    clock,
    evaluator,
    works: [],
    intervalMs: 120_000,
    ...extra,
  });
  return { poller, github, offered };
}

for (const kind of DATABASE_KINDS) {
  describe(`the poll at scale (${kind})`, () => {
    test('N3: the due-Task query is answered from the tasks_poll_due index (EXPLAIN)', async () => {
      const clock = new FakeClock();
      const l = await ledgerOn(kind, clock);
      try {
        const query = dueTasks(l.db.kysely, '2026-12-01T10:00:00.000Z', '2026-12-01T09:40:00.000Z', 100).compile();
        // A handful of rows is cheaper to scan; the question is whether the index serves the query.
        // One connection, so PostgreSQL's setting applies to the EXPLAIN.
        const plan = await l.db.kysely.connection().execute(async (c) => {
          if (kind === 'postgres') await sql`set enable_seqscan = off`.execute(c);
          const explain = kind === 'sqlite' ? 'explain query plan' : 'explain';
          const rows = await c.executeQuery<Record<string, string>>({
            ...query,
            sql: `${explain} ${query.sql}`,
          } as never);
          return rows.rows.map((r) => (kind === 'sqlite' ? r.detail : r['QUERY PLAN'])).join('\n');
        });
        assert.match(plan, /tasks_poll_due/, plan);
      } finally {
        await l.close();
      }
    });

    test('N3/E1: due Tasks are claimed in slices by the lease — never read first, each once per lease; passing ones only when stale', async () => {
      const clock = new FakeClock();
      const l = await ledgerOn(kind, clock);
      try {
        const ids = await openTasks(l.ledger, [1, 2, 3, 4, 5]);
        await l.ledger.markPolledSeen(ids[0]!, 'x'); // read once already: last in line
        await l.ledger.setParked(ids[4]!, true); // parked: never due
        const claim = (limit: number) =>
          l.ledger.claimDuePolls({
            limit,
            leaseUntil: '2026-11-30T08:01:48.000Z',
            passingPolledBefore: '2026-11-30T07:40:00.000Z',
          });
        const first = await claim(2);
        assert.deepEqual(
          first.map((c) => c.task.id),
          [ids[1], ids[2]],
        );
        assert.deepEqual(
          first.map((c) => c.signature),
          [null, null],
        );
        const second = await claim(2);
        assert.deepEqual(
          second.map((c) => [c.task.id, c.signature]),
          [
            [ids[3], null],
            [ids[0], 'x'],
          ],
        );
        assert.deepEqual(await claim(2), [], 'every due Task is leased');
        clock.advance(120_000); // the leases ran out
        await l.ledger.advanceHead(ids[1]!, sha('a'), clock.now().toISOString(), 'pending');
        await l.ledger.setCiStateForHead(ids[1]!, sha('a'), 'passing');
        await l.ledger.markPolledSeen(ids[1]!, 'y');
        const third = await l.ledger.claimDuePolls({
          limit: 10,
          leaseUntil: '2026-11-30T08:03:48.000Z',
          passingPolledBefore: '2026-11-30T07:42:00.000Z',
        });
        assert.ok(!third.some((c) => c.task.id === ids[1]), 'a passing Task read just now is not due');
        assert.equal(third.length, 3);
      } finally {
        await l.close();
      }
    });

    test('N3: conditional answers live in the ledger — a second client (a replica, a restart) is answered 304', async () => {
      const clock = new FakeClock();
      const l = await ledgerOn(kind, clock);
      const fake = await startFakeGitHub();
      try {
        fake.addPull(REPO, 7, { headSha: sha('a'), labels: ['x'] });
        const client = () => pollerOn(l.ledger, fake, clock).github;
        const a = await client().getPullRequest(REPO, 7);
        const b = await client().getPullRequest(REPO, 7);
        assert.deepEqual(b, a);
        assert.deepEqual(
          fake.requestsTo(/\/pulls\/7$/).map((r) => [r.status, r.headers['if-none-match'] !== undefined]),
          [
            [200, false],
            [304, true],
          ],
        );
        assert.equal(fake.spend.rest, 1, 'the 304 is free');
        assert.equal(await l.ledger.pruneEtags('2999-01-01T00:00:00.000Z'), 1, 'kept in the ledger');
      } finally {
        await fake.close();
        await l.close();
      }
    });

    test('N3: with bulk reads, a tick reads unchanged pull requests by one GraphQL glance, and only the changed or red in full', async () => {
      const fake = await startFakeGitHub();
      const clock = new FakeClock();
      fake.state.now = () => clock.now();
      const token = fake.addUserToken(BOT_LOGIN);
      const github = createGitHub({
        apiUrl: fake.url,
        auth: { kind: 'token', token },
        throttle: { spaceWrites: false },
        retry: { backoffUnitMs: 1 },
        bulkReads: true,
      });
      const h = await openOnFake(kind, { fake, clock, token }, { adapters: { github } });
      try {
        for (const n of [11, 12, 13]) {
          await h.api('POST', '/api/tasks', { repository: REPO, pullRequest: n, branch: `agent/${n}` });
          fake.addPull(REPO, n, { headSha: sha(String(n - 10)), headRef: `agent/${n}` });
          fake.addCheckRun(REPO, sha(String(n - 10)), {
            name: 'test',
            status: n === 11 ? 'completed' : 'in_progress',
            conclusion: n === 11 ? 'failure' : null,
            outputSummary: n === 11 ? 'expected 1 to be 2' : null,
          });
        }
        const graphqlBodies = () => fake.requestsTo(/graphql$/).map((r) => (r.body as { query: string }).query);
        const readIn = (query: string) => [...query.matchAll(/pr(\d+): pullRequest/g)].map((m) => Number(m[1]));

        await h.tick();
        assert.equal(h.runner.starts.length, 1, 'the red head resumed the agent, from the bulk reading alone');
        assert.match(h.runner.starts[0]!.prompt, /expected 1 to be 2/);
        assert.equal(
          fake.requestsTo(/\/pulls\/1[23]$|\/commits\/[0-9a-f]{40}\/(check-runs|status)/).length,
          0,
          'no REST read of the pull requests or their heads’ checks',
        );
        let [glance, reading] = graphqlBodies();
        assert.deepEqual(readIn(glance!), [11, 12, 13]);
        assert.deepEqual(readIn(reading!), [11, 12, 13], 'never read in full before');

        fake.clearRequests();
        clock.advance(120_000);
        await h.tick();
        [glance, reading] = graphqlBodies();
        assert.deepEqual(readIn(glance!), [11, 12, 13]);
        assert.deepEqual(
          readIn(reading!),
          [11],
          'only the red head (re-offered each tick); the pending two are unchanged',
        );

        fake.clearRequests();
        clock.advance(120_000);
        fake.setHead(REPO, 13, sha('9'));
        fake.addCheckRun(REPO, sha('9'), { name: 'test', status: 'completed', conclusion: 'success' });
        await h.tick();
        [, reading] = graphqlBodies();
        assert.deepEqual(readIn(reading!), [11, 13], 'the pushed one is read in full');
        const view = (await h.api('GET', `/api/tasks?repository=${REPO}`)).body.tasks.find(
          (t: any) => t.pullRequest === 13,
        );
        assert.equal(view.ciHeadSha, sha('9'));
        assert.equal(view.ciState, 'passing');
        assert.equal(h.runner.starts.length, 1);

        // A person turns the loop off for a quiet pull request: its Task moved, so it is read in full once.
        clock.advance(120_000);
        const quiet = (await h.api('GET', `/api/tasks?repository=${REPO}`)).body.tasks.find(
          (t: any) => t.pullRequest === 12,
        );
        assert.equal((await h.api('PUT', `/api/tasks/${quiet.id}/loop`, { on: false })).status, 200);
        fake.clearRequests();
        await h.tick();
        [, reading] = graphqlBodies();
        assert.deepEqual(readIn(reading!), [11, 12]);
        fake.clearRequests();
        clock.advance(120_000);
        await h.tick();
        [, reading] = graphqlBodies();
        assert.deepEqual(readIn(reading!), [11], 'once');
      } finally {
        await h.close();
        fake.assertNoViolations();
        await fake.close();
      }
    });

    test('N3: a tick does not wait on the hand-off writes; they run after it, on their own queue', async () => {
      const clock = new FakeClock();
      const l = await ledgerOn(kind, clock);
      const fake = await startFakeGitHub();
      try {
        await openTasks(l.ledger, [21, 22]);
        for (const n of [21, 22]) fake.addPull(REPO, n, { headSha: sha(String(n - 20)) });
        let release: () => void = () => undefined;
        const gate = new Promise<void>((r) => (release = r));
        const wrote: number[] = [];
        const { poller } = pollerOn(l.ledger, fake, clock, {
          handoff: {
            sync: async (task) => {
              await gate; // a write GitHub is pacing
              wrote.push(task.pullRequest);
            },
          },
        });
        const report = await poller.tick();
        assert.equal(report.polled, 2);
        assert.deepEqual(wrote, [], 'the tick ended before any write');
        release();
        await poller.drain();
        assert.deepEqual(wrote.sort(), [21, 22]);
      } finally {
        await fake.close();
        await l.close();
      }
    });

    test('E4/N3: near the rate limit a tick polls fewer Tasks, oldest read first, and the rest wait for the next', async () => {
      const clock = new FakeClock();
      const l = await ledgerOn(kind, clock);
      // 60 requests an hour, 20 % kept back: about one request a tick to spend.
      const fake = await startFakeGitHub({ rateLimit: { limit: 60 } });
      fake.state.now = () => clock.now();
      try {
        const ids = await openTasks(l.ledger, [31, 32, 33, 34, 35, 36]);
        for (const n of [31, 32, 33, 34, 35, 36]) fake.addPull(REPO, n, { headSha: sha(String(n - 30)) });
        let deferred = 0;
        const { poller, github } = pollerOn(l.ledger, fake, clock, { sliceSize: 2, observeDeferred: () => deferred++ });
        await github.getPullRequest(REPO, 31); // an earlier answer told the limit
        const first = await poller.tick();
        assert.equal(first.polled, 2, 'one slice, then the budget was spent');
        assert.equal(first.deferred, true);
        assert.equal(deferred, 1);
        assert.ok(github.rateLimits!().some((r) => r.resource === 'core' && r.limit === 60));
        const polled = async () =>
          (await Promise.all(ids.map((id) => l.ledger.getTask(id)))).map((t) => (t!.polledAt === null ? 0 : 1));
        assert.deepEqual(await polled(), [1, 1, 0, 0, 0, 0]);
        clock.advance(120_000);
        const second = await poller.tick();
        assert.equal(second.polled, 2);
        assert.deepEqual(await polled(), [1, 1, 1, 1, 0, 0], 'the never-read ones first');
      } finally {
        await fake.close();
        await l.close();
      }
    });
  });
}

test('N3: branch protection is read once per base branch and kept with its answer, 404 included', async () => {
  const fake = await startFakeGitHub();
  try {
    const token = fake.addUserToken(BOT_LOGIN);
    fake.setRequiredChecks(REPO, 'release', ['test']);
    const kept = createGitHub({ apiUrl: fake.url, auth: { kind: 'token', token } });
    for (let i = 0; i < 3; i++) {
      assert.equal(await kept.requiredChecks(REPO, 'main'), null);
      assert.deepEqual(await kept.requiredChecks(REPO, 'release'), ['test']);
    }
    assert.deepEqual(
      fake.requestsTo(/protection\/required_status_checks$/).map((r) => r.status),
      [404, 200],
      'one read per base branch',
    );
    fake.clearRequests();
    const every = createGitHub({ apiUrl: fake.url, auth: { kind: 'token', token }, protectionTtlSeconds: 0 });
    await every.requiredChecks(REPO, 'main');
    await every.requiredChecks(REPO, 'main');
    assert.equal(fake.requestsTo(/protection/).length, 2, 'an expiry of 0 reads every time');
  } finally {
    await fake.close();
  }
});

test('N3/E1: two replicas on one PostgreSQL database split the due Tasks: each pull request is glanced at once', async () => {
  const clock = new FakeClock();
  const l = await ledgerOn('postgres', clock);
  const other: Db = openDatabase(l.url);
  const fake = await startFakeGitHub();
  fake.state.now = () => clock.now();
  try {
    const numbers = Array.from({ length: 40 }, (_, i) => 100 + i);
    await openTasks(l.ledger, numbers);
    for (const n of numbers) fake.addPull(REPO, n, { headSha: sha(String(n % 10)) });
    const a = pollerOn(l.ledger, fake, clock, { sliceSize: 5 }, { bulkReads: true });
    const b = pollerOn(createLedger(other, clock), fake, clock, { sliceSize: 5 }, { bulkReads: true });
    const [ra, rb] = await Promise.all([a.poller.tick(), b.poller.tick()]);
    assert.equal(ra.polled + rb.polled, numbers.length);
    const glanced = fake
      .requestsTo(/graphql$/)
      .map((r) => (r.body as { query: string }).query)
      .filter((q) => !q.includes('contexts('))
      .flatMap((q) => [...q.matchAll(/pr(\d+): pullRequest/g)].map((m) => Number(m[1])));
    assert.deepEqual(glanced.sort(), numbers, 'every pull request once, across both replicas');
    assert.equal(fake.requestsTo(/\/pulls\/\d+$/).length, 0);
  } finally {
    await fake.close();
    await other.close();
    await l.close();
  }
});

test('N3/E4: the metrics show the rate limit window and the ticks the poll cut short', async () => {
  const { createMetrics } = await import('../../src/metrics/metrics.js');
  const { parsePrometheus, valueOf } = await import('../support/prometheus.js');
  const m = createMetrics({ processMetrics: false });
  m.github.response(200, { resource: 'graphql', remaining: 4200, limit: 5000 });
  m.pollDeferred();
  m.pollDeferred();
  const s = parsePrometheus((await m.scrape()).body);
  assert.equal(valueOf(s, 'fixloop_github_rate_limit_remaining', { resource: 'graphql' }), 4200);
  assert.equal(valueOf(s, 'fixloop_github_rate_limit_limit', { resource: 'graphql' }), 5000);
  assert.equal(valueOf(s, 'fixloop_poll_deferred_total'), 2);
});
