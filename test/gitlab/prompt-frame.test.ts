// Issue 19 through the whole service: the prompt dispatched for a gitlab Work's merge request speaks
// of the merge request (`group/project!iid`) and names glab's commands and the MCP tool; a GitHub
// Task's prompt in the same install is unchanged (`owner/repo#N`, `fixloop pr checks … --failing`).
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { startHarness, SECRET, type Harness } from '../support/harness.js';
import { checkRunPayload, delivery, post } from '../support/deliveries.js';

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
