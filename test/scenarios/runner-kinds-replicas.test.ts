// Issue 35 (SPEC C6) for the runner kinds whose agent lives elsewhere: two fixloop replicas sharing
// PostgreSQL, each handed one failing job of the same red head at the same moment, resume the agent
// once — one workflow dispatched (`actions`), one message sent to the vendor's session (`session`) —
// from one attempt. The database's claim decides, never a replica's memory. (The `mention` runner's
// twin is in mention-runner.test.ts.)
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BOT_LOGIN, FakeClock, openOnFake, type GitHubHarness } from '../support/github-harness.js';
import { startFakeGitHub, type FakeGitHub } from '../support/fake-github/server.js';
import { createTestDatabase, type TestDatabase } from '../support/databases.js';
import { startFakeOidcIssuer } from '../support/fake-vendors/oidc-issuer.js';
import { startFakeDevin } from '../support/fake-vendors/devin.js';
import { checkRunPayload, delivery, post } from '../support/deliveries.js';
import { REPO, SECRET } from '../support/harness.js';
import { tempDir } from '../support/temp-dir.js';
import { until } from '../support/server-process.js';
import { attemptRows, sha } from '../support/loop-driver.js';
import type { FixloopAdapters } from '../../src/main.js';

const PR = 81;
const HEAD = sha('f');

/** Two replicas of fixloop with `runner` from their config, on one fake GitHub and one database. */
async function twoReplicas(
  fake: FakeGitHub,
  db: TestDatabase,
  runner: Record<string, unknown>,
  env: Record<string, string>,
): Promise<[GitHubHarness, GitHubHarness]> {
  const clock = new FakeClock(Date.now());
  fake.state.now = () => clock.now();
  const open = () => {
    const token = fake.addUserToken(BOT_LOGIN);
    return openOnFake(
      'postgres',
      { fake, clock, token },
      {
        db,
        env: { GITHUB_API_URL: fake.url, GITHUB_TOKEN: token, ...env },
        configExtra: { runner, runTimeoutMinutes: 30 },
        adapters: { runner: undefined } as FixloopAdapters,
      },
    );
  };
  const a = await open();
  return [a, await open()];
}

/** The Task, its red head, and one failing job of that head delivered to each replica at once. */
async function redToBoth(a: GitHubHarness, b: GitHubHarness, resumeRef?: string): Promise<number> {
  const created = await a.api('POST', '/api/tasks', {
    repository: 'acme/shop',
    pullRequest: PR,
    branch: `agent/fix-${PR}`,
    ...(resumeRef ? { resumeRef } : {}),
  });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  a.fake.addPull('acme/shop', PR, { headSha: HEAD, headRef: `agent/fix-${PR}` });
  const red = (id: number, name: string) =>
    delivery(
      'check_run',
      checkRunPayload({ repo: REPO, sha: HEAD, id, name, pr: { number: PR, headSha: HEAD }, output: `FAIL ${name}` }),
    );
  const answers = await Promise.all([post(a.url, red(8101, 'test'), SECRET), post(b.url, red(8102, 'lint'), SECRET)]);
  assert.deepEqual(
    answers.map((r) => r.status),
    [202, 202],
  );
  await Promise.all([a.app.settle(), b.app.settle()]);
  return created.body.id as number;
}

describe('runner kinds across two replicas (postgres)', () => {
  test('C6, actions: two reds of one head at the two replicas at once dispatch one workflow, from one attempt', async () => {
    const fake = await startFakeGitHub();
    const issuer = await startFakeOidcIssuer();
    const db = await createTestDatabase('postgres');
    const runner = { kind: 'actions', workflow: 'fixloop-agent.yml', pollSeconds: 1 };
    const [a, b] = await twoReplicas(fake, db, runner, { FIXLOOP_ACTIONS_OIDC_ISSUER: issuer.url });
    try {
      const taskId = await redToBoth(a, b);
      await until('the workflow dispatch', async () => fake.workflowDispatches()[0] ?? null);
      // Both replicas have evaluated the red (settled): a second dispatch would have been made by now.
      assert.equal(fake.workflowDispatches().length, 1, 'one workflow dispatched');
      assert.equal((await attemptRows(a.app, taskId)).length, 1, 'one attempt');
    } finally {
      await b.close();
      await a.close();
      await db.drop();
      await issuer.close();
      fake.assertNoViolations();
      await fake.close();
    }
  });

  test('C6, session: two reds of one head at the two replicas at once send one message to the session, from one attempt', async () => {
    const key = 'apk_user_replicas-key';
    const devin = await startFakeDevin(key);
    const session = devin.addSession('devin-81', 'finished', 'working');
    const keyFile = join(tempDir('fixloop-replica-secrets-'), 'vendor-key');
    writeFileSync(keyFile, `${key}\n`, { mode: 0o600 });
    const fake = await startFakeGitHub();
    const db = await createTestDatabase('postgres');
    const runner = { kind: 'session', vendor: 'devin', baseUrl: devin.url, pollSeconds: 0.05 };
    const [a, b] = await twoReplicas(fake, db, runner, { FIXLOOP_SESSION_API_KEY_FILE: keyFile });
    try {
      const taskId = await redToBoth(a, b, 'devin-81');
      await until('the message', async () => session.messages.length >= 1, 10_000, 5);
      assert.equal(session.messages.length, 1, 'one message to the session');
      assert.equal((await attemptRows(a.app, taskId)).length, 1, 'one attempt');
      assert.deepEqual(devin.violations, []);
    } finally {
      await b.close();
      await a.close();
      await db.drop();
      await devin.close();
      fake.assertNoViolations();
      await fake.close();
    }
  });
});
