// SPEC B4, E1, E4, J1–J2, K5, K8: each ProviderPort method of the Octokit adapter against the fake
// GitHub (a real HTTP server), with token auth; repository names come back lower-case.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ProviderError, type ProviderPort } from '../app/provider-port.js';
import { startFakeGitHub, type FakeGitHub } from '../../test/support/fake-github/server.js';
import { createGitHub } from './client.js';
import { toRepositoryPermission } from './to-port.js';

const HEAD = 'a'.repeat(40);
const REPO = 'acme/shop';

describe('GitHub adapter: port methods (token auth)', () => {
  let fake: FakeGitHub;
  let github: ProviderPort;
  let token: string;

  before(async () => {
    fake = await startFakeGitHub();
    token = fake.addUserToken('fixloop-user');
    github = createGitHub({ apiUrl: fake.url, auth: { kind: 'token', token }, throttle: { spaceWrites: false } });
    fake.addPull('Acme/Shop', 7, {
      headSha: HEAD,
      headRef: 'agent/fix',
      author: 'agent-bot',
      labels: ['bug'],
      draft: true,
    });
  });
  after(async () => {
    fake.assertNoViolations();
    await fake.close();
  });

  test('E1: getPullRequest reads head, refs, labels, title, lower-cases repository names', async () => {
    fake.addPull('Acme/Shop', 8, { headSha: 'f'.repeat(40), headRepo: 'Forker/Shop' });
    const pr = await github.getPullRequest('Acme/Shop', 7);
    assert.deepEqual(
      { ...pr, updatedAt: typeof pr.updatedAt },
      {
        repository: 'acme/shop',
        number: 7,
        state: 'open',
        merged: false,
        headSha: HEAD,
        headRef: 'agent/fix',
        headRepository: 'acme/shop',
        baseRef: 'main',
        author: 'agent-bot',
        title: 'Pull request 7',
        draft: true,
        labels: ['bug'],
        mergeableState: 'clean',
        updatedAt: 'string',
      },
    );
    assert.equal((await github.getPullRequest(REPO, 8)).headRepository, 'forker/shop');
  });

  test('E1: a pull request whose fork was deleted has headRepository null', async () => {
    fake.addPull(REPO, 9, { headSha: 'e'.repeat(40), headRepo: null, state: 'closed', merged: true });
    const pr = await github.getPullRequest(REPO, 9);
    assert.equal(pr.headRepository, null);
    assert.equal(pr.state, 'closed');
    assert.equal(pr.merged, true);
  });

  test('E4: a missing pull request is a ProviderError 404, not retryable', async () => {
    await assert.rejects(github.getPullRequest(REPO, 404), (err: unknown) => {
      assert.ok(err instanceof ProviderError);
      assert.equal(err.status, 404);
      assert.equal(err.retryable, false);
      assert.doesNotMatch(err.message, new RegExp(token));
      return true;
    });
  });

  test('E1/J1: listCheckRuns reads every page (Link rel="next"), latest run per name', async () => {
    const sha = 'c'.repeat(40);
    for (let i = 0; i < 150; i++)
      fake.addCheckRun(REPO, sha, { name: `job ${i}`, conclusion: i === 3 ? 'failure' : 'success' });
    const rerun = fake.addCheckRun(REPO, sha, {
      name: 'job 3',
      status: 'in_progress',
      conclusion: null,
      appSlug: 'github-actions',
      outputTitle: 'rerun',
    });
    fake.clearRequests();
    const runs = await github.listCheckRuns(REPO, sha);
    assert.equal(runs.length, 150);
    assert.deepEqual(
      runs.find((r) => r.name === 'job 3'),
      {
        id: rerun.id,
        name: 'job 3',
        status: 'in_progress',
        conclusion: null,
        startedAt: '2024-01-01T00:00:00Z',
        completedAt: null,
        detailsUrl: runs.find((r) => r.name === 'job 3')!.detailsUrl,
        appSlug: 'github-actions',
        outputTitle: 'rerun',
        outputSummary: null,
        headSha: sha, // issue 36: the commit each run is about, so a suite's failing jobs are read by head
      },
    );
    const pages = fake.requestsTo(/\/check-runs/);
    assert.equal(pages.length, 2, 'two pages of 100');
    assert.match(pages[1]!.path, /page=2/);
  });

  test('B4/J1: listStatuses gives the latest status per context', async () => {
    const sha = 'd'.repeat(40);
    fake.addStatus(REPO, sha, { context: 'ci/lint', state: 'pending' });
    fake.addStatus(REPO, sha, {
      context: 'ci/lint',
      state: 'failure',
      description: 'lint failed',
      targetUrl: 'https://ci.example/1',
    });
    fake.addStatus(REPO, sha, { context: 'ci/build', state: 'success' });
    const statuses = await github.listStatuses(REPO, sha);
    assert.deepEqual(
      statuses.map((s) => [s.context, s.state, s.description, s.targetUrl]),
      [
        ['ci/lint', 'failure', 'lint failed', 'https://ci.example/1'],
        ['ci/build', 'success', null, null],
      ],
    );
  });

  test('B4: listStatuses reads every page of a combined status', async () => {
    const sha = '9'.repeat(40);
    for (let i = 0; i < 130; i++) fake.addStatus(REPO, sha, { context: `ctx/${i}`, state: 'success' });
    assert.equal((await github.listStatuses(REPO, sha)).length, 130);
  });

  test('B4: requiredChecks joins contexts and checks; unprotected (404) or unreadable (403) is null', async () => {
    fake.state.protection['acme/shop:main'] = {
      contexts: ['ci/lint'],
      checks: [
        { context: 'ci/lint', app_id: null },
        { context: 'test', app_id: 15368 },
      ],
    };
    fake.setRequiredChecks(REPO, 'release/1.x', ['build']);
    fake.setRequiredChecks(REPO, 'locked', 'forbidden');
    assert.deepEqual(await github.requiredChecks(REPO, 'main'), ['ci/lint', 'test']);
    assert.deepEqual(await github.requiredChecks(REPO, 'release/1.x'), ['build'], 'a branch name with a slash');
    assert.equal(await github.requiredChecks(REPO, 'unprotected'), null);
    assert.equal(await github.requiredChecks(REPO, 'locked'), null);
  });

  test('J2: jobLogUrl returns the signed blob URL without following it', async () => {
    fake.setLog(5151, 'line 1\nline 2\n');
    fake.clearRequests();
    const url = await github.jobLogUrl(REPO, 5151);
    assert.ok(url.startsWith(`${fake.blobOrigin}/logs/5151/`), url);
    assert.match(url, /[?&]sig=[0-9a-f]{64}/);
    assert.equal(fake.requestsTo(/./, 'blob').length, 0, 'the client never touched the blob host');
    assert.equal(fake.requestsTo(/\/actions\/jobs\/5151\/logs$/)[0]?.status, 302);
  });

  test('J2: the signed URL serves the log to a bare https request (no credentials)', async () => {
    fake.setLog(5152, 'hello log\n');
    const url = await github.jobLogUrl(REPO, 5152);
    const text = await httpsGet(url, fake.blobCa);
    assert.equal(text, 'hello log\n');
    assert.equal(fake.requestsTo(/./, 'blob')[0]?.headers.authorization, undefined);
  });

  test('J2: a job without a log is a ProviderError 404', async () => {
    await assert.rejects(
      github.jobLogUrl(REPO, 999_999),
      (err: unknown) => err instanceof ProviderError && err.status === 404,
    );
  });

  test('K5: addLabels and removeLabel; removing an absent label is not an error', async () => {
    await github.addLabels(REPO, 7, ['fixloop:needs-human']);
    await github.addLabels(REPO, 7, []);
    assert.deepEqual(fake.state.pulls['acme/shop#7']?.labels, ['bug', 'fixloop:needs-human']);
    await github.removeLabel(REPO, 7, 'fixloop:needs-human');
    await github.removeLabel(REPO, 7, 'fixloop:needs-human');
    assert.deepEqual(fake.state.pulls['acme/shop#7']?.labels, ['bug']);
    assert.equal(
      fake.requestsTo(/\/issues\/7\/labels$/).filter((r) => r.method === 'POST').length,
      1,
      'no request for an empty list',
    );
  });

  test('K8: create, update and list issue comments (all pages), with authors and their type', async () => {
    for (let i = 0; i < 105; i++) fake.addComment(REPO, 11, { body: `old ${i}`, author: 'someone' });
    fake.addComment(REPO, 11, { body: 'beep', author: 'ci-helper[bot]', authorType: 'Bot' });
    const created = await github.createIssueComment(REPO, 11, '<!-- fixloop-state -->\n{}');
    assert.equal(created.author, 'fixloop-user');
    assert.equal(created.authorType, 'User');
    const updated = await github.updateIssueComment(REPO, 11, created.id, '<!-- fixloop-state -->\n{"attempts":1}');
    assert.equal(updated.id, created.id);
    assert.equal(updated.body, '<!-- fixloop-state -->\n{"attempts":1}');
    const comments = await github.listIssueComments(REPO, 11);
    assert.equal(comments.length, 107);
    assert.deepEqual(comments.at(-2), {
      id: comments.at(-2)!.id,
      body: 'beep',
      author: 'ci-helper[bot]',
      authorType: 'Bot',
      updatedAt: comments.at(-2)!.updatedAt,
    });
    assert.equal(comments.at(-1)!.body, updated.body);
  });

  test('F1: listReviews gives state, body, author, commit', async () => {
    fake.addReview(REPO, 7, {
      state: 'CHANGES_REQUESTED',
      body: 'please fix',
      author: 'alice',
      commitId: HEAD,
      submittedAt: '2024-05-01T10:00:00Z',
    });
    fake.addReview(REPO, 7, {
      state: 'COMMENTED',
      body: '',
      author: 'review-bot[bot]',
      authorType: 'Bot',
      commitId: HEAD,
    });
    const reviews = await github.listReviews(REPO, 7);
    assert.deepEqual(reviews[0], {
      id: reviews[0]!.id,
      state: 'CHANGES_REQUESTED',
      body: 'please fix',
      author: 'alice',
      authorType: 'User',
      submittedAt: '2024-05-01T10:00:00Z',
      commitId: HEAD,
    });
    assert.equal(reviews[1]?.authorType, 'Bot');
  });

  test('F2: selfLogin with a token is the GET /user login, asked once', async () => {
    fake.clearRequests();
    assert.equal(await github.selfLogin(), 'fixloop-user');
    assert.equal(await github.selfLogin(), 'fixloop-user');
    assert.equal(fake.requestsTo(/\/user$/).length, 1);
  });

  test('F2: selfLogin is null when the token may not read GET /user (an installation token)', async () => {
    const appKeys = fake.createApp({ slug: 'other-app' });
    const installationId = fake.addInstallation('acme');
    // An installation token used as a plain token, as GitHub Actions' GITHUB_TOKEN is.
    const issued = await fetch(`${fake.url}/app/installations/${installationId}/access_tokens`, {
      method: 'POST',
      headers: { authorization: `Bearer ${await appJwt(appKeys.appId, appKeys.privateKey)}` },
    }).then((r) => r.json() as Promise<{ token: string }>);
    const asInstallation = createGitHub({ apiUrl: fake.url, auth: { kind: 'token', token: issued.token } });
    assert.equal(await asInstallation.selfLogin(), null);
    fake.state.app = null;
  });

  test('E4: every request carries the token as "token …" and a user agent', () => {
    const apiRequests = fake.requests.filter(
      (r) => r.host === 'api' && r.operation !== null && !r.path.includes('/app/'),
    );
    assert.ok(apiRequests.length > 0);
    for (const r of apiRequests.filter((r) => !/^Bearer /.test(String(r.headers.authorization)))) {
      assert.match(String(r.headers.authorization), /^token /, r.path);
      assert.match(String(r.headers['user-agent']), /^fixloop/);
    }
  });
});

describe('GitHub adapter: conditional requests (ETag)', () => {
  let fake: FakeGitHub;
  let github: ProviderPort;

  before(async () => {
    fake = await startFakeGitHub();
    github = createGitHub({ apiUrl: fake.url, auth: { kind: 'token', token: fake.addUserToken('poller') } });
    fake.addPull(REPO, 7, { headSha: HEAD });
    fake.addCheckRun(REPO, HEAD, { name: 'test', conclusion: 'failure' });
    fake.addStatus(REPO, HEAD, { context: 'ci', state: 'success' });
  });
  after(async () => {
    fake.assertNoViolations();
    await fake.close();
  });

  test('E1/E4: the second identical read sends If-None-Match; the 304 yields the same data', async () => {
    const first = [
      await github.getPullRequest(REPO, 7),
      await github.listCheckRuns(REPO, HEAD),
      await github.listStatuses(REPO, HEAD),
    ];
    fake.clearRequests();
    const second = [
      await github.getPullRequest(REPO, 7),
      await github.listCheckRuns(REPO, HEAD),
      await github.listStatuses(REPO, HEAD),
    ];
    assert.deepEqual(second, first);
    assert.equal(fake.requests.length, 3);
    for (const r of fake.requests) {
      assert.match(String(r.headers['if-none-match']), /^W\/"[0-9a-f]+"$/, r.path);
      assert.equal(r.status, 304, r.path);
    }
  });

  test('E1: a changed answer is read in full and replaces the cached one', async () => {
    fake.setHead(REPO, 7, 'b'.repeat(40));
    fake.clearRequests();
    assert.equal((await github.getPullRequest(REPO, 7)).headSha, 'b'.repeat(40));
    assert.equal(fake.requests[0]?.status, 200);
    assert.equal((await github.getPullRequest(REPO, 7)).headSha, 'b'.repeat(40));
    assert.equal(fake.requests[1]?.status, 304);
  });
});

describe('GitHub adapter: GitHub Enterprise base URL', () => {
  test('M5: a GHE-style base URL (…/api/v3) works for reads, writes and the log redirect', async () => {
    const fake = await startFakeGitHub({ prefix: '/api/v3' });
    try {
      assert.match(fake.url, /^http:\/\/127\.0\.0\.1:\d+\/api\/v3$/);
      const github = createGitHub({ apiUrl: fake.url, auth: { kind: 'token', token: fake.addUserToken('ghe-user') } });
      fake.addPull(REPO, 3, { headSha: HEAD });
      fake.setLog(77, 'x');
      assert.equal((await github.getPullRequest(REPO, 3)).headSha, HEAD);
      await github.addLabels(REPO, 3, ['fixloop:needs-human']);
      assert.ok((await github.jobLogUrl(REPO, 77)).startsWith(fake.blobOrigin));
      assert.equal(await github.selfLogin(), 'ghe-user');
      assert.ok(fake.requests.every((r) => r.host === 'blob' || r.path.startsWith('/api/v3/')));
      fake.assertNoViolations();
    } finally {
      await fake.close();
    }
  });
});

async function httpsGet(url: string, ca: string): Promise<string> {
  const { get } = await import('node:https');
  return new Promise((resolve, reject) => {
    get(url, { ca }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve(text));
    }).on('error', reject);
  });
}

/** A GitHub App JWT, signed as @octokit/auth-app does, for calling the fake directly. */
async function appJwt(appId: string, privateKey: string): Promise<string> {
  const { createSign } = await import('node:crypto');
  const now = Math.floor(Date.now() / 1000);
  const part = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
  const unsigned = `${part({ alg: 'RS256', typ: 'JWT' })}.${part({ iat: now - 30, exp: now + 540, iss: appId })}`;
  return `${unsigned}.${createSign('RSA-SHA256').update(unsigned).sign(privateKey).toString('base64url')}`;
}

describe('GitHub adapter: a person’s permission on the repository (F1/F2, decision 0042)', () => {
  let fake: FakeGitHub;
  let token: string;
  const open = (ttl?: number) =>
    createGitHub({
      apiUrl: fake.url,
      auth: { kind: 'token', token },
      throttle: { spaceWrites: false },
      retry: { retries: 1, backoffUnitMs: 1 },
      ...(ttl !== undefined ? { permissionTtlSeconds: ttl } : {}),
    });
  const reads = (login: string) => fake.requestsTo(new RegExp(`/collaborators/${login}/permission$`)).length;

  before(async () => {
    fake = await startFakeGitHub();
    token = fake.addUserToken('fixloop-user');
    for (const role of ['read', 'triage', 'write', 'maintain', 'admin'] as const)
      fake.setCollaborator(REPO, `${role}-person`, role);
  });
  after(async () => {
    fake.assertNoViolations();
    await fake.close();
  });

  test('F1/F2: each role is read as GitHub names it (role_name: triage and maintain too)', async () => {
    const github = open();
    for (const role of ['read', 'triage', 'write', 'maintain', 'admin'])
      assert.equal(await github.repositoryPermission!(REPO, `${role}-person`), role);
  });

  test('F1/F2: someone who is no collaborator (404) has no access: none', async () => {
    assert.equal(await open().repositoryPermission!(REPO, 'org-member'), 'none');
  });

  test('F1/F2: a 403 (the App may not read it) or a 5xx past the retries is no answer: it throws a ProviderError', async () => {
    const github = open(0);
    fake.failNext(/\/collaborators\/write-person\/permission$/, [403]);
    await assert.rejects(
      github.repositoryPermission!(REPO, 'write-person'),
      (e) => e instanceof ProviderError && e.status === 403,
    );
    fake.failNext(/\/collaborators\/write-person\/permission$/, [502]);
    await assert.rejects(
      github.repositoryPermission!(REPO, 'write-person'),
      (e) => e instanceof ProviderError && e.status === 502,
    );
    assert.equal(await github.repositoryPermission!(REPO, 'write-person'), 'write');
  });

  test('F1/F2: an answer is kept for the TTL per repository and login (any case); a failed read is not kept', async () => {
    const github = open(60);
    const before = reads('maintain-person');
    await github.repositoryPermission!(REPO, 'maintain-person');
    await github.repositoryPermission!('Acme/Shop', 'Maintain-Person');
    assert.equal(reads('maintain-person') - before, 1);

    fake.failNext(/\/collaborators\/admin-person\/permission$/, [403]);
    const first = reads('admin-person');
    await assert.rejects(github.repositoryPermission!(REPO, 'admin-person'));
    assert.equal(await github.repositoryPermission!(REPO, 'admin-person'), 'admin');
    assert.equal(reads('admin-person') - first, 2, 'the failure was not kept');
  });

  test('F1/F2: the read is not retried, whatever the client retries elsewhere (an evaluation waits on it)', async () => {
    const patient = createGitHub({
      apiUrl: fake.url,
      auth: { kind: 'token', token },
      throttle: { spaceWrites: false },
      retry: { retries: 3, backoffUnitMs: 1 },
    });
    fake.setCollaborator(REPO, 'flaky', 'write');
    fake.failNext(/\/collaborators\/flaky\/permission$/, [502]);
    await assert.rejects(patient.repositoryPermission!(REPO, 'flaky'));
    assert.equal(reads('flaky'), 1);
    assert.equal(await patient.repositoryPermission!(REPO, 'flaky'), 'write', 'asked again, it answers');
    assert.equal(await patient.repositoryPermission!(REPO, 'nobody-here'), 'none');
    assert.equal(reads('nobody-here'), 1, 'a 404 is an answer, read once');
  });

  test('F1/F2: with a TTL of 0 every call reads again (a demotion is seen at once)', async () => {
    const github = open(0);
    fake.setCollaborator(REPO, 'demoted', 'write');
    assert.equal(await github.repositoryPermission!(REPO, 'demoted'), 'write');
    fake.setCollaborator(REPO, 'demoted', 'read');
    assert.equal(await github.repositoryPermission!(REPO, 'demoted'), 'read');
  });
});

describe('GitHub adapter: the collaborator-permission answer read (F1/F2, decision 0042)', () => {
  const CASES: ReadonlyArray<[string, { permission?: unknown; role_name?: unknown }, string]> = [
    [
      'maintain reads as write in `permission`; role_name says maintain',
      { permission: 'write', role_name: 'maintain' },
      'maintain',
    ],
    [
      'triage reads as read in `permission`; role_name says triage',
      { permission: 'read', role_name: 'triage' },
      'triage',
    ],
    ['a custom role counts as its base role', { permission: 'write', role_name: 'security-engineer' }, 'write'],
    ['a custom role on read', { permission: 'read', role_name: 'auditor' }, 'read'],
    ['no access', { permission: 'none', role_name: '' }, 'none'],
    ['role_name absent (an older GitHub Enterprise)', { permission: 'admin' }, 'admin'],
    ['in another case', { permission: 'WRITE', role_name: 'Admin' }, 'admin'],
    ['nothing readable is no access', { permission: 42, role_name: null }, 'none'],
    ['an unknown legacy permission is no access', { permission: 'owner' }, 'none'],
  ];
  for (const [label, json, expected] of CASES)
    test(`F1/F2: ${label} → ${expected}`, () => assert.equal(toRepositoryPermission(json), expected));
});
