// Issue 36 item 4 on GitLab, both databases (decision 0075): a red base told once. Eight merge requests
// held by one red `main` (its head commit's pipeline fails the job theirs fail) file exactly one base
// notice, shown in the Inbox and on /api/inbox, and (the Work's `baseIssue`) exactly one issue on the
// project naming the job and the commit; `main` healing closes both (the issue after a note) and a
// held merge request's next result is judged again, as on GitHub.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { DATABASE_KINDS } from '../../support/databases.js';
import { GL_PROJECT, gitlabWorks, sha, startGitLabHarness, type GitLabHarness } from '../../support/gitlab-harness.js';

// Commits are hex, as GitLab's are (a ref that is no sha is read as a branch's name).
const MAIN = sha('9');
const FAIL = 'FAIL src/locale.test.ts\nexpected "1,5" to be "1.5"';

/** The harness's Work with `baseIssue` as given. */
const works = (baseIssue: boolean) => gitlabWorks().map((w) => ({ ...(w as object), baseIssue }));

/** `main` at `commit`, its push pipeline's `test` job as given. */
function mainAt(h: GitLabHarness, commit: string, status: 'failed' | 'success') {
  h.fake.setBranch(GL_PROJECT, 'main', commit);
  const { id } = h.fake.addPipeline(GL_PROJECT, { sha: commit, ref: 'main', source: 'push' });
  h.fake.addJob(GL_PROJECT, id, { name: 'test', status, ...(status === 'failed' ? { trace: FAIL } : {}) });
}

/** A Task for merge request `iid` whose head `c` fails `test` (not yet polled). */
async function heldMergeRequest(h: GitLabHarness, iid: number, c: string): Promise<number> {
  h.openMergeRequest(iid, { headSha: sha(c) });
  const created = await h.api('POST', '/api/tasks', {
    repository: GL_PROJECT,
    pullRequest: iid,
    branch: `agent/${iid}`,
  });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  h.runPipeline(iid, sha(c), [{ name: 'test', status: 'failed', trace: FAIL }]);
  return created.body.id as number;
}

const decisions = async (h: GitLabHarness, taskId: number) =>
  (await h.api('GET', `/api/deliveries?taskId=${taskId}&limit=500`)).body.decisions as Array<{
    reason: string | null;
  }>;

const issues = (h: GitLabHarness) => Object.values(h.fake.state.issues);

for (const kind of DATABASE_KINDS) {
  describe(`a red base told once, on GitLab (${kind})`, () => {
    test('eight merge requests held by one red main: one notice, one issue naming the job and the commit; main heals: both closed, the held judged again', async () => {
      const h = await startGitLabHarness(kind, { configExtra: { works: works(true) } });
      try {
        mainAt(h, MAIN, 'failed');
        const tasks: number[] = [];
        for (let i = 0; i < 8; i++) tasks.push(await heldMergeRequest(h, 51 + i, String(i + 1)));
        await h.nextTick();
        await h.nextTick(); // the poll offers the reds again: they stay held, and join nothing twice

        assert.equal(h.runner.starts.length, 0, 'no run while main fails the same job');
        for (const id of tasks) assert.ok((await decisions(h, id)).some((d) => d.reason === 'red_on_base'));
        const open = await h.app.ledger.openBaseReds(10);
        assert.equal(open.length, 1, 'exactly one base notice');
        assert.deepEqual(
          open[0]!.pullRequests,
          tasks.map((_, i) => 51 + i),
        );
        assert.deepEqual(open[0]!.checks, ['test']);
        assert.equal(open[0]!.baseSha, MAIN, 'the commit main failed at, read from its branch');
        assert.equal(issues(h).length, 1, 'exactly one issue on the project');
        const issue = issues(h)[0]!;
        assert.equal(issue.title, 'main is failing test');
        assert.match(issue.description ?? '', new RegExp(`fails \`test\` at commit ${MAIN}`));
        assert.match(issue.description ?? '', /merge requests that fail the same job/);
        assert.match(issue.description ?? '', /held so far: acme\/shop-gl!5\d/, 'named the GitLab way');
        assert.equal(open[0]!.issueNumber, issue.iid);
        const filed = h.fake.requests.filter((r) => r.method === 'POST' && /\/issues$/.test(r.path.split('?')[0]!));
        assert.equal(filed.length, 1, 'one issue asked for');

        const inbox = (await h.api('GET', '/api/inbox')).body;
        assert.equal(inbox.baseReds.length, 1);
        assert.equal(inbox.baseReds[0].baseRef, 'main');
        assert.deepEqual(inbox.baseReds[0].pullRequests, open[0]!.pullRequests);

        // main is fixed: the next tick reads its new head passing `test`.
        mainAt(h, sha('0'), 'success');
        await h.nextTick();
        assert.deepEqual(await h.app.ledger.openBaseReds(10), [], 'the notice is closed');
        assert.equal(issue.state, 'closed');
        assert.equal(issue.notes.length, 1);
        assert.match(issue.notes[0]!.body, /passes `test` again/);
        assert.deepEqual((await h.api('GET', '/api/inbox')).body.baseReds, []);
        await h.nextTick();
        assert.equal(issues(h).length, 1, 'closed once, nothing filed again');

        // As before: a held result stays held; a new run of the merge request's job decides again.
        assert.equal(h.runner.starts.length, 0);
        h.runPipeline(51, sha('1'), [{ name: 'test', status: 'failed', trace: FAIL }]);
        await h.nextTick();
        assert.equal(h.runner.starts.length, 1, 'the re-run against the fixed main is the merge request’s own');
      } finally {
        await h.close();
      }
    });

    test('without baseIssue: the one notice only, no issue; a job main passes is the merge request’s own', async () => {
      const h = await startGitLabHarness(kind);
      try {
        mainAt(h, MAIN, 'failed');
        await heldMergeRequest(h, 71, 'a');
        await heldMergeRequest(h, 72, 'b');
        await h.nextTick();
        assert.equal((await h.app.ledger.openBaseReds(10)).length, 1);
        assert.equal(issues(h).length, 0);
        assert.equal(h.fake.requests.filter((r) => /\/issues/.test(r.path)).length, 0);
        // lint fails only on the merge request: an attempt, and the base notice does not take it in.
        h.push(71, sha('c'));
        h.runPipeline(71, sha('c'), [{ name: 'lint', status: 'failed', trace: 'lint: 3 problems' }]);
        await h.nextTick();
        assert.equal(h.runner.starts.length, 1);
        assert.deepEqual((await h.app.ledger.openBaseReds(10))[0]!.checks, ['test']);
      } finally {
        await h.close();
      }
    });
  });
}
