// SPEC M4: the board's query on both databases — a keyset page newest first that loses and repeats
// no Task, the loop state of each, the filters and search, attempts, spend and the last failure in
// one line — and the Inbox of current stops, oldest first.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createTestDatabase, DATABASE_KINDS, type TestDatabase } from '../support/databases.js';
import { openDatabase, type Db } from '../../src/ledger/db.js';
import { migrateToLatest } from '../../src/ledger/migrations.js';
import { createLedger } from '../../src/ledger/ledger.js';
import type { Ledger } from '../../src/app/ledger-port.js';

const AT = '2026-12-01T10:00:00.000Z';

for (const kind of DATABASE_KINDS) {
  describe(`the board query (${kind})`, () => {
    let tdb: TestDatabase;
    let db: Db;
    let ledger: Ledger;
    const ids: Record<string, number> = {};

    before(async () => {
      tdb = await createTestDatabase(kind);
      db = openDatabase(tdb.url);
      await migrateToLatest(db.kysely, db.dialect);
      ledger = createLedger(db, { now: () => new Date(AT) });
      for (let n = 1; n <= 25; n++) {
        const r = await ledger.createTask({
          work: 'shop',
          repository: n % 5 === 0 ? 'acme/site' : 'acme/shop',
          pullRequest: n,
          branch: `agent/fix-${n}`,
          resumeRef: null,
        });
        if ('task' in r && !('kind' in r)) ids[n] = r.task.id;
      }
      const k = db.kysely;
      // #1 needs a person, #2 is parked, #3 is off, #4 has a run going, #6 awaits progress.
      await ledger.fileNotice({ taskId: ids[1]!, reason: 'budget_spent', headSha: null, message: () => 'stopped' });
      await ledger.setParked(ids[2]!, true);
      await ledger.setLoopOff(ids[3]!, true);
      await k
        .insertInto('runs')
        .values({
          task_id: ids[4]!,
          action: 'resume',
          auto_resume: 1,
          state: 'running',
          attempt_id: null,
          token_hash: null,
          exit_code: null,
          log: '',
          created_at: AT,
          updated_at: AT,
        })
        .execute();
      for (const [n, state] of [
        [6, 'awaiting_progress'],
        [7, 'acknowledged'],
        [7, 'acknowledged'],
      ] as const) {
        await k
          .insertInto('attempts')
          .values({
            task_id: ids[n]!,
            coordinate: `c-${n}-${Math.random()}`,
            source: 'gate',
            head_sha: null,
            fingerprint: 'fp',
            status: 'dispatched',
            state,
            rejection_id: null,
            run_id: null,
            detail: null,
            created_at: AT,
            updated_at: AT,
          })
          .execute();
      }
      await k
        .insertInto('spends')
        .values({ task_id: ids[7]!, run_id: null, model: 1.25, sandbox: 0.5, note: null, created_at: AT })
        .execute();
      await ledger.createRejection({
        taskId: ids[7]!,
        source: 'gate',
        headSha: null,
        checkName: 'test',
        body: 'Tests failed\n\nold failure',
        eventId: null,
        author: null,
      });
      await ledger.createRejection({
        taskId: ids[7]!,
        source: 'gate',
        headSha: null,
        checkName: 'test',
        body: 'Tests failed\n\nFAIL src/b.test.ts > parses\n  at line 3',
        eventId: null,
        author: null,
      });
      await ledger.setTaskState(ids[8]!, 'done');
    });
    after(async () => {
      await db.close();
      await tdb.drop();
    });

    test('M4: keyset pages walk every Task newest first, none lost or repeated', async () => {
      const seen: number[] = [];
      let before: number | undefined;
      for (;;) {
        const page = await ledger.boardPage({ limit: 10, ...(before ? { before } : {}) });
        seen.push(...page.rows.map((r) => r.pullRequest));
        if (page.nextBefore === null) break;
        before = page.nextBefore;
      }
      assert.deepEqual(
        seen,
        Array.from({ length: 25 }, (_, i) => 25 - i),
      );
    });

    test('M4: each Task has its loop state, and the loop filter finds exactly those', async () => {
      const all = (await ledger.boardPage({ limit: 100 })).rows;
      const state = (n: number) => all.find((r) => r.pullRequest === n)!.loopState;
      assert.deepEqual([1, 2, 3, 4, 6, 7].map(state), [
        'needs_person',
        'parked',
        'off',
        'agent_running',
        'awaiting_progress',
        'idle',
      ]);
      for (const [loop, n] of [
        ['needs_person', 1],
        ['parked', 2],
        ['off', 3],
        ['agent_running', 4],
        ['awaiting_progress', 6],
      ] as const) {
        assert.deepEqual(
          (await ledger.boardPage({ limit: 100, loop })).rows.map((r) => r.pullRequest),
          [n],
          loop,
        );
      }
    });

    test('M4: attempts, spend and the failing line of the newest rejection', async () => {
      const [row] = (await ledger.boardPage({ limit: 1, search: '#7' })).rows;
      assert.equal(row?.pullRequest, 7);
      assert.equal(row.attemptsUsed, 2);
      assert.equal(row.spend, 1.75);
      assert.equal(row.lastFailure, 'test: FAIL src/b.test.ts > parses');
      const [none] = (await ledger.boardPage({ limit: 1, search: '9' })).rows;
      assert.deepEqual([none?.attemptsUsed, none?.spend, none?.lastFailure], [0, 0, null]);
    });

    test('M4: state, repository and search filters', async () => {
      assert.deepEqual(
        (await ledger.boardPage({ limit: 100, state: 'done' })).rows.map((r) => r.pullRequest),
        [8],
      );
      assert.deepEqual(
        (await ledger.boardPage({ limit: 100, repository: 'Acme/Site' })).rows.map((r) => r.pullRequest),
        [25, 20, 15, 10, 5],
      );
      assert.deepEqual(
        (await ledger.boardPage({ limit: 100, search: 'fix-1' })).rows.map((r) => r.pullRequest).sort((a, b) => a - b),
        [1, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19],
      );
      assert.deepEqual(
        (await ledger.boardPage({ limit: 100, search: '%' })).rows.length,
        25,
        'a typed wildcard matches as nothing special',
      );
    });

    test('issue 33: the summary strip counts open Tasks by what they need, and the spend today and this month', async () => {
      const k = db.kysely;
      await k.updateTable('tasks').set({ ci_state: 'red' }).where('id', 'in', [ids[9]!, ids[1]!]).execute();
      const run = await k.selectFrom('runs').select('id').where('task_id', '=', ids[4]!).executeTakeFirstOrThrow();
      await k
        .insertInto('spends')
        .values([
          {
            task_id: ids[9]!,
            run_id: null,
            model: 0.5,
            sandbox: 0,
            note: null,
            created_at: '2026-12-02T08:00:00.000Z',
          },
          { task_id: ids[9]!, run_id: null, model: 2, sandbox: 0, note: null, created_at: '2026-11-30T10:00:00.000Z' },
          {
            task_id: ids[4]!,
            run_id: run.id,
            model: 0.25,
            sandbox: 0.05,
            note: null,
            created_at: '2026-11-15T10:00:00.000Z',
          },
        ])
        .execute();
      const s = await ledger.boardSummary({
        dayStart: '2026-12-02T00:00:00.000Z',
        monthStart: '2026-12-01T00:00:00.000Z',
      });
      // #1 needs a person (its red is not "waiting"), #4 has a run, #2 parked and #3 off, #9 red and idle; #8 is done.
      assert.deepEqual(s, {
        needsYou: 1,
        beingFixed: 1,
        redWaiting: 1,
        parkedOrOff: 2,
        spendToday: 0.5,
        spendMonth: 2.25,
      });
      // Each run's last change, exit code and spend, for the Task page.
      const facts = await ledger.runFacts(ids[4]!);
      assert.equal(facts.length, 2, 'the registration run and the running one');
      assert.deepEqual(
        facts.find((f) => f.runId === run.id),
        { runId: run.id, updatedAt: AT, exitCode: null, spend: 0.3 },
      );
      assert.deepEqual(
        facts.filter((f) => f.runId !== run.id).map((f) => f.spend),
        [0],
      );
    });

    test('issue 33: the board order: needs-you first, then the latest activity, paged by offset without loss', async () => {
      await db.kysely
        .updateTable('tasks')
        .set({ updated_at: '2026-12-01T11:00:00.000Z' })
        .where('id', '=', ids[12]!)
        .execute();
      const first = await ledger.boardPage({ limit: 3, attention: { offset: 0 } });
      assert.deepEqual(
        first.rows.map((r) => r.pullRequest),
        [1, 12, 25],
      );
      assert.equal(first.rows[1]!.updatedAt, '2026-12-01T11:00:00.000Z');
      const seen: number[] = [];
      for (let offset = 0; ; offset += 10) {
        const page = await ledger.boardPage({ limit: 10, attention: { offset } });
        seen.push(...page.rows.map((r) => r.pullRequest));
        if (page.nextBefore === null) break;
      }
      assert.equal(seen.length, 25);
      assert.equal(new Set(seen).size, 25, 'none repeated');
    });

    test('issue 33: who set the global stop, and a mark that moves when a Task is registered', async () => {
      assert.equal(await ledger.stopSetBy(), null);
      await ledger.recordDecisions([
        { outcome: 'acted', reason: 'stop_all', detail: 'a person (api): set the global stop flag' },
      ]);
      assert.deepEqual(await ledger.stopSetBy(), { at: AT, detail: 'a person (api): set the global stop flag' });
      const mark = await ledger.liveMark();
      await ledger.createTask({ work: 'shop', repository: 'acme/shop', pullRequest: 99, branch: 'b', resumeRef: null });
      assert.notEqual(await ledger.liveMark(), mark, 'a Task registered without a decision still moves the mark');
    });

    test('M4: the Inbox lists the current stops only, and a granted attempt answers the notice', async () => {
      const inbox = await ledger.inboxPage({ limit: 10 });
      assert.deepEqual(
        inbox.rows.map((r) => [r.pullRequest, r.reason]),
        [[1, 'budget_spent']],
      );
      assert.deepEqual(await ledger.grantApproveOne(ids[1]!, 0, 3), { kind: 'granted' });
      assert.deepEqual((await ledger.inboxPage({ limit: 10 })).rows, []);
    });

    test('M4: the newest decision id moves with each row written', async () => {
      const before = await ledger.latestDecisionId();
      await ledger.recordDecisions([{ outcome: 'acted', reason: 'stop_all' }]);
      assert.ok((await ledger.latestDecisionId()) > before);
    });
  });
}
