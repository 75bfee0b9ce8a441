// better-sqlite3 behind Kysely, with prepared statements reused: Kysely's SQLite driver prepares
// every query anew, and preparing is a measurable share of a delivery's cost (bench/). The
// connection is single and synchronous, so a cached statement is never used by two queries at once.
import type BetterSqlite3 from 'better-sqlite3';
import type { SqliteDatabase, SqliteStatement } from 'kysely';

export function withStatementCache(db: BetterSqlite3.Database, max = 256): SqliteDatabase {
  const cache = new Map<string, SqliteStatement>();
  return {
    close: () => db.close(),
    prepare(sql: string): SqliteStatement {
      const hit = cache.get(sql);
      if (hit) {
        // Refresh its place: the map's order is the eviction order.
        cache.delete(sql);
        cache.set(sql, hit);
        return hit;
      }
      const stmt = db.prepare(sql) as unknown as SqliteStatement;
      cache.set(sql, stmt);
      if (cache.size > max) cache.delete(cache.keys().next().value!);
      return stmt;
    },
  };
}
