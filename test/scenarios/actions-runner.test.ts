// Issue 35 item 3 on both databases (SPEC R2, I2, L1): the `actions` runner dispatches a workflow on the
// Task's branch (return_run_details), records the workflow run's id, and follows the run until it
// completes — success ends the fixloop run completed, anything else failed; the agent's call or push
// decides the attempt's outcome as for any run. The workflow reaches fixloop by exchanging its OIDC token
// (a fake issuer here, signing with jose) for a new run token; every other token is refused with 401 and
// nothing changes. The run token is never in the dispatch's inputs.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { DATABASE_KINDS, createTestDatabase, type TestDatabase } from '../support/databases.js';
import { BOT_LOGIN, FakeClock, openOnFake, type GitHubHarness } from '../support/github-harness.js';
import { startFakeGitHub, type FakeGitHub } from '../support/fake-github/server.js';
import { startFakeGitLab } from '../support/fake-gitlab/server.js';
import { startFakeOidcIssuer, type FakeOidcIssuer, type WorkflowClaims } from '../support/fake-vendors/oidc-issuer.js';
import { until } from '../support/server-process.js';
import { attemptRows, decisionsOf, nextTick, runApi, sha, taskWithRedHead } from '../support/loop-driver.js';
import { hashToken } from '../../src/app/dispatch.js';

const PR = 71;
const WORKFLOW = 'fixloop-agent.yml';

type Setup = GitHubHarness & { fake: FakeGitHub; issuer: FakeOidcIssuer; tokens: string[] };

/** fixloop with the actions runner from its config; `on` reuses a fake GitHub, issuer and database (a restart). */
async function start(
  kind: 'sqlite' | 'postgres',
  on?: { fake: FakeGitHub; issuer: FakeOidcIssuer; db: TestDatabase },
  extraEnv: Record<string, string> = {},
): Promise<Setup> {
  const fake = on?.fake ?? (await startFakeGitHub());
  const issuer = on?.issuer ?? (await startFakeOidcIssuer());
  const clock = new FakeClock(Date.now()); // the issuer's tokens carry real time; fixloop's clock agrees
  fake.state.now = () => clock.now();
  const tokens: string[] = [];
  const token = fake.addUserToken(BOT_LOGIN);
  const h = await openOnFake(
    kind,
    { fake, clock, token },
    {
      ...(on ? { db: on.db } : {}),
      env: { GITHUB_API_URL: fake.url, GITHUB_TOKEN: token, FIXLOOP_ACTIONS_OIDC_ISSUER: issuer.url, ...extraEnv },
      configExtra: { runner: { kind: 'actions', workflow: WORKFLOW, pollSeconds: 1 }, runTimeoutMinutes: 30 },
      adapters: {
        runner: undefined,
        adoptEveryMs: 20,
        // Every token fixloop makes is kept, so the test can look for any of them where none may be.
        random: {
          token: (bytes) => {
            const t = randomBytes(bytes).toString('base64url');
            tokens.push(t);
            return t;
          },
        },
      },
    },
  );
  return {
    ...h,
    issuer,
    tokens,
    async close() {
      await h.close();
      if (on) return; // the caller's fakes
      await issuer.close();
      fake.assertNoViolations();
      await fake.close();
    },
  };
}

/** The red head is seen, the attempt dispatched: the workflow run the fake made, and the fixloop run. */
async function dispatched(h: Setup, head: string) {
  const taskId = await taskWithRedHead(h, PR, sha(head), 'FAIL src/cart.test.ts: expected 3 to be 4');
  await nextTick(h);
  const wf = await until('the workflow dispatch', async () => h.fake.workflowDispatches()[0] ?? null);
  const run = await until('the run recorded with its workflow run', async () => {
    const runs = (await h.api('GET', `/api/runs?taskId=${taskId}`)).body.runs;
    const id = runs[0]?.id;
    return id && (await h.app.ledger.runExternalRef(id)) === String(wf.id) ? runs[0] : null;
  });
  return { taskId, wf, runId: run.id as number };
}

const claimsFor = (h: Setup, workflowRunId: number | string, change: Partial<WorkflowClaims> = {}): WorkflowClaims => ({
  aud: h.app.config.agentUrl,
  repository: 'acme/shop',
  run_id: String(workflowRunId),
  workflow_ref: `acme/shop/.github/workflows/${WORKFLOW}@refs/heads/agent/fix-${PR}`,
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

for (const kind of DATABASE_KINDS) {
  describe(`the actions runner (${kind})`, () => {
    test('R2: the dispatch carries the run id, the agent URL and the frame on the branch, never the run token', async () => {
      const h = await start(kind);
      try {
        const { wf, runId } = await dispatched(h, 'a');
        assert.equal(wf.ref, `agent/fix-${PR}`);
        assert.equal(wf.workflow, WORKFLOW);
        assert.deepEqual(Object.keys(wf.inputs).sort(), ['fixloop_run_id', 'fixloop_url', 'frame']);
        assert.equal(wf.inputs.fixloop_run_id, String(runId));
        assert.equal(wf.inputs.fixloop_url, h.app.config.agentUrl);
        assert.match(String(wf.inputs.frame), /expected 3 to be 4/);
        // The token fixloop made for this run is none of what GitHub received: body, path or headers.
        const stored = await tokenHashOf(h, runId);
        const made = h.tokens.filter((t) => hashToken(t) === stored);
        assert.equal(made.length, 1, 'the run token was made by the recorded randomness');
        const sent = h.fake.requestsTo(/\/actions\/workflows\/.*\/dispatches$/);
        assert.equal(sent.length, 1);
        const everything = JSON.stringify(sent.map((r) => ({ path: r.path, headers: r.headers, body: r.body })));
        assert.ok(!everything.includes(made[0]!), 'the run token never went to GitHub');
        // Nor any other token the size of a run token (the prompt's nonce is shorter, and is meant to be there).
        for (const t of h.tokens.filter((x) => x.length === made[0]!.length))
          assert.ok(!everything.includes(t), 'no run token went to GitHub');
        const body = sent[0]!.body as { return_run_details?: unknown };
        assert.equal(body.return_run_details, true);
      } finally {
        await h.close();
      }
    });

    test('R2, I2: identity tokens of another repository, run, audience or key, or expired, are refused with 401 and change nothing; the right one mints a new run token', async () => {
      const h = await start(kind);
      try {
        const { wf, runId } = await dispatched(h, 'b');
        const before = await tokenHashOf(h, runId);
        const now = h.clock.now();
        const refused: Array<[string, Promise<string>]> = [
          ['another repository', h.issuer.issue(claimsFor(h, wf.id, { repository: 'acme/other' }), { now })],
          ['another workflow run', h.issuer.issue(claimsFor(h, Number(wf.id) + 999), { now })],
          ['another audience', h.issuer.issue(claimsFor(h, wf.id, { aud: 'https://elsewhere.example' }), { now })],
          ['an expired token', h.issuer.issue(claimsFor(h, wf.id), { now, ttlSeconds: -600 })],
          ['a key the issuer never published', h.issuer.issue(claimsFor(h, wf.id), { now, stranger: true })],
          [
            'another workflow file',
            h.issuer.issue(
              claimsFor(h, wf.id, { workflow_ref: 'acme/shop/.github/workflows/deploy.yml@refs/heads/main' }),
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
        assert.equal((await exchange(h, 'not.a.jwt')).status, 401);

        const first = await exchange(h, await h.issuer.issue(claimsFor(h, wf.id), { now }));
        assert.equal(first.status, 200, JSON.stringify(first.body));
        assert.equal(first.body.runId, runId);
        assert.notEqual(await tokenHashOf(h, runId), before, 'its hash replaced the old one');
        assert.equal((await runApi(h, first.body.token, 'GET', '/api/run/state')).status, 200);
        // The token fixloop made at dispatch no longer works.
        const original = h.tokens.find((t) => hashToken(t) === before)!;
        assert.equal((await runApi(h, original, 'GET', '/api/run/state')).status, 401);
        // A second exchange replaces the first minted token in turn.
        const second = await exchange(h, await h.issuer.issue(claimsFor(h, wf.id), { now }));
        assert.equal(second.status, 200);
        assert.equal((await runApi(h, second.body.token, 'GET', '/api/run/state')).status, 200);
        assert.equal((await runApi(h, first.body.token, 'GET', '/api/run/state')).status, 401);
      } finally {
        await h.close();
      }
    });

    test('R2, I2 (issue 35 item 6): a GitLab CI ID token naming the workflow run id as its pipeline is refused: the two CIs never act for each other', async () => {
      const gitlab = await startFakeGitLab();
      const h = await start(kind, undefined, { FIXLOOP_GITLAB_OIDC_ISSUER: gitlab.url });
      try {
        const { wf, runId } = await dispatched(h, 'g');
        const before = await tokenHashOf(h, runId);
        const token = await gitlab.issueIdToken(
          { aud: h.app.config.agentUrl, project_path: 'acme/shop', pipeline_id: String(wf.id) },
          { now: h.clock.now() },
        );
        const r = await exchange(h, token);
        assert.equal(r.status, 401, JSON.stringify(r.body));
        assert.match(r.body.message, /unknown_run/);
        assert.ok(gitlab.idTokenKeyReads > 0, "the token was checked with GitLab's keys first");
        assert.equal(await tokenHashOf(h, runId), before);
      } finally {
        await h.close();
        await gitlab.close();
      }
    });

    test('R2: the workflow run concludes success after the agent reported: the run ends completed, the attempt as the agent said', async () => {
      const h = await start(kind);
      try {
        const { taskId, wf, runId } = await dispatched(h, 'c');
        h.fake.completeWorkflowRun(wf.id, null); // in progress: still followed
        const minted = await exchange(h, await h.issuer.issue(claimsFor(h, wf.id), { now: h.clock.now() }));
        assert.equal(minted.status, 200);
        const reported = await runApi(h, minted.body.token, 'POST', '/api/run/outcome', {
          outcome: 'non_actionable',
          reason: 'the failure is in a vendored file',
        });
        assert.equal(reported.status, 200, JSON.stringify(reported.body));
        h.fake.completeWorkflowRun(wf.id, 'success');
        const run = await until('the run completed', async () => {
          const r = await h.app.ledger.getRun(runId);
          return r?.state === 'completed' ? r : null;
        });
        assert.equal(run.state, 'completed');
        const [row] = await attemptRows(h.app, taskId);
        assert.equal(row!.outcome, 'non_actionable');
        assert.equal(row!.state, 'acknowledged');
        // Once ended, the exchange refuses: there is no run to act for any more.
        const late = await exchange(h, await h.issuer.issue(claimsFor(h, wf.id), { now: h.clock.now() }));
        assert.equal(late.status, 401);
      } finally {
        await h.close();
      }
    });

    test('R1, R2: the workflow run fails and its agent never called nor pushed: the run ends failed and agent_unreachable is filed', async () => {
      const h = await start(kind);
      try {
        const { taskId, wf, runId } = await dispatched(h, 'd');
        h.fake.completeWorkflowRun(wf.id, 'failure');
        await until('the run failed', async () =>
          (await h.app.ledger.getRun(runId))?.state === 'failed' ? true : null,
        );
        const log = await h.app.ledger.getRunLog(runId);
        assert.match(log ?? '', new RegExp(`workflow run ${wf.id} completed: failure`));
        await until(
          'agent_unreachable decided',
          async () => (await decisionsOf(h, taskId)).some((d) => d.reason === 'agent_unreachable') || null,
        );
      } finally {
        await h.close();
      }
    });

    test('R2, I5: a workflow run that never completes ends at the run’s window in a run_timeout notice', async () => {
      const h = await start(kind);
      try {
        const { taskId, wf, runId } = await dispatched(h, 'f');
        // Read as still going (queued, then in progress): the run stays running across reads.
        const reads = () => h.fake.requestsTo(new RegExp(`/actions/runs/${wf.id}$`)).length;
        const seen = reads();
        await until('the workflow run read again', async () => (reads() > seen + 1 ? true : null));
        assert.equal((await h.app.ledger.getRun(runId))?.state, 'running');
        h.clock.advance(30 * 60_000);
        const notice: any = await until(
          'the run_timeout notice',
          async () => (await h.api('GET', `/api/tasks/${taskId}`)).body.notice,
          20_000,
          10,
        );
        assert.equal(notice.reason, 'run_timeout');
        await until('the run ended at its window', async () =>
          (await h.app.ledger.getRun(runId))?.state !== 'running' ? true : null,
        );
        // Its agent may not push after its run was settled: the workflow run is cancelled on GitHub.
        await until('the workflow run cancelled', async () =>
          h.fake.requestsTo(new RegExp(`/actions/runs/${wf.id}/cancel$`)).length === 1 ? true : null,
        );
      } finally {
        await h.close();
      }
    });

    test('R2, I4: after a restart the workflow run is followed again, and its end ends the run', async () => {
      const fake = await startFakeGitHub();
      const issuer = await startFakeOidcIssuer();
      const db = await createTestDatabase(kind);
      try {
        const first = await start(kind, { fake, issuer, db });
        let wf: { id: number }, runId: number;
        try {
          ({ wf, runId } = await dispatched(first, 'e'));
        } finally {
          await first.close(); // the following stops with the process; the run stays running
        }
        const second = await start(kind, { fake, issuer, db });
        try {
          assert.equal((await second.app.ledger.getRun(runId))?.state, 'running');
          fake.completeWorkflowRun(wf.id, 'success');
          await until('the run completed after the restart', async () =>
            (await second.app.ledger.getRun(runId))?.state === 'completed' ? true : null,
          );
          assert.equal(fake.workflowDispatches().length, 1, 'not dispatched again');
        } finally {
          await second.close();
        }
      } finally {
        await db.drop();
        await issuer.close();
        fake.assertNoViolations();
        await fake.close();
      }
    });
  });
}
