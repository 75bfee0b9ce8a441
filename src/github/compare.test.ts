// SPEC K3, K4: ProviderPort.compareCommits through the Octokit adapter against the fake GitHub (a real
// HTTP server whose answers are checked against GitHub's OpenAPI schema for compare).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ProviderError, type ProviderPort } from '../app/provider-port.js';
import { startFakeGitHub, type FakeGitHub } from '../../test/support/fake-github/server.js';
import { createGitHub } from './client.js';
import { toComparedFile } from './to-port.js';

const BASE = '1'.repeat(40);
const HEAD = '2'.repeat(40);

describe('GitHub adapter: compareCommits', () => {
  let fake: FakeGitHub;
  let github: ProviderPort;

  before(async () => {
    fake = await startFakeGitHub();
    github = createGitHub({
      apiUrl: fake.url,
      auth: { kind: 'token', token: fake.addUserToken('fixloop-user') },
      throttle: { spaceWrites: false },
      retry: { retries: 0 },
    });
  });
  after(async () => {
    fake.assertNoViolations();
    await fake.close();
  });

  test('K4: the files of base...head with status, patch, the path a rename came from and the lines counted (issue 36)', async () => {
    fake.setCompare('Acme/Shop', BASE, HEAD, [
      { path: 'src/a.ts', patch: '@@ -1 +1 @@\n-a\n+b' },
      { path: 'src/new.ts', status: 'added', patch: '@@ -0,0 +1 @@\n+n' },
      { path: 'test/old.test.ts', status: 'removed', patch: '@@ -1 +0,0 @@\n-t' },
      { path: 'src/b.ts', status: 'renamed', previousPath: 'src/old-b.ts' },
      { path: 'src/copy.ts', status: 'copied', previousPath: 'src/a.ts', patch: '' },
      { path: 'bin/run', status: 'changed' },
      { path: 'logo.png', patch: null },
    ]);
    fake.clearRequests();
    const c = await github.compareCommits('Acme/Shop', BASE, HEAD);
    assert.equal(c.truncated, false);
    assert.deepEqual(
      c.files.map(({ blobSha, ...f }) => ({ ...f, blobSha: typeof blobSha })),
      [
        {
          path: 'src/a.ts',
          status: 'modified',
          patch: '@@ -1 +1 @@\n-a\n+b',
          blobSha: 'string',
          additions: 1,
          deletions: 1,
        },
        {
          path: 'src/new.ts',
          status: 'added',
          patch: '@@ -0,0 +1 @@\n+n',
          blobSha: 'string',
          additions: 1,
          deletions: 0,
        },
        {
          path: 'test/old.test.ts',
          status: 'removed',
          patch: '@@ -1 +0,0 @@\n-t',
          blobSha: 'string',
          additions: 0,
          deletions: 1,
        },
        {
          path: 'src/b.ts',
          status: 'renamed',
          patch: null,
          previousPath: 'src/old-b.ts',
          blobSha: 'string',
          additions: 0,
          deletions: 0,
        },
        {
          path: 'src/copy.ts',
          status: 'added',
          patch: '',
          previousPath: 'src/a.ts',
          blobSha: 'string',
          additions: 0,
          deletions: 0,
        },
        { path: 'bin/run', status: 'modified', patch: null, blobSha: 'string', additions: 0, deletions: 0 },
        { path: 'logo.png', status: 'modified', patch: null, blobSha: 'string', additions: 0, deletions: 0 },
      ],
    );
    // One request, no paging parameter (with one, GitHub lists files on the first page only).
    assert.deepEqual(
      fake.requests.map((r) => [r.method, r.path, r.operation]),
      [['GET', `/repos/acme/shop/compare/${BASE}...${HEAD}`, 'GET /repos/{owner}/{repo}/compare/{basehead}']],
    );
  });

  test('K4: GitHub lists at most 300 files: a list at the cap is marked truncated', async () => {
    const files = (n: number) =>
      Array.from({ length: n }, (_, i) => ({ path: `src/f${i}.ts`, patch: '@@ -1 +1 @@\n-a\n+b' }));
    fake.setCompare('acme/shop', BASE, 'a'.repeat(40), files(299));
    fake.setCompare('acme/shop', BASE, 'b'.repeat(40), files(300));
    fake.setCompare('acme/shop', BASE, 'c'.repeat(40), files(420));
    const under = await github.compareCommits('acme/shop', BASE, 'a'.repeat(40));
    const at = await github.compareCommits('acme/shop', BASE, 'b'.repeat(40));
    const over = await github.compareCommits('acme/shop', BASE, 'c'.repeat(40));
    assert.deepEqual([under.files.length, under.truncated], [299, false]);
    assert.deepEqual([at.files.length, at.truncated], [300, true]);
    assert.deepEqual([over.files.length, over.truncated], [300, true]);
  });

  test('identical commits compare to no files', async () => {
    fake.setCompare('acme/shop', HEAD, HEAD, [{ path: 'ignored.ts' }]);
    assert.deepEqual(await github.compareCommits('acme/shop', HEAD, HEAD), { files: [], truncated: false });
  });

  test('E4: an unknown commit is a ProviderError 404, not retryable; a 5xx is retryable', async () => {
    const missing = await github.compareCommits('acme/shop', BASE, 'd'.repeat(40)).catch((e: unknown) => e);
    assert.ok(missing instanceof ProviderError);
    assert.equal(missing.status, 404);
    assert.equal(missing.retryable, false);
    fake.failNext(/\/compare\//, [502]);
    const down = await github.compareCommits('acme/shop', BASE, HEAD).catch((e: unknown) => e);
    assert.ok(down instanceof ProviderError);
    assert.equal(down.retryable, true);
  });

  test('refs that cannot stand in base...head are refused before any request', async () => {
    fake.clearRequests();
    await assert.rejects(github.compareCommits('acme/shop', 'a...b', HEAD), TypeError);
    await assert.rejects(github.compareCommits('acme/shop', BASE, ''), TypeError);
    await assert.rejects(github.compareCommits('acme/shop', '-x', HEAD), TypeError);
    assert.equal(fake.requests.length, 0);
  });

  test('GitHub statuses map onto the port’s four', () => {
    const of = (status: string) => toComparedFile({ filename: 'f', status, sha: null }).status;
    assert.deepEqual(['added', 'removed', 'modified', 'renamed', 'copied', 'changed', 'unchanged'].map(of), [
      'added',
      'removed',
      'modified',
      'renamed',
      'added',
      'modified',
      'modified',
    ]);
  });
});
