// The red results held back because the base failed their check too (SPEC T1), on Kysely. The primary
// key makes a hold once per (Task, head, result) however many deliveries or replicas judge it.
import type { Kysely } from 'kysely';
import type { BaseHoldStore } from '../app/ledger-port.js';
import type { Database } from './schema.js';

export function createBaseHoldStore(k: Kysely<Database>, now: () => string): BaseHoldStore {
  return {
    async holdOnBase(taskId, headSha, resultKey, baseRef) {
      await k
        .insertInto('base_holds')
        .values({ task_id: taskId, head_sha: headSha, result_key: resultKey, base_ref: baseRef, created_at: now() })
        .onConflict((oc) => oc.columns(['task_id', 'head_sha', 'result_key']).doNothing())
        .execute();
    },

    async heldOnBase(taskId, headSha) {
      const rows = await k
        .selectFrom('base_holds')
        .select('result_key')
        .where('task_id', '=', taskId)
        .where('head_sha', '=', headSha)
        .execute();
      return rows.map((r) => r.result_key);
    },
  };
}
