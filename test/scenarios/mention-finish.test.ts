// Issue 35 item 2 on both databases (decision 0074): where GitHub records Copilot's work events on the
// pull request, the mention runner reads them while its run is open and ends the run at Copilot's
// first finish after the mention. Against the fake Copilot and the fake GitHub: a session that
// finishes without a push ends the run completed, and — neither a call nor a push — files
// agent_unreachable with Copilot's words as the cause; a failed session ends the run failed, the
// same way; a session that pushes still ends the run with its push, as action taken.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { DATABASE_KINDS } from '../support/databases.js';
import { BOT_LOGIN, FakeClock, openOnFake, type GitHubHarness } from '../support/github-harness.js';
import { startFakeGitHub, type FakeGitHub } from '../support/fake-github/server.js';
import { REPO, SECRET } from '../support/harness.js';
import { copilotAnswers } from '../support/fake-vendors/copilot.js';
import { copilotWorkEventsOf } from '../support/fake-github/copilot-events.js';
import { until } from '../support/server-process.js';
import { attemptRows, decisionsOf, nextTick, sha, taskWithRedHead } from '../support/loop-driver.js';

const PR = 62;

/** fixloop with Copilot's mention runner reading work events every 50 ms, on a fake GitHub. */
async function start(kind: 'sqlite' | 'postgres'): Promise<GitHubHarness & { fake: FakeGitHub }> {
  const fake = await startFakeGitHub();
  const clock = new FakeClock();
  fake.state.now = () => clock.now();
  fake.setCollaborator('acme/shop', 'dana-dev', 'write');
  const env: Record<string, string> = {
    GITHUB_API_URL: fake.url,
    FIXLOOP_MENTION_TOKEN: fake.addUserToken('dana-dev'),
    // Copilot's work events are read with fixloop's own credentials.
    GITHUB_TOKEN: fake.addUserToken(BOT_LOGIN),
  };
  const h = await openOnFake(
    kind,
    { fake, clock, token: fake.addUserToken(BOT_LOGIN) },
    {
      env,
      configExtra: { runner: { kind: 'mention', agent: 'copilot', pollSeconds: 0.05 }, runTimeoutMinutes: 30 },
      adapters: { runner: undefined, adoptEveryMs: 20 },
    },
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

async function mentioned(h: GitHubHarness & { fake: FakeGitHub }, head: string): Promise<number> {
  const taskId = await taskWithRedHead(h, PR, head, 'FAIL src/cart.test.ts: expected 3 to be 4');
  await nextTick(h);
  await until('the mention on the pull request', async () =>
    (h.fake.state.comments[`acme/shop#${PR}`] ?? []).find((c) => c.body.startsWith('@copilot')),
  );
  // The mention and Copilot's events are a second apart, as on GitHub.
  h.clock.advance(1_000);
  return taskId;
}

const noticeOf = (h: GitHubHarness, taskId: number) =>
  until('the notice', async () => (await h.api('GET', `/api/tasks/${taskId}`)).body.notice, 20_000, 10);

for (const kind of DATABASE_KINDS) {
  describe(`Copilot's finish ends the mention run (${kind})`, { timeout: 120_000 }, () => {
    test('finished without a push: the run ends completed, and with neither call nor push files agent_unreachable', async () => {
      const h = await start(kind);
      try {
        const taskId = await mentioned(h, sha('a'));
        const answer = await copilotAnswers(h.fake, {
          repo: REPO,
          pullRequest: PR,
          newHead: sha('b'),
          fixloopUrl: h.url,
          webhookSecret: SECRET,
          outcome: 'finished_without_push',
        });
        assert.equal(answer.acted, true);
        assert.deepEqual(
          copilotWorkEventsOf(h.fake.state, 'acme/shop', PR).map((e) => e.event),
          ['copilot_work_started', 'copilot_work_finished'],
        );
        // Well inside the run's 30-minute window (the fake clock stands still): the finish ended it.
        const notice: any = await noticeOf(h, taskId);
        assert.equal(notice.reason, 'agent_unreachable');
        const view = (await h.api('GET', `/api/tasks/${taskId}`)).body;
        const [attempt] = await attemptRows(h.app, taskId);
        assert.equal(view.runs.find((r: any) => r.attemptId === attempt!.id)?.state, 'completed');
        const reasons = (await decisionsOf(h, taskId)).filter((d) => d.outcome === 'noticed');
        assert.equal(reasons.length, 1, 'one notice');
        assert.match(
          reasons[0]!.detail ?? '',
          /Copilot reported on the pull request at .* that it had finished its work/,
        );
        assert.match(reasons[0]!.detail ?? '', /without a push to the branch/);
      } finally {
        await h.close();
      }
    });

    test("a failed session: the run ends failed, and Copilot's words are the notice's cause", async () => {
      const h = await start(kind);
      try {
        const taskId = await mentioned(h, sha('c'));
        await copilotAnswers(h.fake, {
          repo: REPO,
          pullRequest: PR,
          newHead: sha('d'),
          fixloopUrl: h.url,
          webhookSecret: SECRET,
          outcome: 'failed',
        });
        const notice: any = await noticeOf(h, taskId);
        assert.equal(notice.reason, 'agent_unreachable');
        const view = (await h.api('GET', `/api/tasks/${taskId}`)).body;
        const [attempt] = await attemptRows(h.app, taskId);
        assert.equal(view.runs.find((r: any) => r.attemptId === attempt!.id)?.state, 'failed');
        const noticed = (await decisionsOf(h, taskId)).find((d) => d.outcome === 'noticed');
        assert.match(noticed?.detail ?? '', /Copilot reported on the pull request at .* that its work failed/);
      } finally {
        await h.close();
      }
    });

    test('a session that pushes: the push ends the run as action taken, and its later finish changes nothing', async () => {
      const h = await start(kind);
      try {
        const taskId = await mentioned(h, sha('e'));
        await copilotAnswers(h.fake, {
          repo: REPO,
          pullRequest: PR,
          newHead: sha('f'),
          fixloopUrl: h.url,
          webhookSecret: SECRET,
        });
        const from = h.fake.requests.length;
        const [row] = await until('the attempt acknowledged by the push', async () => {
          const rows = await attemptRows(h.app, taskId);
          return rows[0]?.state === 'acknowledged' ? rows : null;
        });
        assert.equal(row!.outcome, 'action_taken');
        // Copilot's finish was recorded after its push: an events read received after that saw it.
        const read = (r: { path: string; status: number | null }) =>
          r.status !== null && r.path.split('?')[0]!.endsWith(`/issues/${PR}/events`);
        await until('the events read after the finish', async () => h.fake.requests.slice(from).some(read) || null);
        await h.app.settle();
        const view = (await h.api('GET', `/api/tasks/${taskId}`)).body;
        assert.equal(view.notice, null);
        assert.equal(view.runs.find((r: any) => r.attemptId === row!.id)?.state, 'completed');
      } finally {
        await h.close();
      }
    });
  });
}
