// Runs on Kysely (SPEC L1): a Task's agent runs, their state by compare-and-set, where each one's
// agent process lives (for stranded-run adoption, decisions 0011 and 0013), and a bounded log.
import { sql, type Kysely } from 'kysely';
import type { RunStore } from '../app/ledger-port.js';
import { parseProcessMark, type ProcessMark } from '../core/stranded-run.js';
import type { Run } from '../core/types.js';
import type { Database } from './schema.js';
import { runOf } from './rows.js';

/**
 * Runs still queued or running whose agent process was marked: what the stranded-run pass reads.
 * Literal states, not parameters: a planner can use the partial index runs_unfinished (migration
 * 0006) only when it can see that the query asks for what the index holds.
 */
export function unfinishedMarkedRuns(k: Kysely<Database>) {
  return k
    .selectFrom('runs')
    .selectAll()
    .where(sql<boolean>`state in ('queued', 'running')`)
    .where('process', 'is not', null)
    .orderBy('id');
}

export function createRunStore(k: Kysely<Database>, now: () => string): RunStore {
  return {
    async latestRun(taskId) {
      const r = await k
        .selectFrom('runs')
        .selectAll()
        .where('task_id', '=', taskId)
        .orderBy('id', 'desc')
        .executeTakeFirst();
      return r ? runOf(r) : null;
    },

    async listRuns(taskId) {
      return (await k.selectFrom('runs').selectAll().where('task_id', '=', taskId).orderBy('id').execute()).map(runOf);
    },

    async pageRuns({ taskId, state, before, limit }) {
      // Never the log column: a page of runs is a list, each run's log is GET /api/runs/{id}.
      let q = k
        .selectFrom('runs')
        .select([
          'id',
          'task_id',
          'action',
          'auto_resume',
          'state',
          'attempt_id',
          'agent_seen_at',
          'interrupted_at',
          'created_at',
        ])
        .orderBy('id', 'desc')
        .limit(limit);
      if (taskId !== undefined) q = q.where('task_id', '=', taskId);
      if (state !== undefined) q = q.where('state', '=', state);
      if (before !== undefined) q = q.where('id', '<', before);
      return (await q.execute()).map((r) =>
        runOf({
          ...r,
          token_hash: null,
          exit_code: null,
          log: '',
          updated_at: r.created_at,
          process: null,
          offer: 0,
          external_ref: null,
        }),
      );
    },

    async createPersonRun(taskId, tokenHash) {
      const at = now();
      return k.transaction().execute(async (trx) => {
        const busy = await trx
          .selectFrom('runs')
          .select('id')
          .where('task_id', '=', taskId)
          .where('state', 'in', ['queued', 'running'])
          .executeTakeFirst();
        if (busy) return null;
        const r = await trx
          .insertInto('runs')
          .values({
            task_id: taskId,
            action: 'resume',
            auto_resume: 0,
            state: 'queued',
            attempt_id: null,
            token_hash: tokenHash,
            exit_code: null,
            log: '',
            created_at: at,
            updated_at: at,
          })
          .returningAll()
          .executeTakeFirstOrThrow();
        return runOf(r);
      });
    },

    async getRun(id) {
      const r = await k.selectFrom('runs').selectAll().where('id', '=', id).executeTakeFirst();
      return r ? { ...runOf(r), tokenHash: r.token_hash } : null;
    },

    async setRunState(id, from, to, extra) {
      const r = await k
        .updateTable('runs')
        .set({
          state: to,
          updated_at: now(),
          ...(extra?.exitCode !== undefined ? { exit_code: extra.exitCode } : {}),
          ...(extra?.interrupted === true
            ? { interrupted_at: sql<string | null>`coalesce(interrupted_at, ${now()})` }
            : {}),
        })
        .where('id', '=', id)
        .where('state', 'in', [...from])
        .returningAll()
        .executeTakeFirst();
      return r ? runOf(r) : null;
    },

    async interruptRun(id) {
      const r = await k
        .updateTable('runs')
        .set({ interrupted_at: now(), updated_at: now() })
        .where('id', '=', id)
        .where('state', 'in', ['queued', 'running'])
        .where('interrupted_at', 'is', null)
        .executeTakeFirst();
      return Number(r.numUpdatedRows) === 1;
    },

    async setRunProcess(id, mark) {
      await k
        .updateTable('runs')
        .set({ process: JSON.stringify(mark), updated_at: now() })
        .where('id', '=', id)
        .where('state', 'in', ['queued', 'running'])
        .execute();
    },

    async markFoundAgent(runId, attemptId, mark, olderThan) {
      const r = await k
        .updateTable('runs')
        .set({ process: JSON.stringify(mark), updated_at: now() })
        .where('id', '=', runId)
        .where('process', 'is', null)
        .where('state', 'in', ['queued', 'running'])
        .where(({ exists, selectFrom }) =>
          exists(
            selectFrom('attempts')
              .select('id')
              .where('id', '=', attemptId)
              .where('run_id', '=', runId)
              .where('status', '=', 'dispatching')
              .where('updated_at', '<=', olderThan),
          ),
        )
        .executeTakeFirst();
      return Number(r.numUpdatedRows) === 1;
    },

    async runProcess(id) {
      const r = await k.selectFrom('runs').select('process').where('id', '=', id).executeTakeFirst();
      return parseProcessMark(r?.process ?? null);
    },

    async unfinishedRunsOn(host) {
      const rows = await unfinishedMarkedRuns(k).execute();
      const out: Array<{ run: Run; process: ProcessMark }> = [];
      for (const r of rows) {
        const process = parseProcessMark(r.process);
        if (process?.host === host) out.push({ run: runOf(r), process });
      }
      return out;
    },

    async appendRunLog(id, text, maxChars) {
      // One statement, so appends that race (the agent's output, fixloop's own lines) all land.
      // Bounded in the database too: once the cap is reached the rest is dropped.
      await k
        .updateTable('runs')
        .set({ log: sql<string>`log || substr(${text}, 1, ${maxChars} - length(log))` })
        .where('id', '=', id)
        .where(sql<number>`length(log)`, '<', maxChars)
        .execute();
    },

    async getRunLog(id) {
      const r = await k.selectFrom('runs').select('log').where('id', '=', id).executeTakeFirst();
      return r ? r.log : null;
    },

    async setRunExternalRef(id, ref) {
      const r = await k
        .updateTable('runs')
        .set({ external_ref: ref, updated_at: now() })
        .where('id', '=', id)
        .where('external_ref', 'is', null)
        .where('state', 'in', ['queued', 'running'])
        .executeTakeFirst();
      return Number(r.numUpdatedRows) === 1;
    },

    async runExternalRef(id) {
      const r = await k.selectFrom('runs').select('external_ref').where('id', '=', id).executeTakeFirst();
      return r?.external_ref ?? null;
    },

    async unfinishedRunByExternalRef(ref) {
      const r = await k
        .selectFrom('runs')
        .innerJoin('tasks', 'tasks.id', 'runs.task_id')
        .selectAll('runs')
        .select('tasks.repository as task_repository')
        .where('runs.external_ref', '=', ref)
        .where('runs.state', 'in', ['queued', 'running'])
        .orderBy('runs.id', 'desc')
        .executeTakeFirst();
      if (!r) return null;
      const { task_repository, ...row } = r;
      return { run: runOf(row), repository: task_repository };
    },

    async unfinishedExternalRuns() {
      const rows = await k
        .selectFrom('runs')
        .innerJoin('tasks', 'tasks.id', 'runs.task_id')
        .selectAll('runs')
        .select('tasks.repository as task_repository')
        .where('runs.external_ref', 'is not', null)
        .where('runs.state', 'in', ['queued', 'running'])
        .orderBy('runs.id')
        .execute();
      return rows.map(({ task_repository, ...row }) => ({
        run: runOf(row),
        ref: row.external_ref!,
        repository: task_repository,
      }));
    },

    async replaceRunToken(id, tokenHash) {
      const r = await k
        .updateTable('runs')
        .set({ token_hash: tokenHash, updated_at: now() })
        .where('id', '=', id)
        .where('state', 'in', ['queued', 'running'])
        .executeTakeFirst();
      return Number(r.numUpdatedRows) === 1;
    },
  };
}
