// SPEC L2: the workspace's token. As a GitHub App, fixloop finds the installation on the repository
// (GET /repos/{owner}/{repo}/installation, once per owner) and asks for a token for that one
// repository with `contents: write` only, a fresh one per run; with GITHUB_TOKEN it hands that token
// on as it is.
//
// The fake GitHub issues installation tokens but does not honour the scoping: it ignores the
// request's `repositories` and `permissions`, answers `repository_selection: "all"`, and its tokens act
// on every repository of the installation's account. So these tests check what fixloop *asks* for (the
// request body), not that GitHub enforces it.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startFakeGitHub, type FakeGitHub } from '../../test/support/fake-github/server.js';
import { createScopedTokens } from './scoped-token.js';

const TOKENS = /\/app\/installations\/\d+\/access_tokens$/;
const LOOKUP = /\/installation$/;

describe('scoped workspace token (L2)', () => {
  let fake: FakeGitHub;
  let app: { appId: string; privateKey: string };
  let acme: number;

  before(async () => {
    fake = await startFakeGitHub();
    app = fake.createApp({ id: 777, slug: 'fixloop-ws' });
    acme = fake.addInstallation('acme');
    fake.addInstallation('globex');
  });
  after(async () => {
    fake.assertNoViolations();
    await fake.close();
  });

  test('an App asks for a token limited to the one repository, with contents: write only', async () => {
    fake.clearRequests();
    const tokens = createScopedTokens({
      apiUrl: fake.url,
      auth: { kind: 'app', appId: app.appId, privateKey: app.privateKey },
      retries: 0,
    });
    const token = await tokens.forRepository('acme/shop');
    assert.match(token, /^ghs_/);
    assert.ok(token in fake.state.installationTokens, 'a token the fake issued');

    const [lookup] = fake.requestsTo(LOOKUP);
    assert.equal(lookup?.path, '/repos/acme/shop/installation');
    const [issue, ...more] = fake.requestsTo(TOKENS);
    assert.equal(more.length, 0);
    assert.equal(issue?.path, `/app/installations/${acme}/access_tokens`);
    assert.equal(issue?.method, 'POST');
    assert.deepEqual(issue?.body, { repositories: ['shop'], permissions: { contents: 'write' } });
    for (const r of [lookup, issue])
      assert.match(
        String(r?.headers.authorization),
        /^bearer [\w-]+\.[\w-]+\.[\w-]+$/i,
        'the App authenticates with its JWT',
      );
  });

  test('each run gets a fresh token; the installation is looked up once per owner', async () => {
    fake.clearRequests();
    const tokens = createScopedTokens({
      apiUrl: fake.url,
      auth: { kind: 'app', appId: app.appId, privateKey: app.privateKey },
      retries: 0,
    });
    const a = await tokens.forRepository('acme/shop');
    const b = await tokens.forRepository('acme/shop');
    const c = await tokens.forRepository('Acme/site');
    const d = await tokens.forRepository('globex/api');
    assert.equal(new Set([a, b, c, d]).size, 4, 'never a cached token');
    assert.deepEqual(
      fake.requestsTo(LOOKUP).map((r) => r.path),
      ['/repos/acme/shop/installation', '/repos/globex/api/installation'],
    );
    assert.deepEqual(
      fake.requestsTo(TOKENS).map((r) => (r.body as { repositories: string[] }).repositories),
      [['shop'], ['shop'], ['site'], ['api']],
    );
  });

  test('a configured installation id skips the lookup', async () => {
    fake.clearRequests();
    const tokens = createScopedTokens({
      apiUrl: fake.url,
      auth: { kind: 'app', appId: app.appId, privateKey: app.privateKey, installationId: acme },
      retries: 0,
    });
    await tokens.forRepository('acme/shop');
    assert.equal(fake.requestsTo(LOOKUP).length, 0);
    assert.equal(fake.requestsTo(TOKENS).length, 1);
  });

  test('an owner without the App installed is refused (404), and a later install is found', async () => {
    const tokens = createScopedTokens({
      apiUrl: fake.url,
      auth: { kind: 'app', appId: app.appId, privateKey: app.privateKey },
      retries: 0,
    });
    await assert.rejects(
      tokens.forRepository('initech/tps'),
      (err: unknown) => (err as { status?: number }).status === 404,
    );
    fake.addInstallation('initech');
    assert.match(await tokens.forRepository('initech/tps'), /^ghs_/);
  });

  test('a malformed repository is refused before any request', async () => {
    fake.clearRequests();
    const tokens = createScopedTokens({
      apiUrl: fake.url,
      auth: { kind: 'app', appId: app.appId, privateKey: app.privateKey },
      retries: 0,
    });
    for (const bad of ['acme', 'acme/shop/x', '../shop', 'acme/..', '-x/y z']) {
      await assert.rejects(tokens.forRepository(bad), /invalid repository/, bad);
    }
    assert.equal(fake.requests.length, 0);
  });

  test('with GITHUB_TOKEN the token itself is used (it should be fine-grained, limited to the repositories)', async () => {
    fake.clearRequests();
    const tokens = createScopedTokens({ apiUrl: fake.url, auth: { kind: 'token', token: 'github_pat_fine' } });
    assert.equal(await tokens.forRepository('acme/shop'), 'github_pat_fine');
    assert.equal(fake.requests.length, 0);
  });
});
