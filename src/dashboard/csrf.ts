// CSRF defence of the dashboard's actions (SPEC M4): every form carries a token derived from the
// session (an HMAC of its row key, so nothing more is stored, and a signed-out session's token dies
// with it), checked on every POST in constant time, and a request whose Origin is not one of the
// dashboard's own (the request's, as a trusted proxy says, or FIXLOOP_PUBLIC_URL's) is refused before
// that. The session cookie is also SameSite=Strict; the token is the defence that does not depend on the browser.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Session } from './session.js';

export const CSRF_FIELD = '_csrf';

export function csrfToken(key: Buffer, session: Session): string {
  return createHmac('sha256', key).update(`csrf.${session.id}`).digest('base64url');
}

export function csrfValid(key: Buffer, session: Session, given: unknown): boolean {
  if (typeof given !== 'string') return false;
  const a = Buffer.from(given);
  const b = Buffer.from(csrfToken(key, session));
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * Whether a state-changing request comes from the dashboard's own pages: its Origin (sent by every
 * browser on a POST) is one of `own`. A request without Origin is not a browser's cross-site form,
 * and still needs the token.
 */
export function sameOrigin(origin: string | undefined, own: readonly string[]): boolean {
  if (origin === undefined) return true;
  return own.includes(origin);
}
