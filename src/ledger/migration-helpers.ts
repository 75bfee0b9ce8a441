// What the migrations share (migrations.ts): the auto-increment key of each dialect, and a column
// added at most once, since SQLite's DDL is not in the migration's transaction.
import { sql, type CreateTableBuilder, type Kysely } from 'kysely';
import type { Dialect } from './db.js';

export type AnyDb = Kysely<any>;

export function withId(dialect: Dialect) {
  return <T extends string>(t: CreateTableBuilder<T, never>) =>
    dialect === 'postgres'
      ? t.addColumn('id', 'serial', (c) => c.primaryKey())
      : t.addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement());
}

/** Adds a column unless a crash left it added (SQLite's DDL is not in the migration's transaction). */
export async function addColumnOnce(
  db: AnyDb,
  dialect: Dialect,
  table: string,
  column: string,
  type: string,
): Promise<void> {
  if (dialect === 'postgres') {
    await sql`alter table ${sql.table(table)} add column if not exists ${sql.ref(column)} ${sql.raw(type)}`.execute(db);
    return;
  }
  const cols = await sql<{ name: string }>`select name from pragma_table_info(${table})`.execute(db);
  if (cols.rows.some((c) => c.name === column)) return;
  await sql`alter table ${sql.table(table)} add column ${sql.ref(column)} ${sql.raw(type)}`.execute(db);
}
