// Issue 19 through the whole service: the prompt dispatched for a gitlab Work's merge request speaks
// of the merge request (`group/project!iid`) and names glab's commands and the MCP tool; a GitHub
// Task's prompt in the same install is unchanged (`owner/repo#N`, `fixloop pr checks … --failing`).
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { startHarness, SECRET, type Harness } from '../support/harness.js';
import { checkRunPayload, delivery, post } from '../support/deliveries.js';
import { GL_PROJECT, sha, startGitLabHarness, type GitLabHarness } from '../support/gitlab-harness.js';

const TOKEN = 'gitlab-hook-token';
const PROJECT = 'gitlab-org/gitlab-test';
const MR = 1;

describe('the dispatched prompt names the provider’s change and tools (issue 19, sqlite)', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness('sqlite', {
      env: { GITLAB_WEBHOOK_SECRET: TOKEN },
      configExtra: {
        works: [
          { name: 'shop', account: 'acme', repositories: [{ name: 'acme/shop', role: 'data' }] },
          { name: 'lab', account: 'gitlab-org', provider: 'gitlab', repositories: [{ name: PROJECT, role: 'data' }] },
        ],
      },
    });
  });
  after(() => h.close());

  test('a GitLab merge request: merge request !1, glab ci trace, glab mr view, pull_request_checks', async () => {
    const created = await h.api('POST', '/api/tasks', { repository: PROJECT, pullRequest: MR, branch: 'ms-viewport' });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const job = {
      ...JSON.parse(readFileSync(new URL('../fixtures/gitlab/job-hook.json', import.meta.url), 'utf8')),
      ref: `refs/merge-requests/${MR}/head`,
      build_status: 'failed',
      build_finished_at: '2026-12-01 10:00:00 UTC',
    };
    const res = await fetch(`${h.url}/api/gitlab/webhooks`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-gitlab-event': 'Job Hook',
        'x-gitlab-token': TOKEN,
        'idempotency-key': randomUUID(),
      },
      body: JSON.stringify(job),
    });
    assert.equal(res.status, 202, await res.text());
    await h.app.settle();
    assert.equal(h.runner.starts.length, 1);
    const prompt = h.runner.starts[0]!.prompt;
    assert.match(prompt, /^CI failed on merge request gitlab-org\/gitlab-test!1 /);
    assert.ok(prompt.includes('`glab ci trace <job-id>`'));
    assert.ok(prompt.includes('`glab mr view 1`'));
    assert.ok(prompt.includes('`pull_request_checks`'));
    assert.ok(!prompt.includes('fixloop pr checks'));
    assert.ok(!prompt.includes('pull request '), prompt);
  });

  test('a GitHub pull request in the same install keeps its frame', async () => {
    const created = await h.api('POST', '/api/tasks', { repository: 'acme/shop', pullRequest: 7, branch: 'agent/fix' });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const sha = 'b'.repeat(40);
    const d = delivery(
      'check_run',
      checkRunPayload({
        repo: { owner: 'acme', name: 'shop' },
        sha,
        id: 4242,
        name: 'test',
        pr: { number: 7, headSha: sha },
        output: 'FAIL',
      }),
    );
    const r = await post(h.url, d, SECRET);
    assert.equal(r.status, 202, JSON.stringify(r.body));
    await h.app.settle();
    assert.equal(h.runner.starts.length, 2);
    const prompt = h.runner.starts[1]!.prompt;
    assert.match(prompt, /^CI failed on pull request acme\/shop#7 /);
    assert.ok(prompt.includes('`fixloop pr checks acme/shop#7 --failing`'));
    assert.ok(!prompt.includes('glab'));
  });
});

// Issue 34 item 1: a failed pipeline's hook names its failed job (its `builds`), and GitLab serves
// that job's trace: the frame names the job and quotes the end of its trace, never `pipeline:<id>`
// with "no output text".
describe('a failed pipeline seeds the agent with its failed job and the tail of its trace (issue 34, sqlite)', () => {
  let h: GitLabHarness;
  before(async () => {
    h = await startGitLabHarness('sqlite');
  });
  after(() => h.close());

  test('the frame names the job `test-build` and carries its trace tail', async () => {
    h.openMergeRequest(13, { headSha: sha('d') });
    const created = await h.api('POST', '/api/tasks', { repository: GL_PROJECT, pullRequest: 13, branch: 'agent/13' });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const trace = [
      'Running with gitlab-runner 18.5.0',
      '$ npm test',
      'FAIL src/cart.test.ts > cart > totals',
      'AssertionError: expected 3 to equal 2',
      'ERROR: Job failed: exit code 1',
      '',
    ].join('\n');
    const p = h.runPipeline(13, sha('d'), [
      { name: 'build-image', stage: 'build', status: 'success' },
      { name: 'test-build', stage: 'test', status: 'failed', trace },
    ]);
    const sent = await h.hook('Pipeline Hook', h.pipelineHook(p, 'failed'));
    assert.equal(sent.status, 202, JSON.stringify(sent.body));
    await h.app.settle();
    assert.equal(h.runner.starts.length, 1);
    const prompt = h.runner.starts[0]!.prompt;
    assert.match(prompt, new RegExp(`^CI failed on merge request ${GL_PROJECT.replace('/', '\\/')}!13 `));
    assert.ok(prompt.includes('job: test-build\n\n'), prompt);
    assert.ok(prompt.includes('AssertionError: expected 3 to equal 2\nERROR: Job failed: exit code 1'), prompt);
    assert.ok(!prompt.includes(`pipeline:${p.id}`), prompt);
    assert.ok(!prompt.includes('no output text'), prompt);
    assert.ok(!prompt.includes('pull request '), prompt);
  });
});
