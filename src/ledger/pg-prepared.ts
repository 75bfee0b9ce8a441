// PostgreSQL's side of the statement cache (statement-cache.ts is SQLite's): every query Kysely sends
// goes out as a named prepared statement, so the server parses and plans each shape once per
// connection instead of once per query, which is most of its CPU for a delivery's short statements
// (bench/README.md). Kysely asks its pool only for `query(text, values)` and `release`; this pool
// names each text after a digest of it. The queries themselves do not change.
import { createHash } from 'node:crypto';
import type { PostgresPool, PostgresPoolClient } from 'kysely';
import type Pg from 'pg';

/** Named statements per connection at most (multi-row inserts come in many shapes); the rest go unnamed. */
export const PREPARED_PER_CONNECTION = 400;

/**
 * A prepared `select *` whose table gained a column since (a newer replica migrated during a rolling
 * upgrade) fails with this (SQLSTATE 0A000). Every statement of that connection may be stale, so the
 * connection is retired: unnamed until released, then destroyed.
 */
const STALE_PLAN = /cached plan must not change result type/;

export function withPreparedStatements(pool: Pg.Pool, perConnection = PREPARED_PER_CONNECTION): PostgresPool {
  const wrapped = new WeakMap<Pg.PoolClient, PostgresPoolClient>();
  // Kysely builds the same few texts over and over: each is digested once, not once per query.
  const known = new Map<string, string>();
  const nameOf = (text: string) => {
    let name = known.get(text);
    if (name === undefined) {
      if (known.size >= perConnection * 4) known.clear();
      name = `fx_${createHash('sha1').update(text).digest('base64url').slice(0, 22)}`;
      known.set(text, name);
    }
    return name;
  };

  function wrap(client: Pg.PoolClient): PostgresPoolClient {
    const names = new Set<string>();
    let inTransaction = false;
    let retired = false;
    async function query(text: string, values: ReadonlyArray<unknown>) {
      const head = text.trimStart().slice(0, 8).toLowerCase();
      if (head.startsWith('begin')) inTransaction = true;
      else if (head.startsWith('commit') || head.startsWith('rollback')) inTransaction = false;
      const name = values.length > 0 ? nameOf(text) : '';
      // A text without parameters goes as it always did, by the simple protocol (a migration may hold
      // several statements, which a prepared statement cannot).
      if (values.length === 0 || retired || (!names.has(name) && names.size >= perConnection))
        return client.query(text, [...values]);
      names.add(name);
      try {
        return await client.query({ name, text, values: [...values] });
      } catch (err) {
        if (!STALE_PLAN.test(String((err as Error)?.message))) throw err;
        retired = true;
        // Outside a transaction the query is asked again, unnamed; inside one the transaction failed.
        if (inTransaction) throw err;
        return client.query(text, [...values]);
      }
    }
    return {
      // Kysely's cursor overload is not used by fixloop (no streaming queries).
      query: query as unknown as PostgresPoolClient['query'],
      release: (destroy?: boolean) => client.release(Boolean(destroy) || retired),
    };
  }

  return {
    async connect() {
      const client = await pool.connect();
      let w = wrapped.get(client);
      if (!w) wrapped.set(client, (w = wrap(client)));
      return w;
    },
    end: () => pool.end(),
  };
}
