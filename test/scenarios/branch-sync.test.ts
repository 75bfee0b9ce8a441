// Issue 36 §2 against the fake GitHub: a head that conflicts with its base (mergeable_state `dirty`)
// is one attempt with the conflict frame — merge or rebase onto the base, named, and resolve; no CI
// log — and a second report for the same head starts nothing. A head only behind a base that
// requires up-to-date branches (`behind`) is updated through GitHub's update-branch with no agent run,
// recorded as fixloop's own action and counted against the budget, once per head. Of two evaluations
// racing for the same head, the database's claim lets one act.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { DATABASE_KINDS } from '../support/databases.js';
import { startGitHubHarness, nextTick, redHead, sha, type GitHubHarness } from '../support/github-harness.js';
import { SECRET } from '../support/harness.js';
import { delivery, post, pullRequestPayload } from '../support/deliveries.js';
import { pullKey } from '../support/fake-github/state.js';
import { taskTimeline } from '../../src/dashboard/timeline.js';

const REPO = 'acme/shop';

async function newTask(h: GitHubHarness, pr: number, head: string, mergeableState: string): Promise<number> {
  h.fake.addPull(REPO, pr, { headSha: head, headRef: `agent/${pr}`, baseRef: 'main', mergeableState });
  const created = await h.api('POST', '/api/tasks', { repository: REPO, pullRequest: pr, branch: `agent/${pr}` });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  return created.body.id;
}

/** GitHub's `pull_request` event for the pull request as the fake holds it, its merge state included. */
async function pullRequestEvent(h: GitHubHarness, pr: number, action: 'edited' | 'synchronize'): Promise<void> {
  const pull = h.fake.state.pulls[pullKey(REPO, pr)]!;
  const p = pullRequestPayload({ repo: { owner: 'acme', name: 'shop' }, number: pr, action, headSha: pull.headSha });
  p.pull_request.head.ref = `agent/${pr}`;
  p.pull_request.base.ref = 'main';
  p.pull_request.mergeable = pull.mergeableState === 'dirty' ? false : true;
  p.pull_request.mergeable_state = pull.mergeableState;
  const res = await post(h.url, delivery('pull_request', p), SECRET);
  assert.equal(res.status, 202, JSON.stringify(res.body));
  await h.app.settle();
}

const decisions = async (h: GitHubHarness, taskId: number) =>
  (await h.api('GET', `/api/deliveries?taskId=${taskId}&limit=500`)).body.decisions as Array<{
    outcome: string;
    reason: string | null;
    detail: string | null;
  }>;

/** The agent's run reports that it has nothing to do (its attempt ends, acknowledged: no retry follows). */
async function nothingToDo(h: GitHubHarness, n: number): Promise<void> {
  const spec = h.runner.starts[n]!;
  const res = await fetch(`${h.url}/api/run/outcome`, {
    method: 'POST',
    headers: { authorization: `Bearer ${spec.runToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ outcome: 'non_actionable', reason: 'left for a person' }),
  });
  assert.equal(res.status, 200, await res.text());
  h.runner.finish(spec.runId);
  await h.app.settle();
}

const attemptsOf = async (h: GitHubHarness, taskId: number) =>
  (await h.api('GET', `/api/tasks/${taskId}`)).body.attempts as Array<{ source: string; coordinate: string }>;

for (const kind of DATABASE_KINDS) {
  describe(`a head against its base, on GitHub (${kind})`, () => {
    test('a conflict: one attempt with the conflict frame naming the base, no CI log; the same head again starts nothing', async () => {
      const h = await startGitHubHarness(kind);
      try {
        const taskId = await newTask(h, 61, sha('1'), 'dirty');
        await h.tick();
        assert.equal(h.runner.starts.length, 1, 'the agent is asked to resolve it');
        const prompt = h.runner.starts[0]!.prompt;
        assert.match(prompt, /^Merge conflict on pull request acme\/shop#61 at commit 1{40}\./);
        assert.match(prompt, /conflicts with its base branch "main"/);
        assert.match(prompt, /merge it into the pull request's branch \(or rebase the branch onto it/);
        assert.ok(!prompt.includes('CI failed'), 'no CI failure is claimed');
        assert.ok(!prompt.includes('The block below holds'), 'no CI log is quoted');
        assert.deepEqual(
          (await attemptsOf(h, taskId)).map((a) => [a.source, a.coordinate]),
          [['conflict', `conflict:${sha('1')}`]],
        );
        await nothingToDo(h, 0);

        // The poll reads `dirty` again, and GitHub's event says it too: the same head, nothing new.
        await nextTick(h);
        await pullRequestEvent(h, 61, 'edited');
        assert.equal(h.runner.starts.length, 1, 'a second report for the same head starts nothing');
        // The conflict's row is no reviewer's rejection: the poll never offers it as one.
        assert.ok(!(await decisions(h, taskId)).some((d) => d.reason === 'author_without_standing'));
        assert.equal((await attemptsOf(h, taskId)).length, 1);
      } finally {
        await h.close();
      }
    });

    test('a conflict resolved by merging main, which had deleted a test file: the merge is not the agent’s change, the loop goes on', async () => {
      const h = await startGitHubHarness(kind);
      try {
        const taskId = await newTask(h, 65, sha('1'), 'dirty');
        await h.tick();
        assert.equal(h.runner.starts.length, 1, 'the conflict attempt');
        h.runner.finish(h.runner.starts[0]!.runId);
        await h.app.settle();
        // main deleted src/legacy.test.ts; the agent merged main and resolved src/price.ts.
        const gone = {
          path: 'src/legacy.test.ts',
          status: 'removed' as const,
          patch: "@@ -1,3 +0,0 @@\n-test('legacy', () => {\n-  expect(1).toBe(1);\n-});",
        };
        h.fake.state.pulls[pullKey(REPO, 65)]!.mergeableState = 'clean';
        h.fake.setCompare(REPO, sha('1'), sha('2'), [
          { path: 'src/price.ts', patch: '@@ -12,1 +12,1 @@\n-  return total;\n+  return round(total);' },
          gone,
        ]);
        h.fake.setCompare(REPO, sha('1'), 'main', [gone]);
        await redHead(h, 65, '2', 'price total is not rounded');
        assert.deepEqual(
          (await h.api('GET', '/api/inbox')).body.notices.filter((n: { taskId: number }) => n.taskId === taskId),
          [],
          'no forbidden_change for the base’s own deletion',
        );
        assert.equal(h.runner.starts.length, 2, 'the red after the merge gets the next attempt');
        assert.match(h.runner.starts[1]!.prompt, /price total is not rounded/);
      } finally {
        await h.close();
      }
    });

    test('a conflict reported by the webhook alone is answered once, like the poll’s', async () => {
      const h = await startGitHubHarness(kind);
      try {
        const taskId = await newTask(h, 62, sha('2'), 'dirty');
        await pullRequestEvent(h, 62, 'synchronize');
        await pullRequestEvent(h, 62, 'edited');
        assert.equal(h.runner.starts.length, 1);
        assert.match(h.runner.starts[0]!.prompt, /^Merge conflict on pull request acme\/shop#62/);
        await h.tick();
        assert.equal(h.runner.starts.length, 1, 'the poll finds the head answered');
        assert.equal((await attemptsOf(h, taskId)).length, 1);
      } finally {
        await h.close();
      }
    });

    test('behind: updated through GitHub with no agent run, fixloop’s own action in words, counted, once per head', async () => {
      const h = await startGitHubHarness(kind);
      try {
        const taskId = await newTask(h, 63, sha('3'), 'behind');
        await h.tick();
        assert.equal(h.runner.starts.length, 0, 'no model run');
        assert.deepEqual(
          h.fake.state.branchUpdates.map((u) => [u.pull, u.from]),
          [['acme/shop#63', sha('3')]],
        );
        const sent = h.fake.requests.filter((r) => r.operation?.endsWith('/update-branch'));
        assert.equal(sent.length, 1);
        const updated = (await decisions(h, taskId)).filter((d) => d.outcome === 'updated');
        assert.deepEqual(
          updated.map((d) => [d.reason, d.detail]),
          [['branch_updated', 'fixloop updated the branch from main; no agent ran']],
        );
        const view = (await h.api('GET', `/api/tasks/${taskId}`)).body;
        assert.deepEqual(
          view.attempts.map((a: { source: string }) => a.source),
          ['branch_update'],
          'it counts against the budget as an attempt',
        );
        // The Task page tells it as fixloop's action.
        const story = await taskTimeline(h.app.ledger, taskId);
        const told = story!.entries.map((e) => `${e.title}: ${e.words ?? ''}`).join('\n');
        assert.match(told, /fixloop updated the branch from main/);
        assert.match(told, /Attempt 1: fixloop updated the branch from its base, no agent run/);
        assert.ok(!/acted/.test(told), 'not told as a person’s action');

        // The same (old) head reported behind again starts nothing; the new head is clean.
        const newHead = h.fake.state.pulls[pullKey(REPO, 63)]!.headSha;
        await nextTick(h);
        await nextTick(h);
        assert.equal(h.fake.state.branchUpdates.length, 1, 'not repeated');
        assert.equal((await h.api('GET', `/api/tasks/${taskId}`)).body.ciHeadSha, newHead);

        // The budget it spent is the budget's: a red on the new head is attempt 2 of 2.
        h.fake.addCheckRun(REPO, newHead, {
          name: 'test',
          status: 'completed',
          conclusion: 'failure',
          outputSummary: 'FAIL',
        });
        await nextTick(h);
        assert.equal(h.runner.starts.length, 1);
        assert.match(h.runner.starts[0]!.prompt, /This is automatic attempt 2 of 2, the last the budget allows/);
        // The host's merge of the base is not read as an agent's push (K3, K4 judge the agent's own).
        assert.deepEqual(
          h.fake.requests.filter((r) => r.operation?.includes('/compare/')).map((r) => r.path),
          [],
        );
      } finally {
        await h.close();
      }
    });

    test('behind with the budget spent is a notice, not an update; updateBranch: false leaves it alone', async () => {
      const h = await startGitHubHarness(kind, {
        env: { TASK_CI_AUTO_RESUME_MAX_ATTEMPTS: '1' },
        configExtra: {
          works: [
            { name: 'shop', account: 'acme', repositories: [{ name: REPO, role: 'data' }] },
            { name: 'lab', account: 'lab', updateBranch: false, repositories: [{ name: 'lab/app', role: 'data' }] },
          ],
        },
      });
      try {
        const taskId = await newTask(h, 64, sha('4'), 'dirty');
        await h.tick(); // the conflict spends the one attempt
        await nothingToDo(h, 0);
        h.fake.setHead(REPO, 64, sha('5'));
        h.fake.state.pulls[pullKey(REPO, 64)]!.mergeableState = 'behind';
        await nextTick(h);
        assert.equal(h.fake.state.branchUpdates.length, 0, 'no update past the budget');
        const notice = (
          (await h.api('GET', '/api/inbox')).body.notices as Array<{ taskId: number; reason: string }>
        ).find((n) => n.taskId === taskId);
        assert.equal(notice?.reason, 'budget_spent');

        h.fake.addPull('lab/app', 5, {
          headSha: sha('6'),
          headRef: 'agent/5',
          baseRef: 'main',
          mergeableState: 'behind',
        });
        const lab = await h.api('POST', '/api/tasks', { repository: 'lab/app', pullRequest: 5, branch: 'agent/5' });
        assert.equal(lab.status, 201, JSON.stringify(lab.body));
        await nextTick(h);
        assert.equal(h.fake.state.branchUpdates.length, 0, 'the Work turned branch updates off');
        assert.equal((await attemptsOf(h, lab.body.id)).length, 0);
      } finally {
        await h.close();
      }
    });

    test('behind, but the head moved before GitHub was asked: refused (422), recorded in words, not asked again for that head', async () => {
      let move: (() => void) | null = null;
      const h = await startGitHubHarness(kind, {
        adapters: {
          fault: (point) => {
            if (point !== 'before_claim' || !move) return;
            const m = move;
            move = null;
            m();
          },
        },
      });
      try {
        const taskId = await newTask(h, 67, sha('9'), 'behind');
        // A push lands between the poll's read and its request: GitHub refuses the expected head.
        move = () => h.fake.setHead(REPO, 67, sha('a'));
        await h.tick();
        assert.equal(h.fake.state.branchUpdates.length, 0);
        const refused = (await decisions(h, taskId)).filter((d) => d.outcome === 'updated');
        assert.deepEqual(
          refused.map((d) => d.reason),
          ['branch_update_refused'],
        );
        assert.match(refused[0]!.detail ?? '', /^fixloop could not update the branch from main: /);
        const attempts = (await h.api('GET', `/api/tasks/${taskId}`)).body.attempts as Array<{ status: string }>;
        assert.deepEqual(
          attempts.map((a) => a.status),
          ['dispatch_failed'],
        );
        assert.equal(h.runner.starts.length, 0);
      } finally {
        await h.close();
      }
    });

    for (const state of ['dirty', 'behind'] as const) {
      test(`exactly once across concurrent evaluations (${state}): the database's claim on the head lets one act`, async () => {
        let race: (() => Promise<void>) | null = null;
        const h = await startGitHubHarness(kind, {
          adapters: {
            fault: async (point) => {
              // The poll's evaluation has found no claim yet; the webhook's evaluation of the same head
              // runs to its end in between, so the poll's own claim meets the row the database holds.
              if (point !== 'before_claim' || !race) return;
              const other = race;
              race = null;
              await other();
            },
          },
        });
        try {
          const taskId = await newTask(h, 65, sha('7'), state);
          race = () => pullRequestEvent(h, 65, 'edited');
          await h.tick();
          assert.equal(race, null, 'the race ran');
          assert.equal((await attemptsOf(h, taskId)).length, 1, 'one claim');
          assert.ok((await decisions(h, taskId)).some((d) => d.reason === 'coordinate_claimed'));
          if (state === 'dirty') assert.equal(h.runner.starts.length, 1, 'one agent run for the conflict');
          else {
            assert.equal(h.fake.state.branchUpdates.length, 1, 'one update through GitHub');
            assert.equal(h.runner.starts.length, 0, 'and no run for it');
          }
        } finally {
          await h.close();
        }
      });
    }
  });
}
