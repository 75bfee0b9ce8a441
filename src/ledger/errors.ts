// Database errors the ledger acts on, recognised by their codes on both dialects (never by message).

/** A unique index refused the write: SQLite's SQLITE_CONSTRAINT_UNIQUE (better-sqlite3), PostgreSQL's 23505. */
export function isUniqueViolation(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE';
}

/**
 * PostgreSQL's deadlock_detected. Concurrent `INSERT … ON CONFLICT DO NOTHING` into a table with a
 * second unique index (attempts: the coordinate and attempts_one_in_flight) can wait on each other's
 * speculative insertions across the two indexes; PostgreSQL then aborts one transaction, which is
 * safe to run again from the start.
 */
export function isDeadlock(err: unknown): boolean {
  return (err as { code?: unknown } | null)?.code === '40P01';
}
