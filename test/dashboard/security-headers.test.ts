// Issue 31 (SPEC M4): every dashboard response carries a Content-Security-Policy that allows only its
// own origin and no framing, nosniff, Referrer-Policy same-origin and X-Frame-Options DENY; the API's
// JSON gets a policy that allows nothing. In Chromium the board still works under the policy — no
// violation, live updates, actions — and a board framed by another origin of the same site (which the
// SameSite=Strict cookie would follow) is refused.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { Page } from 'playwright-core';
import { startHarness, API_TOKEN, type Harness } from '../support/harness.js';
import { launchBrowser } from '../support/browser.js';
import { csrfOfCookie } from '../support/dashboard-session.js';
import { closeServer, listenLoopback } from '../support/loopback.js';

function assertPageHeaders(res: Response, what: string) {
  const csp = res.headers.get('content-security-policy') ?? '';
  assert.match(csp, /default-src 'self'/, what);
  assert.match(csp, /frame-ancestors 'none'/, what);
  assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/, what);
  assert.equal(res.headers.get('x-content-type-options'), 'nosniff', what);
  assert.equal(res.headers.get('referrer-policy'), 'same-origin', what);
  assert.equal(res.headers.get('x-frame-options'), 'DENY', what);
}

describe('security headers on every response (issue 31)', () => {
  let h: Harness;
  let cookie: string;
  let taskId: number;
  before(async () => {
    h = await startHarness('sqlite');
    taskId = (await h.api('POST', '/api/tasks', { repository: 'acme/shop', pullRequest: 3, branch: 'b' })).body.id;
    const res = await fetch(`${h.url}/sign-in`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: API_TOKEN }).toString(),
      redirect: 'manual',
    });
    assertPageHeaders(res, 'the sign-in answer');
    cookie = (res.headers.get('set-cookie') ?? '').split(';')[0]!;
  });
  after(() => h.close());

  test('M4: pages, static files, refusals, redirects and the live stream', async () => {
    const get = (path: string, withCookie = true) =>
      fetch(`${h.url}${path}`, { headers: withCookie ? { cookie } : {}, redirect: 'manual' });
    for (const path of [
      '/',
      '/inbox',
      `/tasks/${taskId}`,
      '/tasks/999999',
      '/static/dashboard.js',
      '/static/dashboard.css',
    ])
      assertPageHeaders(await get(path), path);
    assertPageHeaders(await get('/sign-in', false), '/sign-in');
    assertPageHeaders(await get('/', false), 'the redirect to sign-in');
    const ctl = new AbortController();
    const events = await fetch(`${h.url}/events`, { headers: { cookie }, signal: ctl.signal });
    assertPageHeaders(events, '/events');
    ctl.abort();
    const f = new URLSearchParams({ _csrf: csrfOfCookie(API_TOKEN, cookie), stopped: '0' }).toString();
    const act = await fetch(`${h.url}/stop`, {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: f,
      redirect: 'manual',
    });
    assert.equal(act.status, 303);
    assertPageHeaders(act, 'an action');
  });

  test("the API's JSON allows nothing to run, load or frame, and is read as JSON", async () => {
    for (const [path, auth] of [
      ['/api/tasks', true],
      ['/api/tasks', false],
      ['/healthz', false],
    ] as const) {
      const res = await fetch(`${h.url}${path}`, auth ? { headers: { authorization: `Bearer ${API_TOKEN}` } } : {});
      const csp = res.headers.get('content-security-policy') ?? '';
      assert.match(csp, /default-src 'none'/, path);
      assert.match(csp, /frame-ancestors 'none'/, path);
      assert.equal(res.headers.get('x-content-type-options'), 'nosniff', path);
      assert.equal(res.headers.get('x-frame-options'), 'DENY', path);
    }
  });
});

describe('the board under its policy, in Chromium (issue 31)', () => {
  let h: Harness;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  let page: Page;
  let framer: Server;
  let framerUrl: string;
  const consoleErrors: string[] = [];

  before(async () => {
    h = await startHarness('sqlite', { adapters: { dashboardLivePollMs: 100 } });
    await h.api('POST', '/api/tasks', { repository: 'acme/shop', pullRequest: 4, branch: 'agent/csp' });
    // Another origin of the same site (127.0.0.1, another port): the Strict cookie is sent to its frames.
    framer = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(
        `<!doctype html><title>framer</title><iframe id="board" src="${h.url}/" width="800" height="600"></iframe>`,
      );
    });
    framerUrl = await listenLoopback(framer);
    browser = await launchBrowser();
    page = await browser.context.newPage();
    // Every violation the page reports, recorded before any of its own scripts run.
    await page.addInitScript(() => {
      (window as any).violations = [];
      document.addEventListener('securitypolicyviolation', (e) =>
        (window as any).violations.push(`${e.violatedDirective} ${e.blockedURI}`),
      );
    });
    page.on('console', (m) => {
      if (m.type() === 'error') consoleErrors.push(m.text());
    });
  });
  after(async () => {
    await browser?.close();
    await closeServer(framer);
    await h?.close();
  });

  test('M4: sign-in, live updates and an action work with no policy violation', async () => {
    await page.goto(`${h.url}/sign-in`);
    await page.fill('input[name=token]', API_TOKEN);
    await Promise.all([page.waitForNavigation(), page.click('button[type=submit]')]);
    assert.equal(new URL(page.url()).pathname, '/');
    await page.waitForSelector('body[data-live=on]', { timeout: 5000 });
    // The ledger moves (a person stops the loop through the API): the page's script refreshes its rows.
    assert.equal((await h.api('PUT', '/api/stop', { stopped: true })).status, 200);
    await page.waitForSelector('body[data-refreshed]', { timeout: 5000 });
    assert.equal((await h.api('PUT', '/api/stop', { stopped: false })).status, 200);
    // An action: a form post with the CSRF token, answered by a redirect back to the board.
    await page.goto(`${h.url}/`);
    // Issue 33: the global stop asks first (a disclosure, no script).
    await page.click('summary:has-text("Stop the loop everywhere")');
    await Promise.all([
      page.waitForNavigation(),
      page.getByRole('button', { name: 'Yes, stop the loop everywhere' }).click(),
    ]);
    assert.equal((await h.api('GET', '/api/stop')).body.stopped, true);
    assert.equal(new URL(page.url()).pathname, '/');
    assert.deepEqual(await page.evaluate(() => (window as any).violations), []);
    assert.deepEqual(
      consoleErrors.filter((e) => /Content Security Policy/i.test(e)),
      [],
    );
  });

  test('M4: a board framed by another origin of the same site is refused', async () => {
    const framed = await browser.context.newPage();
    const refused: string[] = [];
    framed.on('console', (m) => refused.push(m.text()));
    await framed.goto(framerUrl);
    const frame = await (await framed.waitForSelector('#board')).contentFrame();
    await framed.waitForTimeout(500);
    // The signed-in board (its global stop button) never renders inside the frame.
    const buttons = frame
      ? await frame
          .locator('button')
          .count()
          .catch(() => 0)
      : 0;
    assert.equal(buttons, 0, 'no button of the board inside the frame');
    assert.ok(
      refused.some((t) => /frame-ancestors|Refused to (display|frame)/i.test(t)),
      `Chromium says why: ${refused.join(' | ')}`,
    );
    await framed.close();
  });
});
