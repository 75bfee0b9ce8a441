// Issue 31 (SPEC M4): behind a TLS proxy the dashboard takes its own forms. With FIXLOOP_TRUST_PROXY
// the Origin check uses the scheme and host the proxy forwards (X-Forwarded-*, or Forwarded), and the
// cookie is Secure; without it the same headers, forged by anyone, change nothing. An https
// FIXLOOP_PUBLIC_URL makes the cookie Secure and its origin is accepted.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness, API_TOKEN, type Harness } from '../support/harness.js';
import { csrfOfCookie } from '../support/dashboard-session.js';
import { parseForwarded, seenAs } from '../../src/core/forwarded.js';
import { proxyTrust } from '../../src/wiring/trusted-proxy.js';

const BOARD = 'https://board.example.com';
/** What nginx in front of fixloop adds to every request it passes on. */
const PROXIED = {
  'x-forwarded-proto': 'https',
  'x-forwarded-host': 'board.example.com',
  'x-forwarded-for': '203.0.113.9',
};

const form = (fields: Record<string, string>, headers: Record<string, string>) => ({
  method: 'POST',
  headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
  body: new URLSearchParams(fields).toString(),
  redirect: 'manual' as const,
});

describe('how a request was addressed (core/forwarded.ts)', () => {
  const req = (headers: Record<string, string>, trustedHops: number, url = 'http://10.0.0.5:3000/x') => ({
    url,
    header: (n: string) => headers[n],
    peer: '10.0.0.1',
    trustedHops,
  });

  test('untrusted: the forwarded headers are ignored', () => {
    const s = seenAs(req(PROXIED, 0));
    assert.deepEqual(s, {
      protocol: 'http:',
      host: '10.0.0.5:3000',
      origin: 'http://10.0.0.5:3000',
      client: '10.0.0.1',
    });
  });

  test('trusted: the proxy says the scheme, host and client', () => {
    const s = seenAs(req(PROXIED, 1));
    assert.deepEqual(s, { protocol: 'https:', host: 'board.example.com', origin: BOARD, client: '203.0.113.9' });
  });

  test('a list is read from the right: a client-sent entry before the trusted proxy is not believed', () => {
    const h = { 'x-forwarded-proto': 'http, https', 'x-forwarded-host': 'evil.example, board.example.com' };
    assert.equal(seenAs(req(h, 1)).origin, BOARD);
    assert.equal(seenAs(req(h, 2)).origin, 'http://evil.example');
    assert.equal(seenAs(req({ 'x-forwarded-for': '1.1.1.1, 203.0.113.9' }, 1)).client, '203.0.113.9');
  });

  test('RFC 7239 Forwarded, when no X-Forwarded-* is sent', () => {
    const h = {
      forwarded:
        'for=1.1.1.1;proto=http;host=evil.example, for="[2001:db8::7]:443";proto=https;host="board.example.com"',
    };
    const s = seenAs(req(h, 1));
    assert.deepEqual([s.origin, s.client], [BOARD, '2001:db8::7']);
    assert.equal(parseForwarded('for=a;host="x,y"').at(0)?.get('host'), 'x,y');
  });

  test('a malformed forwarded host or scheme is ignored; a default port is no part of the origin', () => {
    assert.equal(
      seenAs(req({ 'x-forwarded-host': 'a b/c', 'x-forwarded-proto': 'gopher' }, 1)).origin,
      'http://10.0.0.5:3000',
    );
    assert.equal(
      seenAs(req({ 'x-forwarded-host': 'board.example.com:443', 'x-forwarded-proto': 'https' }, 1)).origin,
      BOARD,
    );
  });

  test('FIXLOOP_TRUST_PROXY as a list: only those peers are proxies (an IPv4-mapped peer as its IPv4)', () => {
    const trust = proxyTrust({ hops: 1, addresses: ['10.0.0.0/8', '::1'] });
    assert.equal(trust('10.2.3.4'), 1);
    assert.equal(trust('::ffff:10.2.3.4'), 1);
    assert.equal(trust('::1'), 1);
    assert.equal(trust('192.168.1.1'), 0);
    assert.equal(trust(undefined), 0);
    assert.equal(proxyTrust(null)('10.2.3.4'), 0);
    assert.equal(proxyTrust({ hops: 2, addresses: null })('192.168.1.1'), 2);
  });
});

async function signIn(h: Harness, headers: Record<string, string>): Promise<Response> {
  return fetch(`${h.url}/sign-in`, form({ token: API_TOKEN }, headers));
}

async function stopEverywhere(h: Harness, cookie: string, headers: Record<string, string>): Promise<Response> {
  return fetch(`${h.url}/stop`, form({ _csrf: csrfOfCookie(API_TOKEN, cookie), stopped: '1' }, { ...headers, cookie }));
}

describe('behind a TLS proxy that fixloop trusts (FIXLOOP_TRUST_PROXY=127.0.0.1)', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness('sqlite', { env: { FIXLOOP_TRUST_PROXY: '127.0.0.1' } });
  });
  after(() => h.close());

  test('sign-in and an action from the https board succeed; the cookie is Secure; the action returns to its page', async () => {
    const res = await signIn(h, { ...PROXIED, origin: BOARD });
    assert.equal(res.status, 303);
    const set = res.headers.get('set-cookie') ?? '';
    assert.match(set, /;\s*Secure/i);
    const cookie = set.split(';')[0]!;
    const act = await stopEverywhere(h, cookie, { ...PROXIED, origin: BOARD, referer: `${BOARD}/inbox?after=3` });
    assert.equal(act.status, 303);
    assert.equal(act.headers.get('location'), '/inbox?after=3');
    assert.equal((await h.api('GET', '/api/stop')).body.stopped, true);
  });

  test('another site is still refused behind the proxy', async () => {
    assert.equal((await signIn(h, { ...PROXIED, origin: 'https://evil.example' })).status, 403);
  });
});

describe('FIXLOOP_TRUST_PROXY unset: forged forwarded headers do not help', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness('sqlite');
  });
  after(() => h.close());

  test('an https Origin that only the forwarded headers would explain is refused', async () => {
    assert.equal((await signIn(h, { ...PROXIED, origin: BOARD })).status, 403);
    const ok = await signIn(h, { origin: h.url });
    assert.equal(ok.status, 303);
    const cookie = (ok.headers.get('set-cookie') ?? '').split(';')[0]!;
    assert.equal((await stopEverywhere(h, cookie, { ...PROXIED, origin: BOARD })).status, 403);
    assert.equal((await h.api('GET', '/api/stop')).body.stopped, false);
  });

  test('a forged X-Forwarded-Proto: https does not make the cookie Secure', async () => {
    const res = await signIn(h, { 'x-forwarded-proto': 'https' });
    assert.equal(res.status, 303);
    assert.doesNotMatch(res.headers.get('set-cookie') ?? '', /Secure/i);
  });

  test('a trust list that does not hold the peer changes nothing', async () => {
    const listed = await startHarness('sqlite', { env: { FIXLOOP_TRUST_PROXY: '10.0.0.0/8' } });
    try {
      assert.equal((await signIn(listed, { ...PROXIED, origin: BOARD })).status, 403);
    } finally {
      await listed.close();
    }
  });
});

describe('an https FIXLOOP_PUBLIC_URL', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness('sqlite', { env: { FIXLOOP_PUBLIC_URL: BOARD } });
  });
  after(() => h.close());

  test('the cookie is Secure even on a plain request, and the public origin is accepted', async () => {
    const res = await signIn(h, { origin: BOARD });
    assert.equal(res.status, 303);
    const set = res.headers.get('set-cookie') ?? '';
    assert.match(set, /;\s*Secure/i);
    const cookie = set.split(';')[0]!;
    assert.equal((await stopEverywhere(h, cookie, { origin: BOARD })).status, 303);
    assert.equal((await stopEverywhere(h, cookie, { origin: 'https://evil.example' })).status, 403);
  });
});
