// Attempts on Kysely (SPEC C2–C5, K7, decision 0014): the claim is the unique (task_id,
// coordinate) index, and one attempt in flight per pull request is the partial unique index
// attempts_one_in_flight; a claim refused by either is a value, never an error. Dispatch moves by
// compare-and-set, and its lease is the row's updated_at.
import { sql, type Kysely, type Transaction } from 'kysely';
import type { AttemptStore, ClaimInput, ClaimResult } from '../app/ledger-port.js';
import type { AttemptState } from '../core/attempt-state.js';
import { NEVER_RUN_STATUSES, type AttemptStatus, type UnsettledStatus } from '../core/types.js';
import { isDeadlock, isUniqueViolation } from './errors.js';
import { countAttemptsIn, fileNoticeIn } from './notices.js';
import type { Database } from './schema.js';
import { attemptOf, runOf } from './rows.js';

/**
 * Attempts in one of the unsettled statuses, untouched since `olderThan`, for the reconciliation
 * passes. The states are named as literals too, so both planners see the query fits the partial
 * index `attempts_unsettled` (migration 0007); `statuses` narrows it further.
 */
export function unsettledAttempts(k: Kysely<Database>, statuses: readonly UnsettledStatus[], olderThan: string) {
  return k
    .selectFrom('attempts')
    .selectAll()
    .where(sql<boolean>`status in ('claimed', 'dispatching')`)
    .where('status', 'in', [...statuses])
    .where('updated_at', '<=', olderThan)
    .orderBy('id');
}

/** The lifecycle of an attempt settled never to run: out of flight if it was queued (NEVER_RUN_STATUSES). */
const outOfFlight = sql<AttemptState>`case when state = 'queued' then 'acknowledged' else state end`;

export function createAttemptStore(
  k: Kysely<Database>,
  now: () => string,
  /** The notice sinks, for the notices the budget's settle and the dispatch's expiry file (outbox.ts). */
  sinks: readonly string[],
): AttemptStore {
  /** Compare-and-set of an attempt's status; one that never runs leaves flight in the same write. */
  async function setStatusIn(
    q: Kysely<Database> | Transaction<Database>,
    id: number,
    from: readonly AttemptStatus[],
    to: AttemptStatus,
    detail?: string,
  ): Promise<boolean> {
    const neverRuns = (NEVER_RUN_STATUSES as readonly AttemptStatus[]).includes(to);
    const r = await q
      .updateTable('attempts')
      .set({
        status: to,
        updated_at: now(),
        ...(neverRuns ? { state: outOfFlight } : {}),
        ...(detail !== undefined ? { detail } : {}),
      })
      .where('id', '=', id)
      .where('status', 'in', [...from])
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }

  /** One claim in one transaction (C2, C3, K7). */
  async function claimOnce(c: ClaimInput): Promise<ClaimResult> {
    const at = now();
    try {
      return await k.transaction().execute(async (trx) => {
        // C2: the unique (task_id, coordinate) index is the claim; a loser inserts nothing.
        const row = await trx
          .insertInto('attempts')
          .values({
            task_id: c.taskId,
            coordinate: c.coordinate,
            source: c.source,
            head_sha: c.headSha,
            fingerprint: c.fingerprint,
            status: c.noRun ? 'dispatched' : 'claimed',
            // The move it makes is the host's merge of the base, not an agent's push: its diff hash is
            // set here, so the push guard (K3, K4) never reads the base's changes as the agent's.
            ...(c.noRun ? { state: 'acknowledged', diff_hash: 'fixloop:branch-update' } : {}),
            rejection_id: null,
            run_id: null,
            detail: null,
            created_at: at,
            updated_at: at,
          })
          .onConflict((oc) => oc.columns(['task_id', 'coordinate']).doNothing())
          .returningAll()
          .executeTakeFirst();
        if (!row) return { kind: 'taken' as const };
        // H2: the failing output is a durable rejection before anything is dispatched.
        let rejectionId: number;
        if ('existingId' in c.rejection) rejectionId = c.rejection.existingId;
        else {
          const rej = await trx
            .insertInto('rejections')
            .values({
              task_id: c.taskId,
              source: c.source,
              head_sha: c.headSha,
              check_name: c.rejection.checkName,
              body: c.rejection.body,
              event_id: c.rejection.eventId,
              created_at: at,
              ...(c.rejection.queue ? { merge_queue: JSON.stringify(c.rejection.queue) } : {}),
            })
            .returning('id')
            .executeTakeFirstOrThrow();
          rejectionId = rej.id;
        }
        await trx.updateTable('attempts').set({ rejection_id: rejectionId }).where('id', '=', row.id).execute();
        // C3: re-read the count inside the claim's transaction.
        const attemptsCounted = await countAttemptsIn(trx, c.taskId);
        return {
          kind: 'claimed' as const,
          attempt: attemptOf({ ...row, rejection_id: rejectionId }),
          attemptsCounted,
        };
      });
    } catch (err) {
      // K7 across replicas: the coordinate's conflict is handled above, so the one unique index
      // left that can refuse this insert is attempts_one_in_flight. The transaction rolled back.
      if (isUniqueViolation(err)) return { kind: 'in_flight' };
      throw err;
    }
  }

  return {
    countAttempts: (taskId) => countAttemptsIn(k, taskId),

    async listAttempts(taskId) {
      return (await k.selectFrom('attempts').selectAll().where('task_id', '=', taskId).orderBy('id').execute()).map(
        attemptOf,
      );
    },

    async isClaimed(taskId, coordinate) {
      const r = await k
        .selectFrom('attempts')
        .select('id')
        .where('task_id', '=', taskId)
        .where('coordinate', '=', coordinate)
        .executeTakeFirst();
      return r !== undefined;
    },

    async lastAttempt(taskId, source) {
      const r = await k
        .selectFrom('attempts')
        .selectAll()
        .where('task_id', '=', taskId)
        .where('source', '=', source)
        .orderBy('id', 'desc')
        .executeTakeFirst();
      return r ? attemptOf(r) : null;
    },

    async claimAttempt(c): Promise<ClaimResult> {
      // C2 across replicas on PostgreSQL: the transaction PostgreSQL aborts in a deadlock between
      // racing claims rolled back whole, so it is claimed again and then sees the winner's row.
      for (let tries = 1; ; tries++) {
        try {
          return await claimOnce(c);
        } catch (err) {
          if (tries >= 3 || !isDeadlock(err)) throw err;
        }
      }
    },

    async beginDispatch(attemptId, from, tokenHash) {
      const at = now();
      return k.transaction().execute(async (trx) => {
        const moved = await trx
          .updateTable('attempts')
          .set({ status: 'dispatching', updated_at: at })
          .where('id', '=', attemptId)
          .where('status', '=', from)
          .returningAll()
          .executeTakeFirst();
        if (!moved) return null;
        // H1: a machine's resume is stamped as one; runs.attempt_id is unique, so never two runs.
        const run = await trx
          .insertInto('runs')
          .values({
            task_id: moved.task_id,
            action: 'resume',
            auto_resume: 1,
            state: 'queued',
            attempt_id: attemptId,
            // V4: a re-offered attempt's second run (unique on attempt and offer, migration 0021).
            offer: moved.interruptions,
            token_hash: tokenHash,
            exit_code: null,
            log: '',
            created_at: at,
            updated_at: at,
          })
          .returningAll()
          .executeTakeFirstOrThrow();
        await trx.updateTable('attempts').set({ run_id: run.id }).where('id', '=', attemptId).execute();
        return { attempt: attemptOf({ ...moved, run_id: run.id }), run: runOf(run) };
      });
    },

    setAttemptStatus: (id, from, to, detail) => setStatusIn(k, id, from, to, detail),

    async settleOverBudget(id, detail, notice) {
      return k.transaction().execute(async (trx) => {
        if (!(await setStatusIn(trx, id, ['claimed'], 'over_budget', detail))) return { settled: false, notice: null };
        return { settled: true, notice: notice ? await fileNoticeIn(trx, notice, now(), sinks) : null };
      });
    },

    async renewDispatch(id) {
      const r = await k
        .updateTable('attempts')
        .set({ updated_at: now() })
        .where('id', '=', id)
        .where('status', '=', 'dispatching')
        .executeTakeFirst();
      return Number(r.numUpdatedRows) === 1;
    },

    async expireDispatch(id, olderThan, detail) {
      // The lease is the row's updated_at: taken only if nobody renewed it since it was read.
      const r = await k
        .updateTable('attempts')
        .set({ status: 'dispatch_unknown', state: outOfFlight, updated_at: now(), detail })
        .where('id', '=', id)
        .where('status', '=', 'dispatching')
        .where('updated_at', '<=', olderThan)
        .executeTakeFirst();
      return Number(r.numUpdatedRows) === 1;
    },

    async failDispatch(id, runId, detail, lifecycle) {
      // One transaction: an attempt settled dispatch_failed with its run left `queued` would read as
      // a run in flight for ever (D: run_in_flight); a lifecycle the run's report moved on stays put.
      return k.transaction().execute(async (trx) => {
        const r = await trx
          .updateTable('attempts')
          .set({
            status: 'dispatch_failed',
            state: sql<AttemptState>`case when state = 'queued' then ${lifecycle} else state end`,
            updated_at: now(),
            detail,
          })
          .where('id', '=', id)
          .where('status', '=', 'dispatching')
          .executeTakeFirst();
        if (Number(r.numUpdatedRows) !== 1) return false;
        await trx
          .updateTable('runs')
          .set({ state: 'failed', updated_at: now() })
          .where('id', '=', runId)
          .where('state', '=', 'queued')
          .execute();
        return true;
      });
    },

    async expireDispatchNoticed(id, olderThan, detail, notice) {
      return k.transaction().execute(async (trx) => {
        const row = await trx
          .updateTable('attempts')
          .set({ status: 'dispatch_unknown', state: outOfFlight, updated_at: now(), detail })
          .where('id', '=', id)
          .where('status', '=', 'dispatching')
          .where('updated_at', '<=', olderThan)
          .returning(['run_id', 'outcome'])
          .executeTakeFirst();
        if (!row) return { expired: false, notice: null };
        if (row.run_id !== null)
          await trx
            .updateTable('runs')
            .set({ state: 'failed', updated_at: now() })
            .where('id', '=', row.run_id)
            .where('state', '=', 'queued')
            .execute();
        // I5: never re-sent, so a person is told — unless the agent's own outcome already settled it.
        const filed = notice && row.outcome === null ? await fileNoticeIn(trx, notice, now(), sinks) : null;
        return { expired: true, notice: filed };
      });
    },

    async reofferInterrupted(attemptId, runId) {
      const r = await k
        .updateTable('attempts')
        .set({ status: 'claimed', state: 'queued', interruptions: sql<number>`interruptions + 1`, updated_at: now() })
        .where('id', '=', attemptId)
        .where('run_id', '=', runId)
        .where('state', '=', 'running')
        .where('outcome', 'is', null)
        .where('interruptions', '=', 0)
        .where(({ exists, selectFrom }) =>
          exists(
            selectFrom('runs')
              .select('id')
              .where('id', '=', runId)
              .where('interrupted_at', 'is not', null)
              .where('state', 'not in', ['queued', 'running']),
          ),
        )
        .executeTakeFirst();
      return Number(r.numUpdatedRows) === 1;
    },

    async attemptsWithStatus(statuses, olderThan) {
      return (await unsettledAttempts(k, statuses, olderThan).execute()).map(attemptOf);
    },
  };
}
