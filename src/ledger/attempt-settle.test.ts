// Settling an attempt that will never run is one write (NEVER_RUN_STATUSES): its status and its
// leaving flight (K7's one slot per pull request) cannot be torn apart by a crash; a claim past the
// budget and its notice are one transaction (C3, G1).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestDatabase, DATABASE_KINDS } from '../../test/support/databases.js';
import { openDatabase } from './db.js';
import { migrateToLatest } from './migrations.js';
import { createLedger } from './ledger.js';
import { createAgentLedger } from './agent-ledger.js';
import type { AgentLedger } from '../app/agent-port.js';
import type { Ledger, NoticeInput } from '../app/ledger-port.js';

async function withLedger(
  kind: 'sqlite' | 'postgres',
  f: (ledger: Ledger, agent: AgentLedger) => Promise<void>,
): Promise<void> {
  const tdb = await createTestDatabase(kind);
  const db = openDatabase(tdb.url);
  try {
    await migrateToLatest(db.kysely, db.dialect);
    const ledger = createLedger(db, { now: () => new Date('2026-11-30T10:00:00Z') });
    await f(ledger, createAgentLedger(db, ledger));
  } finally {
    await db.close();
    await tdb.drop();
  }
}

async function claim(ledger: Ledger, taskId: number, coordinate: string) {
  const c = await ledger.claimAttempt({
    taskId,
    coordinate,
    source: 'gate',
    headSha: 'a'.repeat(40),
    fingerprint: coordinate,
    rejection: { checkName: 'test', body: 'red', eventId: null },
  });
  assert.equal(c.kind, 'claimed');
  if (c.kind !== 'claimed') throw new Error('not claimed');
  return c.attempt.id;
}

async function newTask(ledger: Ledger, n = 7): Promise<number> {
  const created = await ledger.createTask({
    work: 'shop',
    repository: 'acme/shop',
    pullRequest: n,
    branch: `agent/fix-${n}`,
    resumeRef: null,
  });
  assert.ok('task' in created);
  return created.task.id;
}

const stateOf = async (ledger: Ledger, taskId: number, id: number) =>
  (await ledger.listAttempts(taskId)).find((a) => a.id === id);

function notice(taskId: number): NoticeInput {
  return {
    taskId,
    reason: 'budget_spent',
    headSha: 'a'.repeat(40),
    message: (used) => `fixloop stopped: the budget is spent (${used} attempts)`,
  };
}

for (const kind of DATABASE_KINDS) {
  describe(`settling an attempt that never runs (${kind})`, () => {
    for (const to of ['over_budget', 'not_dispatched'] as const) {
      test(`K7: a claim settled ${to} leaves flight in the same write, so the pull request can claim again`, async () => {
        await withLedger(kind, async (ledger) => {
          const taskId = await newTask(ledger);
          const id = await claim(ledger, taskId, 'sha-1');
          await assert.rejects(claim(ledger, taskId, 'sha-2'), 'one attempt in flight per pull request');
          assert.equal(await ledger.setAttemptStatus(id, ['claimed'], to, 'settled'), true);
          const a = await stateOf(ledger, taskId, id);
          assert.equal(a?.status, to);
          assert.equal(a?.state, 'acknowledged');
          await claim(ledger, taskId, 'sha-2');
        });
      });
    }

    test('a dispatch that goes ahead stays in flight; one whose lease lapsed (dispatch_unknown) leaves it', async () => {
      await withLedger(kind, async (ledger) => {
        const a = await newTask(ledger, 1);
        const b = await newTask(ledger, 2);
        const sent = await claim(ledger, a, 'sha-a');
        const lost = await claim(ledger, b, 'sha-b');
        assert.ok(await ledger.beginDispatch(sent, 'claimed', 'token-a'));
        assert.ok(await ledger.beginDispatch(lost, 'claimed', 'token-b'));
        assert.equal(await ledger.setAttemptStatus(sent, ['dispatching'], 'dispatched'), true);
        assert.equal((await stateOf(ledger, a, sent))?.state, 'queued');
        assert.equal(
          await ledger.expireDispatch(lost, '2026-11-30T10:00:00Z', 'the process died while dispatching'),
          true,
        );
        const after = await stateOf(ledger, b, lost);
        assert.deepEqual([after?.status, after?.state], ['dispatch_unknown', 'acknowledged']);
      });
    });

    test('dispatch_failed takes a queued attempt out of flight, and leaves a lifecycle that moved on where it is', async () => {
      await withLedger(kind, async (ledger, agent) => {
        const a = await newTask(ledger, 1);
        const b = await newTask(ledger, 2);
        const queued = await claim(ledger, a, 'sha-a');
        const movedOn = await claim(ledger, b, 'sha-b');
        for (const id of [queued, movedOn]) assert.ok(await ledger.beginDispatch(id, 'claimed', `token-${id}`));
        // The agent reported before the dispatch was settled: its lifecycle is past queued.
        assert.ok(await agent.moveAttempt(movedOn, ['queued'], 'awaiting_progress'));
        for (const id of [queued, movedOn])
          assert.equal(await ledger.setAttemptStatus(id, ['dispatching'], 'dispatch_failed', 'runner refused'), true);
        assert.equal((await stateOf(ledger, a, queued))?.state, 'acknowledged');
        assert.equal((await stateOf(ledger, b, movedOn))?.state, 'awaiting_progress');
      });
    });

    test('C3/G1: settleOverBudget settles the claim and files the notice together; a second settle finds it settled', async () => {
      await withLedger(kind, async (ledger) => {
        const taskId = await newTask(ledger);
        const id = await claim(ledger, taskId, 'sha-1');
        const first = await ledger.settleOverBudget(id, 'past the budget', notice(taskId));
        assert.equal(first.settled, true);
        assert.equal(first.notice?.reason, 'budget_spent');
        assert.deepEqual(
          [(await stateOf(ledger, taskId, id))?.status, (await stateOf(ledger, taskId, id))?.state],
          ['over_budget', 'acknowledged'],
        );
        const again = await ledger.settleOverBudget(id, 'past the budget', notice(taskId));
        assert.deepEqual(again, { settled: false, notice: null });
        assert.equal((await ledger.listNotices()).length, 1);
      });
    });

    test('G1: the notice counts the attempts in the transaction that files it, claims committed after the caller looked included', async () => {
      await withLedger(kind, async (ledger) => {
        const taskId = await newTask(ledger);
        const first = await claim(ledger, taskId, 'sha-1');
        const input = notice(taskId); // composed while one attempt existed
        assert.equal(await ledger.setAttemptStatus(first, ['claimed'], 'not_dispatched', 'settled'), true);
        const second = await claim(ledger, taskId, 'sha-2');
        const settled = await ledger.settleOverBudget(second, 'past the budget', input);
        assert.equal(settled.notice?.attemptsUsed, 2);
        assert.equal(settled.notice?.message, 'fixloop stopped: the budget is spent (2 attempts)');
        assert.equal((await ledger.getNotice(taskId))?.attemptsUsed, 2);
      });
    });

    test('C3/G1: a notice filed already leaves the settle with no second notice', async () => {
      await withLedger(kind, async (ledger) => {
        const taskId = await newTask(ledger);
        assert.ok(await ledger.fileNotice({ ...notice(taskId), reason: 'unchanged_failure' }));
        const id = await claim(ledger, taskId, 'sha-1');
        const settled = await ledger.settleOverBudget(id, 'past the budget', notice(taskId));
        assert.deepEqual(settled, { settled: true, notice: null });
        assert.equal((await ledger.listNotices()).length, 1);
      });
    });

    test('C3/G1: when the notice cannot be written, the claim is not settled either (one transaction)', async () => {
      await withLedger(kind, async (ledger) => {
        const taskId = await newTask(ledger);
        const id = await claim(ledger, taskId, 'sha-1');
        // A notice row the database refuses (its message is required).
        await assert.rejects(
          ledger.settleOverBudget(id, 'past the budget', { ...notice(taskId), message: () => null as never }),
        );
        const a = await stateOf(ledger, taskId, id);
        assert.deepEqual([a?.status, a?.state], ['claimed', 'queued'], 'rolled back: still claimed, still in flight');
        assert.equal(await ledger.getNotice(taskId), null);
        assert.equal((await ledger.getTask(taskId))?.noticeAt, null, 'the notice marker rolled back too');
      });
    });
  });
}
