// SPEC V3 (decision 0050): connecting GitHub from the browser, end to end against the fake GitHub and
// a real `fixloop serve`: a fresh install (no GitHub credentials, no webhook secret) starts and opens
// /setup to this machine; the form's manifest goes to GitHub's "new App" page, whose redirect lands
// on the callback; the code is converted, the credentials stored 0600 in a 0700 directory, the
// install link shown; a wrong or reused state is refused; the next start acts as the App.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { get } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFakeGitHub, type FakeGitHub } from './support/fake-github/server.js';
import { startServerProcess, type ServerProcess } from './support/server-process.js';
import { delivery, post } from './support/deliveries.js';

const HEAD = 'a'.repeat(40);

/** The value of `name`'s attribute in the first tag that has `marker`, HTML entities undone. */
function attribute(html: string, marker: RegExp, name: string): string {
  const tag = html.match(new RegExp(`<[^>]*${marker.source}[^>]*>`))?.[0];
  const raw = tag?.match(new RegExp(`${name}="([^"]*)"`))?.[1];
  assert.ok(raw !== undefined, `no ${name} in a tag matching ${marker}`);
  return raw
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

/** GET with another Host header (fetch does not let a caller set it): a DNS name rebound to 127.0.0.1. */
function statusWithHost(url: string, host: string): Promise<number | undefined> {
  return new Promise((resolve, reject) => {
    get(url, { headers: { host } }, (res) => {
      res.resume();
      resolve(res.statusCode);
    }).on('error', reject);
  });
}

const cookieOf = (res: Response, name: string) =>
  res.headers
    .getSetCookie()
    .map((c) => c.split(';')[0]!)
    .find((c) => c.startsWith(`${name}=`)) ?? '';

describe('connect GitHub from the browser (SPEC V3)', () => {
  let fake: FakeGitHub;
  let dir: string;
  let env: Record<string, string>;
  let server: ServerProcess | null = null;

  before(async () => {
    fake = await startFakeGitHub({ webUser: 'alice' });
    dir = mkdtempSync(join(tmpdir(), 'fixloop-setup-'));
    const config = join(dir, 'fixloop.json');
    writeFileSync(
      config,
      JSON.stringify({
        works: [{ name: 'shop', account: 'acme', repositories: [{ name: 'acme/shop', role: 'data' }] }],
      }),
    );
    env = {
      DATABASE_URL: `sqlite:${join(dir, 'data', 'fixloop.sqlite')}`,
      FIXLOOP_API_TOKEN_FILE: join(dir, 'data', 'api-token'),
      FIXLOOP_WORK_DIR: join(dir, 'data', 'runs'),
      FIXLOOP_CONFIG: config,
      GITHUB_API_URL: fake.url,
    };
  });
  after(async () => {
    await server?.stop();
    await fake.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('page → GitHub → callback → credentials 0600 → install link; a wrong or reused state is refused; the next start acts as the App', async () => {
    // A fresh install starts without any GitHub credential or webhook secret, and says how to connect.
    server = await startServerProcess(env, 'free');
    const url = server.url;
    assert.match(server.output(), /no GitHub webhook secret yet/);
    const early = await post(url, delivery('ping', { zen: 'hi' }), 'anything');
    assert.equal(early.status, 503);
    assert.equal(early.body.error, 'not_set_up');
    assert.match(early.body.message, /\/setup/);

    // From this machine, before any credential exists, /setup needs no sign-in.
    const page = await fetch(`${url}/setup`, { redirect: 'manual' });
    assert.equal(page.status, 200);
    const pageHtml = await page.text();
    assert.match(attribute(pageHtml, /name="name"/, 'value'), /^fixloop-[a-z0-9]+$/);
    // The public URL is this machine's: GitHub could not deliver webhooks to it, and the page says so.
    assert.match(pageHtml, /GitHub\s+cannot reach it/);
    // … but not through a proxy on this machine (forwarded headers), nor under another Host name.
    assert.equal(
      (await fetch(`${url}/setup`, { redirect: 'manual', headers: { 'x-forwarded-for': '203.0.113.9' } })).status,
      302,
    );
    assert.equal(await statusWithHost(`${url}/setup`, 'fixloop.attacker.example'), 302, 'a rebound DNS name');

    // The form: an App for the organisation acme, on the GitHub fixloop is configured for.
    const started = await fetch(`${url}/setup/github`, {
      method: 'POST',
      headers: { origin: url, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ name: 'fixloop-e2e', account: 'organization', organization: 'acme', githubUrl: '' }),
    });
    assert.equal(started.status, 200);
    const stateCookie = cookieOf(started, 'fixloop_setup');
    assert.ok(stateCookie.length > 20, 'the state is bound to this browser');
    assert.match(started.headers.get('set-cookie') ?? '', /HttpOnly/i);
    const origin = new URL(fake.url).origin;
    assert.match(started.headers.get('content-security-policy') ?? '', new RegExp(`form-action 'self' ${origin}`));
    const continueHtml = await started.text();
    const action = attribute(continueHtml, /id="create-app"/, 'action');
    assert.match(action, new RegExp(`^${origin}/organizations/acme/settings/apps/new\\?state=[\\w-]{20,}$`));
    const manifest = JSON.parse(attribute(continueHtml, /name="manifest"/, 'value'));
    // app.yml's permissions and events, the person's name, and fixloop's own addresses.
    const appYml = readFileSync(new URL('../app.yml', import.meta.url), 'utf8');
    assert.equal(manifest.name, 'fixloop-e2e');
    assert.equal(manifest.hook_attributes.url, `${url}/api/github/webhooks`);
    assert.equal(manifest.redirect_url, `${url}/setup/github/callback`);
    for (const event of manifest.default_events) assert.match(appYml, new RegExp(`- ${event}\\n`));

    // GitHub's page takes the manifest; once the person confirms, it sends the browser back with a code.
    const github = await fetch(action, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ manifest: JSON.stringify(manifest) }),
      redirect: 'manual',
    });
    assert.equal(github.status, 302);
    const callback = new URL(github.headers.get('location')!);
    assert.equal(callback.origin + callback.pathname, `${url}/setup/github/callback`);
    assert.equal(fake.state.manifests[0]?.organization, 'acme');

    // A wrong state, or none bound to this browser, is refused and converts nothing.
    const wrong = new URL(callback);
    wrong.searchParams.set('state', 'x'.repeat(32));
    const refused = await fetch(wrong, { headers: { cookie: stateCookie } });
    assert.equal(refused.status, 403);
    assert.match(await refused.text(), /not started here/);
    assert.equal((await fetch(callback)).status, 403, 'no state cookie: another browser');
    assert.equal(fake.requestsTo(/app-manifests/).length, 0, 'no refused redirect reached the conversion');

    // The right state: converted, stored, the install link and the next steps shown.
    const done = await fetch(callback, { headers: { cookie: stateCookie } });
    assert.equal(done.status, 200);
    const doneHtml = await done.text();
    const app = fake.state.app!;
    assert.equal(attribute(doneHtml, /id="install-link"/, 'href'), `${origin}/apps/fixloop-e2e/installations/new`);
    assert.match(doneHtml, /Restart fixloop/);
    assert.match(doneHtml, /account: acme/);
    assert.equal(fake.requestsTo(/\/app-manifests\/[^/]+\/conversions$/).length, 1);
    // The same answer again is refused: a state works once.
    assert.equal((await fetch(callback, { headers: { cookie: stateCookie } })).status, 403);

    const stored = join(dir, 'data', 'github-app');
    assert.equal(statSync(stored).mode & 0o777, 0o700);
    for (const file of ['app-id', 'private-key.pem', 'webhook-secret', 'client-id', 'client-secret', 'api-url'])
      assert.equal(statSync(join(stored, file)).mode & 0o777, 0o600, file);
    assert.equal(readFileSync(join(stored, 'app-id'), 'utf8').trim(), String(app.id));
    assert.match(readFileSync(join(stored, 'private-key.pem'), 'utf8'), /BEGIN RSA PRIVATE KEY/);
    const secret = readFileSync(join(stored, 'webhook-secret'), 'utf8').trim();
    // Now that GitHub credentials exist, the loopback opening is closed.
    assert.equal((await fetch(`${url}/setup`, { redirect: 'manual' })).headers.get('location'), '/sign-in');

    // The next start reads the stored App with nothing else changed: webhooks verify with its secret,
    // and fixloop authenticates to GitHub as the App (a JWT, then an installation token).
    // On the same port: the App GitHub now knows sends its webhooks and callbacks to this address.
    const port = server.port;
    await server.stop();
    server = await startServerProcess(env, port);
    assert.doesNotMatch(server.output(), /no GitHub webhook secret yet/);
    const ping = await post(server.url, delivery('ping', { zen: 'hi', hook_id: 1 }), secret);
    assert.equal(ping.status, 200, JSON.stringify(ping.body));
    assert.equal((await post(server.url, delivery('ping', { zen: 'hi' }), 'not-the-secret')).status, 401);

    fake.addInstallation('acme');
    fake.addPull('acme/shop', 7, { headSha: HEAD });
    const token = readFileSync(join(dir, 'data', 'api-token'), 'utf8').trim();
    const checks = await fetch(`${server.url}/api/pull-requests/acme/shop/7/checks`, {
      headers: { authorization: `Bearer ${token}` },
    });
    assert.equal(checks.status, 200, await checks.clone().text());
    const [minted] = fake.requestsTo(/\/app\/installations\/\d+\/access_tokens$/);
    assert.ok(minted, 'an installation token was asked for');
    assert.equal(minted.status, 201, "with a JWT the fake verified against the new App's key");
    fake.assertNoViolations();
  });
});
