// SPEC E4, M5, J2: as a GitHub App the adapter signs a JWT, finds the installation for a repository's
// owner once, gets an installation token from the fake GitHub, caches it across calls, sends it as
// "token …", and never lets any credential reach the blob host.
import { generateKeyPairSync } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ProviderPort } from '../app/provider-port.js';
import { startFakeGitHub, type FakeGitHub } from '../../test/support/fake-github/server.js';
import { silentLogger } from '../../test/support/harness.js';
import { createGitHub } from './client.js';

const HEAD = 'a'.repeat(40);
const TOKENS = /\/app\/installations\/\d+\/access_tokens$/;
const LOOKUP = /\/installation$/;

describe('GitHub adapter: App auth', () => {
  let fake: FakeGitHub;
  let github: ProviderPort;
  let acme: number;

  before(async () => {
    fake = await startFakeGitHub();
    const app = fake.createApp({ id: 31337, slug: 'fixloop-test' });
    acme = fake.addInstallation('acme');
    fake.addInstallation('Globex');
    github = createGitHub({
      apiUrl: fake.url,
      auth: { kind: 'app', appId: app.appId, privateKey: app.privateKey },
      throttle: { spaceWrites: false },
      log: silentLogger,
    });
    fake.addPull('acme/shop', 7, { headSha: HEAD });
    fake.addPull('acme/site', 2, { headSha: HEAD });
    fake.addPull('globex/api', 1, { headSha: HEAD });
    fake.addCheckRun('acme/shop', HEAD, { name: 'test', conclusion: 'failure' });
    fake.setLog(4242, 'FAIL src/a.test.ts\n');
  });
  after(async () => {
    fake.assertNoViolations();
    await fake.close();
  });

  test('E4: the installation token is issued once and reused across calls and repositories of one owner', async () => {
    await github.getPullRequest('acme/shop', 7);
    await github.listCheckRuns('acme/shop', HEAD);
    await github.getPullRequest('Acme/Site', 2);
    await github.createIssueComment('acme/shop', 7, 'state');
    assert.equal(fake.requestsTo(TOKENS).length, 1, 'one token request');
    assert.equal(fake.requestsTo(LOOKUP).length, 1, 'one installation lookup per owner');
    assert.match(fake.requestsTo(TOKENS)[0]!.path, new RegExp(`/app/installations/${acme}/access_tokens$`));
    const issued = Object.keys(fake.state.installationTokens);
    assert.equal(issued.length, 1);
    for (const r of fake.requests.filter(
      (r) => r.operation !== null && !r.operation.includes(' /app') && !LOOKUP.test(r.path),
    )) {
      assert.equal(r.headers.authorization, `token ${issued[0]}`, r.path);
    }
  });

  test('E4: the App itself authenticates with a signed JWT (bearer) for the lookup and the token', () => {
    for (const r of [...fake.requestsTo(TOKENS), ...fake.requestsTo(LOOKUP)]) {
      assert.match(String(r.headers.authorization), /^bearer [\w-]+\.[\w-]+\.[\w-]+$/i, r.path);
      assert.ok(r.status !== null && r.status < 300, `${r.path} → ${r.status}`);
    }
  });

  test('E4: another owner gets its own installation and token', async () => {
    assert.equal((await github.getPullRequest('globex/api', 1)).repository, 'globex/api');
    assert.equal(fake.requestsTo(TOKENS).length, 2);
    assert.equal(fake.requestsTo(LOOKUP).length, 2);
  });

  test('E4: a repository whose owner has no installation is a ProviderError 404', async () => {
    await assert.rejects(
      github.getPullRequest('initech/tps', 1),
      (err: unknown) => (err as { status?: number }).status === 404,
    );
  });

  test('F2: selfLogin of an App is its slug + [bot]', async () => {
    assert.equal(await github.selfLogin(), 'fixloop-test[bot]');
  });

  test('J2: jobLogUrl as an App returns the blob URL, and no credential ever reaches the blob host', async () => {
    const url = await github.jobLogUrl('acme/shop', 4242);
    assert.ok(url.startsWith(`${fake.blobOrigin}/logs/4242/`));
    assert.equal(fake.requestsTo(/./, 'blob').length, 0, 'the client did not request the blob host');
    // Whoever reads the URL next (pr checks, J2) reads it bare; the blob host records what arrives.
    const res = await import('node:https').then(
      ({ get }) =>
        new Promise<number>((resolve, reject) =>
          get(url, { ca: fake.blobCa }, (r) => (r.resume(), resolve(r.statusCode ?? 0))).on('error', reject),
        ),
    );
    assert.equal(res, 200);
    for (const r of fake.requestsTo(/./, 'blob')) {
      assert.equal(r.headers.authorization, undefined);
      for (const token of Object.keys(fake.state.installationTokens))
        assert.doesNotMatch(JSON.stringify(r.headers) + r.path, new RegExp(token));
    }
  });

  test('M5: a configured installationId skips the lookup', async () => {
    const app = fake.state.app!;
    const keys = fake.createApp({ id: app.id, slug: app.slug });
    const pinned = createGitHub({
      apiUrl: fake.url,
      auth: { kind: 'app', appId: keys.appId, privateKey: keys.privateKey, installationId: acme },
    });
    fake.clearRequests();
    await pinned.getPullRequest('acme/shop', 7);
    assert.equal(fake.requestsTo(LOOKUP).length, 0);
    assert.equal(fake.requestsTo(TOKENS).length, 1);
  });

  test('E4: a JWT signed with the wrong key is refused (401), as GitHub would', async () => {
    const stranger = createGitHub({
      apiUrl: fake.url,
      auth: { kind: 'app', appId: String(fake.state.app!.id), privateKey: otherKey() },
    });
    await assert.rejects(
      stranger.getPullRequest('acme/shop', 7),
      (err: unknown) => (err as { status?: number }).status === 401,
    );
  });
});

/** A fresh PKCS#8 key the fake does not know. */
function otherKey(): string {
  return generateKeyPairSync('rsa', { modulusLength: 2048 })
    .privateKey.export({ type: 'pkcs8', format: 'pem' })
    .toString();
}
