// The poll's state on Kysely (SPEC E1, N3; decision 0031): due Tasks claimed in slices by the
// per-pull-request lease (one UPDATE … WHERE id IN (due slice), a compare-and-set on
// poll_lease_until, with SKIP LOCKED on PostgreSQL so two replicas take disjoint slices), the
// signature of each pull request's last reading, and the conditional-request answers (ETags).
import { sql, type Kysely } from 'kysely';
import type { EtagStore, PollStateStore } from '../app/poll-state-port.js';
import type { Dialect } from './db.js';
import type { Database } from './schema.js';
import { taskOf } from './rows.js';

/** The due slice, as the poll's claim selects it (served by tasks_poll_due; test/scenarios/poll-at-scale.test.ts). */
export function dueTasks(k: Kysely<Database>, at: string, passingPolledBefore: string, limit: number) {
  return (
    k
      .selectFrom('tasks')
      .select('id')
      .where('state', '=', 'open')
      .where('pr_state', '=', 'open')
      .where('parked_at', 'is', null)
      .where((eb) => eb.or([eb('poll_lease_until', 'is', null), eb('poll_lease_until', '<=', at)]))
      .where((eb) =>
        eb.or([
          eb('ci_state', '!=', 'passing'),
          eb('notice_at', 'is not', null),
          eb('polled_at', 'is', null),
          eb('polled_at', '<=', passingPolledBefore),
        ]),
      )
      // Never read first, on both databases (PostgreSQL would sort nulls last), then the oldest read.
      .orderBy(sql`coalesce(polled_at, '')`)
      .orderBy('id')
      .limit(limit)
  );
}

export function createPollStateStore(
  k: Kysely<Database>,
  now: () => string,
  dialect: Dialect,
): PollStateStore & EtagStore {
  return {
    async claimDuePolls({ limit, leaseUntil, passingPolledBefore }) {
      const at = now();
      const slice = dueTasks(k, at, passingPolledBefore, limit);
      // PostgreSQL: rows another replica is claiming right now are skipped, not waited for; the
      // outer condition re-checks the lease on the row as committed. SQLite has one writer.
      const rows = await k
        .updateTable('tasks')
        .set({ poll_lease_until: leaseUntil })
        .where('id', 'in', dialect === 'postgres' ? slice.forUpdate().skipLocked() : slice)
        .where((eb) => eb.or([eb('poll_lease_until', 'is', null), eb('poll_lease_until', '<=', at)]))
        .returningAll()
        .execute();
      return rows
        .sort((a, b) => (a.polled_at ?? '').localeCompare(b.polled_at ?? '') || a.id - b.id)
        .map((r) => ({
          task: taskOf(r),
          signature: r.poll_signature,
          movedSinceRead: r.polled_at !== null && r.updated_at > r.polled_at,
        }));
    },

    async markPolledSeen(taskId, signature) {
      await k
        .updateTable('tasks')
        .set({ polled_at: now(), poll_signature: signature })
        .where('id', '=', taskId)
        .execute();
    },

    async markPolledUnchanged(taskIds) {
      if (taskIds.length === 0) return;
      await k
        .updateTable('tasks')
        .set({ polled_at: now() })
        .where('id', 'in', [...taskIds])
        .execute();
    },

    async getEtag(key) {
      const r = await k
        .selectFrom('github_etags')
        .select(['etag', 'value', 'stored_at'])
        .where('key', '=', key)
        .executeTakeFirst();
      return r ? { etag: r.etag, value: r.value, storedAt: r.stored_at } : null;
    },

    async putEtag(key, etag, value) {
      const stored_at = now();
      await k
        .insertInto('github_etags')
        .values({ key, etag, value, stored_at })
        .onConflict((oc) => oc.column('key').doUpdateSet({ etag, value, stored_at }))
        .execute();
    },

    async pruneEtags(storedBefore) {
      const r = await k.deleteFrom('github_etags').where('stored_at', '<', storedBefore).executeTakeFirst();
      return Number(r.numDeletedRows);
    },
  };
}
