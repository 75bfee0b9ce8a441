// SPEC C3 and G1 under reconciliation (decision 0013): a claim that the count re-read inside it puts
// past the budget is settled once, by whichever gets to it first, the evaluation that claimed it
// or a periodic reconciliation pass. Either way the agent never starts, the refusal is recorded
// once, and exactly one notice is filed.
//
// The count goes past the budget between the evaluation's first read and its claim when another
// replica's attempt on the same pull request lands and finishes in between. The test makes that
// happen at the evaluator's `before_claim` point. A process killed after its claim leaves the same
// claim to start-up reconciliation, which files the notice too, unless the loop is stopped anyway.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { DATABASE_KINDS, createTestDatabase } from '../support/databases.js';
import { startHarness, REPO, SECRET, type Harness } from '../support/harness.js';
import { FakeClock } from '../support/github-harness.js';
import { checkRunPayload, delivery, post } from '../support/deliveries.js';
import { until } from '../support/server-process.js';
import { countReconcilePasses, type ReconcilePasses } from '../support/reconcile-passes.js';

const HEAD = 'c'.repeat(40);
/** Past the periodic pass's grace (a minute on SQLite, 30 s on PostgreSQL): the pass may take the claim. */
const PAST_GRACE_MS = 120_000;

interface Race {
  h: Harness;
  clock: FakeClock;
  taskId: number;
  passes: ReconcilePasses;
  /** What the test does while the evaluation holds its fresh claim. */
  afterClaim: (() => Promise<void>) | null;
}

async function setup(kind: 'sqlite' | 'postgres'): Promise<Race> {
  const clock = new FakeClock();
  const race = { clock, afterClaim: null } as Race;
  let otherReplicaDone = false;
  race.h = await startHarness(kind, {
    env: { TASK_CI_AUTO_RESUME_MAX_ATTEMPTS: '1' },
    adapters: {
      clock,
      adoptEveryMs: 20,
      fault: async (point) => {
        if (point === 'before_claim' && !otherReplicaDone) {
          otherReplicaDone = true;
          await finishedAttemptElsewhere(race.h, race.taskId);
        }
        if (point === 'after_claim' && race.afterClaim) await race.afterClaim();
      },
    },
  });
  const created = await race.h.api('POST', '/api/tasks', {
    repository: 'acme/shop',
    pullRequest: 7,
    branch: 'agent/fix',
  });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  race.taskId = created.body.id;
  race.passes = countReconcilePasses(race.h.app.ledger);
  return race;
}

/** Another replica's attempt on the Task, claimed and already finished (not in flight: K7 lets the next one claim). */
async function finishedAttemptElsewhere(h: Harness, taskId: number): Promise<void> {
  const other = await h.app.ledger.claimAttempt({
    taskId,
    coordinate: 'another-replica',
    source: 'gate',
    headSha: HEAD,
    fingerprint: 'fp-other',
    rejection: { checkName: null, body: 'red elsewhere', eventId: null },
  });
  assert.equal(other.kind, 'claimed');
  if (other.kind === 'claimed')
    await h.app.db.kysely
      .updateTable('attempts')
      .set({ status: 'dispatched', state: 'acknowledged' })
      .where('id', '=', other.attempt.id)
      .execute();
}

async function redPush(h: Harness): Promise<string> {
  const d = delivery(
    'check_run',
    checkRunPayload({
      repo: REPO,
      sha: HEAD,
      id: 501,
      name: 'test',
      pr: { number: 7, headSha: HEAD },
      output: 'FAIL src/a.test.ts\nexpected 1, got 2',
    }),
  );
  const res = await post(h.url, d, SECRET);
  assert.equal(res.status, 202, JSON.stringify(res.body));
  await h.app.settle();
  return d.id;
}

async function decisionsOf(
  r: Race,
): Promise<Array<{ outcome: string; reason: string | null; deliveryId: string | null; detail: string | null }>> {
  return (await r.h.api('GET', `/api/deliveries?taskId=${r.taskId}`)).body.decisions;
}

async function ourAttempt(r: Race) {
  const attempts = (await r.h.api('GET', `/api/tasks/${r.taskId}`)).body.attempts as Array<{
    coordinate: string;
    status: string;
  }>;
  return attempts.find((a) => a.coordinate !== 'another-replica');
}

/** Let the periodic pass look at the Task again, past its grace, and wait until it has. */
async function morePasses(r: Race): Promise<void> {
  r.clock.advance(PAST_GRACE_MS);
  await r.passes.oneAfterNow('a full periodic pass after the clock moved past the grace');
  await r.h.app.settle();
}

/**
 * One red push whose claim goes past the budget, then more passes: settled once, whoever did it —
 * the agent never starts, one refusal, one notice filed (budget_spent), one `noticed` row.
 */
async function redPushSettledOnce(r: Race) {
  const deliveryId = await redPush(r.h);
  await morePasses(r);
  assert.equal(r.h.runner.starts.length, 0, 'the agent never starts');
  assert.equal((await ourAttempt(r))?.status, 'over_budget');
  const decisions = await decisionsOf(r);
  const refusals = decisions.filter((d) => d.reason === 'over_budget_after_claim');
  assert.equal(refusals.length, 1, 'refused once');
  const notices = (await r.h.api('GET', '/api/inbox')).body.notices;
  assert.equal(notices.length, 1, 'the budget is spent: one notice');
  assert.equal(notices[0].reason, 'budget_spent');
  assert.equal(notices[0].headSha, HEAD);
  assert.equal(decisions.filter((d) => d.outcome === 'noticed').length, 1);
  return { deliveryId, decisions, refusal: refusals[0]! };
}

for (const kind of DATABASE_KINDS) {
  describe(`a claim past the budget, raced by reconciliation (${kind})`, () => {
    test('C3/G1: the evaluation settles its own claim first — refused once, one notice, no agent; later passes change nothing', async () => {
      const r = await setup(kind);
      try {
        const { deliveryId, refusal } = await redPushSettledOnce(r);
        assert.equal(refusal.deliveryId, deliveryId, 'refused by the evaluation of that delivery');
      } finally {
        await r.h.close();
      }
    });

    test('C3/G1: a reconciliation pass settles the claim first — the evaluation stops at its compare-and-set, and the pass files the one notice', async () => {
      const r = await setup(kind);
      try {
        r.afterClaim = async () => {
          // The evaluation is held here, its claim fresh; the pass finds it once it is past the grace.
          r.clock.advance(PAST_GRACE_MS);
          await until(
            'the periodic pass to settle the claim',
            async () => (await ourAttempt(r))?.status !== 'claimed',
            10_000,
            20,
          );
        };
        const { deliveryId, refusal, decisions } = await redPushSettledOnce(r);
        assert.equal(refusal.deliveryId, null, 'refused by the pass');
        assert.equal(refusal.detail, 'periodic reconciliation');
        const lost = decisions.find((d) => d.deliveryId === deliveryId && d.outcome === 'refused');
        assert.equal(lost?.reason, 'coordinate_claimed');
        assert.match(lost?.detail ?? '', /settled by reconciliation first/);
        assert.equal(
          decisions.find((d) => d.outcome === 'noticed')?.deliveryId,
          null,
          'the notice was filed by the pass',
        );
      } finally {
        await r.h.close();
      }
    });
  });
}

for (const kind of DATABASE_KINDS) {
  describe(`a claim past the budget left by a killed process, settled at start-up (${kind})`, () => {
    for (const stopped of [false, true]) {
      test(
        stopped
          ? 'C3/G1: with the loop stopped meanwhile, start-up settles it over_budget and files no notice (the gate would not go on)'
          : 'C3/G1: start-up settles it over_budget and files the one notice; the agent never starts',
        async () => {
          const db = await createTestDatabase(kind);
          try {
            const before = await startHarness(kind, { db, env: { TASK_CI_AUTO_RESUME_MAX_ATTEMPTS: '1' } });
            let taskId: number;
            try {
              const created = await before.api('POST', '/api/tasks', {
                repository: 'acme/shop',
                pullRequest: 7,
                branch: 'agent/fix',
              });
              assert.equal(created.status, 201, JSON.stringify(created.body));
              taskId = created.body.id;
              await finishedAttemptElsewhere(before, taskId);
              // The claim the killed process made, second on the Task with a budget of one, never dispatched.
              const left = await before.app.ledger.claimAttempt({
                taskId,
                coordinate: 'left-by-a-crash',
                source: 'gate',
                headSha: HEAD,
                fingerprint: 'fp',
                rejection: { checkName: null, body: 'red', eventId: null },
              });
              assert.equal(left.kind, 'claimed');
              if (stopped) assert.equal((await before.api('PUT', '/api/stop', { stopped: true })).status, 200);
            } finally {
              await before.close();
            }
            const after = await startHarness(kind, {
              db,
              env: { TASK_CI_AUTO_RESUME_MAX_ATTEMPTS: '1' },
              adapters: { reconcileGraceMs: 0 },
            });
            try {
              const attempts = (await after.api('GET', `/api/tasks/${taskId}`)).body.attempts as Array<{
                coordinate: string;
                status: string;
              }>;
              assert.equal(attempts.find((a) => a.coordinate === 'left-by-a-crash')?.status, 'over_budget');
              assert.equal(after.runner.starts.length, 0);
              const decisions = (await after.api('GET', `/api/deliveries?taskId=${taskId}`)).body.decisions as Array<{
                outcome: string;
                reason: string | null;
                detail: string | null;
              }>;
              assert.equal(
                decisions.filter(
                  (d) => d.reason === 'over_budget_after_claim' && d.detail === 'start-up reconciliation',
                ).length,
                1,
              );
              const notices = (await after.api('GET', '/api/inbox')).body.notices;
              assert.equal(notices.length, stopped ? 0 : 1);
              if (!stopped) assert.equal(notices[0].reason, 'budget_spent');
            } finally {
              await after.close();
            }
          } finally {
            await db.drop();
          }
        },
      );
    }
  });
}
