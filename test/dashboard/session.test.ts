// SPEC M4: the dashboard's session cookie and CSRF token, as pure functions of a key and a clock.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { issueSession, readSession, sessionKey, SESSION_TTL_MS } from '../../src/dashboard/session.js';
import { csrfToken, csrfValid, sameOrigin } from '../../src/dashboard/csrf.js';

const key = sessionKey('the-api-token');
const T0 = 1_800_000_000_000;

test('M4: a session reads back until it expires, and not after', () => {
  const { session, cookie } = issueSession(key, T0);
  assert.deepEqual(readSession(key, cookie, T0 + 1), session);
  assert.deepEqual(readSession(key, cookie, T0 + SESSION_TTL_MS - 1), session);
  assert.equal(readSession(key, cookie, T0 + SESSION_TTL_MS), null);
});

test('M4: a cookie is bound to the API token: another token, an edited expiry or id is no session', () => {
  const { cookie } = issueSession(key, T0);
  assert.equal(readSession(sessionKey('another-token'), cookie, T0 + 1), null);
  const [exp, id, mac] = cookie.split('.');
  assert.equal(readSession(key, `${Number(exp) + 1000}.${id}.${mac}`, T0 + 1), null);
  assert.equal(readSession(key, `${exp}.${id!.replace(/^./, (c) => (c === 'a' ? 'b' : 'a'))}.${mac}`, T0 + 1), null);
  assert.equal(readSession(key, 'garbage', T0), null);
  assert.equal(readSession(key, undefined, T0), null);
});

test('M4: the key is derived from the token, never the token itself', () => {
  assert.notDeepEqual(key, Buffer.from('the-api-token'));
  assert.equal(key.length, 32);
});

test('M4: the CSRF token belongs to one session', () => {
  const a = issueSession(key, T0).session;
  const b = issueSession(key, T0).session;
  assert.equal(csrfValid(key, a, csrfToken(key, a)), true);
  assert.equal(csrfValid(key, a, csrfToken(key, b)), false);
  assert.equal(csrfValid(key, a, ''), false);
  assert.equal(csrfValid(key, a, undefined), false);
  assert.equal(csrfValid(key, a, csrfToken(sessionKey('another-token'), a)), false);
});

test('M4: an action from another origin is refused; one without Origin is left to the token', () => {
  const own = ['http://127.0.0.1:3000', 'https://fixloop.example.com'];
  assert.equal(sameOrigin('http://127.0.0.1:3000', own), true);
  assert.equal(sameOrigin('https://fixloop.example.com', own), true);
  assert.equal(sameOrigin('https://evil.example', own), false);
  assert.equal(sameOrigin('null', own), false);
  assert.equal(sameOrigin(undefined, own), true);
});
