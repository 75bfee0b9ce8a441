// Issue 35 item 2 on both databases: the `mention` runner resumes an agent that lives on the pull
// request by a comment that mentions it, as the identity the agent answers. Against a fake Copilot
// built from its documentation: a person's mention (FIXLOOP_MENTION_TOKEN, write access) is acted on —
// its push ends the run, the outcome is inferred from it, and the next red gets the next attempt;
// fixloop's own identity is ignored, and the run ends at its window in a run_timeout notice.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { DATABASE_KINDS } from '../support/databases.js';
import { BOT_LOGIN, FakeClock, openOnFake, type GitHubHarness } from '../support/github-harness.js';
import { startFakeGitHub, type FakeGitHub } from '../support/fake-github/server.js';
import { REPO, SECRET, startHarness } from '../support/harness.js';
import { checkRunPayload, delivery, post } from '../support/deliveries.js';
import { createGitHub } from '../../src/github/client.js';
import { copilotAnswers } from '../support/fake-vendors/copilot.js';
import { until } from '../support/server-process.js';
import { attemptRows, decisionsOf, nextTick, sha, taskWithRedHead } from '../support/loop-driver.js';

const PR = 61;

/** fixloop with the mention runner from its configuration (no runner double), on a fake GitHub. */
async function start(
  kind: 'sqlite' | 'postgres',
  runner: Record<string, unknown>,
  personToken?: (fake: FakeGitHub) => string,
): Promise<GitHubHarness & { fake: FakeGitHub }> {
  const fake = await startFakeGitHub();
  const clock = new FakeClock();
  fake.state.now = () => clock.now();
  const env: Record<string, string> = { GITHUB_API_URL: fake.url };
  if (personToken) env.FIXLOOP_MENTION_TOKEN = personToken(fake);
  // Approvals are made with fixloop's own GitHub credentials, from its configuration.
  if (runner.approveWorkflows) env.GITHUB_TOKEN = fake.addUserToken(BOT_LOGIN);
  const h = await openOnFake(
    kind,
    { fake, clock, token: fake.addUserToken(BOT_LOGIN) },
    { env, configExtra: { runner, runTimeoutMinutes: 30 }, adapters: { runner: undefined, adoptEveryMs: 20 } },
  );
  return {
    ...h,
    async close() {
      await h.close();
      fake.assertNoViolations();
      await fake.close();
    },
  };
}

const mentionOf = async (fake: FakeGitHub) =>
  until('the mention on the pull request', async () =>
    (fake.state.comments[`acme/shop#${PR}`] ?? []).find((c) => c.body.startsWith('@copilot')),
  );

for (const kind of DATABASE_KINDS) {
  describe(`the mention runner (${kind})`, () => {
    test("a person's mention wakes Copilot; its push ends the run as action taken, and its red gets the next attempt", async () => {
      const h = await start(kind, { kind: 'mention', agent: 'copilot' }, (fake) => {
        fake.setCollaborator('acme/shop', 'dana-dev', 'write');
        return fake.addUserToken('dana-dev');
      });
      try {
        const taskId = await taskWithRedHead(h, PR, sha('a'), 'FAIL src/cart.test.ts: expected 3 to be 4');
        await nextTick(h);
        const mention = await mentionOf(h.fake);
        assert.equal(mention.author, 'dana-dev', "posted with the person's token");
        assert.match(mention.body, /^@copilot `test` is failing on this pull request at aaaaaaaaaaaa\./);
        assert.match(mention.body, /```text\nFAIL src\/cart\.test\.ts: expected 3 to be 4\n```/);

        const answer = await copilotAnswers(h.fake, {
          repo: REPO,
          pullRequest: PR,
          newHead: sha('b'),
          fixloopUrl: h.url,
          webhookSecret: SECRET,
        });
        assert.equal(answer.acted, true, 'Copilot acts on a mention from a person with write access');

        const [row] = await until('the attempt acknowledged by the push', async () => {
          const rows = await attemptRows(h.app, taskId);
          return rows[0]?.state === 'acknowledged' ? rows : null;
        });
        assert.equal(row!.outcome, 'action_taken', 'inferred from the push');
        const view = (await h.api('GET', `/api/tasks/${taskId}`)).body;
        assert.equal(view.notice, null);
        assert.equal(view.runs.find((r: any) => r.attemptId === row!.id)?.state, 'completed', 'the push ended the run');

        // The push fails differently: the next attempt mentions Copilot again.
        h.fake.addCheckRun('acme/shop', sha('b'), {
          name: 'test',
          status: 'completed',
          conclusion: 'failure',
          outputSummary: 'FAIL src/checkout.test.ts: the receipt has no total line',
        });
        await nextTick(h);
        await until('the second mention', async () => {
          const mentions = (h.fake.state.comments[`acme/shop#${PR}`] ?? []).filter((c) =>
            c.body.startsWith('@copilot'),
          );
          return mentions.length === 2 || null;
        });
        assert.deepEqual(
          (await attemptRows(h.app, taskId)).map((r) => r.coordinate),
          [sha('a'), sha('b')],
        );
      } finally {
        await h.close();
      }
    });

    test("the agent's push whose workflows wait for approval: fixloop approves them (approveWorkflows), and the approved run's red gets the next attempt", async () => {
      const h = await start(kind, { kind: 'mention', agent: 'copilot', approveWorkflows: true }, (fake) => {
        fake.setCollaborator('acme/shop', 'dana-dev', 'write');
        return fake.addUserToken('dana-dev');
      });
      try {
        const taskId = await taskWithRedHead(h, PR, sha('a'), 'FAIL src/cart.test.ts: expected 3 to be 4');
        await nextTick(h);
        await mentionOf(h.fake);
        const answer = await copilotAnswers(h.fake, {
          repo: REPO,
          pullRequest: PR,
          newHead: sha('b'),
          fixloopUrl: h.url,
          webhookSecret: SECRET,
          runsNeedApproval: true,
        });
        assert.equal(answer.acted, true);

        const [run] = await until('the held run approved', async () => {
          const runs = h.fake.pushRunsOf(sha('b'));
          return runs[0]?.status === 'queued' ? runs : null;
        });
        assert.equal(run!.approvedBy, BOT_LOGIN, "approved with fixloop's own credentials, not the person's");
        const approved = await until('the approval in the decision log', async () =>
          (await decisionsOf(h, taskId)).find((d) => d.reason === 'runs_approved'),
        );
        assert.match(approved.detail ?? '', /fixloop approved 1 workflow run/);
        assert.equal((await h.api('GET', `/api/tasks/${taskId}`)).body.notice, null, 'no person was asked');

        // The approved run fails: its red is the agent's fix failing, and the next attempt mentions Copilot again.
        const red = delivery(
          'check_run',
          checkRunPayload({
            repo: REPO,
            sha: sha('b'),
            id: 7101,
            name: 'test',
            pr: { number: PR, headSha: sha('b') },
            output: 'FAIL src/checkout.test.ts: the receipt has no total line',
          }),
        );
        assert.equal((await post(h.url, red, SECRET)).status, 202);
        await until('the second mention', async () => {
          const mentions = (h.fake.state.comments[`acme/shop#${PR}`] ?? []).filter((c) =>
            c.body.startsWith('@copilot'),
          );
          return mentions.length === 2 || null;
        });
        assert.deepEqual(
          (await attemptRows(h.app, taskId)).map((r) => r.coordinate),
          [sha('a'), sha('b')],
        );
      } finally {
        await h.close();
      }
    });

    test("without approveWorkflows, the held runs of the agent's push wait for a person: one approval_required notice, nothing approved", async () => {
      const h = await start(kind, { kind: 'mention', agent: 'copilot' }, (fake) => {
        fake.setCollaborator('acme/shop', 'dana-dev', 'write');
        return fake.addUserToken('dana-dev');
      });
      try {
        const taskId = await taskWithRedHead(h, PR, sha('a'), 'FAIL src/cart.test.ts');
        await nextTick(h);
        await mentionOf(h.fake);
        await copilotAnswers(h.fake, {
          repo: REPO,
          pullRequest: PR,
          newHead: sha('b'),
          fixloopUrl: h.url,
          webhookSecret: SECRET,
          runsNeedApproval: true,
        });
        const notice: any = await until(
          'the approval_required notice',
          async () => (await h.api('GET', `/api/tasks/${taskId}`)).body.notice,
        );
        assert.equal(notice.reason, 'approval_required');
        const [run] = h.fake.pushRunsOf(sha('b'));
        assert.equal(run!.conclusion, 'action_required', 'still waiting');
        assert.equal(run!.approvedBy, undefined);
        assert.equal((await attemptRows(h.app, taskId)).length, 1);
      } finally {
        await h.close();
      }
    });

    test("fixloop's own identity is ignored by Copilot: no push, and the run ends at its window with a notice", async () => {
      const h = await start(kind, { kind: 'mention', agent: 'copilot', as: 'app' });
      try {
        const taskId = await taskWithRedHead(h, PR, sha('c'), 'FAIL src/api.test.ts');
        await nextTick(h);
        const mention = await mentionOf(h.fake);
        assert.equal(mention.author, BOT_LOGIN);
        const answer = await copilotAnswers(h.fake, {
          repo: REPO,
          pullRequest: PR,
          newHead: sha('d'),
          fixloopUrl: h.url,
          webhookSecret: SECRET,
        });
        assert.equal(answer.acted, false, 'a mention without write access (or from a bot) wakes nothing');

        h.clock.advance(30 * 60_000);
        const notice: any = await until(
          'the run_timeout notice',
          async () => (await h.api('GET', `/api/tasks/${taskId}`)).body.notice,
          20_000,
          10,
        );
        assert.equal(notice.reason, 'run_timeout');
        const rows = await decisionsOf(h, taskId);
        assert.equal(rows.filter((d) => d.outcome === 'noticed').length, 1);
      } finally {
        await h.close();
      }
    });
  });
}

describe('the mention runner across two replicas (postgres)', () => {
  test('C6: two reds of one head delivered to the two replicas at once post one mention, from one attempt', async () => {
    const a = await start('postgres', { kind: 'mention', agent: 'copilot' }, (fake) => {
      fake.setCollaborator('acme/shop', 'dana-dev', 'write');
      return fake.addUserToken('dana-dev');
    });
    const person = a.fake.addUserToken('dana-dev');
    const b = await startHarness('postgres', {
      db: a.db,
      env: { GITHUB_API_URL: a.fake.url, FIXLOOP_MENTION_TOKEN: person },
      configExtra: { runner: { kind: 'mention', agent: 'copilot' } },
      adapters: {
        runner: undefined,
        clock: a.clock,
        startPoll: false,
        github: createGitHub({
          apiUrl: a.fake.url,
          auth: { kind: 'token', token: a.fake.addUserToken(BOT_LOGIN) },
          throttle: { spaceWrites: false },
          retry: { backoffUnitMs: 1 },
        }),
      },
    });
    try {
      const taskId = await taskWithRedHead(a, PR, sha('e'), 'FAIL src/api.test.ts');
      // Two failing jobs of the one head, one to each replica at the same moment: one coordinate to claim.
      const red = (id: number, name: string) =>
        delivery(
          'check_run',
          checkRunPayload({
            repo: REPO,
            sha: sha('e'),
            id,
            name,
            pr: { number: PR, headSha: sha('e') },
            output: `FAIL ${name}`,
          }),
        );
      const answers = await Promise.all([
        post(a.url, red(6101, 'test'), SECRET),
        post(b.url, red(6102, 'lint'), SECRET),
      ]);
      assert.deepEqual(
        answers.map((r) => r.status),
        [202, 202],
      );
      await Promise.all([a.app.settle(), b.app.settle()]);
      await mentionOf(a.fake);
      // Both replicas have evaluated the red by now (settled); a second dispatch would have posted already.
      const mentions = (a.fake.state.comments[`acme/shop#${PR}`] ?? []).filter((c) => c.body.startsWith('@copilot'));
      assert.equal(mentions.length, 1, 'one mention');
      assert.equal((await attemptRows(a.app, taskId)).length, 1, 'one attempt');
    } finally {
      await b.close();
      await a.close();
    }
  });
});
