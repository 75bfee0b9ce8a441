// V4 (decision 0043): an interrupted run's attempt is offered again as the same attempt row, so the
// budget (C3 counts rows) is not spent. The database decides: the re-offer is one compare-and-set
// that only moves an attempt still running with no outcome, whose run has ended interrupted, and that
// was never offered again — so of replicas racing, one wins, and a run still running is never taken.
// Its second run is told apart by `runs.offer`, unique with the attempt (migration 0021).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestDatabase, DATABASE_KINDS } from '../../test/support/databases.js';
import { openDatabase, type Db } from './db.js';
import { migrateToLatest } from './migrations.js';
import { createLedger } from './ledger.js';
import { createAgentLedger } from './agent-ledger.js';

type Ledger = ReturnType<typeof createLedger>;

async function withLedger(
  kind: (typeof DATABASE_KINDS)[number],
  body: (ledger: Ledger, db: Db) => Promise<void>,
): Promise<void> {
  const tdb = await createTestDatabase(kind);
  const db = openDatabase(tdb.url);
  try {
    await migrateToLatest(db.kysely, db.dialect);
    await body(createLedger(db, { now: () => new Date() }), db);
  } finally {
    await db.close();
    await tdb.drop();
  }
}

/** An attempt dispatched and running on a Task of its own, its run running. */
async function runningAttempt(ledger: Ledger, db: Db, n: number) {
  const created = await ledger.createTask({
    work: 'shop',
    repository: 'acme/shop',
    pullRequest: n,
    branch: `agent/fix-${n}`,
    resumeRef: null,
  });
  assert.ok('task' in created);
  const c = await ledger.claimAttempt({
    taskId: created.task.id,
    coordinate: `sha-${n}`,
    source: 'gate',
    headSha: `sha-${n}`,
    fingerprint: `f${n}`,
    rejection: { checkName: 'test', body: 'red', eventId: null },
  });
  assert.equal(c.kind, 'claimed');
  const began = await ledger.beginDispatch(c.attempt.id, 'claimed', `token-${n}`);
  assert.ok(began);
  assert.ok(await ledger.setAttemptStatus(c.attempt.id, ['dispatching'], 'dispatched'));
  assert.ok(await createAgentLedger(db, ledger).moveAttempt(c.attempt.id, ['queued'], 'running'));
  await ledger.setRunState(began.run.id, ['queued'], 'running');
  return { id: c.attempt.id, taskId: created.task.id, runId: began.run.id };
}

for (const kind of DATABASE_KINDS) {
  describe(`interrupted runs (${kind})`, () => {
    test('V4: replicas racing to re-offer one interrupted attempt: exactly one wins, and the attempt row is the same', () =>
      withLedger(kind, async (ledger, db) => {
        const a = await runningAttempt(ledger, db, 1);
        assert.ok(await ledger.interruptRun(a.runId));
        await ledger.setRunState(a.runId, ['running'], 'failed', { interrupted: true });
        const wins = await Promise.all(Array.from({ length: 6 }, () => ledger.reofferInterrupted(a.id, a.runId)));
        assert.equal(wins.filter(Boolean).length, 1);
        const [row] = await ledger.listAttempts(a.taskId);
        assert.equal(row!.id, a.id);
        assert.equal(row!.status, 'claimed');
        assert.equal(row!.state, 'queued');
        assert.equal(row!.interruptions, 1);
        assert.equal(await ledger.countAttempts(a.taskId), 1, 'C3: no attempt spent');
        // Its second run: offer 1, the same attempt.
        const again = await ledger.beginDispatch(a.id, 'claimed', 'token-again');
        assert.ok(again);
        assert.equal(again.run.attemptId, a.id);
        assert.notEqual(again.run.id, a.runId);
        const offers = await db.kysely
          .selectFrom('runs')
          .select(['id', 'offer'])
          .where('attempt_id', '=', a.id)
          .execute();
        assert.deepEqual(offers.map((r) => Number(r.offer)).sort(), [0, 1]);
      }));

    test('V4: a run still running is never re-offered, even marked interrupted (a sibling replica may still run it)', () =>
      withLedger(kind, async (ledger, db) => {
        const a = await runningAttempt(ledger, db, 2);
        assert.ok(await ledger.interruptRun(a.runId));
        assert.equal(await ledger.reofferInterrupted(a.id, a.runId), false);
        assert.equal((await ledger.getRun(a.runId))!.state, 'running');
      }));

    test('V4: a run that ended on its own (not interrupted) is not re-offered', () =>
      withLedger(kind, async (ledger, db) => {
        const a = await runningAttempt(ledger, db, 3);
        await ledger.setRunState(a.runId, ['running'], 'failed');
        assert.equal(await ledger.reofferInterrupted(a.id, a.runId), false);
      }));

    test('V4: at most once per attempt: after its re-offer, a second interruption is not re-offered', () =>
      withLedger(kind, async (ledger, db) => {
        const a = await runningAttempt(ledger, db, 4);
        await ledger.setRunState(a.runId, ['running'], 'failed', { interrupted: true });
        assert.ok(await ledger.reofferInterrupted(a.id, a.runId));
        const again = await ledger.beginDispatch(a.id, 'claimed', 'token-4b');
        assert.ok(again);
        await createAgentLedger(db, ledger).moveAttempt(a.id, ['queued'], 'running');
        await ledger.setRunState(again.run.id, ['queued'], 'running');
        await ledger.setRunState(again.run.id, ['running'], 'failed', { interrupted: true });
        assert.equal(await ledger.reofferInterrupted(a.id, again.run.id), false);
      }));

    test('V4: an attempt whose agent reported its outcome is judged by it, never re-offered', () =>
      withLedger(kind, async (ledger, db) => {
        const a = await runningAttempt(ledger, db, 5);
        assert.ok(
          await createAgentLedger(db, ledger).recordOutcome(a.id, 'non_actionable', null, new Date().toISOString()),
        );
        await ledger.setRunState(a.runId, ['running'], 'failed', { interrupted: true });
        assert.equal(await ledger.reofferInterrupted(a.id, a.runId), false);
      }));

    test('V4: an older replica writes runs without an offer (0): still one run per attempt for it', () =>
      withLedger(kind, async (ledger, db) => {
        const a = await runningAttempt(ledger, db, 6);
        const now = new Date().toISOString();
        await assert.rejects(
          db.kysely
            .insertInto('runs')
            .values({
              task_id: a.taskId,
              action: 'resume',
              auto_resume: 1,
              state: 'queued',
              attempt_id: a.id,
              token_hash: 'older-replica',
              exit_code: null,
              log: '',
              created_at: now,
              updated_at: now,
            })
            .execute(),
        );
      }));
  });
}
