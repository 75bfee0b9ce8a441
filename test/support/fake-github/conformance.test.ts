// The fake GitHub answers as GitHub's OpenAPI description says: a scenario through fixloop's GitHub
// adapter (App and token auth) plus direct calls reaches every operation the fake implements, and
// not one answer violates the extracted schemas. SPEC E1–E4, J1–J2, K5, K8 (test double fidelity).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createGitHub } from '../../../src/github/client.js';
import { createManifestConverter } from '../../../src/github/manifest-conversion.js';
import { createWorkflowCalls } from '../../../src/github/workflows.js';
import { FAKE_OPERATIONS } from './operations.js';
import { startFakeGitHub } from './server.js';

const HEAD = '1'.repeat(40);

test('the committed fixture describes an answer for every operation the fake implements', () => {
  const fixture = JSON.parse(
    readFileSync(new URL('../../fixtures/github-openapi/responses.json', import.meta.url), 'utf8'),
  ) as { responses: Record<string, unknown> };
  for (const operation of FAKE_OPERATIONS) {
    const statuses = Object.keys(fixture.responses).filter((key) => key.startsWith(`${operation} `));
    const success = operation.endsWith('/logs') ? [] : statuses.filter((key) => / 2\d\d$/.test(key));
    assert.ok(operation.endsWith('/logs') || success.length > 0, `${operation} has a 2xx schema`);
  }
});

test('zero schema violations across a scenario that reaches every operation', async () => {
  const fake = await startFakeGitHub();
  try {
    const app = fake.createApp({ slug: 'fixloop-conformance' });
    fake.addInstallation('acme');
    const asApp = createGitHub({
      apiUrl: fake.url,
      auth: { kind: 'app', appId: app.appId, privateKey: app.privateKey },
      throttle: { spaceWrites: false },
    });
    const userToken = fake.addUserToken('octo-user');
    const asUser = createGitHub({
      apiUrl: fake.url,
      auth: { kind: 'token', token: userToken },
      throttle: { spaceWrites: false },
    });

    fake.addPull('Acme/Shop', 7, { headSha: HEAD, labels: ['bug'], body: 'fixes #1' });
    fake.addPull('acme/shop', 8, { headSha: HEAD, headRepo: null, state: 'closed' });
    fake.addCheckRun('acme/shop', HEAD, {
      name: 'test',
      conclusion: 'failure',
      outputTitle: '2 failed',
      outputSummary: 'see log',
    });
    fake.addCheckRun('acme/shop', HEAD, { name: 'lint', status: 'in_progress' });
    fake.addCheckRun('acme/shop', HEAD, { name: 'old', conclusion: 'stale', appSlug: 'other-ci' });
    fake.addStatus('acme/shop', HEAD, {
      context: 'ci/legacy',
      state: 'error',
      description: 'boom',
      targetUrl: 'https://ci.example/9',
    });
    fake.setRequiredChecks('acme/shop', 'main', ['test']);
    fake.setLog(fake.state.checkRuns[`acme/shop@${HEAD}`]![0]!.id, 'log\n');
    fake.addComment('acme/shop', 7, { body: 'hello', author: 'alice' });
    fake.addReview('acme/shop', 7, { state: 'CHANGES_REQUESTED', body: 'fix', author: 'bob', commitId: HEAD });
    fake.addReview('acme/shop', 7, { state: 'PENDING', author: 'carol' });
    // Issue 36: a bot's review with inline comments.
    const botReview = fake.addReview('acme/shop', 7, {
      state: 'COMMENTED',
      body: 'Actionable comments posted: 1',
      author: 'coderabbitai[bot]',
      authorType: 'Bot',
      commitId: HEAD,
      comments: [{ path: 'src/a.ts', body: 'Possible null dereference.', line: 12 }],
    });
    fake.setCompare('acme/shop', HEAD, '2'.repeat(40), [
      { path: 'src/a.ts', patch: '@@ -1 +1 @@\n-a\n+b' },
      { path: 'src/new.ts', status: 'added', patch: '@@ -0,0 +1 @@\n+x' },
      { path: 'src/b.ts', status: 'renamed', previousPath: 'src/old-b.ts' },
      { path: 'logo.png', status: 'removed', patch: null },
    ]);

    await asApp.getPullRequest('acme/shop', 7);
    await asApp.getPullRequest('acme/shop', 8);
    await asApp.listCheckRuns('acme/shop', HEAD);
    await asApp.createCommitStatus('acme/shop', HEAD, {
      context: 'fixloop',
      state: 'pending',
      description: 'attempt 1 of 2 running',
      targetUrl: 'https://fixloop.example/tasks/1',
    });
    // fixloop's own context is not read back as a CI status (P3).
    assert.deepEqual(
      (await asApp.listStatuses('acme/shop', HEAD)).map((s) => s.context),
      ['ci/legacy'],
    );
    await asApp.requiredChecks('acme/shop', 'main');
    await asApp.requiredChecks('acme/shop', 'unprotected');
    await asApp.jobLogUrl('acme/shop', fake.state.checkRuns[`acme/shop@${HEAD}`]![0]!.id);
    // Issue 17: an Actions job's workflow run, its failed jobs re-run once the run has finished; a
    // check run of another app is no job.
    const [testJob, , otherApp] = fake.state.checkRuns[`acme/shop@${HEAD}`]!;
    const running = await asApp.workflowRunOfJob('acme/shop', testJob!.id); // `lint` is still going
    await assert.rejects(asApp.rerunFailedJobs('acme/shop', running), { status: 403 });
    const e2e = fake.addCheckRun('acme/shop', HEAD, { name: 'e2e', conclusion: 'failure', runId: 31 });
    const runId = await asApp.workflowRunOfJob('acme/shop', e2e.id);
    assert.equal(runId, 31);
    await asApp.rerunFailedJobs('acme/shop', runId);
    assert.deepEqual(
      fake.state.reruns.map((r) => [r.repo, r.runId]),
      [['acme/shop', 31]],
    );
    await assert.rejects(asApp.workflowRunOfJob('acme/shop', otherApp!.id), { status: 404 });
    fake.setRerunPolicy('acme/shop', 'forbidden');
    await assert.rejects(asApp.rerunFailedJobs('acme/shop', runId), { status: 403 });
    fake.setRerunPolicy('acme/shop', null);
    await asApp.addLabels('acme/shop', 7, ['fixloop:needs-human']);
    await asApp.removeLabel('acme/shop', 7, 'bug');
    await asApp.removeLabel('acme/shop', 7, 'absent');
    const comment = await asApp.createIssueComment('acme/shop', 7, '<!-- fixloop-state -->');
    await asApp.updateIssueComment('acme/shop', 7, comment.id, '<!-- fixloop-state -->\n{}');
    await asApp.listIssueComments('acme/shop', 7);
    // Issue 36 item 4: an issue for a red base, numbered after the pull requests, closed with a comment.
    const filed = await asApp.createIssue!('acme/shop', 'main is failing test', 'body');
    assert.equal(filed.number, 9);
    await asApp.closeIssue!('acme/shop', filed.number, 'main passes test again');
    assert.equal(fake.state.issues['acme/shop#9']?.state, 'closed');
    assert.equal(fake.state.comments['acme/shop#9']?.length, 1);
    await asApp.listReviews('acme/shop', 7);
    assert.deepEqual(await asApp.reviewComments!('acme/shop', 7, botReview.id), [
      { path: 'src/a.ts', body: 'Possible null dereference.' },
    ]);
    await assert.rejects(asApp.reviewComments!('acme/shop', 7, 999_999), { status: 404 });
    // F1/F2 (decision 0042): a collaborator's role, a non-collaborator's 404, and who added a label.
    fake.setCollaborator('acme/shop', 'keeper', 'maintain');
    assert.equal(await asApp.repositoryPermission!('acme/shop', 'keeper'), 'maintain');
    assert.equal(await asApp.repositoryPermission!('acme/shop', 'stranger'), 'none');
    fake.labelBy('acme/shop', 7, 'fixloop:approve-one', 'keeper');
    assert.deepEqual(await asApp.labelActor!('acme/shop', 7, 'fixloop:approve-one'), { login: 'keeper', type: 'User' });
    assert.deepEqual(await asApp.labelActor!('acme/shop', 7, 'fixloop:needs-human'), {
      login: 'fixloop-conformance[bot]',
      type: 'Bot',
    });
    assert.equal(await asApp.labelActor!('acme/shop', 7, 'never-added'), null);
    // Issue 36: a branch behind its base updated (a new head), and refused once the head moved on.
    const before = fake.state.pulls['acme/shop#7']!.headSha;
    await asApp.updateBranch!('acme/shop', 7, before);
    assert.notEqual(fake.state.pulls['acme/shop#7']!.headSha, before);
    await assert.rejects(asApp.updateBranch!('acme/shop', 7, before), { status: 422 });
    fake.setHead('acme/shop', 7, before);
    await asApp.selfLogin();
    await asUser.selfLogin();
    await asApp.getPullRequest('acme/shop', 404).catch(() => undefined);
    await asApp.compareCommits('acme/shop', HEAD, '2'.repeat(40));
    await asApp.compareCommits('acme/shop', HEAD, '3'.repeat(40)).catch(() => undefined);
    // The one operation fixloop's adapter does not use: every status, newest first.
    const listed = await fetch(`${fake.url}/repos/acme/shop/commits/${HEAD}/statuses`, {
      headers: { authorization: `token ${userToken}` },
    });
    assert.equal(listed.status, 200);
    // V3: the manifest flow's conversion, through fixloop's converter (last: the new App replaces the fake's).
    const code = fake.createAppFromManifest({
      name: 'fixloop-conformance-setup',
      url: 'https://github.com',
      hook_attributes: { url: 'https://fixloop.example/api/github/webhooks' },
      redirect_url: 'https://fixloop.example/setup/github/callback',
    });
    const converted = await createManifestConverter().convert(fake.url, code);
    assert.equal(converted.slug, 'fixloop-conformance-setup');
    await assert.rejects(createManifestConverter().convert(fake.url, code), { reason: 'unknown_code' });

    // Issue 35: a workflow dispatch (with and without return_run_details) and its run, through fixloop's calls.
    const workflows = createWorkflowCalls({ apiUrl: fake.url, auth: { kind: 'token', token: userToken } });
    const dispatched = await workflows.dispatch('acme/shop', 'fixloop-agent.yml', 'agent/x', { frame: 'fix it' });
    assert.equal((await workflows.readRun('acme/shop', dispatched.workflowRunId)).status, 'queued');
    fake.completeWorkflowRun(Number(dispatched.workflowRunId), 'failure');
    assert.deepEqual(await workflows.readRun('acme/shop', dispatched.workflowRunId), {
      status: 'completed',
      conclusion: 'failure',
      htmlUrl: dispatched.htmlUrl,
    });
    // …and one cancelled while it runs (202); a finished one is left as it ended (409, taken as done).
    const second = await workflows.dispatch('acme/shop', 'fixloop-agent.yml', 'agent/x', { frame: 'fix it' });
    await workflows.cancelRun('acme/shop', second.workflowRunId);
    assert.equal((await workflows.readRun('acme/shop', second.workflowRunId)).conclusion, 'cancelled');
    await workflows.cancelRun('acme/shop', second.workflowRunId);
    assert.ok(fake.requests.some((r) => r.operation?.endsWith('/cancel') === true && r.status === 409));
    const plain = await fetch(`${fake.url}/repos/acme/shop/actions/workflows/1234/dispatches`, {
      method: 'POST',
      headers: { authorization: `token ${userToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ ref: 'main' }),
    });
    assert.equal(plain.status, 204);
    // Issue 35: a push's run held for approval, listed and approved; one not waiting is refused.
    const held = fake.holdRunForApproval('acme/shop', 'b'.repeat(40), 'ci.yml');
    assert.equal(await workflows.approvePendingRuns('acme/shop', 'b'.repeat(40)), 1);
    assert.equal(fake.pushRunsOf('b'.repeat(40))[0]?.status, 'queued');
    assert.equal(await workflows.approvePendingRuns('acme/shop', 'b'.repeat(40)), 0, 'nothing waits any more');
    assert.equal(held.approvedBy !== undefined, true);

    const reached = new Set(fake.requests.map((r) => r.operation));
    assert.deepEqual(
      FAKE_OPERATIONS.filter((op) => !reached.has(op)),
      [],
      'every operation reached',
    );
    assert.deepEqual(fake.violations, []);
  } finally {
    await fake.close();
  }
});
