// The dashboard's sign-in session (SPEC M4; issue 31, decision 0046): a row in the ledger, so sign-out
// ends it on every replica and "sign out everywhere" ends them all. The cookie carries only a random
// secret; the row is keyed by an HMAC of it under a key derived from the API token, so the database
// never holds a usable cookie and changing the token signs everyone out. A session lasts
// SESSION_TTL_MS from sign-in; expired rows are swept at the next sign-in.
import { createHmac, randomBytes } from 'node:crypto';
import type { DashboardSessions } from '../app/dashboard-sessions-port.js';

export const SESSION_COOKIE = 'fixloop_session';
/** How long a sign-in lasts: a working day. */
export const SESSION_TTL_MS = 12 * 60 * 60 * 1000;
/** A session's "last seen" is written at most this often: not one write per page view. */
export const SEEN_EVERY_MS = 60 * 1000;

export interface Session {
  /** The keyed hash of the cookie's secret (the row's key); the CSRF token is derived from it (csrf.ts). */
  id: string;
  expiresAt: number;
}

/** The key of session hashes and CSRF tokens, derived from the API token (never the token itself). */
export function sessionKey(apiToken: string): Buffer {
  return createHmac('sha256', apiToken).update('fixloop dashboard session v1').digest();
}

/** 32 random bytes, base64url: the whole cookie. */
const SECRET = /^[\w-]{43}$/;

/** The row key of a cookie's secret: what is stored and looked up instead of the secret. */
export function sessionHash(key: Buffer, secret: string): string {
  return createHmac('sha256', key).update(`session.${secret}`).digest('base64url');
}

export interface SessionBook {
  /** A new session: its row is stored, its cookie value returned. Expired rows are swept first. */
  signIn(): Promise<{ session: Session; cookie: string }>;
  /** The live session a cookie value names, or null: malformed, unknown, signed out or expired. */
  read(cookie: string | undefined): Promise<Session | null>;
  /** Ends the session a cookie value names (sign-out). */
  signOut(cookie: string | undefined): Promise<void>;
  /** Ends every session (sign out everywhere); how many were open. */
  signOutEverywhere(): Promise<number>;
}

export function createSessionBook(
  store: DashboardSessions,
  key: Buffer,
  nowMs: () => number,
  secret: () => string = () => randomBytes(32).toString('base64url'),
): SessionBook {
  const iso = (ms: number) => new Date(ms).toISOString();
  const hashOf = (cookie: string | undefined) => (cookie && SECRET.test(cookie) ? sessionHash(key, cookie) : null);
  return {
    async signIn() {
      const now = nowMs();
      await store.deleteExpiredSessions(iso(now));
      const cookie = secret();
      const session = { id: sessionHash(key, cookie), expiresAt: now + SESSION_TTL_MS };
      await store.createSession({
        hash: session.id,
        createdAt: iso(now),
        lastSeenAt: iso(now),
        expiresAt: iso(session.expiresAt),
      });
      return { session, cookie };
    },

    async read(cookie) {
      const hash = hashOf(cookie);
      if (hash === null) return null;
      const now = nowMs();
      const row = await store.findSession(hash, iso(now));
      if (!row) return null;
      if (now - Date.parse(row.lastSeenAt) >= SEEN_EVERY_MS) await store.touchSession(hash, iso(now));
      return { id: row.hash, expiresAt: Date.parse(row.expiresAt) };
    },

    async signOut(cookie) {
      const hash = hashOf(cookie);
      if (hash !== null) await store.revokeSession(hash);
    },

    signOutEverywhere: () => store.revokeAllSessions(),
  };
}
