// The Kysely side of the agent port (SPEC I1–I4, K6, K9). Lifecycle moves are compare-and-sets on
// `attempts.state`; the outcome is written only where none is (first write wins); one attempt in
// flight per pull request is the partial unique index of migration 0003, not this code.
import type { Selectable } from 'kysely';
import type { AttemptState, FixOutcome } from '../core/attempt-state.js';
import type { AgentLedger, AttemptLife } from '../app/agent-port.js';
import type { Run, RunState, Task } from '../core/types.js';
import type { AttemptsTable } from './schema.js';
import { attemptOf } from './rows.js';
import type { Db } from './db.js';
import type { Ledger } from '../app/ledger-port.js';

export function createAgentLedger(db: Db, ledger: Pick<Ledger, 'getTask' | 'getRun' | 'now'>): AgentLedger {
  const k = db.kysely;
  const lifeOf = (r: Selectable<AttemptsTable>): AttemptLife => ({
    attemptId: r.id,
    taskId: r.task_id,
    state: r.state as AttemptState,
    outcome: r.outcome as FixOutcome | null,
    outcomeReason: r.outcome_reason,
    outcomeAt: r.outcome_at,
    actionTakenAt: r.action_taken_at,
    baseline: r.baseline,
    diffHash: r.diff_hash,
    retryOf: r.retry_of,
    headSha: r.head_sha,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  });

  return {
    async runByTokenHash(tokenHash) {
      const r = await k
        .selectFrom('runs')
        .select(['id', 'task_id', 'attempt_id'])
        .where('token_hash', '=', tokenHash)
        .executeTakeFirst();
      if (!r) return null;
      const [run, task] = await Promise.all([ledger.getRun(r.id), ledger.getTask(r.task_id)]);
      if (!run || !task) return null;
      const a =
        r.attempt_id === null
          ? undefined
          : await k.selectFrom('attempts').selectAll().where('id', '=', r.attempt_id).executeTakeFirst();
      const { tokenHash: _hidden, ...plain } = run;
      return { run: plain as Run, task: task as Task, attempt: a ? attemptOf(a) : null };
    },

    async markAgentSeen(runId, at) {
      await k
        .updateTable('runs')
        .set({ agent_seen_at: at })
        .where('id', '=', runId)
        .where('agent_seen_at', 'is', null)
        .execute();
    },

    async life(attemptId) {
      const r = await k.selectFrom('attempts').selectAll().where('id', '=', attemptId).executeTakeFirst();
      return r ? lifeOf(r) : null;
    },

    async lives(taskId) {
      return (await k.selectFrom('attempts').selectAll().where('task_id', '=', taskId).orderBy('id').execute()).map(
        lifeOf,
      );
    },

    async livesInState(states) {
      return (
        await k
          .selectFrom('attempts')
          .selectAll()
          .where('state', 'in', [...states])
          .orderBy('id')
          .execute()
      ).map(lifeOf);
    },

    async moveAttempt(attemptId, from, to, extra) {
      const r = await k
        .updateTable('attempts')
        .set({
          state: to,
          updated_at: ledger.now(),
          ...(extra?.actionTakenAt !== undefined ? { action_taken_at: extra.actionTakenAt } : {}),
          ...(extra?.baseline !== undefined ? { baseline: extra.baseline } : {}),
        })
        .where('id', '=', attemptId)
        .where('state', 'in', [...from])
        .$if(extra?.withoutOutcome === true, (q) => q.where('outcome', 'is', null))
        .executeTakeFirst();
      return Number(r.numUpdatedRows) === 1;
    },

    async recordOutcome(attemptId, outcome, reason, at) {
      const r = await k
        .updateTable('attempts')
        .set({ outcome, outcome_reason: reason, outcome_at: at })
        .where('id', '=', attemptId)
        .where('outcome', 'is', null)
        .where('state', 'in', ['queued', 'running'])
        .executeTakeFirst();
      return Number(r.numUpdatedRows) === 1;
    },

    async setDiffHash(attemptId, hash) {
      await k.updateTable('attempts').set({ diff_hash: hash }).where('id', '=', attemptId).execute();
    },

    async markRetry(attemptId, retryOf) {
      await k.updateTable('attempts').set({ retry_of: retryOf }).where('id', '=', attemptId).execute();
    },

    async addSpend(s) {
      await k
        .insertInto('spends')
        .values({
          task_id: s.taskId,
          run_id: s.runId,
          model: s.model,
          sandbox: s.sandbox,
          note: s.note,
          created_at: ledger.now(),
        })
        .execute();
    },

    async spendTotals(taskId) {
      const s = await k
        .selectFrom('spends')
        .select((eb) => [
          eb.fn.coalesce(eb.fn.sum<number>('model'), eb.lit(0)).as('model'),
          eb.fn.coalesce(eb.fn.sum<number>('sandbox'), eb.lit(0)).as('sandbox'),
        ])
        .where('task_id', '=', taskId)
        .executeTakeFirstOrThrow();
      const c = await k
        .selectFrom('ci_usage')
        .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('minutes'), eb.lit(0)).as('minutes'))
        .where('task_id', '=', taskId)
        .executeTakeFirstOrThrow();
      return { model: Number(s.model), sandbox: Number(s.sandbox), ciMinutes: Number(c.minutes) };
    },

    async spendPerAttempt(taskId) {
      const rows = await k
        .selectFrom('spends')
        .innerJoin('runs', 'runs.id', 'spends.run_id')
        .select((eb) => [
          'runs.attempt_id',
          eb.fn.sum<number>(eb('spends.model', '+', eb.ref('spends.sandbox'))).as('total'),
        ])
        .where('spends.task_id', '=', taskId)
        .where('runs.attempt_id', 'is not', null)
        .groupBy('runs.attempt_id')
        .execute();
      return rows.map((r) => Number(r.total));
    },

    async setCiMinutes(taskId, headSha, minutes) {
      await k
        .insertInto('ci_usage')
        .values({ task_id: taskId, head_sha: headSha, minutes })
        .onConflict((oc) => oc.columns(['task_id', 'head_sha']).doUpdateSet({ minutes }))
        .execute();
    },

    async markHuman(taskId, at) {
      await k.updateTable('tasks').set({ human_at: at }).where('id', '=', taskId).execute();
    },

    async humanAt(taskId) {
      const r = await k.selectFrom('tasks').select('human_at').where('id', '=', taskId).executeTakeFirst();
      return r?.human_at ?? null;
    },
  };
}

export type { RunState };
