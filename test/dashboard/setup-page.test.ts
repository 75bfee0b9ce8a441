// SPEC V3 (decision 0050): the setup page in real Chromium, on a fresh install opened from this
// machine — the form renders with a suggested name and the loopback warning, its manifest goes
// through the review page to (the fake) GitHub, whose redirect lands on the callback, which shows
// the install link. Its CSP lets that one form leave for GitHub and nothing else. And with a
// dashboard session, a POST without the session's CSRF token is refused.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFixloop, type Fixloop } from '../../src/main.js';
import { loadConfig } from '../../src/config/config.js';
import { createLogger } from '../../src/logging.js';
import { artifactPath, launchBrowser } from '../support/browser.js';
import { startFakeGitHub, type FakeGitHub } from '../support/fake-github/server.js';
import { onFreePort } from '../support/server-process.js';
import { startHarness, API_TOKEN, type Harness } from '../support/harness.js';
import { csrfOfCookie } from '../support/dashboard-session.js';

describe('the setup page in a browser (SPEC V3)', () => {
  let fake: FakeGitHub;
  let dir: string;
  let fixloop: Fixloop;
  let url: string;
  before(async () => {
    fake = await startFakeGitHub({ webUser: 'alice' });
    dir = mkdtempSync(join(tmpdir(), 'fixloop-setup-page-'));
    // Its public URL names its port, so the port is picked before it listens (made again if taken).
    ({ fixloop, url } = await onFreePort(async (port) => {
      const config = loadConfig({
        env: {
          PORT: String(port),
          FIXLOOP_PUBLIC_URL: `http://127.0.0.1:${port}`,
          DATABASE_URL: `sqlite:${join(dir, 'data', 'db.sqlite')}`,
          FIXLOOP_API_TOKEN_FILE: join(dir, 'data', 'api-token'),
          FIXLOOP_WORK_DIR: join(dir, 'data', 'runs'),
          GITHUB_API_URL: fake.url,
        },
      });
      const made = await createFixloop(config, {
        logger: createLogger('silent'),
        startPoll: false,
        startOutbox: false,
      });
      try {
        return { fixloop: made, url: await made.listen(port, '127.0.0.1') };
      } catch (err) {
        await made.close();
        throw err;
      }
    }));
  });
  after(async () => {
    await fixloop.close();
    await fake.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('renders the form, goes to GitHub and back, and shows the install link', async () => {
    const browser = await launchBrowser();
    try {
      const page = await browser.context.newPage();
      const blocked: string[] = [];
      page.on('console', (m) => {
        if (/Content Security Policy/i.test(m.text())) blocked.push(m.text());
      });
      await page.goto(`${url}/setup`);
      assert.equal(await page.locator('h1').textContent(), 'Connect GitHub');
      assert.match((await page.locator('input[name="name"]').inputValue()) ?? '', /^fixloop-[a-z0-9]+$/);
      assert.match((await page.locator('.banner.warning').textContent()) ?? '', /GitHub\s+cannot reach it/);
      await page.screenshot({ path: artifactPath('setup-form.png'), fullPage: true });

      await page.locator('input[name="name"]').fill('fixloop-browser');
      await page.getByRole('button', { name: 'Continue' }).click();
      await page.waitForLoadState('load');
      await page.waitForSelector('#create-app');
      assert.match((await page.locator('ul.permissions').textContent()) ?? '', /checks: read/);

      await page.getByRole('button', { name: 'Create the App on GitHub' }).click();
      await page.waitForLoadState('load');
      await page.waitForSelector('#install-link');
      assert.equal(
        await page.locator('#install-link').getAttribute('href'),
        `${new URL(fake.url).origin}/apps/fixloop-browser/installations/new`,
      );
      assert.match((await page.locator('h1').textContent()) ?? '', /GitHub App created/);
      assert.equal(fake.state.manifests[0]?.manifest.name, 'fixloop-browser');
      assert.deepEqual(blocked, []);
      await page.screenshot({ path: artifactPath('setup-done.png'), fullPage: true });
    } finally {
      await browser.close();
    }
  });
});

describe('the setup page with a dashboard session (SPEC V3, M4)', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness('sqlite');
  });
  after(() => h.close());

  test("a POST from a signed-in browser needs the session's CSRF token", async () => {
    const signIn = await fetch(`${h.url}/sign-in`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: API_TOKEN }),
      redirect: 'manual',
    });
    const cookie = (signIn.headers.get('set-cookie') ?? '').split(';')[0]!;
    const page = await fetch(`${h.url}/setup`, { headers: { cookie } });
    assert.equal(page.status, 200);
    assert.match(await page.text(), new RegExp(`name="_csrf" value="${csrfOfCookie(API_TOKEN, cookie)}"`));
    const form = { name: 'fixloop-x', account: 'personal', organization: '', githubUrl: '' };
    const post = (fields: Record<string, string>) =>
      fetch(`${h.url}/setup/github`, {
        method: 'POST',
        headers: { cookie, origin: h.url, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(fields),
      });
    assert.equal((await post(form)).status, 403);
    const ok = await post({ ...form, _csrf: csrfOfCookie(API_TOKEN, cookie) });
    assert.equal(ok.status, 200);
    assert.match(await ok.text(), /id="create-app"/);
    // A name GitHub would refuse is said on the form, not sent to GitHub.
    const bad = await post({ ...form, name: '-no', _csrf: csrfOfCookie(API_TOKEN, cookie) });
    assert.equal(bad.status, 400);
    assert.match(await bad.text(), /role="alert"/);
  });
});
