// SPEC E1–E4, B1, B2, B4: the poll. A poll-only installation gets the whole loop; a red refused at a
// bad moment is retried on the next tick, once; webhook and poll racing never double-claim and
// never move the head backwards; only the poll writes passing, by the green gate.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { DATABASE_KINDS } from '../support/databases.js';
import { startGitHubHarness } from '../support/github-harness.js';
import { REPO, SECRET } from '../support/harness.js';
import { checkRunPayload, delivery, post } from '../support/deliveries.js';

const sha = (c: string) => c.repeat(40).slice(0, 40);
const REPO_NAME = 'acme/shop';

for (const kind of DATABASE_KINDS) {
  describe(`poll (${kind})`, () => {
    test('E3: poll-only — no webhook at all; a red head resumes the agent once, a later green head is passing', async () => {
      const h = await startGitHubHarness(kind);
      try {
        const { body: task } = await h.api('POST', '/api/tasks', {
          repository: REPO_NAME,
          pullRequest: 7,
          branch: 'agent/fix',
        });
        h.fake.addPull(REPO_NAME, 7, { headSha: sha('a'), headRef: 'agent/fix' });
        h.fake.addCheckRun(REPO_NAME, sha('a'), {
          name: 'lint',
          status: 'completed',
          conclusion: 'success',
          completedAt: '2026-11-30T07:59:00Z',
        });
        h.fake.addCheckRun(REPO_NAME, sha('a'), {
          name: 'test',
          status: 'completed',
          conclusion: 'failure',
          completedAt: '2026-11-30T07:59:30Z',
          outputTitle: '2 failed',
          outputSummary: 'expected 1 to be 2',
        });

        await h.tick();
        let view = (await h.api('GET', `/api/tasks/${task.id}`)).body;
        assert.equal(view.ciHeadSha, sha('a'));
        assert.equal(view.ciState, 'red');
        assert.equal(h.runner.starts.length, 1, 'resumed from the poll alone');
        assert.match(h.runner.starts[0]!.prompt, /expected 1 to be 2/);
        assert.equal(view.gate.verdict, 'red');
        assert.deepEqual(view.gate.failing, ['test']);

        await h.tick(); // the same red head again: already claimed, nothing more
        assert.equal(h.runner.starts.length, 1);
        h.runner.finish(h.runner.starts[0]!.runId);
        await h.app.settle();

        h.clock.advance(120_000);
        h.fake.setHead(REPO_NAME, 7, sha('b'));
        h.fake.addCheckRun(REPO_NAME, sha('b'), { name: 'lint', status: 'completed', conclusion: 'success' });
        h.fake.addCheckRun(REPO_NAME, sha('b'), { name: 'test', status: 'in_progress', conclusion: null });
        await h.tick();
        view = (await h.api('GET', `/api/tasks/${task.id}`)).body;
        assert.equal(view.ciHeadSha, sha('b'));
        assert.equal(view.ciState, 'pending', 'not green while a check is still running');

        h.fake.state.checkRuns[`${REPO_NAME}@${sha('b')}`]!.find((r) => r.name === 'test')!.status = 'completed';
        h.fake.state.checkRuns[`${REPO_NAME}@${sha('b')}`]!.find((r) => r.name === 'test')!.conclusion = 'success';
        h.clock.advance(120_000);
        await h.tick();
        view = (await h.api('GET', `/api/tasks/${task.id}`)).body;
        assert.equal(view.ciState, 'passing');
        assert.equal(view.gate.verdict, 'passing');
        assert.equal(h.runner.starts.length, 1);
        const writes = h.fake.requestsTo(/./).filter((r) => r.method !== 'GET');
        // Only the state comment was written, besides the fixloop status (M4): posted once, then kept current
        // in place as its summary follows the loop (K8) — never a second comment, never another write.
        const others = writes.filter((r) => r.operation !== 'POST /repos/{owner}/{repo}/statuses/{sha}');
        assert.deepEqual(
          [...new Set(others.map((r) => r.operation))].sort(),
          [
            'PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}',
            'POST /repos/{owner}/{repo}/issues/{issue_number}/comments',
          ].filter((op) => op.startsWith('POST') || others.some((r) => r.operation === op)),
          'only the state comment was written, besides the fixloop status (M4)',
        );
        assert.equal(others.filter((r) => r.method === 'POST').length, 1, 'one state comment');
        // The fixloop status is written when it changes, never twice the same on one head.
        for (const [key, statuses] of Object.entries(h.fake.state.statuses)) {
          const own = statuses.filter((st) => st.context === 'fixloop').map((st) => `${st.state}:${st.description}`);
          assert.deepEqual(
            own,
            own.filter((v, i) => v !== own[i - 1]),
            key,
          );
        }
      } finally {
        await h.close();
      }
    });

    test('E2: a red refused while the run was in flight is resumed on the next tick, once', async () => {
      const h = await startGitHubHarness(kind);
      try {
        const { body: task } = await h.api('POST', '/api/tasks', {
          repository: REPO_NAME,
          pullRequest: 8,
          branch: 'agent/x',
        });
        h.fake.addPull(REPO_NAME, 8, { headSha: sha('c'), headRef: 'agent/x' });
        // A person's run is in flight when the red arrives by webhook: refused.
        const opening = (await h.api('GET', `/api/tasks/${task.id}`)).body.runs[0].id;
        await h.api('PATCH', `/api/runs/${opening}`, { state: 'running' });
        h.fake.addCheckRun(REPO_NAME, sha('c'), {
          name: 'test',
          status: 'completed',
          conclusion: 'failure',
          outputSummary: 'boom',
        });
        const red = delivery(
          'check_run',
          checkRunPayload({
            repo: REPO,
            sha: sha('c'),
            id: 901,
            name: 'test',
            pr: { number: 8, headSha: sha('c') },
            output: 'boom',
          }),
        );
        await post(h.url, red, SECRET);
        await h.app.settle();
        assert.equal(h.runner.starts.length, 0);
        const log = (await h.api('GET', `/api/deliveries?delivery=${red.id}`)).body.decisions;
        assert.ok(log.some((d: any) => d.reason === 'run_in_flight'));

        await h.tick();
        assert.equal(h.runner.starts.length, 0, 'still in flight at the first tick');
        await h.api('PATCH', `/api/runs/${opening}`, { state: 'completed' });
        h.clock.advance(120_000);
        await h.tick();
        assert.equal(h.runner.starts.length, 1, 'resumed on the next tick');
        h.clock.advance(120_000);
        await h.tick();
        assert.equal(h.runner.starts.length, 1, 'once');
      } finally {
        await h.close();
      }
    });

    test('D: the poll reads the head repository gone; a red result after that refuses (branch_deleted), and nothing starts', async () => {
      const h = await startGitHubHarness(kind);
      try {
        const { body: task } = await h.api('POST', '/api/tasks', {
          repository: REPO_NAME,
          pullRequest: 10,
          branch: 'agent/gone',
        });
        h.fake.addPull(REPO_NAME, 10, { headSha: sha('e'), headRef: 'agent/gone', headRepo: null });
        await h.tick();
        const view = (await h.api('GET', `/api/tasks/${task.id}`)).body;
        assert.equal(view.branchState, 'deleted');
        assert.equal(view.prState, 'open', 'not merged or closed: the branch alone is what refuses');
        // A check that finished before the branch went, delivered late, for the same head.
        const red = delivery(
          'check_run',
          checkRunPayload({
            repo: REPO,
            sha: sha('e'),
            id: 1001,
            name: 'test',
            pr: { number: 10, headSha: sha('e') },
            output: 'late red',
          }),
        );
        assert.equal((await post(h.url, red, SECRET)).status, 202);
        await h.app.settle();
        assert.equal(h.runner.starts.length, 0);
        const log = (await h.api('GET', `/api/deliveries?delivery=${red.id}`)).body.decisions;
        assert.deepEqual(
          log.filter((d: any) => d.outcome === 'refused').map((d: any) => [d.reason, d.taskId]),
          [['branch_deleted', task.id]],
        );
        assert.equal((await h.api('GET', `/api/tasks/${task.id}`)).body.attempts.length, 0);
      } finally {
        await h.close();
      }
    });

    test('B1/E1: webhook and poll racing on the same head never double-claim and never move the head backwards', async () => {
      const h = await startGitHubHarness(kind);
      try {
        const { body: task } = await h.api('POST', '/api/tasks', {
          repository: REPO_NAME,
          pullRequest: 9,
          branch: 'agent/y',
        });
        h.fake.addPull(REPO_NAME, 9, { headSha: sha('d'), headRef: 'agent/y' });
        h.fake.addCheckRun(REPO_NAME, sha('d'), {
          name: 'test',
          status: 'completed',
          conclusion: 'failure',
          outputSummary: 'x',
        });
        const reds = Array.from({ length: 10 }, (_, i) =>
          // Completed before the harness clock's start (08:00): a builder's default is the real time, which
          // would put these results after everything the poll sees on the fake clock.
          delivery(
            'check_run',
            checkRunPayload({
              repo: REPO,
              sha: sha('d'),
              id: 2000 + i,
              name: `test ${i}`,
              pr: { number: 9, headSha: sha('d') },
              output: 'x',
              completedAt: '2026-11-30T07:30:00Z',
            }),
          ),
        );
        await Promise.all([...reds.map((d) => post(h.url, d, SECRET)), h.app.poller!.tick(), h.app.poller!.tick()]);
        await h.app.settle();
        let view = (await h.api('GET', `/api/tasks/${task.id}`)).body;
        assert.equal(view.attempts.length, 1);
        assert.equal(h.runner.starts.length, 1);

        // A late webhook for an older commit must not move the head back from what the poll saw.
        h.clock.advance(120_000);
        h.fake.setHead(REPO_NAME, 9, sha('e'));
        await h.tick();
        const stale = delivery(
          'check_run',
          checkRunPayload({
            repo: REPO,
            sha: sha('d'),
            id: 3000,
            name: 'slow job',
            pr: { number: 9, headSha: sha('d') },
            output: 'late',
            completedAt: '2026-11-30T07:00:00Z',
          }),
        );
        await post(h.url, stale, SECRET);
        await h.app.settle();
        view = (await h.api('GET', `/api/tasks/${task.id}`)).body;
        assert.equal(view.ciHeadSha, sha('e'));
        assert.equal(view.attempts.length, 1);
      } finally {
        await h.close();
      }
    });

    test('B4: required checks from config — a required check with no run on the head is shown, not green, and spends nothing', async () => {
      const h = await startGitHubHarness(kind, {
        configExtra: {
          works: [
            {
              name: 'shop',
              account: 'acme',
              repositories: [{ name: 'acme/shop', role: 'data', requiredChecks: ['test', 'e2e'] }],
            },
          ],
        },
      });
      try {
        const { body: task } = await h.api('POST', '/api/tasks', {
          repository: REPO_NAME,
          pullRequest: 10,
          branch: 'agent/z',
        });
        h.fake.addPull(REPO_NAME, 10, { headSha: sha('f'), headRef: 'agent/z' });
        h.fake.addCheckRun(REPO_NAME, sha('f'), { name: 'test', status: 'completed', conclusion: 'success' });
        await h.tick();
        const view = (await h.api('GET', `/api/tasks/${task.id}`)).body;
        assert.equal(view.gate.verdict, 'not_green');
        assert.deepEqual(
          view.gate.reasons.map((r: any) => [r.check, r.why]),
          [['e2e', 'missing']],
        );
        assert.notEqual(view.ciState, 'passing');
        assert.equal(h.runner.starts.length, 0);
      } finally {
        await h.close();
      }
    });
  });
}

describe('poll across two replicas (postgres)', () => {
  test('E1/K7: two replicas ticking at once poll each pull request once and start the agent once', async () => {
    const a = await startGitHubHarness('postgres');
    const { startHarness } = await import('../support/harness.js');
    const { createGitHub } = await import('../../src/github/client.js');
    const github = createGitHub({
      apiUrl: a.fake.url,
      auth: { kind: 'token', token: a.fake.addUserToken('replica-b') },
      throttle: { spaceWrites: false },
      retry: { backoffUnitMs: 1 },
    });
    const b = await startHarness('postgres', { db: a.db, adapters: { github, clock: a.clock, startPoll: false } });
    try {
      for (const n of [51, 52, 53]) {
        await a.api('POST', '/api/tasks', { repository: REPO_NAME, pullRequest: n, branch: `agent/${n}` });
        a.fake.addPull(REPO_NAME, n, { headSha: sha(String(n % 10)), headRef: `agent/${n}` });
        a.fake.addCheckRun(REPO_NAME, sha(String(n % 10)), {
          name: 'test',
          status: 'completed',
          conclusion: 'failure',
          outputSummary: `broken ${n}`,
        });
      }
      a.fake.clearRequests();
      await Promise.all([a.app.poller!.tick(), b.app.poller!.tick()]);
      await Promise.all([a.app.settle(), b.app.settle()]);
      for (const n of [51, 52, 53]) {
        assert.equal(a.fake.requestsTo(new RegExp(`/pulls/${n}$`)).length, 1, `PR ${n} polled once`);
      }
      assert.equal(
        a.runner.starts.length + b.runner.starts.length,
        3,
        'one start per pull request across both replicas',
      );
    } finally {
      await b.close();
      await a.close();
    }
  });
});
