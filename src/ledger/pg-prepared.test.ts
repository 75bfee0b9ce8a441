// PostgreSQL's named statements (pg-prepared.ts), on the machine's server: a query with parameters
// is prepared once per connection, and a rolling upgrade that adds a column to a table read with
// `select *` neither fails a read outside a transaction nor leaves the stale connection in the pool.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { Kysely, PostgresDialect, sql, type Generated } from 'kysely';
import { createTestDatabase } from '../../test/support/databases.js';
import { withPreparedStatements } from './pg-prepared.js';

interface Db {
  items: { id: Generated<number>; name: string; extra?: string | null };
}

async function withDb(run: (k: Kysely<Db>, pool: pg.Pool, url: string) => Promise<void>): Promise<void> {
  const tdb = await createTestDatabase('postgres');
  const pool = new pg.Pool({ connectionString: tdb.url, max: 1 });
  const k = new Kysely<Db>({ dialect: new PostgresDialect({ pool: withPreparedStatements(pool, 3) }) });
  try {
    await sql`create table items (id serial primary key, name text not null)`.execute(k);
    await k.insertInto('items').values({ name: 'a' }).execute();
    await run(k, pool, tdb.url);
  } finally {
    await k.destroy();
    await tdb.drop();
  }
}

const prepared = async (k: Kysely<Db>) =>
  (await sql<{ name: string }>`select name from pg_prepared_statements order by name`.execute(k)).rows.map(
    (r) => r.name,
  );

describe('named prepared statements on PostgreSQL', () => {
  test('a query with parameters is prepared once on its connection and answers as before; one without stays unnamed', async () => {
    await withDb(async (k) => {
      const before = (await prepared(k)).length; // the setup's insert
      for (let i = 0; i < 3; i++) {
        const rows = await k.selectFrom('items').select('name').where('id', '=', 1).execute();
        assert.deepEqual(rows, [{ name: 'a' }]);
      }
      const names = await prepared(k);
      assert.equal(names.length, before + 1, names.join(', '));
      assert.ok(names.every((n) => n.startsWith('fx_')));
      // Several statements in one text (as a migration may send) still run: no parameters, no name.
      await sql.raw('select 1; select 2').execute(k);
      assert.equal((await prepared(k)).length, before + 1);
    });
  });

  test('past the cap per connection, further shapes run unnamed', async () => {
    await withDb(async (k) => {
      for (let n = 1; n <= 6; n++) {
        const ids = Array.from({ length: n }, (_, i) => i + 1);
        assert.equal((await k.selectFrom('items').select('id').where('id', 'in', ids).execute()).length, 1);
      }
      assert.equal((await prepared(k)).length, 3);
    });
  });

  test('a table that gains a column (another replica migrated): the read outside a transaction succeeds, and the connection is replaced', async () => {
    await withDb(async (k, pool, url) => {
      const read = () => k.selectFrom('items').selectAll().where('id', '=', 1).executeTakeFirst();
      assert.deepEqual(await read(), { id: 1, name: 'a' });
      const pidBefore = (await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(k)).rows[0]!.pid;
      const other = new pg.Client({ connectionString: url });
      await other.connect();
      await other.query('alter table items add column extra text');
      await other.end();
      // The prepared `select *` now answers another shape: PostgreSQL refuses it; the read is asked again.
      assert.deepEqual(await read(), { id: 1, name: 'a', extra: null });
      assert.equal(pool.totalCount <= 1, true);
      const pidAfter = (await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(k)).rows[0]!.pid;
      assert.notEqual(pidAfter, pidBefore, 'the retired connection was destroyed, not handed out again');
      assert.deepEqual(await read(), { id: 1, name: 'a', extra: null });
    });
  });

  test('inside a transaction the stale statement fails that transaction only; the next one runs on a fresh connection', async () => {
    await withDb(async (k, _pool, url) => {
      const read = (db: Kysely<Db>) => db.selectFrom('items').selectAll().where('id', '=', 1).executeTakeFirst();
      await k.transaction().execute(async (trx) => void (await read(trx)));
      const other = new pg.Client({ connectionString: url });
      await other.connect();
      await other.query('alter table items add column extra text');
      await other.end();
      await assert.rejects(
        k.transaction().execute(async (trx) => void (await read(trx))),
        /cached plan must not change result type/,
      );
      const row = await k.transaction().execute((trx) => read(trx));
      assert.deepEqual(row, { id: 1, name: 'a', extra: null });
    });
  });
});
