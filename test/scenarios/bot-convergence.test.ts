// Issue 36 item 6: convergence for bot reviews, through the real pipeline on the fake GitHub. An
// allow-listed bot (coderabbitai[bot]) reviews, the agent answers; the bot's next round repeats the
// same findings on the agent's new head — other line numbers, other SHAs — and the loop stops with
// one notice naming the bot, even across a restart of fixloop (the fingerprint is in the ledger). A
// bot whose findings change keeps the loop going. The findings are the review's body and its inline
// comments, which fixloop reads from GitHub's review-comments endpoint.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { DATABASE_KINDS, createTestDatabase } from '../support/databases.js';
import { BOT_LOGIN, FakeClock, openOnFake, sha, type GitHubHarness } from '../support/github-harness.js';
import { startFakeGitHub, type FakeGitHub } from '../support/fake-github/server.js';
import type { FakeReviewComment } from '../support/fake-github/state.js';
import { delivery, post, reviewPayload } from '../support/deliveries.js';
import { REPO, SECRET } from '../support/harness.js';

const REPO_NAME = 'acme/shop';
const BOT = 'coderabbitai[bot]';
const config = { configExtra: { reviewBots: [BOT] }, env: { TASK_CI_AUTO_RESUME_MAX_ATTEMPTS: '5' } };

/** A CodeRabbit-like summary: it names the commits it reviewed, so it differs on every head. */
const summary = (head: string, posted: number) =>
  [
    `**Actionable comments posted: ${posted}**`,
    `Reviewing files that changed from the base of the PR and between ${head.slice(0, 7)} and ${head.slice(0, 12)}.`,
    `<!-- review round ${head.slice(0, 4)} -->`,
  ].join('\n');

/** The inline findings, on lines that move when the code above them moves. */
const nullCheck = (line: number): FakeReviewComment => ({
  path: 'src/cart.ts',
  line,
  body: `Potential null dereference of \`cart.items\` (line ${line}).`,
});
const rounding = (line: number): FakeReviewComment => ({
  path: 'src/price.ts',
  line,
  body: `\`total\` is never rounded; see src/price.ts:${line}.`,
});
const doubleTax = (line: number): FakeReviewComment => ({ path: 'src/tax.ts', line, body: 'Tax is applied twice.' });

let nextReviewId = 80_000;

/** The bot submits a review round on `head`: GitHub holds it (with its inline comments) and sends the webhook. */
async function botReview(h: GitHubHarness, pr: number, head: string, body: string, comments: FakeReviewComment[]) {
  h.clock.advance(60_000);
  const id = nextReviewId++;
  h.fake.addReview(REPO_NAME, pr, {
    id,
    state: 'COMMENTED',
    body,
    author: BOT,
    authorType: 'Bot',
    commitId: head,
    comments,
  });
  const p = reviewPayload({
    repo: REPO,
    number: pr,
    state: 'commented',
    body,
    headSha: head,
    author: BOT,
    authorType: 'Bot',
  });
  p.review.id = id;
  p.review.commit_id = head;
  const res = await post(h.url, delivery('pull_request_review', p), SECRET);
  assert.ok(res.status < 300, JSON.stringify(res.body));
  await h.app.settle();
}

/** The agent's run ends, and its push moves the head. */
async function agentAnswers(h: GitHubHarness, pr: number, head: string) {
  const last = h.runner.starts.at(-1)!;
  h.runner.finish(last.runId);
  await h.app.settle();
  h.fake.setHead(REPO_NAME, pr, head);
  h.clock.advance(120_000);
  await h.tick();
}

const noticesOf = async (h: GitHubHarness, taskId: number) =>
  (
    (await h.api('GET', '/api/inbox')).body.notices as Array<{ taskId: number; reason: string; message: string }>
  ).filter((n) => n.taskId === taskId);

async function withFake<T>(fn: (fake: FakeGitHub, clock: FakeClock, token: string) => Promise<T>): Promise<T> {
  const fake = await startFakeGitHub();
  const clock = new FakeClock();
  fake.state.now = () => clock.now();
  try {
    return await fn(fake, clock, fake.addUserToken(BOT_LOGIN));
  } finally {
    fake.assertNoViolations();
    await fake.close();
  }
}

for (const kind of DATABASE_KINDS) {
  describe(`convergence for bot reviews (${kind})`, () => {
    test('a bot repeating its findings in a later round stops the loop with a notice naming it, across a restart', async () => {
      const db = await createTestDatabase(kind);
      try {
        await withFake(async (fake, clock, token) => {
          let h = await openOnFake(kind, { fake, clock, token }, { ...config, db });
          let taskId: number;
          try {
            const { body: task } = await h.api('POST', '/api/tasks', {
              repository: REPO_NAME,
              pullRequest: 71,
              branch: 'agent/bot',
            });
            taskId = task.id;
            fake.addPull(REPO_NAME, 71, { headSha: sha('1'), headRef: 'agent/bot' });
            await botReview(h, 71, sha('1'), summary(sha('1'), 2), [nullCheck(42), rounding(10)]);
            assert.equal(h.runner.starts.length, 1, "the bot's first round is answered");
            await agentAnswers(h, 71, sha('2'));
          } finally {
            await h.close();
          }
          // fixloop restarts; the next round repeats the findings on the new head, lines moved.
          h = await openOnFake(kind, { fake, clock, token }, { ...config, db });
          try {
            await botReview(h, 71, sha('2'), summary(sha('2'), 2), [rounding(31), nullCheck(57)]);
            assert.equal(h.runner.starts.length, 0, 'the repeated round wakes nobody');
            const notices = await noticesOf(h, taskId!);
            assert.deepEqual(
              notices.map((n) => n.reason),
              ['bot_repeats_findings'],
            );
            assert.match(
              notices[0]!.message,
              /a review bot repeated the findings of a round the agent already answered/,
            );
            assert.match(
              notices[0]!.message,
              /coderabbitai\[bot\]'s review \(round 2\) repeats the findings of its round 1/,
            );
            const view = (await h.api('GET', `/api/tasks/${taskId!}`)).body;
            assert.equal(view.attempts.length, 1);
            // A third round, the same again: still the one notice, still no run.
            await botReview(h, 71, sha('2'), summary(sha('2'), 2), [nullCheck(60), rounding(33)]);
            assert.equal(h.runner.starts.length, 0);
            assert.equal((await noticesOf(h, taskId!)).length, 1);
          } finally {
            await h.close();
          }
        });
      } finally {
        await db.drop();
      }
    });

    test('a bot whose findings change keeps going: each new round is answered', async () => {
      await withFake(async (fake, clock, token) => {
        const h = await openOnFake(kind, { fake, clock, token }, config);
        try {
          const { body: task } = await h.api('POST', '/api/tasks', {
            repository: REPO_NAME,
            pullRequest: 72,
            branch: 'agent/bot2',
          });
          fake.addPull(REPO_NAME, 72, { headSha: sha('1'), headRef: 'agent/bot2' });
          await botReview(h, 72, sha('1'), summary(sha('1'), 2), [nullCheck(42), rounding(10)]);
          assert.equal(h.runner.starts.length, 1);
          await agentAnswers(h, 72, sha('2'));
          // The null dereference is fixed; the bot now finds something else — its summary reads the same.
          await botReview(h, 72, sha('2'), summary(sha('2'), 2), [rounding(10), doubleTax(3)]);
          assert.equal(h.runner.starts.length, 2, 'the changed round is answered');
          assert.equal(fake.requestsTo(/\/reviews\/\d+\/comments/).length, 2, "each round's inline comments were read");
          assert.deepEqual(await noticesOf(h, task.id), []);
        } finally {
          await h.close();
        }
      });
    });
  });
}
