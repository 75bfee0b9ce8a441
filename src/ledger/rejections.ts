// Rejections on Kysely (SPEC F1, H2): the failing output or review text an attempt answers,
// written before anything is dispatched so the audit trail always has what the agent was told.
import type { Kysely } from 'kysely';
import type { RejectionStore } from '../app/ledger-port.js';
import type { Database } from './schema.js';
import { rejectionOf } from './rows.js';

export function createRejectionStore(k: Kysely<Database>, now: () => string): RejectionStore {
  return {
    async getRejection(id) {
      const r = await k.selectFrom('rejections').selectAll().where('id', '=', id).executeTakeFirst();
      return r ? rejectionOf(r) : null;
    },

    async createRejection(r) {
      const row = await k
        .insertInto('rejections')
        .values({
          task_id: r.taskId,
          source: r.source,
          head_sha: r.headSha,
          check_name: r.checkName,
          body: r.body,
          event_id: r.eventId,
          author: r.author === null ? null : JSON.stringify(r.author),
          created_at: now(),
          findings: r.findings ?? null,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      return rejectionOf(row);
    },

    async listRejections(taskId) {
      return (await k.selectFrom('rejections').selectAll().where('task_id', '=', taskId).orderBy('id').execute()).map(
        rejectionOf,
      );
    },
  };
}
