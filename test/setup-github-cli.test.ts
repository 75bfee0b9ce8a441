// SPEC V3, M1 (decision 0050): `fixloop setup github`, the setup page's twin for a headless host,
// against the fake GitHub: it writes the page that posts the manifest (to an organisation's new-App
// page, with a state kept 0600 in the data directory); the address GitHub sends the browser to is
// given back with --code, checked against that state, converted, and stored as the page stores it.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { run } from '../src/cli/main.js';
import { loadConfig } from '../src/config/config.js';
import { startFakeGitHub, type FakeGitHub } from './support/fake-github/server.js';
import { createFixloop } from '../src/main.js';
import { createLogger } from '../src/logging.js';
import { onFreePort } from './support/server-process.js';

const unescape = (s: string) =>
  s
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');

describe('fixloop setup github (SPEC V3, M1)', () => {
  let fake: FakeGitHub;
  let dir: string;
  let env: NodeJS.ProcessEnv;
  before(async () => {
    fake = await startFakeGitHub();
    dir = mkdtempSync(join(tmpdir(), 'fixloop-setup-cli-'));
    env = {
      FIXLOOP_API_TOKEN_FILE: join(dir, 'data', 'api-token'),
      GITHUB_API_URL: fake.url,
      FIXLOOP_PUBLIC_URL: 'https://fixloop.acme.dev',
      DATABASE_URL: `sqlite:${join(dir, 'data', 'db.sqlite')}`,
    };
  });
  after(async () => {
    await fake.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const cli = async (...argv: string[]) => {
    const out = { stdout: '', stderr: '' };
    const code = await run(argv, {
      env,
      stdout: { write: (s: string) => (out.stdout += s) },
      stderr: { write: (s: string) => (out.stderr += s) },
    });
    return { code, ...out };
  };

  it('writes the page, then --code with the address GitHub sent stores the App; a foreign address is refused', async () => {
    const started = await cli('setup', 'github', '--org', 'acme', '--name', 'fixloop-cli');
    assert.equal(started.code, 0, started.stderr);
    const page = join(dir, 'data', 'github-app', 'create-app.html');
    assert.ok(started.stdout.includes(page), started.stdout);
    assert.match(started.stdout, /fixloop setup github --code/);
    assert.equal(statSync(page).mode & 0o777, 0o600);
    const html = readFileSync(page, 'utf8');
    const action = unescape(html.match(/action="([^"]+)"/)![1]!);
    const manifest = JSON.parse(unescape(html.match(/name="manifest" value="([^"]+)"/)![1]!));
    assert.match(action, new RegExp(`^${new URL(fake.url).origin}/organizations/acme/settings/apps/new\\?state=`));
    assert.equal(manifest.name, 'fixloop-cli');
    assert.equal(manifest.hook_attributes.url, 'https://fixloop.acme.dev/api/github/webhooks');
    assert.equal(manifest.redirect_url, 'https://fixloop.acme.dev/setup/github/callback');

    const github = await fetch(action, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ manifest: JSON.stringify(manifest) }),
      redirect: 'manual',
    });
    const address = github.headers.get('location')!;
    assert.match(address, /^https:\/\/fixloop\.acme\.dev\/setup\/github\/callback\?code=\w+&state=/);

    // An address whose state this host did not make is refused before anything is converted.
    const foreign = new URL(address);
    foreign.searchParams.set('state', 'not-this-one');
    const refused = await cli('setup', 'github', '--code', foreign.toString());
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /not made by a setup started here/);
    assert.equal(fake.requestsTo(/app-manifests/).length, 0);

    const done = await cli('setup', 'github', '--code', address);
    assert.equal(done.code, 0, done.stderr);
    assert.match(done.stdout, new RegExp(`${new URL(fake.url).origin}/apps/fixloop-cli/installations/new`));
    assert.match(done.stdout, /account: acme/);
    const stored = join(dir, 'data', 'github-app');
    assert.equal(statSync(join(stored, 'private-key.pem')).mode & 0o777, 0o600);
    assert.ok(!existsSync(page), 'the pending setup is used up');
    // The same files the page stores: the next start reads them.
    const config = loadConfig({ env });
    assert.equal(config.github.appId, String(fake.state.app!.id));
    assert.equal(config.webhookSecrets.length, 1);

    // The address again: its state was used.
    assert.equal((await cli('setup', 'github', '--code', address)).code, 2);
  });

  it('a code GitHub does not know is said in words, exit 1', async () => {
    const r = await cli('setup', 'github', '--code', 'unknowncode123');
    assert.equal(r.code, 1);
    assert.match(r.stderr, /works once and for one hour/);
  });

  it("a running fixloop's callback finishes a setup the command started (same data directory, no browser cookie)", async () => {
    const own = mkdtempSync(join(tmpdir(), 'fixloop-setup-cli-served-'));
    // Its public URL names its port, so the port is picked before it listens (made again if taken).
    const { fixloop, url, served } = await onFreePort(async (port) => {
      const served: NodeJS.ProcessEnv = {
        FIXLOOP_API_TOKEN_FILE: join(own, 'data', 'api-token'),
        GITHUB_API_URL: fake.url,
        PORT: String(port),
        FIXLOOP_PUBLIC_URL: `http://127.0.0.1:${port}`,
        DATABASE_URL: `sqlite:${join(own, 'data', 'db.sqlite')}`,
        FIXLOOP_WORK_DIR: join(own, 'data', 'runs'),
      };
      const made = await createFixloop(loadConfig({ env: served }), {
        logger: createLogger('silent'),
        startPoll: false,
        startOutbox: false,
      });
      try {
        return { fixloop: made, url: await made.listen(port, '127.0.0.1'), served };
      } catch (err) {
        await made.close();
        throw err;
      }
    });
    try {
      const out = { stdout: '', stderr: '' };
      const io = {
        env: served,
        stdout: { write: (t: string) => (out.stdout += t) },
        stderr: { write: (t: string) => (out.stderr += t) },
      };
      assert.equal(await run(['setup', 'github', '--name', 'fixloop-served'], io), 0, out.stderr);
      const html = readFileSync(join(own, 'data', 'github-app', 'create-app.html'), 'utf8');
      const github = await fetch(unescape(html.match(/action="([^"]+)"/)![1]!), {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ manifest: unescape(html.match(/name="manifest" value="([^"]+)"/)![1]!) }),
        redirect: 'manual',
      });
      const callback = github.headers.get('location')!;
      assert.ok(callback.startsWith(`${url}/setup/github/callback?`), callback);
      const done = await fetch(callback);
      assert.equal(done.status, 200);
      assert.match(await done.text(), /id="install-link"/);
      assert.equal(readFileSync(join(own, 'data', 'github-app', 'app-id'), 'utf8').trim(), String(fake.state.app!.id));
      // The state was the command's, taken once.
      assert.equal((await fetch(callback)).status, 403);
    } finally {
      await fixloop.close();
      rmSync(own, { recursive: true, force: true });
    }
  });
});
