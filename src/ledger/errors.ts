// Database errors the ledger acts on, recognised by their codes on both dialects (never by message).

/** A unique index refused the write: SQLite's SQLITE_CONSTRAINT_UNIQUE (better-sqlite3), PostgreSQL's 23505. */
export function isUniqueViolation(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE';
}
