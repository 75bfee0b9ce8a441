// Issue 34 item 1 (SPEC G1, K8, Q3): every text a person reads about a GitLab merge request uses
// GitLab's words — the Inbox notice and what a sink sends name `group/project!iid` and its merge
// request, the state note speaks of the merge request's pipeline — while a GitHub pull request's
// texts are unchanged. The words come from each host's folder (src/github/words.ts,
// src/gitlab/words.ts) as data.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import {
  GL_PROJECT,
  finishLast,
  redPush,
  sha,
  startGitLabHarness,
  stateNotes,
  type GitLabHarness,
} from '../support/gitlab-harness.js';
import { STATE_MARKER } from '../../src/core/state-comment.js';
import { slackMessage, webhookBody } from '../../src/core/notice-payload.js';
import { stopNoticeInput } from '../../src/app/stop-notice.js';
import { GITHUB_WORDS } from '../../src/github/words.js';
import { GITLAB_WORDS } from '../../src/gitlab/words.js';
import type { ChangeLinks } from '../../src/core/change-link.js';
import { builtInChangeLinks } from '../../src/wiring/change-links.js';
import type { Notice, Task } from '../../src/core/types.js';

const LINKS: ChangeLinks = builtInChangeLinks({
  githubUrl: 'https://github.com',
  gitlabUrl: 'https://gitlab.example.com',
  providerOf: (repository) => (repository === 'acme/app' ? 'gitlab' : 'github'),
});

/** The notice the ledger would file for `task`, its message written by stop-notice.ts. */
function filed(task: Pick<Task, 'id' | 'repository' | 'pullRequest' | 'extraAttempts'>, words?: typeof GITHUB_WORDS) {
  const input = stopNoticeInput(task as Task, {
    maxAttempts: 2,
    reason: 'budget_spent',
    headSha: 'a'.repeat(40),
    ...(words ? { words } : {}),
  });
  const notice: Notice = {
    id: 1,
    taskId: task.id,
    reason: 'budget_spent',
    headSha: 'a'.repeat(40),
    attemptsUsed: 2,
    repository: task.repository,
    pullRequest: task.pullRequest,
    message: input.message(2),
    createdAt: '2026-12-05T10:00:00.000Z',
  };
  return notice;
}

describe('a notice in its host’s words (issue 34)', () => {
  test('G1: a GitLab notice, and what Slack and the signed webhook are sent, say merge request and acme/app!13', () => {
    const notice = filed({ id: 5, repository: 'acme/app', pullRequest: 13, extraAttempts: 0 }, GITLAB_WORDS);
    assert.match(notice.message, /^fixloop stopped for acme\/app!13: the automatic fix budget is spent/);
    assert.match(notice.message, /Read the failing job on the merge request/);
    const slack = JSON.stringify(slackMessage(notice, LINKS));
    assert.match(slack, /fixloop stopped for acme\/app!13/);
    assert.match(slack, /merge request/);
    assert.match(slack, /https:\/\/gitlab\.example\.com\/acme\/app\/-\/merge_requests\/13/);
    assert.doesNotMatch(slack, /pull request|acme\/app#13/);
    const hook = webhookBody(notice, LINKS).notice as { message: string };
    assert.doesNotMatch(hook.message, /pull request|#13/);
  });

  test('G1: a GitHub notice is the text it always was', () => {
    const notice = filed({ id: 6, repository: 'acme/shop', pullRequest: 12, extraAttempts: 0 }, GITHUB_WORDS);
    assert.equal(
      notice.message,
      'fixloop stopped for acme/shop#12: the automatic fix budget is spent (2 of 2 automatic attempts used; ' +
        `last head seen ${'a'.repeat(12)}). Read the failing check on the pull request, then fix it yourself or resume the run by hand.`,
    );
    assert.equal(
      filed({ id: 6, repository: 'acme/shop', pullRequest: 12, extraAttempts: 0 }).message,
      notice.message,
      'a caller not yet given the words files the same GitHub text as before',
    );
  });
});

describe('GitLab texts through the service (issue 34, sqlite)', () => {
  let h: GitLabHarness;
  before(async () => {
    h = await startGitLabHarness('sqlite', { env: { TASK_CI_AUTO_RESUME_MAX_ATTEMPTS: '1' } });
  });
  after(() => h.close());

  test('K8: the state note speaks of the merge request and its pipeline, never of a pull request', async () => {
    h.openMergeRequest(31, { headSha: sha('0') });
    const created = await h.api('POST', '/api/tasks', { repository: GL_PROJECT, pullRequest: 31, branch: 'agent/31' });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    await redPush(h, 31, '1', 'FAIL one\nexpected 1, got 2', { finish: false });
    await h.nextTick();
    await finishLast(h);
    await redPush(h, 31, '2', 'FAIL two\nTypeError', { finish: false }); // budget 1 spent: a stop
    await h.nextTick(); // the hand-off: label and the state note
    const notes = stateNotes(h, 31, STATE_MARKER);
    assert.equal(notes.length, 1);
    const summary = notes[0]!.body.slice(0, notes[0]!.body.indexOf('<details>'));
    assert.match(summary, /merge request/);
    assert.doesNotMatch(summary, /pull request/, summary);
    const decisions = (await h.api('GET', `/api/deliveries?taskId=${created.body.id}&limit=200`)).body.decisions;
    const posted = decisions.find((d: any) => d.reason === 'handoff_posted');
    assert.equal(posted?.detail, `label fixloop:needs-human and state note on ${GL_PROJECT}!31`);
  });

  test('G1: a run whose agent never called fixloop files a notice naming the merge request as group/project!iid', async () => {
    h.openMergeRequest(32, { headSha: sha('0') });
    const created = await h.api('POST', '/api/tasks', { repository: GL_PROJECT, pullRequest: 32, branch: 'agent/32' });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    h.runner.silentAgents = true;
    try {
      await redPush(h, 32, '3', 'FAIL three', { finish: false });
      assert.equal(h.runner.starts.at(-1)?.pullRequest, 32);
      await finishLast(h); // not one call with its run token
    } finally {
      h.runner.silentAgents = false;
    }
    let notice: any = null;
    for (let i = 0; i < 200 && !notice; i++) {
      notice = (await h.api('GET', `/api/tasks/${created.body.id}`)).body.notice;
      if (!notice) await new Promise((r) => setTimeout(r, 10));
    }
    assert.equal(notice?.reason, 'agent_unreachable', JSON.stringify(notice));
    assert.match(notice.message, new RegExp(`^fixloop stopped for ${GL_PROJECT.replace('/', '\\/')}!32: `));
    assert.match(notice.message, /on the merge request/);
    assert.doesNotMatch(notice.message, /pull request|#32/);
  });
});
