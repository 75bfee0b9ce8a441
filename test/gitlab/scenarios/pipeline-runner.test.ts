// Issue 35 item 6 on both databases (SPEC R2, I2, L1): the `actions` runner on a gitlab Work starts a
// pipeline on the merge request's source branch (`POST /projects/:id/pipeline`) with the run's id,
// fixloop's agent URL and the frame as variables — never the run token — records the pipeline's id
// (apart from any GitHub workflow run id) and reads the pipeline until it finishes: success ends the
// run completed, failed/canceled/skipped failed; `manual` and the other waiting states go on until the
// run's window. The job reaches fixloop by exchanging its CI ID token (the fake GitLab signs it with
// jose and publishes its keys at /oauth/discovery/keys) for a new run token; a token for another
// project, pipeline or audience, an expired one, one signed by another key, or a GitHub Actions token
// naming the same number is refused with 401 and changes nothing. A restart follows the pipeline again.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { DATABASE_KINDS, createTestDatabase, type TestDatabase } from '../../support/databases.js';
import {
  GL_PROJECT,
  openOnFakeGitLab,
  redPush,
  sha,
  startGitLabWorld,
  type GitLabHarness,
  type GitLabWorld,
} from '../../support/gitlab-harness.js';
import { startFakeOidcIssuer, type FakeOidcIssuer } from '../../support/fake-vendors/oidc-issuer.js';
import { until } from '../../support/server-process.js';
import { attemptRows, decisionsOf, runApi } from '../../support/loop-driver.js';
import { hashToken } from '../../../src/app/dispatch.js';

const IID = 72;
const BRANCH = `agent/${IID}`;

type Setup = GitLabHarness & { actions: FakeOidcIssuer; tokens: string[] };

/** fixloop with the actions runner on a gitlab Work; `on` reuses the world, GitHub's issuer and the database (a restart). */
async function start(
  kind: 'sqlite' | 'postgres',
  on?: { world: GitLabWorld; actions: FakeOidcIssuer; db: TestDatabase },
): Promise<Setup> {
  const world = on?.world ?? (await startGitLabWorld());
  const actions = on?.actions ?? (await startFakeOidcIssuer());
  const tokens: string[] = [];
  const h = await openOnFakeGitLab(kind, world, {
    ...(on ? { db: on.db } : {}),
    env: {
      GITLAB_URL: world.fake.url,
      GITLAB_TOKEN: world.token,
      FIXLOOP_ACTIONS_OIDC_ISSUER: actions.url,
    },
    configExtra: { runner: { kind: 'actions', workflow: 'fixloop-agent.yml', pollSeconds: 1 }, runTimeoutMinutes: 30 },
    adapters: {
      runner: undefined,
      adoptEveryMs: 20,
      // Every token fixloop makes is kept, so the test can look for any of them where none may be.
      random: {
        token: (bytes: number) => {
          const t = randomBytes(bytes).toString('base64url');
          tokens.push(t);
          return t;
        },
      },
    },
  });
  return {
    ...h,
    actions,
    tokens,
    async close() {
      await h.close();
      if (on) return;
      await actions.close();
      await world.fake.close();
    },
  };
}

/** A red job on the merge request: the attempt starts a pipeline; that pipeline and the fixloop run. */
async function started(h: Setup, head: string) {
  h.openMergeRequest(IID, { headSha: sha('0') });
  const created = await h.api('POST', '/api/tasks', { repository: GL_PROJECT, pullRequest: IID, branch: BRANCH });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const taskId = created.body.id as number;
  await redPush(h, IID, head, 'FAIL src/cart.test.ts: expected 3 to be 4', { finish: false });
  const pipeline = await until('the pipeline started', async () => h.fake.createdPipelines()[0] ?? null);
  const run = await until('the run recorded with its pipeline', async () => {
    const runs = (await h.api('GET', `/api/runs?taskId=${taskId}`)).body.runs;
    const id = runs[0]?.id;
    return id && (await h.app.ledger.runExternalRef(id)) === `gitlab-pipeline:${pipeline.id}` ? runs[0] : null;
  });
  return { taskId, pipeline, runId: run.id as number };
}

const claimsFor = (h: Setup, pipelineId: number | string, change: Record<string, unknown> = {}) => ({
  aud: h.app.config.agentUrl,
  project_path: GL_PROJECT,
  pipeline_id: String(pipelineId),
  ...change,
});

async function exchange(h: Setup, token: string) {
  const res = await fetch(`${h.url}/api/run/oidc-token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ token }),
  });
  return { status: res.status, body: (await res.json()) as any };
}

const tokenHashOf = async (h: Setup, runId: number) => (await h.app.ledger.getRun(runId))!.tokenHash;
const runState = async (h: Setup, runId: number) => (await h.app.ledger.getRun(runId))?.state;

for (const kind of DATABASE_KINDS) {
  describe(`the actions runner on a gitlab Work (${kind})`, () => {
    test('R2: a pipeline starts on the source branch with the run id, the agent URL and the frame as variables, never the run token', async () => {
      const h = await start(kind);
      try {
        const { pipeline, runId } = await started(h, 'a');
        assert.equal(pipeline.ref, BRANCH);
        assert.equal(pipeline.path, GL_PROJECT);
        const vars = Object.fromEntries(pipeline.variables.map((v) => [v.key, v]));
        assert.deepEqual(Object.keys(vars).sort(), ['FIXLOOP_FRAME', 'FIXLOOP_RUN_ID', 'FIXLOOP_URL']);
        assert.ok(pipeline.variables.every((v) => v.variable_type === 'env_var'));
        assert.equal(vars.FIXLOOP_RUN_ID!.value, String(runId));
        assert.equal(vars.FIXLOOP_URL!.value, h.app.config.agentUrl);
        assert.match(vars.FIXLOOP_FRAME!.value, /expected 3 to be 4/);
        const stored = await tokenHashOf(h, runId);
        const made = h.tokens.filter((t) => hashToken(t) === stored);
        assert.equal(made.length, 1, 'the run token was made by the recorded randomness');
        const sent = h.fake.requests.filter((r) => r.method === 'POST' && /\/pipeline(\?|$)/.test(r.path));
        assert.equal(sent.length, 1, 'one pipeline started');
        const everything = JSON.stringify(sent.map((r) => ({ path: r.path, headers: r.headers, body: r.body })));
        for (const t of h.tokens.filter((x) => x.length === made[0]!.length))
          assert.ok(!everything.includes(t), 'no run token went to GitLab');
        const log = await until('the start logged', async () => {
          const l = await h.app.ledger.getRunLog(runId);
          return l?.includes('started a pipeline') ? l : null;
        });
        assert.match(log, new RegExp(`started a pipeline on ${BRANCH}: pipeline ${pipeline.id}`));
      } finally {
        await h.close();
      }
    });

    test('R2, I2: ID tokens of another project, pipeline, audience or key, expired, or from GitHub Actions naming the same number, are refused with 401 and change nothing; the right one mints a new run token', async () => {
      const h = await start(kind);
      try {
        const { pipeline, runId } = await started(h, 'b');
        const before = await tokenHashOf(h, runId);
        const now = h.clock.now();
        const refused: Array<[string, Promise<string>]> = [
          ['another project', h.fake.issueIdToken(claimsFor(h, pipeline.id, { project_path: 'acme/other' }), { now })],
          ['another pipeline', h.fake.issueIdToken(claimsFor(h, pipeline.id + 999), { now })],
          [
            'another audience',
            h.fake.issueIdToken(claimsFor(h, pipeline.id, { aud: 'https://elsewhere.example' }), { now }),
          ],
          ['an expired token', h.fake.issueIdToken(claimsFor(h, pipeline.id), { now, ttlSeconds: -600 })],
          ['a key GitLab never published', h.fake.issueIdToken(claimsFor(h, pipeline.id), { now, stranger: true })],
          [
            'a GitHub Actions token whose run id is the pipeline id',
            h.actions.issue(
              {
                aud: h.app.config.agentUrl,
                repository: GL_PROJECT,
                run_id: String(pipeline.id),
                workflow_ref: `${GL_PROJECT}/.github/workflows/fixloop-agent.yml@refs/heads/${BRANCH}`,
              },
              { now },
            ),
          ],
        ];
        for (const [what, token] of refused) {
          const r = await exchange(h, await token);
          assert.equal(r.status, 401, `${what}: ${JSON.stringify(r.body)}`);
          assert.equal(r.body.error, 'unauthorized');
          assert.equal(await tokenHashOf(h, runId), before, `${what}: the run's token is unchanged`);
        }
        assert.ok(h.fake.idTokenKeyReads > 0, "GitLab's keys were read from /oauth/discovery/keys");

        const minted = await exchange(h, await h.fake.issueIdToken(claimsFor(h, pipeline.id), { now }));
        assert.equal(minted.status, 200, JSON.stringify(minted.body));
        assert.equal(minted.body.runId, runId);
        assert.notEqual(await tokenHashOf(h, runId), before, 'its hash replaced the old one');
        assert.equal((await runApi(h, minted.body.token, 'GET', '/api/run/state')).status, 200);
        const original = h.tokens.find((t) => hashToken(t) === before)!;
        assert.equal((await runApi(h, original, 'GET', '/api/run/state')).status, 401);
      } finally {
        await h.close();
      }
    });

    test('R2: the pipeline succeeds after the agent reported: the run ends completed, the attempt as the agent said', async () => {
      const h = await start(kind);
      try {
        const { taskId, pipeline, runId } = await started(h, 'c');
        h.fake.setPipelineStatus(GL_PROJECT, pipeline.id, 'running');
        const minted = await exchange(h, await h.fake.issueIdToken(claimsFor(h, pipeline.id), { now: h.clock.now() }));
        assert.equal(minted.status, 200, JSON.stringify(minted.body));
        const reported = await runApi(h, minted.body.token, 'POST', '/api/run/outcome', {
          outcome: 'non_actionable',
          reason: 'the failure is in a vendored file',
        });
        assert.equal(reported.status, 200, JSON.stringify(reported.body));
        h.fake.setPipelineStatus(GL_PROJECT, pipeline.id, 'success');
        await until('the run completed', async () => ((await runState(h, runId)) === 'completed' ? true : null));
        const [row] = await attemptRows(h.app, taskId);
        assert.equal(row!.outcome, 'non_actionable');
        assert.match(
          (await h.app.ledger.getRunLog(runId)) ?? '',
          new RegExp(`pipeline ${pipeline.id} completed: success`),
        );
        const late = await exchange(h, await h.fake.issueIdToken(claimsFor(h, pipeline.id), { now: h.clock.now() }));
        assert.equal(late.status, 401, 'once ended, no token is minted for the run');
      } finally {
        await h.close();
      }
    });

    test('R1, R2: the pipeline fails and its agent never called nor pushed: the run ends failed and agent_unreachable is filed', async () => {
      const h = await start(kind);
      try {
        const { taskId, pipeline, runId } = await started(h, 'd');
        h.fake.setPipelineStatus(GL_PROJECT, pipeline.id, 'failed');
        await until('the run failed', async () => ((await runState(h, runId)) === 'failed' ? true : null));
        assert.match(
          (await h.app.ledger.getRunLog(runId)) ?? '',
          new RegExp(`pipeline ${pipeline.id} completed: failed`),
        );
        await until(
          'agent_unreachable decided',
          async () => (await decisionsOf(h, taskId)).some((d) => d.reason === 'agent_unreachable') || null,
        );
      } finally {
        await h.close();
      }
    });

    test('R2, I5: a pipeline left waiting on a manual job never finishes: the run ends at its window in a run_timeout notice', async () => {
      const h = await start(kind);
      try {
        const { taskId, pipeline, runId } = await started(h, 'e');
        h.fake.setPipelineStatus(GL_PROJECT, pipeline.id, 'manual');
        // Read as still going (not an end): the run stays running across reads.
        const reads = () =>
          h.fake.requests.filter((r) => r.method === 'GET' && r.path.includes(`/pipelines/${pipeline.id}`)).length;
        const seen = reads();
        await until('the manual pipeline read again', async () => (reads() > seen + 1 ? true : null));
        assert.equal(await runState(h, runId), 'running');
        h.clock.advance(30 * 60_000);
        const notice: any = await until(
          'the run_timeout notice',
          async () => (await h.api('GET', `/api/tasks/${taskId}`)).body.notice,
          20_000,
          10,
        );
        assert.equal(notice.reason, 'run_timeout');
        await until('the run ended at its window', async () =>
          (await runState(h, runId)) !== 'running' ? true : null,
        );
        // Its agent may not push after its run was settled: the pipeline is cancelled in GitLab.
        await until('the pipeline cancelled', async () =>
          h.fake.requests.some((r) => r.method === 'POST' && r.path.endsWith(`/pipelines/${pipeline.id}/cancel`))
            ? true
            : null,
        );
        assert.equal(h.fake.state.pipelines[pipeline.id]!.status, 'canceled');
      } finally {
        await h.close();
      }
    });

    test('R2, I4: after a restart the pipeline is followed again, and its end ends the run', async () => {
      const world = await startGitLabWorld();
      const actions = await startFakeOidcIssuer();
      const db = await createTestDatabase(kind);
      try {
        const first = await start(kind, { world, actions, db });
        let pipelineId: number, runId: number;
        try {
          ({
            pipeline: { id: pipelineId },
            runId,
          } = await started(first, 'f'));
        } finally {
          await first.close();
        }
        const second = await start(kind, { world, actions, db });
        try {
          assert.equal(await runState(second, runId), 'running');
          world.fake.setPipelineStatus(GL_PROJECT, pipelineId, 'canceled');
          await until('the run failed after the restart', async () =>
            (await runState(second, runId)) === 'failed' ? true : null,
          );
          assert.equal(world.fake.createdPipelines().length, 1, 'not started again');
        } finally {
          await second.close();
        }
      } finally {
        await db.drop();
        await actions.close();
        await world.fake.close();
      }
    });
  });
}
