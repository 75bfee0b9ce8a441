// The dashboard's sign-in session (SPEC M4): a signed cookie, no server-side table. The cookie holds
// an expiry and a random id, signed with a key derived from the API token, so every replica accepts
// it and changing the token signs everyone out. Sign-out clears the cookie; a copied cookie stays
// valid until it expires (SESSION_TTL_MS), which is why that is short. Decision 0024.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export const SESSION_COOKIE = 'fixloop_session';
/** How long a sign-in lasts: a working day. */
export const SESSION_TTL_MS = 12 * 60 * 60 * 1000;

export interface Session {
  /** The random id; the CSRF token is derived from it (csrf.ts). */
  id: string;
  expiresAt: number;
}

/** The signing key of sessions and CSRF tokens, derived from the API token (never the token itself). */
export function sessionKey(apiToken: string): Buffer {
  return createHmac('sha256', apiToken).update('fixloop dashboard session v1').digest();
}

function mac(key: Buffer, text: string): string {
  return createHmac('sha256', key).update(text).digest('base64url');
}

export function issueSession(
  key: Buffer,
  nowMs: number,
  id = randomBytes(18).toString('base64url'),
): {
  session: Session;
  cookie: string;
} {
  const session = { id, expiresAt: nowMs + SESSION_TTL_MS };
  const body = `${session.expiresAt}.${session.id}`;
  return { session, cookie: `${body}.${mac(key, body)}` };
}

/** The session a cookie value carries, or null when it is malformed, forged or expired. */
export function readSession(key: Buffer, value: string | undefined, nowMs: number): Session | null {
  if (!value) return null;
  const m = /^(\d{1,15})\.([\w-]{8,64})\.([\w-]{43})$/.exec(value);
  if (!m) return null;
  const expected = Buffer.from(mac(key, `${m[1]}.${m[2]}`));
  const given = Buffer.from(m[3]!);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  const expiresAt = Number(m[1]);
  return expiresAt > nowMs ? { id: m[2]!, expiresAt } : null;
}
