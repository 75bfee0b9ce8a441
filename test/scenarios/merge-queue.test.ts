// Issue 36 item 1 through the webhook path on both databases: a failing check of GitHub's merge queue
// commit (its branch `gh-readonly-queue/<base>/pr-<n>-<head>`, no pull request pointer) is a red of
// pull request n, answered by exactly one attempt framed as failing only combined with the queue; a
// `dequeued` pull request for a reason no agent can fix (a person's removal, a conflict, a timeout)
// files one notice for a person and starts nothing; redeliveries start nothing more.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { DATABASE_KINDS } from '../support/databases.js';
import { startHarness, REPO, SECRET, type Harness } from '../support/harness.js';
import { checkRunPayload, delivery, mergeGroupPayload, post, pullRequestPayload } from '../support/deliveries.js';

const sha = (pr: number, n: number) => `${pr.toString(16).padStart(4, '0')}${n}`.padEnd(40, 'e');
const queueBranch = (pr: number, head: string) => `gh-readonly-queue/main/pr-${pr}-${head}`;

for (const kind of DATABASE_KINDS) {
  describe(`merge queue ejection (${kind})`, () => {
    let h: Harness;
    let nextPr = 500;
    before(async () => {
      h = await startHarness(kind, { env: { TASK_CI_AUTO_RESUME_MAX_ATTEMPTS: '3' } });
    });
    after(() => h.close());

    /** A Task whose pull request's head is `head` (an `opened` delivery), green on its own. */
    async function queuedTask(): Promise<{ id: number; pr: number; head: string }> {
      const pr = nextPr++;
      const created = await h.api('POST', '/api/tasks', {
        repository: 'acme/shop',
        pullRequest: pr,
        branch: 'agent/fix',
      });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const head = sha(pr, 1);
      await send('pull_request', pullRequestPayload({ repo: REPO, number: pr, action: 'opened', headSha: head }));
      return { id: created.body.id, pr, head };
    }

    async function send(event: string, payload: unknown, id?: string): Promise<{ status: number; body: any }> {
      const res = await post(h.url, delivery(event, payload, id), SECRET);
      await h.app.settle();
      return res;
    }

    /** A failing check run of the queue's commit built for the pull request at `head`. */
    const queueRed = (pr: number, head: string, queueSha: string, id: number, output = 'FAIL cart totals') =>
      checkRunPayload({ repo: REPO, sha: queueSha, id, name: 'test', output, branch: queueBranch(pr, head), pr: null });

    const view = async (task: { id: number }) => (await h.api('GET', `/api/tasks/${task.id}`)).body;
    const decisions = async (task: { id: number }) =>
      (await h.api('GET', `/api/deliveries?taskId=${task.id}&limit=200`)).body.decisions as any[];
    const runsOf = (task: { pr: number }) => h.runner.starts.filter((s) => s.pullRequest === task.pr);

    test('a failing check of the queue’s commit: one attempt on the head, framed as failing only combined with the queue', async () => {
      const task = await queuedTask();
      const queueSha = sha(task.pr, 9);
      const first = delivery('check_run', queueRed(task.pr, task.head, queueSha, 61_001));
      assert.equal((await post(h.url, first, SECRET)).status, 202);
      await h.app.settle();

      const v = await view(task);
      assert.equal(v.attempts.length, 1, 'exactly one attempt');
      const runs = runsOf(task);
      assert.equal(runs.length, 1);
      assert.equal(runs[0]!.headSha, task.head, "the fix is pushed on the pull request's head, not the queue's commit");
      assert.match(runs[0]!.prompt, /fails only combined with the queue \(base \+ these pull requests\)/);
      assert.match(runs[0]!.prompt, /base branch "main"/);
      assert.match(runs[0]!.prompt, /FAIL cart totals/);
      assert.match(
        runs[0]!.prompt,
        /ahead of it in the merge queue \(fixloop does not know which\)/,
        'no merge_group came',
      );

      // The same delivery again, the same result by another delivery, another job of the same queue
      // commit, and the queue's own `dequeued` (CI_FAILURE): nothing more starts.
      assert.equal((await post(h.url, first, SECRET)).body.outcome, 'duplicate');
      await send('check_run', queueRed(task.pr, task.head, queueSha, 61_001));
      await send('check_run', queueRed(task.pr, task.head, queueSha, 61_002, 'FAIL lint'));
      await send(
        'pull_request',
        pullRequestPayload({
          repo: REPO,
          number: task.pr,
          action: 'dequeued',
          headSha: task.head,
          reason: 'CI_FAILURE',
        }),
      );
      const after = await view(task);
      assert.equal(after.attempts.length, 1, 'still one attempt');
      assert.equal(after.notice, null, 'a failed check is the agent’s: no notice');
      assert.equal(runsOf(task).length, 1);
      assert.ok((await decisions(task)).some((d) => d.reason === 'coordinate_claimed'));
    });

    test('decision 0078: the queue’s commits as merge_group announced them name the pull requests merged ahead', async () => {
      const task = await queuedTask();
      const [baseTip, q1, q2, q3] = [sha(task.pr, 2), sha(task.pr, 3), sha(task.pr, 4), sha(task.pr, 5)];
      // Two pull requests ahead (not agents' ones: fixloop has no Task for them), then the agent's, then one behind.
      const groups = [
        { number: 901, prHead: sha(901, 1), headSha: q1, baseSha: baseTip },
        { number: 902, prHead: sha(902, 1), headSha: q2, baseSha: q1 },
        { number: task.pr, prHead: task.head, headSha: q3, baseSha: q2 },
        { number: 903, prHead: sha(903, 1), headSha: sha(task.pr, 6), baseSha: q3 },
      ];
      for (const g of groups) {
        const res = await send('merge_group', mergeGroupPayload({ repo: REPO, ...g }));
        assert.equal(res.status, 202, JSON.stringify(res.body));
      }
      await send('check_run', queueRed(task.pr, task.head, q3, 63_001));

      const runs = runsOf(task);
      assert.equal(runs.length, 1, 'one attempt');
      assert.match(
        runs[0]!.prompt,
        /base branch "main" merged with the pull requests ahead of it in the queue, #902, #901\./,
      );
      assert.doesNotMatch(runs[0]!.prompt, /#903|does not know which/);
      const kept = (await h.api('GET', '/api/deliveries?limit=200')).body.decisions.filter(
        (d: any) => d.reason === 'merge_queue_commit',
      );
      assert.ok(kept.length >= 4, 'each commit the queue built is kept, in the decision log’s words');
      assert.equal((await view(task)).notice, null);
    });

    test('decision 0078: a commit the queue merged into the base before building this one is the base, not ahead', async () => {
      const task = await queuedTask();
      const [baseTip, q0, q1, q2] = [sha(task.pr, 2), sha(task.pr, 3), sha(task.pr, 4), sha(task.pr, 5)];
      const built = (number: number, headSha: string, baseSha: string) =>
        send('merge_group', mergeGroupPayload({ repo: REPO, number, prHead: sha(number, 1), headSha, baseSha }));
      await built(904, q0, baseTip);
      // #904 passed: the queue merged its commit, and the base's head is now that very commit.
      const merged = await send(
        'merge_group',
        mergeGroupPayload({
          repo: REPO,
          number: 904,
          prHead: sha(904, 1),
          headSha: q0,
          baseSha: baseTip,
          action: 'destroyed',
          reason: 'merged',
        }),
      );
      assert.equal(merged.status, 202, JSON.stringify(merged.body));
      await built(905, q1, q0);
      await send(
        'merge_group',
        mergeGroupPayload({ repo: REPO, number: task.pr, prHead: task.head, headSha: q2, baseSha: q1 }),
      );
      await send('check_run', queueRed(task.pr, task.head, q2, 65_001));
      const runs = runsOf(task);
      assert.equal(runs.length, 1);
      assert.match(runs[0]!.prompt, /merged with the pull requests ahead of it in the queue, #905\./);
      assert.doesNotMatch(runs[0]!.prompt, /#904/);
    });

    test('decision 0078: first in the queue, its commit built on the base alone', async () => {
      const task = await queuedTask();
      const q1 = sha(task.pr, 3);
      await send(
        'merge_group',
        mergeGroupPayload({ repo: REPO, number: task.pr, prHead: task.head, headSha: q1, baseSha: sha(task.pr, 2) }),
      );
      await send('check_run', queueRed(task.pr, task.head, q1, 64_001));
      const runs = runsOf(task);
      assert.equal(runs.length, 1);
      assert.match(runs[0]!.prompt, /merged with no other pull request \(it was first in the queue\)/);
    });

    test('a queue built from an older head is superseded: no attempt', async () => {
      const task = await queuedTask();
      await send('check_run', queueRed(task.pr, sha(task.pr, 0), sha(task.pr, 8), 62_001));
      assert.equal((await view(task)).attempts.length, 0);
      assert.ok(
        (await decisions(task)).some((d) => d.reason === 'superseded_head' && /merge queue tested/.test(d.detail)),
      );
    });

    for (const [reason, words] of [
      ['MANUAL', /a person removed it from the merge queue/],
      ['MERGE_CONFLICT', /conflicts with a pull request ahead of it in the merge queue/],
      ['CI_TIMEOUT', /merge queue's checks did not finish in time/],
    ] as const) {
      test(`an ejection for ${reason} goes to a person: one notice, no attempt, a redelivery adds nothing`, async () => {
        const task = await queuedTask();
        const dequeued = delivery(
          'pull_request',
          pullRequestPayload({ repo: REPO, number: task.pr, action: 'dequeued', headSha: task.head, reason }),
        );
        assert.equal((await post(h.url, dequeued, SECRET)).status, 202);
        await h.app.settle();
        const v = await view(task);
        assert.equal(v.attempts.length, 0, 'no attempt');
        assert.equal(runsOf(task).length, 0);
        assert.equal(v.notice?.reason, 'queue_ejected');
        assert.match(v.notice.message, /merge queue removed it for a reason no agent's push can fix/);
        assert.match(v.notice.message, words);

        assert.equal((await post(h.url, dequeued, SECRET)).body.outcome, 'duplicate');
        await h.app.settle();
        const inbox = (await h.api('GET', '/api/inbox')).body.notices.filter((n: any) => n.taskId === task.id);
        assert.equal(inbox.length, 1, 'one notice');
      });
    }

    test('an ejection already merged needs nobody', async () => {
      const task = await queuedTask();
      await send(
        'pull_request',
        pullRequestPayload({
          repo: REPO,
          number: task.pr,
          action: 'dequeued',
          headSha: task.head,
          reason: 'ALREADY_MERGED',
        }),
      );
      const v = await view(task);
      assert.equal(v.notice, null);
      assert.equal(v.attempts.length, 0);
    });
  });
}
