// Issue 19, SPEC Q2/Q3 with E1–E3, B2, B4: the poll over GitLab. An installation without webhooks gets
// the whole loop from the poll alone — the merge request's head pipeline read through the API, a red
// job resumes the agent once, a later green head is passing by the green gate, which only the poll
// may write; a job allowed to fail does not hold the gate, a blocking manual job does; and a red
// refused at a bad moment is retried on the next tick, once.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { DATABASE_KINDS } from '../../support/databases.js';
import { GL_PROJECT, sha, startGitLabHarness, type GitLabHarness } from '../../support/gitlab-harness.js';

async function newTask(h: GitLabHarness, iid: number, head: string): Promise<number> {
  h.openMergeRequest(iid, { headSha: head });
  const created = await h.api('POST', '/api/tasks', {
    repository: GL_PROJECT,
    pullRequest: iid,
    branch: `agent/${iid}`,
  });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  return created.body.id;
}

const view = async (h: GitLabHarness, id: number) => (await h.api('GET', `/api/tasks/${id}`)).body;

for (const kind of DATABASE_KINDS) {
  describe(`GitLab poll (${kind})`, () => {
    test('Q2/E3: poll-only — no webhook at all; a red job of the head pipeline resumes the agent once, a later green head is passing', async () => {
      const h = await startGitLabHarness(kind);
      try {
        const taskId = await newTask(h, 7, sha('a'));
        h.runPipeline(7, sha('a'), [
          { name: 'lint', stage: 'check', status: 'success' },
          { name: 'test', stage: 'test', status: 'failed', trace: 'FAIL src/cart.test.ts\nexpected 1 to be 2' },
        ]);

        await h.tick();
        let v = await view(h, taskId);
        assert.equal(v.ciHeadSha, sha('a'));
        assert.equal(v.ciState, 'red');
        assert.equal(h.runner.starts.length, 1, 'resumed from the poll alone');
        assert.equal(h.runner.starts[0]!.headSha, sha('a'));
        assert.equal(v.gate.verdict, 'red');
        assert.deepEqual(v.gate.failing, ['test']);

        await h.tick(); // the same red head again: already claimed, nothing more
        assert.equal(h.runner.starts.length, 1);
        h.runner.finish(h.runner.starts[0]!.runId);
        await h.app.settle();

        h.clock.advance(120_000);
        h.push(7, sha('b'));
        const p = h.runPipeline(7, sha('b'), [
          { name: 'lint', stage: 'check', status: 'success' },
          { name: 'test', stage: 'test', status: 'running' },
        ]);
        await h.tick();
        v = await view(h, taskId);
        assert.equal(v.ciHeadSha, sha('b'));
        assert.equal(v.ciState, 'pending', 'not green while a job is still running');

        h.finishJob(p.jobs[1]!, 'success');
        await h.nextTick();
        v = await view(h, taskId);
        assert.equal(v.ciState, 'passing');
        assert.equal(v.gate.verdict, 'passing');
        assert.equal(h.runner.starts.length, 1);
        // Nothing GitLab was told besides the one state note (posted once, then kept current in place:
        // its summary says what the loop is doing, K8) and fixloop's own commit status (M4).
        const raw = h.fake.requests
          .filter((r) => r.method !== 'GET')
          .map((r) => `${r.method} ${r.path.split('?')[0]!.replace(encodeURIComponent(GL_PROJECT), ':project')}`);
        const writes = raw.map((w) =>
          w
            .replace(/\/statuses\/[0-9a-f]{40}$/, '/statuses/:sha')
            .replace(/\/notes\/\d+$/, '/notes/:note')
            .replace(/\/\d+\//g, '/:n/'),
        );
        assert.deepEqual(
          [...new Set(writes)].sort(),
          [
            'POST /api/v4/projects/:project/merge_requests/:n/notes',
            'POST /api/v4/projects/:project/statuses/:sha',
            'PUT /api/v4/projects/:project/merge_requests/:n/notes/:note',
          ].filter((w) => !w.startsWith('PUT') || writes.includes(w)),
        );
        assert.equal(writes.filter((w) => w.endsWith('/notes')).length, 1, 'one note: the state');
        const edited = new Set(raw.filter((w) => w.startsWith('PUT')).map((w) => w.split('/notes/')[1]));
        assert.ok(edited.size <= 1, `only the state note is edited, not another: ${[...edited].join(', ')}`);
      } finally {
        await h.close();
      }
    });

    test('Q2/B3/B4: a failed job allowed to fail is not red and resumes nothing; with the required jobs configured, the head is passing', async () => {
      const h = await startGitLabHarness(kind, {
        configExtra: {
          works: [
            {
              name: 'shop-gl',
              account: 'acme',
              provider: 'gitlab',
              repositories: [{ name: GL_PROJECT, role: 'data', requiredChecks: ['test'] }],
            },
          ],
        },
      });
      try {
        const taskId = await newTask(h, 8, sha('c'));
        h.runPipeline(8, sha('c'), [
          { name: 'test', status: 'success' },
          { name: 'audit', status: 'failed', allowFailure: true, trace: 'npm audit: 3 vulnerabilities' },
        ]);
        await h.tick();
        const v = await view(h, taskId);
        assert.equal(v.ciState, 'passing');
        assert.deepEqual(v.gate.failing, []);
        assert.equal(h.runner.starts.length, 0);
      } finally {
        await h.close();
      }
    });

    test('Q2/B4: a blocking manual job leaves the gate not green and spends nothing', async () => {
      const h = await startGitLabHarness(kind);
      try {
        const taskId = await newTask(h, 9, sha('d'));
        h.runPipeline(9, sha('d'), [
          { name: 'test', status: 'success' },
          { name: 'deploy-review', stage: 'deploy', status: 'manual' },
        ]);
        await h.tick();
        const v = await view(h, taskId);
        assert.notEqual(v.ciState, 'passing', 'a job waiting for a person is not a pass');
        assert.notEqual(v.ciState, 'red');
        assert.equal(h.runner.starts.length, 0);
      } finally {
        await h.close();
      }
    });

    test('E2: a red refused by webhook while the run was in flight is resumed on the next tick, once', async () => {
      const h = await startGitLabHarness(kind);
      try {
        const taskId = await newTask(h, 10, sha('e'));
        // A person's run is in flight when the red arrives by webhook: refused.
        const opening = (await view(h, taskId)).runs[0].id;
        await h.api('PATCH', `/api/runs/${opening}`, { state: 'running' });
        const [job] = h.runPipeline(10, sha('e'), [{ name: 'test', status: 'failed', trace: 'boom' }]).jobs;
        const red = await h.hook('Job Hook', h.jobHook(job!));
        assert.equal(red.status, 202, JSON.stringify(red.body));
        await h.app.settle();
        assert.equal(h.runner.starts.length, 0);
        const log = (await h.api('GET', `/api/deliveries?delivery=${red.key}`)).body.decisions;
        assert.ok(
          log.some((d: any) => d.reason === 'run_in_flight'),
          JSON.stringify(log),
        );

        await h.tick();
        assert.equal(h.runner.starts.length, 0, 'still in flight at the first tick');
        await h.api('PATCH', `/api/runs/${opening}`, { state: 'completed' });
        await h.nextTick();
        assert.equal(h.runner.starts.length, 1, 'resumed on the next tick');
        await h.nextTick();
        assert.equal(h.runner.starts.length, 1, 'once');
      } finally {
        await h.close();
      }
    });

    test('D: the poll reads the merge request merged; a red job after that resumes nothing', async () => {
      const h = await startGitLabHarness(kind);
      try {
        const taskId = await newTask(h, 11, sha('f'));
        h.fake.state.mergeRequests[`${GL_PROJECT}!11`]!.state = 'merged';
        await h.tick();
        assert.equal((await view(h, taskId)).prState, 'merged');
        const [job] = h.runPipeline(11, sha('f'), [{ name: 'test', status: 'failed', trace: 'late red' }]).jobs;
        const red = await h.hook('Job Hook', h.jobHook(job!));
        assert.equal(red.status, 202);
        await h.app.settle();
        const log = (await h.api('GET', `/api/deliveries?delivery=${red.key}`)).body.decisions;
        assert.deepEqual(
          log.filter((d: any) => d.outcome === 'refused').map((d: any) => [d.reason, d.taskId]),
          [['pr_merged', taskId]],
        );
        assert.equal(h.runner.starts.length, 0);
      } finally {
        await h.close();
      }
    });
  });
}
