// Issue 19 (SPEC Q1, Q3 with A1–A6): GitLab's webhooks into the same ledger with the same guarantees,
// on both databases — the token in constant time with rotation, bad input refused with nothing
// stored, finished results only, a redelivery a duplicate, a retried job a new result, and a failed
// job of a merge request pipeline evaluated by the same gate up to the one attempt it buys.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { DATABASE_KINDS } from '../support/databases.js';
import { startHarness, SECRET, type Harness } from '../support/harness.js';
import { checkRunPayload, delivery, post } from '../support/deliveries.js';

type Json = any; // GitLab example payloads, edited freely in tests

const TOKENS = ['gitlab-token-old', 'gitlab-token-new'];
const PROJECT = 'gitlab-org/gitlab-test';
const HEAD = '2293ada6b400935a1378653304eaf6221e0fdb8f';
const MR = 1;

const WORKS = [
  { name: 'shop', account: 'acme', repositories: [{ name: 'acme/shop', role: 'data' }] },
  {
    name: 'lab',
    account: 'gitlab-org',
    provider: 'gitlab',
    repositories: [{ name: PROJECT, role: 'data', adopt: { branches: ['agent/*'] } }],
  },
];

function fixture(name: string): Json {
  return JSON.parse(readFileSync(new URL(`../fixtures/gitlab/${name}.json`, import.meta.url), 'utf8'));
}

/** GitLab's Job example as a job of merge request !1's pipeline, finished as the test says. */
function failedJob(edit: Record<string, unknown> = {}): Json {
  return {
    ...fixture('job-hook'),
    ref: `refs/merge-requests/${MR}/head`,
    build_status: 'failed',
    build_finished_at: '2026-12-01 10:00:00 UTC',
    ...edit,
  };
}

interface Sent {
  status: number;
  body: any;
}

async function postGitlab(
  h: Harness,
  event: string,
  body: unknown,
  o: { token?: string | null; key?: string; raw?: string } = {},
): Promise<Sent> {
  const headers: Record<string, string> = { 'content-type': 'application/json', 'x-gitlab-event': event };
  const token = o.token === undefined ? TOKENS[0]! : o.token;
  if (token !== null) headers['x-gitlab-token'] = token;
  headers['idempotency-key'] = o.key ?? randomUUID();
  const res = await fetch(`${h.url}/api/gitlab/webhooks`, {
    method: 'POST',
    headers,
    body: o.raw ?? JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

async function count(h: Harness, table: 'events' | 'decisions'): Promise<number> {
  const r = await h.app.db.kysely
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

async function decisionsOf(h: Harness, key: string): Promise<Array<{ outcome: string; reason: string | null }>> {
  const r = await h.api('GET', `/api/deliveries?delivery=${encodeURIComponent(key)}`);
  return r.body.decisions.map((d: any) => ({ outcome: d.outcome, reason: d.reason })).reverse();
}

for (const kind of DATABASE_KINDS) {
  describe(`GitLab webhook receiver (${kind})`, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(kind, {
        env: { GITLAB_WEBHOOK_SECRET: TOKENS.join(', '), WEBHOOK_MAX_BYTES: String(64 * 1024) },
        configExtra: { works: WORKS },
      });
    });
    after(() => h.close());

    test('Q1/A1: a missing or wrong X-Gitlab-Token is 401 and stores nothing; either rotated token is accepted', async () => {
      const before = [await count(h, 'events'), await count(h, 'decisions')];
      for (const token of [null, '', 'gitlab-token-ol', 'gitlab-token-old2', SECRET]) {
        const r = await postGitlab(h, 'Job Hook', failedJob({ build_id: 5001 }), { token });
        assert.equal(r.status, 401, `token ${JSON.stringify(token)}`);
        assert.equal(r.body.error, 'bad_token');
      }
      assert.deepEqual([await count(h, 'events'), await count(h, 'decisions')], before);
      const ok = await postGitlab(h, 'Job Hook', failedJob({ build_id: 5002 }), { token: TOKENS[1]! });
      assert.equal(ok.status, 202, JSON.stringify(ok.body));
    });

    test('Q1/A1: a body over WEBHOOK_MAX_BYTES is 413; malformed JSON is 400; no event header is 400', async () => {
      const before = await count(h, 'events');
      const big = JSON.stringify({ ...failedJob({ build_id: 5003 }), pad: 'x'.repeat(70 * 1024) });
      assert.equal((await postGitlab(h, 'Job Hook', null, { raw: big })).status, 413);
      const bad = await postGitlab(h, 'Job Hook', null, { raw: '{"object_kind": "build",' });
      assert.equal(bad.status, 400);
      assert.equal(bad.body.reason, 'malformed_json');
      const res = await fetch(`${h.url}/api/gitlab/webhooks`, {
        method: 'POST',
        headers: { 'x-gitlab-token': TOKENS[0]!, 'content-type': 'application/json' },
        body: JSON.stringify(failedJob({ build_id: 5004 })),
      });
      assert.equal(res.status, 400);
      assert.equal((await res.json()).error, 'missing_event_header');
      assert.equal(await count(h, 'events'), before);
    });

    test('Q1/A1: an event fixloop does not handle is acknowledged with 200 and stores nothing', async () => {
      // The delivery the first test let through is judged in the background: its decision is taken
      // before the count, or it lands in the middle of this test.
      await h.app.settle();
      const before = [await count(h, 'events'), await count(h, 'decisions')];
      const r = await postGitlab(h, 'Push Hook', { object_kind: 'push', project: { path_with_namespace: PROJECT } });
      assert.equal(r.status, 200);
      assert.deepEqual([r.body.outcome, r.body.reason], ['ignored', 'unknown_event']);
      // A GitHub event name on the GitLab route is no GitLab event either.
      const gh = await postGitlab(
        h,
        'check_run',
        checkRunPayload({ repo: { owner: 'acme', name: 'shop' }, sha: HEAD, id: 1 }),
      );
      assert.deepEqual([gh.status, gh.body.reason], [200, 'unknown_event']);
      // …and a GitLab event name on the GitHub route is no GitHub event.
      const named = await post(h.url, delivery('Job Hook', failedJob({ build_id: 5005 })), SECRET);
      assert.deepEqual([named.status, named.body.reason], [200, 'unknown_event']);
      assert.deepEqual([await count(h, 'events'), await count(h, 'decisions')], before);
    });

    test('A4: a running, pending or manual job is dropped and never stored as an event', async () => {
      const before = await count(h, 'events');
      for (const [i, status] of ['running', 'pending', 'created', 'manual'].entries()) {
        const r = await postGitlab(h, 'Job Hook', failedJob({ build_id: 5100 + i, build_status: status }));
        assert.deepEqual([r.status, r.body.outcome, r.body.reason], [200, 'dropped', 'not_completed'], status);
      }
      assert.equal(await count(h, 'events'), before);
    });

    test('Q1/A3/C2: a failed job of an MR pipeline is stored once, reaches the gate and buys one attempt; its redelivery is a duplicate', async () => {
      const created = await h.api('POST', '/api/tasks', {
        repository: PROJECT,
        pullRequest: MR,
        branch: 'ms-viewport',
      });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const key = randomUUID();
      const first = await postGitlab(h, 'Job Hook', failedJob(), { key });
      assert.equal(first.status, 202, JSON.stringify(first.body));
      assert.equal(first.body.identity, `check:${PROJECT}@${HEAD}:job:1977:failed`);
      await h.app.settle();
      assert.deepEqual(
        (await decisionsOf(h, key)).map((d) => d.outcome),
        ['stored', 'claimed'],
      );
      assert.equal(h.runner.starts.length, 1);
      assert.equal(h.runner.starts[0]!.pullRequest, MR);

      const again = await postGitlab(h, 'Job Hook', failedJob(), { key });
      assert.deepEqual([again.status, again.body.outcome], [200, 'duplicate']);
      await h.app.settle();
      assert.equal(h.runner.starts.length, 1, 'a redelivery buys nothing');

      // A retried job is a new job id: a new result, stored and evaluated; the head is claimed already.
      const retryKey = randomUUID();
      const retried = await postGitlab(h, 'Job Hook', failedJob({ build_id: 1990, retries_count: 1 }), {
        key: retryKey,
      });
      assert.equal(retried.status, 202, JSON.stringify(retried.body));
      assert.notEqual(retried.body.identity, first.body.identity);
      await h.app.settle();
      const trail = await decisionsOf(h, retryKey);
      assert.equal(trail[0]!.outcome, 'stored');
      assert.equal(trail.at(-1)!.outcome, 'refused', JSON.stringify(trail));
      assert.equal(h.runner.starts.length, 1, 'one attempt for the head');
    });

    test('B3: a job allowed to fail that failed is stored, and the gate does not take it for red', async () => {
      const key = randomUUID();
      const r = await postGitlab(h, 'Job Hook', failedJob({ build_id: 5200, build_allow_failure: true }), { key });
      assert.equal(r.status, 202, JSON.stringify(r.body));
      await h.app.settle();
      assert.deepEqual(await decisionsOf(h, key), [
        { outcome: 'stored', reason: null },
        { outcome: 'refused', reason: 'result_not_actionable' },
      ]);
    });

    test('A3: a Merge Request hook redelivered with the same Idempotency-Key is a duplicate; another key is a new delivery', async () => {
      const mr = fixture('merge-request-hook');
      mr.project.path_with_namespace = PROJECT;
      mr.object_attributes.action = 'update';
      const key = randomUUID();
      assert.equal((await postGitlab(h, 'Merge Request Hook', mr, { key })).status, 202);
      const again = await postGitlab(h, 'Merge Request Hook', mr, { key });
      assert.deepEqual([again.status, again.body.outcome], [200, 'duplicate']);
      assert.equal((await postGitlab(h, 'Merge Request Hook', mr)).status, 202);
    });

    test('B1/B5: a merge request opened on an adopted branch becomes a Task at its own head, which its red job then reaches', async () => {
      const mr = fixture('merge-request-hook');
      mr.project.path_with_namespace = PROJECT;
      mr.object_attributes.source.path_with_namespace = PROJECT;
      Object.assign(mr.object_attributes, { iid: 2, source_branch: 'agent/fix', last_commit: { id: 'b'.repeat(40) } });
      assert.equal((await postGitlab(h, 'Merge Request Hook', mr)).status, 202);
      await h.app.settle();
      const tasks = (await h.api('GET', `/api/tasks?repository=${PROJECT}`)).body.tasks;
      const task = tasks.find((t: any) => t.pullRequest === 2);
      assert.ok(task, JSON.stringify(tasks));
      assert.deepEqual([task.branch, task.ciHeadSha], ['agent/fix', 'b'.repeat(40)]);
      const key = randomUUID();
      const job = failedJob({ build_id: 5400, ref: 'refs/merge-requests/2/head', sha: 'b'.repeat(40) });
      assert.equal((await postGitlab(h, 'Job Hook', job, { key })).status, 202);
      await h.app.settle();
      const trail = await decisionsOf(h, key);
      assert.equal(trail.length, 2, JSON.stringify(trail));
      assert.notEqual(trail[1]!.reason, 'no_task', 'the job found the Task by the merge request its ref names');
    });

    test('F1/F2/P1: a note on the merge request reaches the gate as a comment, and without standing it steers nothing', async () => {
      const note = fixture('note-hook-merge-request');
      note.project.path_with_namespace = PROJECT;
      note.object_attributes.note = '/fixloop off';
      const key = randomUUID();
      const r = await postGitlab(h, 'Note Hook', note, { key });
      assert.equal(r.status, 202, JSON.stringify(r.body));
      await h.app.settle();
      const trail = await decisionsOf(h, key);
      assert.equal(trail[0]!.outcome, 'stored');
      assert.equal(trail.at(-1)!.outcome, 'refused', JSON.stringify(trail));
      assert.match(trail.at(-1)!.reason ?? '', /without_standing/);
      const task = (await h.api('GET', `/api/tasks?repository=${PROJECT}`)).body.tasks.find(
        (t: any) => t.pullRequest === MR,
      );
      assert.equal(task.loopOff, false, 'the command was not applied');
    });

    test('Q1/A5: a GitLab delivery for a project no gitlab Work lists is ignored, never routed to the GitHub Work of that name', async () => {
      const before = await count(h, 'events');
      const key = randomUUID();
      const job = failedJob({ build_id: 5300 });
      job.project = { ...job.project, path_with_namespace: 'acme/shop' };
      const r = await postGitlab(h, 'Job Hook', job, { key });
      assert.deepEqual([r.status, r.body.outcome, r.body.reason], [200, 'ignored', 'no_gitlab_work']);
      assert.equal(await count(h, 'events'), before);
      assert.deepEqual(await decisionsOf(h, key), [{ outcome: 'ignored', reason: 'no_gitlab_work' }]);
    });

    test('Q1/A5: a GitHub delivery for a repository a gitlab Work lists is ignored the same way', async () => {
      const d = delivery(
        'check_run',
        checkRunPayload({ repo: { owner: 'gitlab-org', name: 'gitlab-test' }, sha: HEAD, id: 77 }),
      );
      const r = await post(h.url, d, SECRET);
      assert.deepEqual([r.status, r.body.outcome, r.body.reason], [200, 'ignored', 'no_github_work']);
    });
  });
}

describe('GitLab webhook receiver without GITLAB_WEBHOOK_SECRET', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness('sqlite', { configExtra: { works: WORKS } });
  });
  after(() => h.close());

  test('Q1: the route answers 404 and compares no token', async () => {
    const r = await postGitlab(h, 'Job Hook', failedJob());
    assert.equal(r.status, 404);
    assert.equal(r.body.error, 'not_found');
    assert.equal(await count(h, 'events'), 0);
  });
});
