// SPEC M4: nothing of the dashboard answers without the session — pages lead to sign-in, actions and
// the live stream are refused, a forged CSRF token or another site's Origin is refused even with a
// good session — while the API keeps taking its Bearer token.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness, API_TOKEN, type Harness } from '../support/harness.js';
import { DATABASE_KINDS } from '../support/databases.js';
import { csrfOfCookie } from '../support/dashboard-session.js';

const csrfOf = (cookie: string) => csrfOfCookie(API_TOKEN, cookie);

async function signIn(h: Harness): Promise<string> {
  const res = await fetch(`${h.url}/sign-in`, form({ token: API_TOKEN }));
  assert.equal(res.status, 303);
  return (res.headers.get('set-cookie') ?? '').split(';')[0]!;
}

const form = (fields: Record<string, string>) => ({
  method: 'POST',
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  body: new URLSearchParams(fields).toString(),
  redirect: 'manual' as const,
});

describe('the dashboard refuses whoever has no session (M4)', () => {
  let h: Harness;
  let taskId: number;
  let cookie: string;
  let csrf: string;

  before(async () => {
    h = await startHarness('sqlite');
    taskId = (await h.api('POST', '/api/tasks', { repository: 'acme/shop', pullRequest: 9, branch: 'b' })).body.id;
    const res = await fetch(`${h.url}/sign-in`, form({ token: API_TOKEN }));
    assert.equal(res.status, 303);
    const set = res.headers.get('set-cookie') ?? '';
    assert.match(set, /HttpOnly/i);
    assert.match(set, /SameSite=Strict/i);
    cookie = set.split(';')[0]!;
    csrf = csrfOf(cookie);
    // The page carries the same token the test derives.
    const board = await (await fetch(`${h.url}/`, { headers: { cookie } })).text();
    assert.ok(board.includes(`value="${csrf}"`));
  });
  after(() => h.close());

  test('M4: every page redirects to sign-in without the session', async () => {
    for (const path of ['/', '/inbox', `/tasks/${taskId}`, '/?loop=idle']) {
      const res = await fetch(`${h.url}${path}`, { redirect: 'manual' });
      assert.equal(res.status, 302, path);
      assert.equal(res.headers.get('location'), '/sign-in', path);
    }
  });

  test('M4: a forged cookie is no session', async () => {
    const forged = cookie.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A'));
    const res = await fetch(`${h.url}/`, { headers: { cookie: forged }, redirect: 'manual' });
    assert.equal(res.status, 302);
    assert.equal((await fetch(`${h.url}/`, { headers: { cookie }, redirect: 'manual' })).status, 200);
  });

  test('M4: the live stream and every action answer 401 without the session', async () => {
    assert.equal((await fetch(`${h.url}/events`)).status, 401);
    for (const path of [
      `/tasks/${taskId}/loop`,
      `/tasks/${taskId}/park`,
      `/tasks/${taskId}/approve-one`,
      '/outbox/1/resend',
      '/stop',
    ]) {
      const res = await fetch(`${h.url}${path}`, form({ _csrf: csrf, on: '0', parked: '1', stopped: '1' }));
      assert.equal(res.status, 401, path);
    }
    assert.equal((await h.api('GET', `/api/tasks/${taskId}`)).body.loopOff, false);
    assert.equal((await h.api('GET', '/api/stop')).body.stopped, false);
  });

  test('M4: with the session, a missing or forged CSRF token, or another Origin, is refused with 403', async () => {
    const post = (fields: Record<string, string>, headers: Record<string, string> = {}) => {
      const f = form(fields);
      return fetch(`${h.url}/tasks/${taskId}/loop`, { ...f, headers: { ...f.headers, cookie, ...headers } });
    };
    assert.equal((await post({ on: '0' })).status, 403);
    assert.equal((await post({ on: '0', _csrf: csrf.replace(/^./, (c) => (c === 'x' ? 'y' : 'x')) })).status, 403);
    assert.equal((await post({ on: '0', _csrf: csrf }, { origin: 'https://evil.example' })).status, 403);
    assert.equal((await h.api('GET', `/api/tasks/${taskId}`)).body.loopOff, false, 'nothing changed');
    const ok = await post({ on: '0', _csrf: csrf }, { origin: h.url });
    assert.equal(ok.status, 303);
    assert.equal((await h.api('GET', `/api/tasks/${taskId}`)).body.loopOff, true);
  });

  test('M4: the live stream answers with the session', async () => {
    const ctl = new AbortController();
    const res = await fetch(`${h.url}/events`, { headers: { cookie }, signal: ctl.signal });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /text\/event-stream/);
    const first = await res.body!.getReader().read();
    assert.match(new TextDecoder().decode(first.value), /event: ready/);
    ctl.abort();
  });

  test('M2: the API keeps its Bearer token and does not take the session cookie', async () => {
    assert.equal((await h.api('GET', '/api/tasks')).status, 200);
    assert.equal((await fetch(`${h.url}/api/tasks`, { headers: { cookie } })).status, 401);
  });
});

for (const kind of DATABASE_KINDS) {
  describe(`sign-out revokes the session on the server (M4, issue 31, ${kind})`, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(kind);
    });
    after(() => h.close());

    const page = (cookie: string) => fetch(`${h.url}/`, { headers: { cookie }, redirect: 'manual' });
    const post = (path: string, cookie: string) => {
      const f = form({ _csrf: csrfOf(cookie) });
      return fetch(`${h.url}${path}`, { ...f, headers: { ...f.headers, cookie, origin: h.url } });
    };

    test('M4: a copied cookie stops working after sign-out', async () => {
      const cookie = await signIn(h);
      const copy = `${cookie}`; // what someone who read the cookie holds
      assert.equal((await page(copy)).status, 200);
      const out = await post('/sign-out', cookie);
      assert.equal(out.status, 303);
      assert.equal(out.headers.get('location'), '/sign-in');
      assert.match(out.headers.get('set-cookie') ?? '', /fixloop_session=;/, 'the browser is told to forget it');
      const after = await page(copy);
      assert.equal(after.status, 302);
      assert.equal(after.headers.get('location'), '/sign-in');
      assert.equal((await fetch(`${h.url}/events`, { headers: { cookie: copy } })).status, 401);
    });

    test('M4: a sign-out on one replica ends the session on another (one database)', async () => {
      const other = await startHarness(kind, { db: h.db });
      try {
        const cookie = await signIn(h);
        const onOther = await fetch(`${other.url}/`, { headers: { cookie }, redirect: 'manual' });
        assert.equal(onOther.status, 200, 'the other replica knows the session');
        const f = form({ _csrf: csrfOf(cookie) });
        const out = await fetch(`${other.url}/sign-out`, {
          ...f,
          headers: { ...f.headers, cookie, origin: other.url },
        });
        assert.equal(out.status, 303);
        assert.equal((await page(cookie)).status, 302, 'signed out on the first replica too');
      } finally {
        await other.close();
      }
    });

    test("M4: sign out everywhere ends another browser's session, and needs the CSRF token", async () => {
      const mine = await signIn(h);
      const theirs = await signIn(h);
      const f = form({ _csrf: 'forged' });
      const forged = await fetch(`${h.url}/sign-out-everywhere`, {
        ...f,
        headers: { ...f.headers, cookie: mine, origin: h.url },
      });
      assert.equal(forged.status, 403);
      assert.equal((await page(theirs)).status, 200, 'a forged form ends nothing');
      const board = await (await page(mine)).text();
      assert.match(board, /Sign out everywhere/);
      const res = await post('/sign-out-everywhere', mine);
      assert.equal(res.status, 303);
      assert.equal((await page(theirs)).status, 302);
      assert.equal((await page(mine)).status, 302);
    });
  });
}
