// Open fixloop's database from a DATABASE_URL: `sqlite:PATH` (the embedded default) or
// `postgres://…` (the scale path). One Kysely query layer serves both (N1).
import { chmodSync, closeSync, mkdirSync, openSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import type Pg from 'pg';
import type { Database } from './schema.js';
import { withStatementCache } from './statement-cache.js';
import { withPreparedStatements } from './pg-prepared.js';

export type Dialect = 'sqlite' | 'postgres';

export interface Db {
  kysely: Kysely<Database>;
  dialect: Dialect;
  close(): Promise<void>;
}

// The PostgreSQL driver is loaded only for a PostgreSQL URL: the embedded default never pays its
// memory (several MB, against the benchmark's RSS budget).
let pgModule: typeof Pg | null = null;
function loadPg(): typeof Pg {
  if (pgModule) return pgModule;
  pgModule = createRequire(import.meta.url)('pg') as typeof Pg;
  // pg returns int8 (count(*), bigserial) as strings; fixloop's counts fit in a JS number.
  pgModule.types.setTypeParser(20, (v: string) => Number(v));
  return pgModule;
}

export function openDatabase(url: string, opts: { poolSize?: number } = {}): Db {
  if (url.startsWith('postgres://') || url.startsWith('postgresql://')) {
    const pool = new (loadPg().Pool)({
      connectionString: url,
      max: opts.poolSize ?? 10,
      // Raw payloads (~12 KB each) are compressed as they are stored; pglz, the default, costs
      // PostgreSQL more CPU than the rest of an insert. lz4 where the server has it (PostgreSQL 14+
      // built with it); otherwise the SET fails and the default stays. Done before the connection's
      // first use.
      onConnect: async (client) => {
        await client.query("set default_toast_compression = 'lz4'").catch(() => undefined);
      },
    });
    // An idle client dropped by the server (restart, failover) must not crash the process: the pool
    // replaces it on the next query, and a query that fails surfaces its own error.
    pool.on('error', () => undefined);
    const kysely = new Kysely<Database>({ dialect: new PostgresDialect({ pool: withPreparedStatements(pool) }) });
    return { kysely, dialect: 'postgres', close: () => kysely.destroy() };
  }
  if (url.startsWith('sqlite:')) {
    const path = url.slice('sqlite:'.length).replace(/^\/\/(?=\/)/, '');
    if (path !== ':memory:') {
      mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
      ownerOnly(path);
    }
    const sqlite = new BetterSqlite3(path);
    sqlite.pragma('journal_mode = WAL');
    // WAL with synchronous=NORMAL is durable against a process crash (not a power cut): the
    // trade fixloop's embedded mode makes; PostgreSQL is the path for stronger durability.
    sqlite.pragma('synchronous = NORMAL');
    sqlite.pragma('busy_timeout = 5000');
    // WAL checkpoints are SQLite's own: a commit that takes the log past this many pages (64 MB)
    // copies it back. A checkpoint's cost is mostly its fsync, paid on the event loop, so a few
    // large ones delay far fewer acknowledgements than SQLite's default of 1000 pages (decision 0040).
    sqlite.pragma('wal_autocheckpoint = 16000');
    const kysely = new Kysely<Database>({ dialect: new SqliteDialect({ database: withStatementCache(sqlite) }) });
    return { kysely, dialect: 'sqlite', close: () => kysely.destroy() };
  }
  throw new Error(`DATABASE_URL must start with sqlite: or postgres:// (got ${JSON.stringify(url.split(':')[0])})`);
}

/**
 * The database file, made (or kept) 0600 before SQLite opens it (L3): its -wal and -shm files take
 * the main file's mode when SQLite makes them, and ones left by an earlier version are set here too.
 */
function ownerOnly(path: string): void {
  closeSync(openSync(path, 'a', 0o600));
  for (const file of [path, `${path}-wal`, `${path}-shm`]) {
    try {
      chmodSync(file, 0o600);
    } catch (err) {
      // Absent, or another user's file (shared by an operator on purpose): left as it is.
      if (!['ENOENT', 'EPERM'].includes((err as NodeJS.ErrnoException).code ?? '')) throw err;
    }
  }
}
