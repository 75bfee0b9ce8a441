// SPEC M4, A1 (issue 31): dashboard sign-in is throttled per client. After ten wrong tokens within a
// minute a client is refused with 429 and Retry-After — even with the right token — until its minute
// is over; each wrong token logs one warning until then, the throttle one more, and nothing after;
// both count in Prometheus. The client is the socket's address, or the forwarded one only from a
// proxy FIXLOOP_TRUST_PROXY trusts.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { LOG_EVENTS } from '../src/core/events.js';
import { createLogger } from '../src/logging.js';
import {
  SIGN_IN_FAILURES_ALLOWED,
  SIGN_IN_WINDOW_MS,
  clientOfAddress,
  createSignInThrottle,
} from '../src/dashboard/sign-in-throttle.js';
import { startHarness, API_TOKEN, type Harness } from './support/harness.js';

describe('the sign-in throttle as a rule (time is a parameter)', () => {
  test('M4/A1: the tenth wrong token within the window starts the refusal; it lasts until the window ends', () => {
    const t = createSignInThrottle();
    const at = 1_000_000;
    for (let i = 1; i < SIGN_IN_FAILURES_ALLOWED; i++) {
      assert.deepEqual(t.check('a', at + i - 1), { kind: 'allow' });
      assert.deepEqual(t.failed('a', at + i - 1), { failures: i, throttledNow: false });
    }
    assert.deepEqual(t.failed('a', at + 10), { failures: 10, throttledNow: true });
    assert.deepEqual(t.check('a', at + 10), { kind: 'refuse', retryAfterSeconds: 60 });
    assert.deepEqual(t.check('a', at + 45_500), { kind: 'refuse', retryAfterSeconds: 15 });
    assert.deepEqual(t.check('b', at + 10), { kind: 'allow' }, 'another client is not held');
    assert.deepEqual(t.check('a', at + SIGN_IN_WINDOW_MS), { kind: 'allow' });
    assert.deepEqual(t.failed('a', at + SIGN_IN_WINDOW_MS), { failures: 1, throttledNow: false }, 'a new window');
  });

  test('M4/A1: wrong tokens spread wider than the window are never refused', () => {
    const t = createSignInThrottle();
    for (let i = 0; i < 100; i++) {
      assert.equal(t.check('a', i * 7_000).kind, 'allow');
      t.failed('a', i * 7_000);
    }
  });

  test('A1: the clients remembered are bounded; the longest remembered is forgotten first', () => {
    const t = createSignInThrottle({ allowed: 1, remembered: 3 });
    for (const c of ['a', 'b', 'c']) t.failed(c, 0);
    assert.equal(t.check('a', 1).kind, 'refuse');
    t.failed('d', 1);
    assert.equal(t.check('a', 2).kind, 'allow', 'a was forgotten to make room');
    assert.equal(t.check('b', 2).kind, 'refuse');
    assert.equal(t.check('d', 2).kind, 'refuse');
  });

  test('A1: a client is an IPv4 address (also IPv4-mapped) or an IPv6 /64', () => {
    assert.equal(clientOfAddress('203.0.113.7'), '203.0.113.7');
    assert.equal(clientOfAddress('::ffff:203.0.113.7'), '203.0.113.7');
    assert.equal(clientOfAddress('2001:db8:1:2:aaaa::1'), '2001:db8:1:2::/64');
    assert.equal(clientOfAddress('2001:db8:1:2:ffff:ffff:ffff:ffff'), '2001:db8:1:2::/64');
    assert.equal(clientOfAddress('2001:db8::1'), '2001:db8:0:0::/64');
    assert.equal(clientOfAddress('::1'), '0:0:0:0::/64');
    assert.equal(clientOfAddress(undefined), 'unknown');
  });
});

/** POST /sign-in with `token`, from the test's own address; extra headers on request. */
function signIn(h: Harness, token: string, headers: Record<string, string> = {}) {
  return fetch(`${h.url}/sign-in`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams({ token }).toString(),
    redirect: 'manual',
  });
}

/** A counter's value in the /metrics exposition. */
async function counter(h: Harness, name: string): Promise<number> {
  const text = await (await fetch(`${h.url}/metrics`, { headers: { authorization: `Bearer ${API_TOKEN}` } })).text();
  const m = new RegExp(`^${name} (\\d+)$`, 'm').exec(text);
  assert.ok(m, `${name} is exposed`);
  return Number(m[1]);
}

describe('M4/A1: the sign-in throttle on the server', () => {
  let h: Harness;
  const lines: { msg: string; client?: string; failures?: number }[] = [];
  before(async () => {
    const logger = createLogger(
      'warn',
      new Writable({
        write(chunk, _e, cb) {
          for (const l of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(l));
          cb();
        },
      }),
    );
    h = await startHarness('sqlite', { adapters: { logger } });
  });
  after(() => h.close());

  test('M4/A1: ten wrong tokens, then 429 with Retry-After even for the right one; ten warning lines in all; both counted', async () => {
    for (let i = 0; i < SIGN_IN_FAILURES_ALLOWED; i++) assert.equal((await signIn(h, `guess-${i}`)).status, 401);
    const refused = await signIn(h, API_TOKEN);
    assert.equal(refused.status, 429);
    const wait = Number(refused.headers.get('retry-after'));
    assert.ok(wait >= 1 && wait <= 60, `Retry-After: ${wait}`);
    assert.match(await refused.text(), /Too many wrong tokens from here\. Try again in \d+ seconds\./);
    for (let i = 0; i < 20; i++) assert.equal((await signIn(h, `more-${i}`)).status, 429);

    const signInLines = lines.filter((l) => l.msg.startsWith('dashboard.sign_in'));
    assert.equal(signInLines.length, SIGN_IN_FAILURES_ALLOWED, 'one line a wrong token until throttled, none after');
    assert.deepEqual(
      signInLines.map((l) => l.msg),
      [...Array(SIGN_IN_FAILURES_ALLOWED - 1).fill(LOG_EVENTS.SIGN_IN_REFUSED), LOG_EVENTS.SIGN_IN_THROTTLED],
    );
    assert.equal(signInLines.at(-1)!.failures, SIGN_IN_FAILURES_ALLOWED);
    assert.ok(signInLines.every((l) => l.client === '127.0.0.1'));
    assert.ok(!JSON.stringify(signInLines).includes('guess-'), 'no guess is logged');
    assert.equal(await counter(h, 'fixloop_sign_in_failures_total'), SIGN_IN_FAILURES_ALLOWED);
    assert.equal(await counter(h, 'fixloop_sign_in_throttled_total'), 21);
  });

  test('A1: a forwarded address is not believed without FIXLOOP_TRUST_PROXY: the socket address stays throttled', async () => {
    const res = await signIn(h, API_TOKEN, { 'x-forwarded-for': '198.51.100.9' });
    assert.equal(res.status, 429);
  });
});

describe('A1: behind a trusted proxy the throttle counts the forwarded client', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness('sqlite', { env: { FIXLOOP_TRUST_PROXY: '127.0.0.1' } });
  });
  after(() => h.close());

  test('A1: one forwarded client is throttled, another behind the same proxy still signs in', async () => {
    const from = (ip: string) => ({ 'x-forwarded-for': ip });
    for (let i = 0; i < SIGN_IN_FAILURES_ALLOWED; i++)
      assert.equal((await signIn(h, `guess-${i}`, from('198.51.100.9'))).status, 401);
    assert.equal((await signIn(h, API_TOKEN, from('198.51.100.9'))).status, 429);
    assert.equal((await signIn(h, API_TOKEN, from('198.51.100.10'))).status, 303);
  });
});
