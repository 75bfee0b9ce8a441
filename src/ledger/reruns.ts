// Re-runs of a head's failed jobs on Kysely (issue 17, decision 0030): the claim is the unique
// (task_id, head_sha, ordinal) index, so of every evaluation and replica that asks for a head's n-th
// re-run one inserts and the others are told `taken`; the database arbitrates, never process memory.
// Whoever holds a row (`claimed`) asks GitHub; a row left `waiting` is taken up again by compare-and-set.
import type { Kysely, Selectable } from 'kysely';
import type { Rerun, RerunStatus, RerunStore } from '../app/ledger-port.js';
import { isUniqueViolation } from './errors.js';
import type { Database, RerunsTable } from './schema.js';

function rerunOf(r: Selectable<RerunsTable>): Rerun {
  return {
    id: r.id,
    taskId: r.task_id,
    headSha: r.head_sha,
    ordinal: r.ordinal,
    checkRunIds: JSON.parse(r.check_run_ids) as number[],
    reason: r.reason,
    status: r.status as RerunStatus,
    workflowRunIds: r.workflow_run_ids === null ? null : (JSON.parse(r.workflow_run_ids) as number[]),
    httpStatus: r.http_status,
    detail: r.detail,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

export function createRerunStore(k: Kysely<Database>, now: () => string): RerunStore {
  return {
    async listReruns(taskId, headSha) {
      const rows = await k
        .selectFrom('reruns')
        .selectAll()
        .where('task_id', '=', taskId)
        .where('head_sha', '=', headSha)
        .orderBy('ordinal')
        .execute();
      return rows.map(rerunOf);
    },

    async claimRerun(c) {
      const at = now();
      try {
        const row = await k
          .insertInto('reruns')
          .values({
            task_id: c.taskId,
            head_sha: c.headSha,
            ordinal: c.ordinal,
            check_run_ids: JSON.stringify([...c.checkRunIds]),
            reason: c.reason,
            status: 'claimed',
            workflow_run_ids: null,
            http_status: null,
            detail: null,
            created_at: at,
            updated_at: at,
          })
          .returningAll()
          .executeTakeFirstOrThrow();
        return { kind: 'claimed', rerun: rerunOf(row) };
      } catch (err) {
        // The one unique index of the table: another evaluation or replica holds this re-run.
        if (isUniqueViolation(err)) return { kind: 'taken' };
        throw err;
      }
    },

    async resumeRerun(id) {
      const row = await k
        .updateTable('reruns')
        .set({ status: 'claimed', updated_at: now() })
        .where('id', '=', id)
        .where('status', '=', 'waiting')
        .returningAll()
        .executeTakeFirst();
      return row ? rerunOf(row) : null;
    },

    async settleRerun(id, to, result) {
      const r = await k
        .updateTable('reruns')
        .set({
          status: to,
          workflow_run_ids: JSON.stringify([...result.workflowRunIds]),
          http_status: result.httpStatus,
          detail: result.detail,
          updated_at: now(),
        })
        .where('id', '=', id)
        .where('status', '=', 'claimed')
        .executeTakeFirst();
      return Number(r.numUpdatedRows) === 1;
    },
  };
}
