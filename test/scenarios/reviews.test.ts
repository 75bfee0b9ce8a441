// SPEC F1, F2 and issue 3 §9: reviewer rejections, comment doorbells, adoption of agent PRs.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { DATABASE_KINDS } from '../support/databases.js';
import { REPO, SECRET, type Harness } from '../support/harness.js';
import { startGitHubHarness, type GitHubHarness } from '../support/github-harness.js';
import { delivery, post, prCommentPayload, pullRequestPayload, reviewPayload } from '../support/deliveries.js';

const HEAD = 'be'.repeat(20);

async function send(h: Harness, event: string, payload: unknown) {
  const d = delivery(event, payload);
  const res = await post(h.url, d, SECRET);
  assert.ok(res.status < 300, JSON.stringify(res.body));
  await h.app.settle();
  return (await h.api('GET', `/api/deliveries?delivery=${d.id}`)).body.decisions as Array<{
    outcome: string;
    reason: string | null;
  }>;
}

const reasons = (rows: Array<{ outcome: string; reason: string | null }>) => rows.map((r) => r.reason).filter(Boolean);

for (const kind of DATABASE_KINDS) {
  describe(`reviewer rejections and doorbells (${kind})`, () => {
    let h: GitHubHarness;
    before(async () => {
      h = await startGitHubHarness(kind, {
        configExtra: {
          reviewBots: ['coderabbitai[bot]'],
          works: [
            {
              name: 'shop',
              account: 'acme',
              repositories: [{ name: 'acme/shop', role: 'data', adopt: { branches: ['agent/*'], authors: [] } }],
            },
          ],
        },
      });
      // Standing is the repository's word (decision 0042): the reviewers and commenters here may push.
      h.fake.setCollaborator('acme/shop', 'Codertocat', 'write');
      h.fake.setCollaborator('acme/shop', 'octocat', 'write');
    });
    after(() => h.close());

    test('F1: a person requesting changes resumes the run once, keyed on the rejection row, from the same budget', async () => {
      const { body: task } = await h.api('POST', '/api/tasks', {
        repository: 'acme/shop',
        pullRequest: 31,
        branch: 'agent/r',
      });
      await send(
        h,
        'pull_request_review',
        reviewPayload({
          repo: REPO,
          number: 31,
          state: 'changes_requested',
          body: 'Please handle the empty cart.',
          headSha: HEAD,
        }),
      );
      assert.equal(h.runner.starts.filter((s) => s.taskId === task.id).length, 1);
      const view = (await h.api('GET', `/api/tasks/${task.id}`)).body;
      assert.match(view.attempts[0].coordinate, /^review:\d+$/);
      assert.equal(view.rejections[0].source, 'review');
      assert.match(h.runner.starts.at(-1)!.prompt, /empty cart/);
    });

    test('F1: an approval or a plain comment review records nothing and resumes nothing', async () => {
      const { body: task } = await h.api('POST', '/api/tasks', {
        repository: 'acme/shop',
        pullRequest: 32,
        branch: 'agent/s',
      });
      const approved = await send(
        h,
        'pull_request_review',
        reviewPayload({ repo: REPO, number: 32, state: 'approved', body: 'LGTM', headSha: HEAD }),
      );
      const commented = await send(
        h,
        'pull_request_review',
        reviewPayload({ repo: REPO, number: 32, state: 'commented', body: 'nit', headSha: HEAD }),
      );
      assert.ok(reasons(approved).includes('not_a_rejection'));
      assert.ok(reasons(commented).includes('not_a_rejection'));
      assert.equal((await h.api('GET', `/api/tasks/${task.id}`)).body.rejections.length, 0);
      assert.equal(h.runner.starts.filter((s) => s.taskId === task.id).length, 0);
    });

    test("F1/F2: an allow-listed bot's finding is a rejection; an unknown bot's is not", async () => {
      const { body: task } = await h.api('POST', '/api/tasks', {
        repository: 'acme/shop',
        pullRequest: 33,
        branch: 'agent/t',
      });
      const unknown = await send(
        h,
        'pull_request_review',
        reviewPayload({
          repo: REPO,
          number: 33,
          state: 'commented',
          body: 'Potential null dereference',
          headSha: HEAD,
          author: 'randombot[bot]',
          authorType: 'Bot',
        }),
      );
      assert.ok(reasons(unknown).includes('not_a_rejection'));
      await send(
        h,
        'pull_request_review',
        reviewPayload({
          repo: REPO,
          number: 33,
          state: 'commented',
          body: 'Potential null dereference in cart.ts',
          headSha: HEAD,
          author: 'coderabbitai[bot]',
          authorType: 'Bot',
        }),
      );
      const view = (await h.api('GET', `/api/tasks/${task.id}`)).body;
      assert.equal(view.rejections[0].source, 'bot');
      assert.equal(h.runner.starts.filter((s) => s.taskId === task.id).length, 1);
    });

    test('F2: a comment rings for the rejection refused at a bad moment; a gate row, an untrusted bot or an old row never ring', async () => {
      const { body: task } = await h.api('POST', '/api/tasks', {
        repository: 'acme/shop',
        pullRequest: 34,
        branch: 'agent/u',
      });
      const opening = (await h.api('GET', `/api/tasks/${task.id}`)).body.runs[0].id;
      await h.api('PATCH', `/api/runs/${opening}`, { state: 'running' });
      const refused = await send(
        h,
        'pull_request_review',
        reviewPayload({
          repo: REPO,
          number: 34,
          state: 'changes_requested',
          body: 'Rename the helper.',
          headSha: HEAD,
        }),
      );
      assert.ok(reasons(refused).includes('run_in_flight'));
      await h.api('PATCH', `/api/runs/${opening}`, { state: 'completed' });

      const bot = await send(
        h,
        'issue_comment',
        prCommentPayload({ repo: REPO, number: 34, body: 'ping', author: 'randombot[bot]', authorType: 'Bot' }),
      );
      assert.ok(reasons(bot).includes('doorbell_untrusted_bot'));
      assert.equal(h.runner.starts.filter((s) => s.taskId === task.id).length, 0);

      const person = await send(
        h,
        'issue_comment',
        prCommentPayload({
          repo: REPO,
          number: 34,
          body: '@agent please address the review',
          author: 'octocat',
          authorType: 'User',
        }),
      );
      assert.ok(person.some((d) => d.outcome === 'claimed'));
      assert.equal(h.runner.starts.filter((s) => s.taskId === task.id).length, 1);
      const again = await send(
        h,
        'issue_comment',
        prCommentPayload({ repo: REPO, number: 34, body: 'again?', author: 'octocat', authorType: 'User' }),
      );
      assert.ok(reasons(again).includes('doorbell_already_consumed'));
      assert.equal(h.runner.starts.filter((s) => s.taskId === task.id).length, 1);
    });

    test('Adoption: a pull request opened on agent/* becomes a Task without an API call; a fork never does', async () => {
      const adopted = await send(
        h,
        'pull_request',
        pullRequestPayload({ repo: REPO, number: 40, action: 'opened', headSha: HEAD, branch: 'agent/new-thing' }),
      );
      assert.ok(reasons(adopted).includes('adopted'));
      const tasks = (await h.api('GET', '/api/tasks')).body.tasks;
      const t = tasks.find((x: any) => x.pullRequest === 40);
      assert.ok(t);
      assert.equal(t.adopted, true);
      assert.deepEqual(
        (await h.api('GET', `/api/tasks/${t.id}`)).body.runs.map((r: any) => r.action),
        ['start'],
      );

      const other = await send(
        h,
        'pull_request',
        pullRequestPayload({ repo: REPO, number: 41, action: 'opened', headSha: HEAD, branch: 'feature/by-hand' }),
      );
      assert.ok(reasons(other).includes('not_adopted'));
      const forkPayload = pullRequestPayload({
        repo: REPO,
        number: 42,
        action: 'opened',
        headSha: HEAD,
        branch: 'agent/from-fork',
      });
      forkPayload.pull_request.head.repo.id = 999_999;
      forkPayload.pull_request.head.repo.full_name = 'mallory/shop';
      const fork = await send(h, 'pull_request', forkPayload);
      assert.ok(reasons(fork).includes('not_adopted'));
      assert.equal(
        (await h.api('GET', '/api/tasks')).body.tasks.filter((x: any) => [41, 42].includes(x.pullRequest)).length,
        0,
      );
    });
  });
}
