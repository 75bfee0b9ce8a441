// Issue 36 item 6 on GitLab (decision 0077): convergence for bot reviews, through the real pipeline on
// the fake GitLab. A review bot listed in `reviewBots` (an ordinary GitLab account, a Developer of the
// project) sets "Request changes": GitLab's hook carries no text, so its round is what it says in the
// merge request's discussions — its notes in unresolved threads and its newest top-level note. The
// agent answers; the bot's next round says the same findings on the new head (its old threads
// resolved, new ones on moved lines, a summary naming other commits) and the loop stops with one
// `bot_repeats_findings` notice naming the bot and the merge request. A round whose findings changed
// (one resolved, one new) is answered.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { DATABASE_KINDS } from '../../support/databases.js';
import {
  ACCESS,
  GL_PROJECT,
  finishLast,
  gitlabTimeOf,
  sha,
  startGitLabHarness,
  type GitLabHarness,
} from '../../support/gitlab-harness.js';

const BOT = 'coderabbit';
const config = { env: { TASK_CI_AUTO_RESUME_MAX_ATTEMPTS: '5' }, configExtra: { reviewBots: [BOT] } };

/** A finding as the bot writes it: its text names the line, which moves when the code above it moves. */
interface Finding {
  file: string;
  line: number;
  body: string;
}
const nullCheck = (line: number): Finding => ({
  file: 'src/cart.ts',
  line,
  body: `Potential null dereference of \`cart.items\` (line ${line}).`,
});
const rounding = (line: number): Finding => ({
  file: 'src/price.ts',
  line,
  body: `\`total\` is never rounded; see src/price.ts:${line}.`,
});
const doubleTax = (line: number): Finding => ({ file: 'src/tax.ts', line, body: 'Tax is applied twice.' });

/** A CodeRabbit-like summary: it names the commits it reviewed, so its text differs on every head. */
const summary = (head: string, n: number) =>
  `**Actionable comments posted: ${n}**\nReviewed ${head.slice(0, 7)}..${head.slice(0, 12)}.\n<!-- round ${head.slice(0, 4)} -->`;

function userId(h: GitLabHarness, username: string): number {
  const found = Object.values(h.fake.state.users).find((u) => u.username === username);
  assert.ok(found, `no GitLab user ${username}`);
  return found.id;
}

/**
 * The bot submits a review on the merge request's head: its summary and one diff thread per finding
 * land in the discussions, then GitLab's Merge Request hook says its state became requested_changes
 * (from `unreviewed`: its review was requested again after the push). Returns the threads' ids.
 */
async function botRound(h: GitLabHarness, iid: number, head: string, findings: Finding[]): Promise<string[]> {
  h.clock.advance(60_000);
  h.fake.addNote(GL_PROJECT, iid, { body: summary(head, findings.length), author: BOT });
  const threads = findings.map(
    (f) =>
      h.fake.addNote(GL_PROJECT, iid, { body: f.body, author: BOT, thread: { file: f.file, line: f.line } })
        .discussionId,
  );
  h.fake.setReviewerState(GL_PROJECT, iid, BOT, 'requested_changes');
  const p = h.mergeRequestHook(iid, { action: 'update' });
  const id = userId(h, BOT);
  const who = { id, name: 'CodeRabbit', username: BOT, avatar_url: null };
  const now = gitlabTimeOf(h.clock.now());
  p.user = { ...p.user, id, name: 'CodeRabbit', username: BOT };
  p.reviewers = [{ ...who, state: 'requested_changes' }];
  p.changes = {
    updated_at: { previous: gitlabTimeOf(new Date(h.clock.now().getTime() - 60_000)), current: now },
    updated_by_id: { previous: null, current: id },
    reviewers: {
      previous: [{ ...who, state: 'unreviewed' }],
      current: [{ ...who, state: 'requested_changes' }],
    },
  };
  const res = await h.hook('Merge Request Hook', p);
  assert.equal(res.status, 202, JSON.stringify(res.body));
  await h.app.settle();
  return threads;
}

/** The agent's run ends and its push moves the head (announced by GitLab's hook, a one-line change). */
async function agentAnswers(h: GitLabHarness, iid: number, from: string, to: string): Promise<void> {
  await finishLast(h);
  h.clock.advance(60_000);
  h.fake.setCompare(GL_PROJECT, sha(from), sha(to), [
    { old_path: 'src/cart.ts', new_path: 'src/cart.ts', diff: '@@ -1,1 +1,1 @@\n-a\n+b\n' },
  ]);
  const oldrev = h.push(iid, sha(to));
  const res = await h.hook('Merge Request Hook', h.mergeRequestHook(iid, { action: 'update', oldrev }));
  assert.equal(res.status, 202, JSON.stringify(res.body));
  await h.app.settle();
  h.fake.setReviewerState(GL_PROJECT, iid, BOT, 'unreviewed'); // its review is requested again
}

async function openTask(h: GitLabHarness, iid: number): Promise<number> {
  h.fake.addMember(GL_PROJECT, BOT, ACCESS.developer);
  h.openMergeRequest(iid, { headSha: sha('1'), sourceBranch: `agent/bot-${iid}` });
  const created = await h.api('POST', '/api/tasks', {
    repository: GL_PROJECT,
    pullRequest: iid,
    branch: `agent/bot-${iid}`,
  });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  return created.body.id as number;
}

const noticesOf = async (h: GitLabHarness, taskId: number) =>
  (
    (await h.api('GET', '/api/inbox')).body.notices as Array<{ taskId: number; reason: string; message: string }>
  ).filter((n) => n.taskId === taskId);

const discussionReads = (h: GitLabHarness, iid: number) =>
  h.fake.requests.filter((r) => r.method === 'GET' && r.path.includes(`/merge_requests/${iid}/discussions`));

for (const kind of DATABASE_KINDS) {
  describe(`GitLab: convergence for bot reviews (${kind})`, () => {
    test("a listed bot's request for changes is one attempt; its next round repeating the findings stops the loop with a notice naming it", async () => {
      const h = await startGitLabHarness(kind, config);
      try {
        const taskId = await openTask(h, 81);
        const first = await botRound(h, 81, sha('1'), [nullCheck(42), rounding(10)]);
        assert.equal(h.runner.starts.length, 1, "the bot's first round is answered");
        const view = (await h.api('GET', `/api/tasks/${taskId}`)).body;
        assert.deepEqual(
          view.rejections.map((r: { source: string }) => r.source),
          ['bot'],
          'taken as a bot round',
        );
        assert.match(h.runner.starts[0]!.prompt, /merge request acme\/shop-gl!81/);

        await agentAnswers(h, 81, '1', '2');
        // The bot looks again: it resolves its old threads and opens the same findings where the lines moved.
        for (const t of first) h.fake.resolveThread(GL_PROJECT, 81, t);
        await botRound(h, 81, sha('2'), [rounding(31), nullCheck(57)]);
        assert.equal(h.runner.starts.length, 1, 'the repeated round wakes nobody');
        const notices = await noticesOf(h, taskId);
        assert.deepEqual(
          notices.map((n) => n.reason),
          ['bot_repeats_findings'],
        );
        assert.match(notices[0]!.message, /^fixloop stopped for acme\/shop-gl!81: /);
        assert.match(notices[0]!.message, /a review bot repeated the findings of a round the agent already answered/);
        assert.match(notices[0]!.message, /coderabbit's review \(round 2\) repeats the findings of its round 1/);
        assert.match(notices[0]!.message, /on the merge request/);
        assert.doesNotMatch(notices[0]!.message, /pull request/);
        assert.equal((await h.api('GET', `/api/tasks/${taskId}`)).body.attempts.length, 1);
        assert.equal(discussionReads(h, 81).length, 2, "each round's discussions were read");

        // A third round, the same again (old threads left open beside new ones): still one notice, no run.
        await agentAnswers(h, 81, '2', '3');
        await botRound(h, 81, sha('3'), [nullCheck(60), rounding(33)]);
        assert.equal(h.runner.starts.length, 1);
        assert.equal((await noticesOf(h, taskId)).length, 1);
      } finally {
        await h.close();
      }
    });

    test('a round with a changed finding (one resolved, one new) is answered by another attempt', async () => {
      const h = await startGitLabHarness(kind, config);
      try {
        const taskId = await openTask(h, 82);
        const [nullThread] = await botRound(h, 82, sha('1'), [nullCheck(42), rounding(10)]);
        assert.equal(h.runner.starts.length, 1);
        await agentAnswers(h, 82, '1', '2');
        // The null dereference is fixed and its thread resolved; the bot keeps the rounding open and finds a new one.
        h.fake.resolveThread(GL_PROJECT, 82, nullThread!, { by: BOT });
        await botRound(h, 82, sha('2'), [doubleTax(3)]);
        assert.equal(h.runner.starts.length, 2, 'the changed round is answered');
        assert.deepEqual(await noticesOf(h, taskId), []);
        const attempts = (await h.api('GET', `/api/tasks/${taskId}`)).body.attempts;
        assert.equal(attempts.length, 2);
      } finally {
        await h.close();
      }
    });

    test("a listed bot's round while GitLab cannot say its membership is kept as the bot's, never as a person's act, and answered once it can", async () => {
      const h = await startGitLabHarness(kind, config);
      try {
        const taskId = await openTask(h, 84);
        h.fake.failNext(new RegExp(`^GET /api/v4/users\\?username=${BOT}(&|$)`), [403, 403]); // its level and its permission, each read once
        await botRound(h, 84, sha('1'), [nullCheck(42)]);
        assert.equal(h.runner.starts.length, 0, 'nothing woken while its standing is unknown');
        const kept = (await h.api('GET', `/api/tasks/${taskId}`)).body.rejections;
        assert.deepEqual(
          kept.map((r: { source: string }) => r.source),
          ['bot'],
          "kept as the bot's round",
        );
        await h.nextTick(); // the poll offers it again; the membership reads now
        assert.equal(h.runner.starts.length, 1, 'answered once GitLab says it is a member');
        const task = await h.app.db.kysely
          .selectFrom('tasks')
          .select(['human_at'])
          .where('id', '=', taskId)
          .executeTakeFirstOrThrow();
        assert.equal(task.human_at, null, 'a bot never counts as a person acting (K9)');
      } finally {
        await h.close();
      }
    });

    test('a namesake of the listed bot who is no member of the project is refused as a lookalike and wakes nothing', async () => {
      const h = await startGitLabHarness(kind, config);
      try {
        h.openMergeRequest(83, { headSha: sha('1'), sourceBranch: 'agent/bot-83' });
        const created = await h.api('POST', '/api/tasks', {
          repository: GL_PROJECT,
          pullRequest: 83,
          branch: 'agent/bot-83',
        });
        h.fake.addToken(BOT); // a GitLab account under the listed name, no member of the project
        await botRound(h, 83, sha('1'), [nullCheck(42)]);
        assert.equal(h.runner.starts.length, 0);
        const view = (await h.api('GET', `/api/tasks/${created.body.id}`)).body;
        assert.equal(view.rejections.length, 0);
        const refused = await h.app.db.kysely
          .selectFrom('decisions')
          .select(['reason'])
          .where('outcome', '=', 'refused')
          .execute();
        assert.ok(
          refused.some((d) => d.reason === 'bot_lookalike'),
          JSON.stringify(refused),
        );
      } finally {
        await h.close();
      }
    });
  });
}
