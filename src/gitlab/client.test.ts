// The GitLab adapter against the fake GitLab (test/support/fake-gitlab): every port method's mapping,
// the CI rules the gate reads (allowed failures, blocking and non-blocking manual jobs, retried jobs
// superseded), the token only ever in a header, refusals as ProviderError, and a bounded retry that
// honours Retry-After (a tiny local server, as the fake sends none).
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { ProviderError, type ProviderPort } from '../app/provider-port.js';
import { startFakeGitLab, type FakeGitLab } from '../../test/support/fake-gitlab/server.js';
import { closeServer, listenLoopback } from '../../test/support/loopback.js';
import { createGitLab } from './client.js';
import { toComparison } from './to-port.js';

const P = 'group/sub/app';
const SHA = 'a'.repeat(40);

async function rejection(p: Promise<unknown>): Promise<ProviderError> {
  try {
    await p;
  } catch (err) {
    assert.ok(err instanceof ProviderError, `expected a ProviderError, got ${String(err)}`);
    return err;
  }
  assert.fail('expected a rejection');
}

describe('GitLab adapter (fake GitLab)', () => {
  let fake: FakeGitLab;
  let token: string;
  let gitlab: ProviderPort;

  before(async () => {
    fake = await startFakeGitLab();
    token = fake.addToken('fixloop-bot');
    fake.addProject(P);
    gitlab = createGitLab({ url: fake.url, token, retry: { backoffUnitMs: 1, maxWaitSeconds: 1 } });
  });
  after(() => fake.close());

  describe('getPullRequest', () => {
    it('maps a merge request onto a pull request', async () => {
      fake.addMergeRequest(P, 7, {
        headSha: SHA,
        sourceBranch: 'fix/it',
        targetBranch: 'main',
        author: 'alice',
        labels: ['bug', 'agent'],
        draft: true,
      });
      const pr = await gitlab.getPullRequest('Group/Sub/App', 7);
      assert.equal(pr.repository, P);
      assert.equal(pr.number, 7);
      assert.equal(pr.state, 'open');
      assert.equal(pr.merged, false);
      assert.equal(pr.headSha, SHA);
      assert.equal(pr.headRef, 'fix/it');
      assert.equal(pr.headRepository, P);
      assert.equal(pr.baseRef, 'main');
      assert.equal(pr.author, 'alice');
      assert.equal(pr.draft, true);
      assert.deepEqual([...pr.labels].sort(), ['agent', 'bug']);
      assert.equal(typeof pr.mergeableState, 'string');
      assert.ok(!Number.isNaN(Date.parse(pr.updatedAt)));
    });

    it('reads merged and closed merge requests as closed, merged only when merged', async () => {
      fake.addMergeRequest(P, 8, { headSha: SHA, state: 'merged' });
      fake.addMergeRequest(P, 9, { headSha: SHA, state: 'closed' });
      const merged = await gitlab.getPullRequest(P, 8);
      const closed = await gitlab.getPullRequest(P, 9);
      assert.deepEqual([merged.state, merged.merged], ['closed', true]);
      assert.deepEqual([closed.state, closed.merged], ['closed', false]);
    });

    it("names a fork's source project as the head repository", async () => {
      fake.addMergeRequest(P, 10, { headSha: SHA, sourceProjectPath: 'Someone/App-Fork' });
      const pr = await gitlab.getPullRequest(P, 10);
      assert.equal(pr.headRepository, 'someone/app-fork');
    });

    it('follows a new head', async () => {
      fake.addMergeRequest(P, 11, { headSha: SHA });
      fake.setHead(P, 11, 'b'.repeat(40));
      assert.equal((await gitlab.getPullRequest(P, 11)).headSha, 'b'.repeat(40));
    });
  });

  describe('listCheckRuns', () => {
    it("maps each job of the sha's pipeline, allowed failures and manual jobs as GitLab reads them", async () => {
      const sha = 'c'.repeat(40);
      const { id: pipelineId } = fake.addPipeline(P, { sha, ref: 'fix/it' });
      const jobs = {
        ok: fake.addJob(P, pipelineId, { name: 'unit', status: 'success' }).id,
        red: fake.addJob(P, pipelineId, { name: 'lint', status: 'failed', failureReason: 'script_failure' }).id,
        allowed: fake.addJob(P, pipelineId, { name: 'flaky', status: 'failed', allowFailure: true }).id,
        cancelled: fake.addJob(P, pipelineId, { name: 'e2e', status: 'canceled' }).id,
        skipped: fake.addJob(P, pipelineId, { name: 'docs', status: 'skipped' }).id,
        optional: fake.addJob(P, pipelineId, { name: 'deploy-review', status: 'manual', allowFailure: true }).id,
        blocking: fake.addJob(P, pipelineId, { name: 'approve', status: 'manual', allowFailure: false }).id,
        pending: fake.addJob(P, pipelineId, { name: 'build', status: 'pending' }).id,
        created: fake.addJob(P, pipelineId, { name: 'package', status: 'created' }).id,
        running: fake.addJob(P, pipelineId, { name: 'integration', status: 'running' }).id,
      };
      const runs = await gitlab.listCheckRuns(P, sha);
      const byName = new Map(runs.map((r) => [r.name, r]));
      const seen = (name: string) => [byName.get(name)?.status, byName.get(name)?.conclusion];
      assert.equal(runs.length, 10);
      assert.deepEqual(seen('unit'), ['completed', 'success']);
      assert.deepEqual(seen('lint'), ['completed', 'failure']);
      assert.deepEqual(seen('flaky'), ['completed', 'success'], 'an allowed failure is never red, and passes');
      assert.deepEqual(seen('e2e'), ['completed', 'cancelled']);
      assert.deepEqual(seen('docs'), ['completed', 'success'], 'a skipped job does not hold the pipeline');
      assert.deepEqual(seen('deploy-review'), ['completed', 'success'], 'a non-blocking manual job');
      const title = (name: string) => runs.find((r) => r.name === name)?.outputTitle;
      assert.equal(title('flaky'), 'failed, allowed to fail');
      assert.equal(title('docs'), 'skipped');
      assert.deepEqual(seen('approve'), ['waiting', null], 'a blocking manual job is not green');
      assert.deepEqual(seen('build'), ['queued', null]);
      assert.deepEqual(seen('package'), ['queued', null]);
      assert.deepEqual(seen('integration'), ['in_progress', null]);
      const lint = byName.get('lint')!;
      assert.equal(lint.id, jobs.red);
      assert.equal(lint.appSlug, 'gitlab-ci');
      // No trace to read: no evidence, not the failure_reason every script failure shares (T5).
      assert.equal(lint.outputTitle, null);
      assert.equal(lint.outputSummary, null);
      assert.equal(byName.get('flaky')!.outputSummary, null, 'an allowed failure is no evidence to read');
      assert.match(lint.detailsUrl ?? '', new RegExp(`/-/jobs/${jobs.red}$`));
      assert.ok(lint.completedAt !== null && lint.startedAt !== null);
      assert.equal(byName.get('build')!.completedAt, null);
    });

    it("a retried job's latest attempt stands; the earlier one is left out", async () => {
      const sha = 'd'.repeat(40);
      const { id: pipelineId } = fake.addPipeline(P, { sha });
      const first = fake.addJob(P, pipelineId, { name: 'unit', status: 'failed' }).id;
      const { id: second } = fake.retryJob(P, first);
      let runs = await gitlab.listCheckRuns(P, sha);
      assert.deepEqual(
        runs.map((r) => [r.id, r.status]),
        [[second, 'queued']],
      );
      fake.setJobStatus(P, second, 'success');
      runs = await gitlab.listCheckRuns(P, sha);
      assert.deepEqual(
        runs.map((r) => [r.id, r.conclusion]),
        [[second, 'success']],
      );
    });

    it('reads the newest pipeline per ref and source, and every page of its jobs', async () => {
      const sha = 'e'.repeat(40);
      const old = fake.addPipeline(P, { sha, ref: 'fix/it', source: 'push' }).id;
      fake.addJob(P, old, { name: 'old-only', status: 'failed' });
      const newer = fake.addPipeline(P, { sha, ref: 'fix/it', source: 'push' }).id;
      for (let i = 0; i < 130; i++) fake.addJob(P, newer, { name: `job-${i}`, status: 'success' });
      const mrPipeline = fake.addPipeline(P, { sha, ref: 'refs/merge-requests/7/head', source: 'merge_request_event' });
      fake.addJob(P, mrPipeline.id, { name: 'mr-job', status: 'success' });
      const names = (await gitlab.listCheckRuns(P, sha)).map((r) => r.name);
      assert.equal(names.length, 131);
      assert.ok(!names.includes('old-only'), 'a pipeline run again for the same ref supersedes the older one');
      assert.ok(names.includes('mr-job') && names.includes('job-129'));
    });

    it("a red job's output is its trace's tail with its failure reason, read once", async () => {
      const sha = '9'.repeat(40);
      const { id: pipelineId } = fake.addPipeline(P, { sha });
      const trace = '$ npm test\n\x1b[31mnot ok 1 - adds\x1b[0m\nERROR: Job failed: exit code 1\n';
      const { id: jobId } = fake.addJob(P, pipelineId, { name: 'unit', status: 'failed', trace });
      const flaky = fake.addJob(P, pipelineId, { name: 'flaky', status: 'failed', allowFailure: true, trace: 'x\n' });
      const [unit] = (await gitlab.listCheckRuns(P, sha)).filter((r) => r.name === 'unit');
      assert.equal(unit!.outputTitle, 'script_failure');
      assert.equal(unit!.outputSummary, '$ npm test\nnot ok 1 - adds\nERROR: Job failed: exit code 1');
      await gitlab.listCheckRuns(P, sha);
      const reads = (id: number) => fake.requests.filter((r) => r.path.endsWith(`/jobs/${id}/trace`)).length;
      assert.equal(reads(jobId), 1, "a finished job's trace is read once");
      assert.equal(reads(flaky.id), 0, "an allowed failure's is not read");
    });

    it('no pipeline for the sha: no check runs', async () => {
      assert.deepEqual(await gitlab.listCheckRuns(P, 'f'.repeat(40)), []);
    });
  });

  describe('commit statuses', () => {
    it("lists external statuses only: not the pipeline's own jobs, not fixloop's own context", async () => {
      const sha = '1'.repeat(40);
      const { id: pipelineId } = fake.addPipeline(P, { sha });
      fake.addJob(P, pipelineId, { name: 'unit', status: 'failed' });
      const other = createGitLab({ url: fake.url, token: fake.addToken('scanner') });
      await other.createCommitStatus(P, sha, {
        context: 'security',
        state: 'failure',
        description: 'x',
        targetUrl: null,
      });
      await other.createCommitStatus(P, sha, {
        context: 'license',
        state: 'success',
        description: 'ok',
        targetUrl: null,
      });
      await other.createCommitStatus(P, sha, { context: 'perf', state: 'pending', description: '', targetUrl: null });
      await gitlab.createCommitStatus(P, sha, {
        context: 'fixloop',
        state: 'pending',
        description: 'x',
        targetUrl: null,
      });
      const statuses = await gitlab.listStatuses(P, sha);
      const byContext = Object.fromEntries(statuses.map((s) => [s.context, s.state]));
      assert.deepEqual(byContext, { security: 'failure', license: 'success', perf: 'pending' });
    });

    it('writes a status with GitLab state words, the description cut to 255, the target URL', async () => {
      const sha = '2'.repeat(40);
      fake.addPipeline(P, { sha });
      await gitlab.createCommitStatus(P, sha, {
        context: 'fixloop',
        state: 'pending',
        description: 'é'.repeat(300),
        targetUrl: 'https://fixloop.example/tasks/1',
      });
      // The same state again: GitLab refuses to "transition" a status to where it is; no error.
      await gitlab.createCommitStatus(P, sha, {
        context: 'fixloop',
        state: 'pending',
        description: 'x',
        targetUrl: null,
      });
      await gitlab.createCommitStatus(P, sha, {
        context: 'fixloop',
        state: 'error',
        description: 'x',
        targetUrl: null,
      });
      const posted = fake.requests.filter((r) => r.method === 'POST' && r.path.includes(`/statuses/${sha}`));
      const bodies = posted.map((r) => r.body as Record<string, unknown>);
      assert.equal(bodies[0]!.state, 'pending');
      assert.equal(bodies[0]!.name, 'fixloop');
      assert.equal([...String(bodies[0]!.description)].length, 255);
      assert.equal(bodies[0]!.target_url, 'https://fixloop.example/tasks/1');
      assert.equal(bodies[1]!.target_url, undefined);
      assert.equal(bodies[2]!.state, 'failed', 'an error is a failure on GitLab');
      const last = fake.state.statuses.filter((s) => s.sha === sha && s.name === 'fixloop').at(-1);
      assert.equal(last?.state, 'failed');
    });
  });

  it('requiredChecks is null: "pipelines must succeed" is project-wide, not a list', async () => {
    assert.equal(await gitlab.requiredChecks(P, 'main'), null);
  });

  describe('jobs and pipelines', () => {
    it('jobLogUrl refuses (501): GitLab serves the trace itself; readJobLog reads it, cleaned', async () => {
      const { id: pipelineId } = fake.addPipeline(P, { sha: '3'.repeat(40) });
      const trace =
        '\x1b[0Ksection_start:1700000000:step_script\r\x1b[0K\x1b[32;1mExecuting "step_script"\x1b[0;m\n' +
        '$ npm test\n' +
        'progress 10%\rprogress 100%\n' +
        '\x1b[31mnot ok 1 - adds\x1b[0m\n' +
        'section_end:1700000001:step_script\r\x1b[0K\n' +
        'ERROR: Job failed: exit code 1\n';
      const { id: jobId } = fake.addJob(P, pipelineId, { name: 'unit', status: 'failed', trace });
      const refused = await rejection(gitlab.jobLogUrl(P, jobId));
      assert.equal(refused.status, 501);
      assert.equal(refused.provider, 'gitlab');
      const tail = await gitlab.readJobLog!(P, jobId, { lines: 2000 });
      assert.deepEqual(tail, {
        text: [
          'Executing "step_script"',
          '$ npm test',
          'progress 100%',
          'not ok 1 - adds',
          'ERROR: Job failed: exit code 1',
        ].join('\n'),
        truncated: false,
      });
      const last2 = await gitlab.readJobLog!(P, jobId, { lines: 2 });
      assert.deepEqual(last2, { text: 'not ok 1 - adds\nERROR: Job failed: exit code 1', truncated: true });
      const traceRequest = fake.requests.filter((r) => r.path.endsWith(`/jobs/${jobId}/trace`)).at(-1)!;
      assert.equal(traceRequest.headers['private-token'], token);
    });

    it('a missing trace is a typed error with a code', async () => {
      const { id: pipelineId } = fake.addPipeline(P, { sha: '4'.repeat(40) });
      const { id: jobId } = fake.addJob(P, pipelineId, { name: 'unit', status: 'failed' });
      await assert.rejects(gitlab.readJobLog!(P, jobId, { lines: 10 }), (err: Error & { code?: string }) => {
        assert.equal(err.code, 'http_status');
        return true;
      });
    });

    it("workflowRunOfJob names the job's pipeline; rerunFailedJobs retries the pipeline", async () => {
      const { id: pipelineId } = fake.addPipeline(P, { sha: '5'.repeat(40) });
      const { id: jobId } = fake.addJob(P, pipelineId, { name: 'unit', status: 'failed' });
      assert.equal(await gitlab.workflowRunOfJob(P, jobId), pipelineId);
      await gitlab.rerunFailedJobs(P, pipelineId);
      assert.deepEqual(fake.state.pipelineRetries.at(-1), { path: P, pipelineId });
      assert.equal((await rejection(gitlab.workflowRunOfJob(P, 999_999))).status, 404);
    });

    it('a retry the token may not make is a 403 that trying again does not fix', async () => {
      const strict = 'group/locked';
      fake.addProject(strict, { strictAccess: true });
      fake.addMember(strict, 'fixloop-bot', 20);
      const { id: pipelineId } = fake.addPipeline(strict, { sha: '6'.repeat(40) });
      fake.addJob(strict, pipelineId, { name: 'unit', status: 'failed' });
      const err = await rejection(gitlab.rerunFailedJobs(strict, pipelineId));
      assert.deepEqual([err.status, err.retryable, err.provider], [403, false, 'gitlab']);
    });
  });

  describe('labels, notes, reviews', () => {
    it('adds and removes labels; removing an absent label is fine', async () => {
      fake.addMergeRequest(P, 20, { headSha: SHA, labels: ['keep'] });
      await gitlab.addLabels(P, 20, ['fixloop:skip', 'agent']);
      assert.deepEqual(fake.state.labels[`${P}!20`], ['keep', 'fixloop:skip', 'agent']);
      await gitlab.removeLabel(P, 20, 'fixloop:skip');
      await gitlab.removeLabel(P, 20, 'never-there');
      assert.deepEqual(fake.state.labels[`${P}!20`], ['keep', 'agent']);
      await gitlab.addLabels(P, 20, []);
    });

    it('lists notes without system notes, creates and edits its own', async () => {
      fake.addMergeRequest(P, 21, { headSha: SHA });
      fake.addNote(P, 21, { body: 'added 1 commit', author: 'alice', system: true });
      fake.addNote(P, 21, { body: 'please fix', author: 'alice' });
      fake.addNote(P, 21, { body: 'beep', author: 'project_42_bot_0123abcd' });
      const created = await gitlab.createIssueComment(P, 21, 'fixloop here');
      assert.equal(created.author, 'fixloop-bot');
      const edited = await gitlab.updateIssueComment(P, 21, created.id, 'fixloop, edited');
      assert.equal(edited.id, created.id);
      assert.equal(edited.body, 'fixloop, edited');
      const notes = await gitlab.listIssueComments(P, 21);
      assert.deepEqual(
        notes.map((n) => [n.body, n.author, n.authorType]),
        [
          ['please fix', 'alice', 'User'],
          ['beep', 'project_42_bot_0123abcd', 'Bot'],
          ['fixloop, edited', 'fixloop-bot', 'User'],
        ],
      );
    });

    it("maps reviewers' states: requested changes and approvals, with the reviewer's latest note", async () => {
      fake.addMergeRequest(P, 22, { headSha: SHA });
      fake.addNote(P, 22, { body: 'first thought', author: 'carol' });
      fake.addNote(P, 22, { body: 'please rename the flag', author: 'carol' });
      fake.addNote(P, 22, { body: 'carol requested changes', author: 'carol', system: true });
      fake.setReviewerState(P, 22, 'carol', 'requested_changes');
      fake.setReviewerState(P, 22, 'dave', 'approved');
      fake.setReviewerState(P, 22, 'erin', 'unreviewed');
      fake.setReviewerState(P, 22, 'frank', 'reviewed');
      const reviews = await gitlab.listReviews(P, 22);
      const carol = reviews.find((r) => r.author === 'carol')!;
      const dave = reviews.find((r) => r.author === 'dave')!;
      assert.equal(reviews.length, 2, 'states without a verdict are left out');
      assert.equal(carol.state, 'CHANGES_REQUESTED');
      assert.equal(carol.body, 'please rename the flag');
      assert.equal(carol.authorType, 'User');
      assert.equal(carol.commitId, null);
      assert.ok(carol.submittedAt !== null);
      assert.equal(dave.state, 'APPROVED');
      assert.equal(dave.body, '');
      // Stable: the same review on every read.
      assert.deepEqual(
        (await gitlab.listReviews(P, 22)).map((r) => r.id),
        reviews.map((r) => r.id),
      );
      assert.deepEqual(await gitlab.listReviews(P, 21), []);
    });
  });

  describe('compareCommits', () => {
    it('maps diffs: added, removed, renamed with the old path, modified; an empty diff has no patch', async () => {
      fake.setCompare(P, 'base1', 'head1', [
        { old_path: 'a.ts', new_path: 'a.ts', new_file: true, diff: '@@ -0,0 +1 @@\n+a\n' },
        { old_path: 'b.ts', new_path: 'b.ts', deleted_file: true, diff: '@@ -1 +0,0 @@\n-b\n' },
        { old_path: 'old.ts', new_path: 'new.ts', renamed_file: true, diff: '' },
        { old_path: 'c.ts', new_path: 'c.ts', diff: '@@ -1 +1 @@\n-c\n+C\n' },
      ]);
      const cmp = await gitlab.compareCommits(P, 'base1', 'head1');
      assert.deepEqual(cmp, {
        files: [
          { path: 'a.ts', status: 'added', patch: '@@ -0,0 +1 @@\n+a\n', blobSha: null },
          { path: 'b.ts', status: 'removed', patch: '@@ -1 +0,0 @@\n-b\n', blobSha: null },
          { path: 'new.ts', status: 'renamed', patch: null, blobSha: null, previousPath: 'old.ts' },
          { path: 'c.ts', status: 'modified', patch: '@@ -1 +1 @@\n-c\n+C\n', blobSha: null },
        ],
        truncated: false,
      });
      const sent = fake.requests.filter((r) => r.path.includes('/repository/compare')).at(-1)!;
      assert.match(sent.path, /straight=false/);
    });

    it('is truncated when GitLab says it cut the diff, timed out, or listed its cap of files', () => {
      const diff = {
        old_path: 'x',
        new_path: 'x',
        new_file: false,
        renamed_file: false,
        deleted_file: false,
        diff: 'd',
      };
      assert.equal(toComparison({ diffs: [diff], overflow: true }).truncated, true);
      assert.equal(toComparison({ diffs: [diff], compare_timeout: true }).truncated, true);
      assert.equal(toComparison({ diffs: Array.from({ length: 1000 }, () => diff) }).truncated, true);
      assert.equal(toComparison({ diffs: [{ ...diff, too_large: true }] }).files[0]!.patch, null);
    });
  });

  describe('authorAssociation and selfLogin', () => {
    it('reads the access level in GitHub words, inherited included; a non-member or unknown login is NONE', async () => {
      fake.addMember(P, 'owner1', 50);
      fake.addMember(P, 'maint1', 40);
      fake.addMember(P, 'dev1', 30);
      fake.addMember(P, 'rep1', 20);
      fake.addToken('outsider');
      const seen = await Promise.all(
        ['owner1', 'maint1', 'dev1', 'rep1', 'outsider', 'nobody-at-all'].map((l) => gitlab.authorAssociation!(P, l)),
      );
      assert.deepEqual(seen, ['OWNER', 'MEMBER', 'COLLABORATOR', 'NONE', 'NONE', 'NONE']);
      const member = fake.requests.find((r) => r.path.includes('/members/all/'))!;
      assert.match(member.path, /\/projects\/group%2Fsub%2Fapp\/members\/all\/\d+$/);
    });

    it('a blocked account, or a membership awaiting approval, is NONE whatever its level (decision 0042)', async () => {
      fake.addMember(P, 'blocked-maint', 40);
      fake.setUserState('blocked-maint', 'blocked');
      fake.addMember(P, 'awaiting-owner', 50, { membershipState: 'awaiting' });
      fake.addMember(P, 'banned-dev', 30);
      fake.setUserState('banned-dev', 'banned');
      fake.addMember(P, 'active-dev', 30, { membershipState: 'active' });
      const seen = await Promise.all(
        ['blocked-maint', 'awaiting-owner', 'banned-dev', 'active-dev'].map((l) => gitlab.authorAssociation!(P, l)),
      );
      assert.deepEqual(seen, ['NONE', 'NONE', 'NONE', 'COLLABORATOR']);
    });

    it('is kept briefly; a failed read is null and not kept', async () => {
      fake.addMember(P, 'dev2', 30);
      assert.equal(await gitlab.authorAssociation!(P, 'dev2'), 'COLLABORATOR');
      const before = fake.requests.length;
      assert.equal(await gitlab.authorAssociation!(P, 'DEV2'), 'COLLABORATOR');
      assert.equal(fake.requests.length, before, 'answered from what was kept');
      fake.addMember(P, 'dev3', 30);
      fake.failNext(/^GET \/api\/v4\/users/, [500, 500, 500, 500]);
      assert.equal(await gitlab.authorAssociation!(P, 'dev3'), null);
      assert.equal(await gitlab.authorAssociation!(P, 'dev3'), 'COLLABORATOR');
    });

    it('selfLogin is the token user, read once', async () => {
      assert.equal(await gitlab.selfLogin(), 'fixloop-bot');
      const before = fake.requests.length;
      assert.equal(await gitlab.selfLogin(P), 'fixloop-bot');
      assert.equal(fake.requests.length, before);
      const stranger = createGitLab({ url: fake.url, token: 'glpat-wrong' });
      assert.equal(await stranger.selfLogin(), null);
    });
  });

  describe('refusals and retries', () => {
    it('401, 404 and 5xx become ProviderErrors from GitLab, retryable only for 5xx', async () => {
      const stranger = createGitLab({ url: fake.url, token: 'glpat-wrong' });
      const unauthorized = await rejection(stranger.getPullRequest(P, 7));
      assert.deepEqual([unauthorized.status, unauthorized.retryable, unauthorized.provider], [401, false, 'gitlab']);
      assert.equal(unauthorized.host, 'GitLab');
      assert.ok(!unauthorized.message.includes('glpat-wrong'));
      const missing = await rejection(gitlab.getPullRequest(P, 404));
      assert.deepEqual([missing.status, missing.retryable], [404, false]);
      fake.failNext(/^GET \/api\/v4\/projects\/[^/]+\/merge_requests\/7$/, [503, 503, 503, 503]);
      const down = await rejection(gitlab.getPullRequest(P, 7));
      assert.deepEqual([down.status, down.retryable], [503, true]);
    });

    it('retries a read after a 5xx, never a POST', async () => {
      fake.failNext(/^GET \/api\/v4\/projects\/[^/]+\/merge_requests\/7$/, [502]);
      assert.equal((await gitlab.getPullRequest(P, 7)).number, 7);
      fake.addMergeRequest(P, 30, { headSha: SHA });
      const notesBefore = fake.state.createdNotes;
      fake.failNext(/^POST .*\/merge_requests\/30\/notes$/, [500]);
      const err = await rejection(gitlab.createIssueComment(P, 30, 'once'));
      assert.deepEqual([err.status, err.retryable], [500, true]);
      assert.equal(fake.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/30/notes')).length, 1);
      assert.equal(fake.state.createdNotes, notesBefore);
    });

    it('a 429 whose reset is further off than the longest wait is answered at once, retryable', async () => {
      // The fake's 429 names no Retry-After, only RateLimit-Reset (the next minute), longer than 0 s.
      const impatient = createGitLab({ url: fake.url, token, retry: { maxWaitSeconds: 0 } });
      const before = fake.requests.length;
      fake.failNext(/^GET \/api\/v4\/projects\/[^/]+\/merge_requests\/7$/, [429]);
      const limited = await rejection(impatient.getPullRequest(P, 7));
      assert.deepEqual([limited.status, limited.retryable, limited.provider], [429, true, 'gitlab']);
      assert.equal(limited.message, 'GET merge request group/sub/app: 429 Too Many Requests');
      assert.equal(fake.requests.length, before + 1);
    });

    it('the token is only ever a header, never in a URL', () => {
      assert.ok(fake.requests.length > 50);
      for (const r of fake.requests) {
        assert.ok(!r.path.includes(token), `token in ${r.path}`);
        if (r.headers['private-token'] !== undefined) assert.ok(!String(r.headers.authorization ?? '').includes(token));
      }
      assert.ok(fake.requests.every((r) => r.headers['private-token'] !== undefined));
    });

    it('rate limits as the last answer said', () => {
      const [limit] = gitlab.rateLimits!();
      assert.equal(limit?.resource, 'gitlab');
      assert.equal(limit?.limit, 2000);
      assert.ok(!Number.isNaN(Date.parse(limit!.resetAt)));
    });
  });
});

describe('GitLab adapter: Retry-After', () => {
  it('waits what Retry-After says before asking again, and gives up on a wait too long', async () => {
    const seen: number[] = [];
    let longWait = false;
    const server = createServer((req, res) => {
      seen.push(Date.now());
      if (longWait) {
        res.writeHead(429, { 'retry-after': '3600', 'content-type': 'application/json' });
        res.end('{"message":"Retry later"}');
        return;
      }
      if (seen.length === 1) {
        res.writeHead(429, { 'retry-after': '1', 'content-type': 'application/json' });
        res.end('{"message":"Retry later"}');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ username: 'me' }));
      void req;
    });
    const url = await listenLoopback(server);
    try {
      const gitlab = createGitLab({ url, token: 't', retry: { maxWaitSeconds: 5 } });
      assert.equal(await gitlab.selfLogin(), 'me');
      assert.equal(seen.length, 2);
      assert.ok(seen[1]! - seen[0]! >= 900, `waited ${seen[1]! - seen[0]!} ms`);
      longWait = true;
      const other = createGitLab({ url, token: 't', retry: { maxWaitSeconds: 5 } });
      // Not sitting it out is the behaviour, so a bound stays, but a generous one (load runs a test late,
      // never early): within the 5 s it may wait at most, checked against a timer set before the call.
      let longestPassed = false;
      const sentinel = setTimeout(() => (longestPassed = true), 5_000);
      const err = await rejection(other.getPullRequest('a/b', 1));
      clearTimeout(sentinel);
      assert.deepEqual([err.status, err.retryable], [429, true]);
      assert.equal(longestPassed, false, 'an hour is not sat out');
    } finally {
      await closeServer(server);
    }
  });
});
