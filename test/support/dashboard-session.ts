// The CSRF token of a dashboard session, as its pages carry it, from the cookie a sign-in set
// (`fixloop_session=<secret>`): the token is an HMAC of the session's row key (src/dashboard/csrf.ts).
import { csrfToken } from '../../src/dashboard/csrf.js';
import { sessionHash, sessionKey } from '../../src/dashboard/session.js';

export function csrfOfCookie(apiToken: string, cookie: string): string {
  const key = sessionKey(apiToken);
  const secret = cookie.includes('=') ? cookie.slice(cookie.indexOf('=') + 1) : cookie;
  return csrfToken(key, { id: sessionHash(key, secret), expiresAt: 0 });
}
