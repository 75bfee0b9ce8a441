// The dashboard's sessions on Kysely (SPEC M4, issue 31, decision 0046): one row per sign-in, keyed
// by a hash of its secret, on SQLite and PostgreSQL alike (migration 0022). Deleting a row is
// revoking it; every replica reads the same table.
import type { Kysely } from 'kysely';
import type { DashboardSessions } from '../app/dashboard-sessions-port.js';
import type { Database } from './schema.js';

export function createDashboardSessions(k: Kysely<Database>): DashboardSessions {
  return {
    async createSession(row) {
      await k
        .insertInto('dashboard_sessions')
        .values({
          secret_hash: row.hash,
          created_at: row.createdAt,
          last_seen_at: row.lastSeenAt,
          expires_at: row.expiresAt,
        })
        .execute();
    },

    async findSession(hash, now) {
      const r = await k
        .selectFrom('dashboard_sessions')
        .selectAll()
        .where('secret_hash', '=', hash)
        .where('expires_at', '>', now)
        .executeTakeFirst();
      return r
        ? { hash: r.secret_hash, createdAt: r.created_at, lastSeenAt: r.last_seen_at, expiresAt: r.expires_at }
        : null;
    },

    async touchSession(hash, at) {
      await k
        .updateTable('dashboard_sessions')
        .set({ last_seen_at: at })
        .where('secret_hash', '=', hash)
        .where('last_seen_at', '<', at)
        .execute();
    },

    async revokeSession(hash) {
      const r = await k.deleteFrom('dashboard_sessions').where('secret_hash', '=', hash).executeTakeFirst();
      return Number(r.numDeletedRows) > 0;
    },

    async revokeAllSessions() {
      const r = await k.deleteFrom('dashboard_sessions').executeTakeFirst();
      return Number(r.numDeletedRows);
    },

    async deleteExpiredSessions(now) {
      const r = await k.deleteFrom('dashboard_sessions').where('expires_at', '<=', now).executeTakeFirst();
      return Number(r.numDeletedRows);
    },
  };
}
