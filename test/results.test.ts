// SPEC V1: `GET /api/results` on a hand-made ledger answers what a person computes by hand. The history
// is written through the ledger's own methods (reds and attempts claimed, runs dispatched, spend
// reported, the poll's green, a person's resume, stop notices) at chosen times, on both databases.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestDatabase, DATABASE_KINDS } from './support/databases.js';
import { openDatabase } from '../src/ledger/db.js';
import { migrateToLatest } from '../src/ledger/migrations.js';
import { createLedger } from '../src/ledger/ledger.js';
import { createAgentLedger } from '../src/ledger/agent-ledger.js';
import { createResultsStore } from '../src/ledger/results.js';
import { createApi } from '../src/http/api.js';
import { readResults } from '../src/app/results.js';
import type { Ledger } from '../src/app/ledger-port.js';
import type { AgentLedger } from '../src/app/agent-port.js';
import type { Logger } from '../src/app/ports.js';
import Ajv2020 from 'ajv/dist/2020.js';
import { openApiDocument } from '../src/http/openapi.js';

const silent: Logger = { debug() {}, info() {}, warn() {}, error() {} };
const TOKEN = 'results-test-token';

/** The answer against `components.schemas.Results` of the served OpenAPI document: the shape `fixloop results` reads. */
function assertDocumentedShape(body: unknown): void {
  const doc = JSON.parse(JSON.stringify(openApiDocument)) as { components: { schemas: Record<string, unknown> } };
  const defs = JSON.parse(JSON.stringify(doc.components.schemas).replaceAll('#/components/schemas/', '#/$defs/'));
  const ajv = new Ajv2020.default({ strict: true, allowUnionTypes: true, allErrors: true });
  ajv.addFormat('date-time', (s: string) => !Number.isNaN(Date.parse(s)));
  const validate = ajv.compile({ $defs: defs, $ref: '#/$defs/Results' });
  assert.ok(validate(body), JSON.stringify(validate.errors, null, 2));
}

/** A clock the history sets by hand. */
function handClock() {
  let t = new Date('2026-10-01T00:00:00.000Z');
  return { now: () => t, set: (iso: string) => void (t = new Date(iso)) };
}

interface World {
  ledger: Ledger;
  agent: AgentLedger;
  clock: ReturnType<typeof handClock>;
}

/** A red of `check` on `sha` at `iso`, its attempt claimed and dispatched, and `spend` reported by its run. */
async function redAndAttempt(w: World, taskId: number, iso: string, sha: string, check: string, spend: number) {
  w.clock.set(iso);
  await w.ledger.advanceHead(taskId, sha, iso, 'red');
  const claim = await w.ledger.claimAttempt({
    taskId,
    coordinate: `ci:${sha}`,
    source: 'gate',
    headSha: sha,
    fingerprint: `fp1:${check}`,
    rejection: { checkName: check, body: `${check} failed`, eventId: null },
  });
  assert.equal(claim.kind, 'claimed');
  if (claim.kind !== 'claimed') return;
  const started = await w.ledger.beginDispatch(claim.attempt.id, 'claimed', `token-${claim.attempt.id}`);
  assert.ok(started);
  await w.agent.addSpend({ taskId, runId: started.run.id, model: spend, sandbox: 0, note: null });
  // The run ends and its attempt settles, so the pull request's one in-flight slot is free (K7).
  assert.ok(await w.agent.moveAttempt(claim.attempt.id, ['queued', 'running'], 'acknowledged'));
}

async function green(w: World, taskId: number, iso: string, sha: string) {
  w.clock.set(iso);
  await w.ledger.advanceHead(taskId, sha, iso, 'pending');
  await w.ledger.setCiStateForHead(taskId, sha, 'passing');
}

async function newTask(w: World, repository: string, pr: number): Promise<number> {
  const created = await w.ledger.createTask({
    work: 'acme',
    repository,
    pullRequest: pr,
    branch: `agent/${pr}`,
    resumeRef: null,
  });
  assert.ok('task' in created);
  return created.task.id;
}

for (const kind of DATABASE_KINDS) {
  describe(`GET /api/results on a hand-made ledger (${kind})`, () => {
    test('V1: the figures of November are the ones counted by hand', async () => {
      const tdb = await createTestDatabase(kind);
      const db = openDatabase(tdb.url);
      try {
        await migrateToLatest(db.kysely, db.dialect);
        const clock = handClock();
        const ledger = createLedger(db, clock);
        const w: World = { ledger, agent: createAgentLedger(db, ledger), clock };

        // A (acme/shop#1): red on `test`, one attempt (1.50), green 30 minutes later; then, two days on, a
        // person's commit moves the head off the green one.
        const a = await newTask(w, 'acme/shop', 1);
        await redAndAttempt(w, a, '2026-11-02T10:00:00.000Z', 'a1', 'test', 1.5);
        await green(w, a, '2026-11-02T10:30:00.000Z', 'a2');
        clock.set('2026-11-04T09:00:00.000Z');
        await ledger.advanceHead(a, 'a3', '2026-11-04T09:00:00.000Z', 'pending');

        // B (acme/shop#2): two attempts on `lint` (0.50, 0.70), the budget is spent and a person resumes
        // the agent; green after that: a green, but a person's.
        const b = await newTask(w, 'acme/shop', 2);
        await redAndAttempt(w, b, '2026-11-05T09:00:00.000Z', 'b1', 'lint', 0.5);
        await redAndAttempt(w, b, '2026-11-05T10:00:00.000Z', 'b2', 'lint', 0.7);
        clock.set('2026-11-05T11:00:00.000Z');
        assert.ok(
          await ledger.fileNotice({ taskId: b, reason: 'budget_spent', headSha: 'b2', message: () => 'stopped' }),
        );
        clock.set('2026-11-05T12:00:00.000Z');
        await ledger.recordDecisions([
          { taskId: b, outcome: 'acted', reason: 'resume', detail: 'a person (dashboard)' },
        ]);
        await green(w, b, '2026-11-05T13:00:00.000Z', 'b3');

        // C (acme/api#3): red on `test`, one attempt (2.00), green two hours later.
        const c = await newTask(w, 'acme/api', 3);
        await redAndAttempt(w, c, '2026-11-10T08:00:00.000Z', 'c1', 'test', 2);
        await green(w, c, '2026-11-10T10:00:00.000Z', 'c2');

        // D (acme/api#4): all in October, outside the period.
        const d = await newTask(w, 'acme/api', 4);
        await redAndAttempt(w, d, '2026-10-20T08:00:00.000Z', 'd1', 'test', 9);
        await green(w, d, '2026-10-20T09:00:00.000Z', 'd2');

        // E (acme/api#5): red on `build`, one attempt (1.00), the same failure again: handed off, never green.
        const e = await newTask(w, 'acme/api', 5);
        await redAndAttempt(w, e, '2026-11-20T08:00:00.000Z', 'e1', 'build', 1);
        clock.set('2026-11-20T09:00:00.000Z');
        assert.ok(
          await ledger.fileNotice({ taskId: e, reason: 'unchanged_failure', headSha: 'e1', message: () => 'same' }),
        );

        clock.set('2026-12-04T18:00:00.000Z');
        const store = createResultsStore(db.kysely, db.dialect);
        const api = createApi({
          ledger,
          logger: silent,
          works: [],
          apiToken: TOKEN,
          ready: async () => true,
          results: (input) =>
            readResults(
              { ledger: store, now: () => clock.now(), agent: 'command: claude-code-resume', currency: 'EUR' },
              input,
            ),
        });
        const res = await api.request('/api/results?from=2026-11-01&to=2026-11-30', {
          headers: { authorization: `Bearer ${TOKEN}` },
        });
        assert.equal(res.status, 200);
        const body = (await res.json()) as any;

        assertDocumentedShape(body);
        assert.deepEqual(body.period, { from: '2026-11-01T00:00:00.000Z', to: '2026-12-01T00:00:00.000Z' });
        assert.equal(body.currency, 'EUR');
        // By hand: A, B, C, E touched; A, B, C green; A and C without a person; 5 attempts, 5.70 spent.
        assert.deepEqual(
          {
            pullRequests: body.total.pullRequests,
            green: body.total.green,
            greenWithoutPerson: body.total.greenWithoutPerson,
            fixRate: body.total.fixRate,
            attempts: body.total.attempts,
            spend: body.total.spend,
            attemptsPerGreen: body.total.attemptsPerGreen,
            spendPerGreen: body.total.spendPerGreen,
            changedByPerson: body.total.changedByPerson,
          },
          {
            pullRequests: 4,
            green: 3,
            greenWithoutPerson: 2,
            fixRate: 0.5,
            attempts: 5,
            spend: 5.7,
            attemptsPerGreen: 2.5,
            spendPerGreen: 2.85,
            changedByPerson: 1,
          },
        );
        assert.deepEqual(body.total.timeToGreenMinutes, { median: 30, p90: 120, samples: [30, 120] });
        assert.deepEqual(body.total.handOffs, [
          { reason: 'budget_spent', count: 1 },
          { reason: 'unchanged_failure', count: 1 },
        ]);
        assert.deepEqual(
          body.byRepository.map((r: any) => [r.repository, r.pullRequests, r.greenWithoutPerson, r.attempts, r.spend]),
          [
            ['acme/api', 2, 1, 2, 3],
            ['acme/shop', 2, 1, 3, 2.7],
          ],
        );
        assert.deepEqual(
          body.byAgent.map((r: any) => [r.agent, r.pullRequests]),
          [['command: claude-code-resume', 4]],
        );
        assert.deepEqual(body.costliestChecks, [
          { check: 'test', attempts: 2, spend: 3.5, pullRequests: 2 },
          { check: 'lint', attempts: 2, spend: 1.2, pullRequests: 1 },
          { check: 'build', attempts: 1, spend: 1, pullRequests: 1 },
        ]);

        // The same through `period=`: the last 7 days hold nothing of this history.
        const week = (await (
          await api.request('/api/results?period=7d', { headers: { authorization: `Bearer ${TOKEN}` } })
        ).json()) as any;
        assert.equal(week.total.pullRequests, 0);
        // October holds D alone.
        const october = (await (
          await api.request('/api/results?from=2026-10-01&to=2026-10-31', {
            headers: { authorization: `Bearer ${TOKEN}` },
          })
        ).json()) as any;
        assert.equal(october.total.pullRequests, 1);
        assert.equal(october.total.spend, 9);
        assert.deepEqual(october.total.timeToGreenMinutes.samples, [60]);
      } finally {
        await db.close();
        await tdb.drop();
      }
    });

    test('V1: a period that cannot be read is a 400 that says why, and the route needs the API token', async () => {
      const tdb = await createTestDatabase(kind);
      const db = openDatabase(tdb.url);
      try {
        await migrateToLatest(db.kysely, db.dialect);
        const clock = handClock();
        const ledger = createLedger(db, clock);
        const store = createResultsStore(db.kysely, db.dialect);
        const api = createApi({
          ledger,
          logger: silent,
          works: [],
          apiToken: TOKEN,
          ready: async () => true,
          results: (input) =>
            readResults({ ledger: store, now: () => clock.now(), agent: 'http', currency: 'USD' }, input),
        });
        const auth = { headers: { authorization: `Bearer ${TOKEN}` } };
        const bad = await api.request('/api/results?from=2026-11-30&to=2026-11-01', auth);
        assert.equal(bad.status, 400);
        assert.match(((await bad.json()) as any).message, /before/);
        assert.equal((await api.request('/api/results?period=1y', auth)).status, 400);
        assert.equal((await api.request('/api/results')).status, 401);
      } finally {
        await db.close();
        await tdb.drop();
      }
    });
  });
}
