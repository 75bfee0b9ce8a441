// Conditional GETs of the GitLab adapter against the fake GitLab (which answers If-None-Match with
// 304, as GitLab's Rack::ConditionalGet does): a repeated read is a 304 that returns the kept answer,
// a change is a 200 with the new one, the store is shared between clients, its keys start `gitlab:`
// and never hold the token, a failing store costs only the saving, and the memory store is bounded.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import { after, before, describe, it } from 'node:test';
import type { ProviderPort } from '../app/provider-port.js';
import { startFakeGitLab, type FakeGitLab, type RecordedGitLabRequest } from '../../test/support/fake-gitlab/server.js';
import { closeServer, listenLoopback } from '../../test/support/loopback.js';
import { createTestDatabase } from '../../test/support/databases.js';
import { openDatabase } from '../ledger/db.js';
import { migrateToLatest } from '../ledger/migrations.js';
import { createPollStateStore } from '../ledger/poll-state.js';
import { createGitLab } from './client.js';
import { memoryGitLabEtagStore, type GitLabEtagStore } from './etag-store.js';

const P = 'group/cond/app';
const SHA = 'c'.repeat(40);

/** A memory store that also records every key and value written. */
function recordingStore(): GitLabEtagStore & { writes: Array<{ key: string; etag: string; value: string }> } {
  const inner = memoryGitLabEtagStore();
  const writes: Array<{ key: string; etag: string; value: string }> = [];
  return {
    writes,
    getEtag: (key) => inner.getEtag(key),
    putEtag: async (key, etag, value) => {
      writes.push({ key, etag, value });
      await inner.putEtag(key, etag, value);
    },
  };
}

describe('GitLab adapter: conditional requests (fake GitLab)', () => {
  let fake: FakeGitLab;
  let token: string;
  let iid = 100;

  before(async () => {
    fake = await startFakeGitLab();
    token = fake.addToken('fixloop-bot');
    fake.addProject(P);
  });
  after(() => fake.close());

  const client = (etags?: GitLabEtagStore): ProviderPort =>
    createGitLab({ url: fake.url, token, retry: { backoffUnitMs: 1 }, ...(etags ? { etags } : {}) });

  /** The GETs sent from here on whose path matches. */
  function watch(pattern: RegExp): () => RecordedGitLabRequest[] {
    const from = fake.requests.length;
    return () => fake.requests.slice(from).filter((r) => r.method === 'GET' && pattern.test(r.path));
  }

  it('sends If-None-Match on a second identical read, gets a 304 and returns the same value', async () => {
    const n = ++iid;
    fake.addMergeRequest(P, n, { headSha: SHA, sourceBranch: `fix/${n}`, labels: ['x'] });
    const gitlab = client();
    const sent = watch(new RegExp(`/merge_requests/${n}$`));
    const first = await gitlab.getPullRequest(P, n);
    const second = await gitlab.getPullRequest(P, n);
    assert.deepEqual(second, first);
    const [a, b] = sent();
    assert.equal(a!.headers['if-none-match'], undefined);
    assert.equal(a!.status, 200);
    assert.match(String(b!.headers['if-none-match']), /^W\/"/);
    assert.equal(b!.status, 304);
  });

  it('answers a change with a 200 and the new value: a new note', async () => {
    const n = ++iid;
    fake.addMergeRequest(P, n, { headSha: SHA });
    fake.addNote(P, n, { body: 'first', author: 'alice' });
    const gitlab = client();
    const sent = watch(new RegExp(`/merge_requests/${n}/notes`));
    assert.deepEqual(
      (await gitlab.listIssueComments(P, n)).map((c) => c.body),
      ['first'],
    );
    assert.deepEqual(
      (await gitlab.listIssueComments(P, n)).map((c) => c.body),
      ['first'],
    );
    fake.addNote(P, n, { body: 'second', author: 'bob' });
    assert.deepEqual(
      (await gitlab.listIssueComments(P, n)).map((c) => c.body),
      ['first', 'second'],
    );
    assert.deepEqual(
      sent().map((r) => [r.headers['if-none-match'] !== undefined, r.status]),
      [
        [false, 200],
        [true, 304],
        [true, 200],
      ],
    );
  });

  it("answers a change with a 200 and the new value: a new job in the head's pipeline", async () => {
    const sha = 'd'.repeat(40);
    const n = ++iid;
    fake.addMergeRequest(P, n, { headSha: sha, sourceBranch: `ci/${n}` });
    const { id: pipelineId } = fake.addPipeline(P, { sha });
    fake.addJob(P, pipelineId, { name: 'unit', status: 'success' });
    const gitlab = client();
    const sent = watch(/\/pipelines/);
    assert.deepEqual(
      (await gitlab.listCheckRuns(P, sha)).map((r) => r.name),
      ['unit'],
    );
    const again = await gitlab.listCheckRuns(P, sha);
    assert.deepEqual(
      again.map((r) => r.name),
      ['unit'],
    );
    const repeated = sent().slice(-2);
    assert.deepEqual(
      repeated.map((r) => r.status),
      [304, 304],
      'the pipelines of the sha and the jobs of the pipeline, both unchanged',
    );
    fake.addJob(P, pipelineId, { name: 'lint', status: 'running' });
    const changed = await gitlab.listCheckRuns(P, sha);
    assert.deepEqual(changed.map((r) => r.name).sort(), ['lint', 'unit']);
    const jobsRead = sent()
      .filter((r) => r.path.includes(`/pipelines/${pipelineId}/jobs`))
      .at(-1)!;
    assert.equal(jobsRead.headers['if-none-match'] !== undefined, true);
    assert.equal(jobsRead.status, 200);
  });

  it('reads a page added since, though the first page is unchanged (the 304 brings the new Link)', async () => {
    const n = ++iid;
    fake.addMergeRequest(P, n, { headSha: SHA });
    for (let i = 0; i < 100; i++) fake.addNote(P, n, { body: `note ${i}`, author: 'alice' });
    const gitlab = client();
    assert.equal((await gitlab.listIssueComments(P, n)).length, 100);
    fake.addNote(P, n, { body: 'note 100', author: 'alice' });
    const sent = watch(new RegExp(`/merge_requests/${n}/notes`));
    const comments = await gitlab.listIssueComments(P, n);
    assert.equal(comments.length, 101);
    assert.equal(comments.at(-1)!.body, 'note 100');
    assert.deepEqual(
      sent().map((r) => r.status),
      [304, 200],
    );
  });

  it('shares the store: a second client with the same store sends If-None-Match on its first read', async () => {
    const n = ++iid;
    fake.addMergeRequest(P, n, { headSha: SHA });
    fake.setReviewerState(P, n, 'alice', 'approved');
    const store = memoryGitLabEtagStore();
    const sent = watch(new RegExp(`/merge_requests/${n}(/reviewers)?$`));
    const one = client(store);
    const pr = await one.getPullRequest(P, n);
    await one.listReviews(P, n);
    const other = client(store);
    assert.deepEqual(await other.getPullRequest(P, n), pr);
    await other.listReviews(P, n);
    assert.deepEqual(
      sent().map((r) => [r.path.endsWith('/reviewers') ? 'reviewers' : 'mr', r.status]),
      [
        ['mr', 200],
        ['reviewers', 200],
        ['mr', 304],
        ['reviewers', 304],
      ],
    );
  });

  it("keeps its answers in the ledger's table beside GitHub's: a second replica's first read is a 304", async () => {
    const testDb = await createTestDatabase('sqlite');
    const db = openDatabase(testDb.url);
    try {
      await migrateToLatest(db.kysely, 'sqlite');
      const ledger = createPollStateStore(db.kysely, () => new Date().toISOString(), 'sqlite');
      await ledger.putEtag('pull acme/shop#1', 'W/"github"', '{"data":{},"link":null}'); // a GitHub answer
      const n = ++iid;
      fake.addMergeRequest(P, n, { headSha: SHA });
      const sent = watch(new RegExp(`/merge_requests/${n}$`));
      const pr = await client(ledger).getPullRequest(P, n);
      assert.deepEqual(await client(ledger).getPullRequest(P, n), pr);
      assert.deepEqual(
        sent().map((r) => r.status),
        [200, 304],
      );
      const keys = (await db.kysely.selectFrom('github_etags').select('key').execute()).map((r) => r.key);
      assert.deepEqual(
        keys.filter((k) => !k.startsWith('gitlab:')),
        ['pull acme/shop#1'],
      );
      assert.ok(keys.some((k) => k.startsWith('gitlab:GET ') && k.endsWith(`/merge_requests/${n}`)));
      assert.equal((await ledger.getEtag('pull acme/shop#1'))?.etag, 'W/"github"');
    } finally {
      await db.close();
      await testDb.drop();
    }
  });

  it('keys every answer `gitlab:` and by the URL alone: the token is in neither key nor value', async () => {
    const n = ++iid;
    const sha = 'e'.repeat(40);
    fake.addMergeRequest(P, n, { headSha: sha, sourceBranch: `keys/${n}` });
    fake.addNote(P, n, { body: 'hello', author: 'alice' });
    const { id: pipelineId } = fake.addPipeline(P, { sha });
    fake.addJob(P, pipelineId, { name: 'unit', status: 'failed' });
    const store = recordingStore();
    const gitlab = client(store);
    await gitlab.getPullRequest(P, n);
    await gitlab.listCheckRuns(P, sha);
    await gitlab.listStatuses(P, sha);
    await gitlab.listIssueComments(P, n);
    await gitlab.listReviews(P, n);
    assert.ok(store.writes.length >= 5, `answers kept: ${store.writes.length}`);
    for (const w of store.writes) {
      assert.match(w.key, /^gitlab:GET http:\/\/[^/@]+\/api\/v4\//);
      assert.ok(!w.key.includes(token) && !w.value.includes(token) && !w.etag.includes(token), w.key);
      assert.ok(!/private-token/i.test(w.key + w.value), w.key);
    }
    // The trace of the red job is read by a bare request, not kept here.
    assert.ok(store.writes.every((w) => !w.key.includes('/trace')));
  });

  it('reads a failing store as a miss: the request goes out unconditional and answers', async () => {
    const n = ++iid;
    fake.addMergeRequest(P, n, { headSha: SHA });
    const broken: GitLabEtagStore = {
      getEtag: () => Promise.reject(new Error('database is locked')),
      putEtag: () => Promise.reject(new Error('database is locked')),
    };
    const gitlab = client(broken);
    const sent = watch(new RegExp(`/merge_requests/${n}$`));
    assert.equal((await gitlab.getPullRequest(P, n)).number, n);
    assert.equal((await gitlab.getPullRequest(P, n)).number, n);
    assert.deepEqual(
      sent().map((r) => [r.headers['if-none-match'], r.status]),
      [
        [undefined, 200],
        [undefined, 200],
      ],
    );
  });

  it('reads an unreadable kept answer as a miss', async () => {
    const n = ++iid;
    fake.addMergeRequest(P, n, { headSha: SHA });
    const store = recordingStore();
    await client(store).getPullRequest(P, n);
    const key = store.writes[0]!.key;
    await store.putEtag(key, store.writes[0]!.etag, '{not json');
    const sent = watch(new RegExp(`/merge_requests/${n}$`));
    assert.equal((await client(store).getPullRequest(P, n)).number, n);
    assert.deepEqual(
      sent().map((r) => [r.headers['if-none-match'], r.status]),
      [[undefined, 200]],
    );
  });

  it('never sends If-None-Match on a write', async () => {
    const n = ++iid;
    fake.addMergeRequest(P, n, { headSha: SHA });
    const gitlab = client();
    await gitlab.listIssueComments(P, n);
    await gitlab.createIssueComment(P, n, 'a note');
    await gitlab.addLabels(P, n, ['l']);
    const writes = fake.requests.filter((r) => r.method !== 'GET' && r.path.includes(`/merge_requests/${n}`));
    assert.ok(writes.length >= 2);
    assert.ok(writes.every((r) => r.headers['if-none-match'] === undefined));
  });
});

describe('GitLab adapter: a 304 without Link (a proxy dropped it)', () => {
  it('reads a full page again, unconditionally, so a page added since is not missed', async () => {
    const notes = Array.from({ length: 100 }, (_, i) => ({
      id: i + 1,
      body: `note ${i}`,
      author: { username: 'alice' },
      system: false,
      updated_at: '2026-12-01T00:00:00Z',
    }));
    const seen: Array<{ url: string; ifNoneMatch: string | undefined; status: number }> = [];
    const server = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      const page = Number(url.searchParams.get('page') ?? 1);
      const perPage = Number(url.searchParams.get('per_page') ?? 20);
      const body = JSON.stringify(notes.slice((page - 1) * perPage, page * perPage));
      const etag = `W/"${createHash('md5').update(body).digest('hex')}"`;
      const ifNoneMatch = req.headers['if-none-match'];
      const status = ifNoneMatch === etag ? 304 : 200;
      seen.push({ url: url.pathname + url.search, ifNoneMatch, status });
      if (status === 304) return void res.writeHead(304, { etag }).end(); // no Link, no x-* headers
      const last = Math.max(1, Math.ceil(notes.length / perPage));
      const next = new URL(url);
      next.searchParams.set('page', String(page + 1));
      res.writeHead(200, {
        'content-type': 'application/json',
        etag,
        'x-page': String(page),
        'x-per-page': String(perPage),
        'x-total': String(notes.length),
        ...(page < last ? { link: `<http://${req.headers.host}${next.pathname}${next.search}>; rel="next"` } : {}),
      });
      res.end(body);
    });
    const url = await listenLoopback(server);
    try {
      const gitlab = createGitLab({ url, token: 'glpat-x', retry: { backoffUnitMs: 1 } });
      assert.equal((await gitlab.listIssueComments('g/p', 1)).length, 100);
      notes.push({ ...notes[0]!, id: 101, body: 'note 100' });
      const from = seen.length;
      const comments = await gitlab.listIssueComments('g/p', 1);
      assert.equal(comments.length, 101);
      assert.equal(comments.at(-1)!.body, 'note 100');
      assert.deepEqual(
        seen.slice(from).map((r) => [r.ifNoneMatch !== undefined, r.status]),
        [
          [true, 304], // page 1 unchanged, but the 304 says nothing of a next page
          [false, 200], // so page 1 is read again, whole, and names page 2
          [false, 200], // page 2
        ],
      );
    } finally {
      await closeServer(server);
    }
  });
});

describe('memoryGitLabEtagStore', () => {
  it('drops the least recently used answer beyond maxEntries', async () => {
    const store = memoryGitLabEtagStore(2);
    await store.putEtag('gitlab:a', 'W/"a"', 'A');
    await store.putEtag('gitlab:b', 'W/"b"', 'B');
    await store.getEtag('gitlab:a'); // a is now the most recently used
    await store.putEtag('gitlab:c', 'W/"c"', 'C');
    assert.equal(await store.getEtag('gitlab:b'), null);
    assert.equal((await store.getEtag('gitlab:a'))?.value, 'A');
    assert.equal((await store.getEtag('gitlab:c'))?.value, 'C');
  });

  it('keeps at most maxChars characters, and no answer larger than that', async () => {
    const store = memoryGitLabEtagStore(100, 40);
    await store.putEtag('k1', 'e', 'x'.repeat(15)); // 18 characters
    await store.putEtag('k2', 'e', 'y'.repeat(15)); // 36 in all
    await store.putEtag('k3', 'e', 'z'.repeat(15)); // 54: k1 goes
    assert.equal(await store.getEtag('k1'), null);
    assert.ok((await store.getEtag('k2')) !== null && (await store.getEtag('k3')) !== null);
    await store.putEtag('k4', 'e', 'w'.repeat(100));
    assert.equal(await store.getEtag('k4'), null);
    assert.ok((await store.getEtag('k3')) !== null);
  });

  it('replaces an answer under the same key, with when it was stored', async () => {
    const store = memoryGitLabEtagStore();
    await store.putEtag('gitlab:k', 'W/"1"', 'one');
    await store.putEtag('gitlab:k', 'W/"2"', 'two');
    const kept = await store.getEtag('gitlab:k');
    assert.equal(kept?.etag, 'W/"2"');
    assert.equal(kept?.value, 'two');
    assert.ok(!Number.isNaN(Date.parse(kept!.storedAt)));
  });

  it('refuses bounds that are not positive integers', () => {
    assert.throws(() => memoryGitLabEtagStore(0), RangeError);
    assert.throws(() => memoryGitLabEtagStore(10, 1.5), RangeError);
  });
});
