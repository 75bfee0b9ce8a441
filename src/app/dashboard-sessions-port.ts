// The dashboard's sign-ins as rows (SPEC M4, issue 31, decision 0046): what the dashboard needs of the
// ledger to keep, find, end and sweep them. Every replica reads the same table, so a sign-out on one
// ends the session on all. Times are ISO-8601 strings (UTC), compared as such.

export interface DashboardSessionRow {
  /** A keyed hash of the cookie's secret; the secret itself is never stored. */
  hash: string;
  createdAt: string;
  lastSeenAt: string;
  expiresAt: string;
}

export interface DashboardSessions {
  createSession(row: DashboardSessionRow): Promise<void>;
  /** The session with this hash that has not expired at `now`, or null (unknown, signed out or expired). */
  findSession(hash: string, now: string): Promise<DashboardSessionRow | null>;
  /** Records that the session was used at `at`. */
  touchSession(hash: string, at: string): Promise<void>;
  /** Ends one session (sign-out); true when it was there. */
  revokeSession(hash: string): Promise<boolean>;
  /** Ends every session (sign out everywhere); how many there were. */
  revokeAllSessions(): Promise<number>;
  /** Deletes the sessions that expired before `now`, by the expiry index; how many. */
  deleteExpiredSessions(now: string): Promise<number>;
}
