// SPEC M2, H1, L1: the JSON API behind its token; a run's own token reports that run and nothing else.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { DATABASE_KINDS } from './support/databases.js';
import { startHarness, REPO, SECRET, type Harness } from './support/harness.js';
import { checkRunPayload, delivery, post } from './support/deliveries.js';

for (const kind of DATABASE_KINDS) {
  describe(`API (${kind})`, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(kind);
    });
    after(() => h.close());

    test('M2: every /api route needs the bearer token; health and readiness do not', async () => {
      for (const path of ['/api/tasks', '/api/inbox', '/api/deliveries', '/api/openapi.json', '/api/stop']) {
        assert.equal((await fetch(`${h.url}${path}`)).status, 401, path);
        assert.equal(
          (await fetch(`${h.url}${path}`, { headers: { authorization: 'Bearer wrong' } })).status,
          401,
          path,
        );
      }
      assert.equal((await fetch(`${h.url}/healthz`)).status, 200);
      const ready = await fetch(`${h.url}/readyz`);
      assert.equal(ready.status, 200);
      assert.deepEqual(await ready.json(), { ready: true });
    });

    test('POST /api/tasks: a Task in the data repo is created with its opening run; others are refused clearly', async () => {
      const ok = await h.api('POST', '/api/tasks', { repository: 'acme/shop', pullRequest: 101, branch: 'agent/a' });
      assert.equal(ok.status, 201);
      assert.equal(ok.body.state, 'open');
      assert.equal(ok.body.prState, 'open');
      assert.equal(ok.body.ciState, 'unknown');
      assert.equal(ok.body.ciHeadSha, null);
      assert.equal(ok.body.notice, null);
      assert.deepEqual(ok.body.attempts, []);
      assert.equal(
        (await h.api('POST', '/api/tasks', { repository: 'acme/shop', pullRequest: 101, branch: 'agent/a' })).status,
        409,
      );
      const site = await h.api('POST', '/api/tasks', { repository: 'acme/shop-site', pullRequest: 1, branch: 'x' });
      assert.equal(site.status, 422);
      assert.equal(site.body.error, 'not_data_repo');
      assert.equal(
        (await h.api('POST', '/api/tasks', { repository: 'nobody/else', pullRequest: 1, branch: 'x' })).body.error,
        'no_work',
      );
      assert.equal((await h.api('POST', '/api/tasks', { repository: 'acme/shop', pullRequest: -1 })).status, 400);
      const malformed = await fetch(`${h.url}/api/tasks`, {
        method: 'POST',
        headers: { authorization: 'Bearer test-api-token', 'content-type': 'application/json' },
        body: '{',
      });
      assert.equal(malformed.status, 400);
    });

    test('L1: the run token reports its own run only, and not after the run ended', async () => {
      const { body: task } = await h.api('POST', '/api/tasks', {
        repository: 'acme/shop',
        pullRequest: 102,
        branch: 'agent/b',
      });
      const sha = 'ab'.repeat(20);
      await post(
        h.url,
        delivery(
          'check_run',
          checkRunPayload({ repo: REPO, sha, id: 5102, pr: { number: 102, headSha: sha }, output: 'boom' }),
        ),
        SECRET,
      );
      await h.app.settle();
      const start = h.runner.starts.find((s) => s.taskId === task.id)!;
      assert.ok(start, 'resumed');
      assert.ok(start.runToken.length >= 32);
      const patch = (runId: number, token: string, state: string) =>
        fetch(`${h.url}/api/runs/${runId}`, {
          method: 'PATCH',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ state }),
        });
      const opening = (await h.api('GET', `/api/tasks/${task.id}`)).body.runs[0].id;
      assert.equal((await patch(opening, start.runToken, 'failed')).status, 403, 'another run');
      assert.equal((await patch(start.runId, 'not-the-token', 'completed')).status, 403);
      assert.equal((await patch(start.runId, start.runToken, 'completed')).status, 200);
      assert.equal((await patch(start.runId, start.runToken, 'running')).status, 409, 'ended runs stay ended');
      const run = (await h.api('GET', `/api/runs/${start.runId}`)).body;
      assert.equal(run.state, 'completed');
      assert.equal(run.action, 'resume');
      assert.equal(run.autoResume, true);
      assert.equal(run.tokenHash, undefined, 'the token hash is never shown');
    });

    test('GET /api/tasks pages by id when asked (limit, after), filters by state and repository; without paging, every Task', async () => {
      const made: number[] = [];
      for (const pr of [201, 202, 203, 204, 205]) {
        const r = await h.api('POST', '/api/tasks', {
          repository: 'acme/shop',
          pullRequest: pr,
          branch: `agent/${pr}`,
        });
        assert.equal(r.status, 201);
        made.push(r.body.id);
      }
      const seen: number[] = [];
      let after: number | null = made[0]! - 1;
      for (let pages = 0; after !== null; pages++) {
        assert.ok(pages < 10, 'the pages end');
        const page = await h.api('GET', `/api/tasks?repository=acme/shop&limit=2&after=${after}`);
        assert.equal(page.status, 200);
        assert.ok(page.body.tasks.length <= 2);
        seen.push(...page.body.tasks.map((t: any) => t.id));
        after = page.body.nextAfter;
      }
      assert.deepEqual(seen, made, 'every Task once, in creation order');
      const all = await h.api('GET', '/api/tasks');
      assert.equal(all.body.nextAfter, undefined, 'no paging parameter: the shape callers have always had');
      assert.ok(made.every((id) => all.body.tasks.some((t: any) => t.id === id)));
      assert.deepEqual((await h.api('GET', '/api/tasks?repository=acme/other&limit=5')).body, {
        tasks: [],
        nextAfter: null,
      });
      assert.equal((await h.api('GET', '/api/tasks?limit=0')).status, 400);
      assert.equal((await h.api('GET', '/api/tasks?state=lost')).status, 400);
    });

    test('GET /api/runs pages runs newest first, by Task and state, without their logs', async () => {
      const a = (await h.api('POST', '/api/tasks', { repository: 'acme/shop', pullRequest: 301, branch: 'agent/r1' }))
        .body.id;
      const b = (await h.api('POST', '/api/tasks', { repository: 'acme/shop', pullRequest: 302, branch: 'agent/r2' }))
        .body.id;
      const mine = await h.api('GET', `/api/runs?taskId=${a}`);
      assert.equal(mine.status, 200);
      assert.deepEqual(
        mine.body.runs.map((r: any) => [r.taskId, r.action, r.state]),
        [[a, 'start', 'completed']],
        "the Task's opening run",
      );
      assert.equal(mine.body.runs[0].log, undefined, 'no log in a list');
      const first = await h.api('GET', '/api/runs?limit=1');
      assert.equal(first.body.runs[0].taskId, b, 'newest first');
      const next = await h.api('GET', `/api/runs?limit=1&before=${first.body.nextBefore}`);
      assert.equal(next.body.runs[0].taskId, a);
      assert.deepEqual((await h.api('GET', `/api/runs?taskId=${a}&state=running`)).body, {
        runs: [],
        nextBefore: null,
      });
      assert.equal((await h.api('GET', '/api/runs?state=lost')).status, 400);
    });

    test('PUT /api/stop and GET /api/stop round-trip the global stop flag', async () => {
      assert.deepEqual((await h.api('PUT', '/api/stop', { stopped: true })).body, { stopped: true });
      assert.deepEqual((await h.api('GET', '/api/stop')).body, { stopped: true });
      assert.deepEqual((await h.api('PUT', '/api/stop', { stopped: false })).body, { stopped: false });
      assert.equal((await h.api('PUT', '/api/stop', { stopped: 'yes' })).status, 400);
    });
  });
}
