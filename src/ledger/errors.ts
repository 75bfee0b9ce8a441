// Database errors the use-cases act on, recognised the same way on both dialects.

/** A unique index refused the write (SQLite SQLITE_CONSTRAINT_UNIQUE, PostgreSQL 23505). */
export function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown } | null;
  if (!e) return false;
  if (e.code === '23505' || e.code === 'SQLITE_CONSTRAINT_UNIQUE') return true;
  return typeof e.message === 'string' && /UNIQUE constraint failed|duplicate key value/.test(e.message);
}
