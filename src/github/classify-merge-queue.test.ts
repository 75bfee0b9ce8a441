// Issue 36 item 1: GitHub's merge queue as the classifier reads it, from GitHub's own example payloads:
// a check of the queue's commit (its branch `gh-readonly-queue/<base>/pr-<n>-<head>`, no pull request
// pointer) carries the queue it ran in; a `dequeued` pull request carries its reason as an ejection.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { classifyDelivery, type CheckResult, type PullRequestChange } from './classify.js';

type Json = any; // GitHub example payloads, edited freely in tests
const ALL = createRequire(import.meta.url)('@octokit/webhooks-examples/api.github.com/index.json') as {
  name: string;
  examples: Json[];
}[];
const example = (name: string, pick: (e: Json) => boolean): Json =>
  structuredClone(ALL.find((x) => x.name === name)!.examples.find(pick));

const HEAD = '929f8209d40f77f4abc622a499c93a83babdbe64';
const QUEUE_SHA = '2ffea6db159f6b6c47a24e778fb9ef40cf6b1c7d';
const BRANCH = `gh-readonly-queue/main/pr-104-${HEAD}`;

function eventOf(name: string, body: Json): CheckResult | PullRequestChange {
  const c = classifyDelivery(name, body, 'guid-1');
  assert.equal(c.kind, 'event', JSON.stringify(c));
  return (c as Extract<typeof c, { kind: 'event' }>).event as CheckResult | PullRequestChange;
}

test('a check run, suite and workflow run of the queue’s commit carry the queue: base, pull request, head', () => {
  const run = example('check_run', (e) => e.action === 'completed');
  run.check_run.head_sha = QUEUE_SHA;
  run.check_run.check_suite.head_branch = BRANCH;
  run.check_run.pull_requests = [];
  const suite = example('check_suite', (e) => e.action === 'completed');
  suite.check_suite.head_sha = QUEUE_SHA;
  suite.check_suite.head_branch = BRANCH;
  suite.check_suite.pull_requests = [];
  const wf = example('workflow_run', (e) => e.action === 'completed' && e.workflow_run.status === 'completed');
  wf.workflow_run.head_sha = QUEUE_SHA;
  wf.workflow_run.head_branch = BRANCH;
  wf.workflow_run.pull_requests = [];
  for (const [name, body] of [
    ['check_run', run],
    ['check_suite', suite],
    ['workflow_run', wf],
  ] as const) {
    const r = eventOf(name, body) as CheckResult;
    assert.equal(r.sha, QUEUE_SHA, name);
    assert.deepEqual(r.pointers, [], name);
    assert.deepEqual(r.queue, { baseRef: 'main', pullRequest: 104, headSha: HEAD, others: null }, name);
  }
});

test('a check of any other branch, or one pointing at a pull request, carries no queue', () => {
  const run = example('check_run', (e) => e.action === 'completed' && e.check_run.pull_requests.length > 0);
  assert.equal((eventOf('check_run', run) as CheckResult).queue, undefined);
  run.check_run.check_suite.head_branch = BRANCH; // a pointer wins: it is the pull request's own head
  assert.equal((eventOf('check_run', run) as CheckResult).queue, undefined);
});

test('a dequeued pull request carries its reason as an ejection; other actions carry none', () => {
  const pr = example('pull_request', (e) => e.action === 'opened');
  assert.equal((eventOf('pull_request', pr) as PullRequestChange).dequeued, undefined);
  for (const [reason, ejection] of [
    ['MANUAL', 'removed_by_person'],
    ['CI_FAILURE', 'check_failed'],
    ['MERGE_CONFLICT', 'conflict'],
    [undefined, 'unknown'],
  ] as const) {
    const body = { ...structuredClone(pr), action: 'dequeued', ...(reason ? { reason } : {}) };
    assert.equal((eventOf('pull_request', body) as PullRequestChange).dequeued, ejection, String(reason));
  }
});

test('decision 0078: a merge_group the queue built is kept as the queue’s commit, its parent and its pull request', () => {
  const body = example('merge_group', (e) => e.action === 'checks_requested');
  const c = classifyDelivery('merge_group', body, 'guid-7');
  assert.equal(c.kind, 'event', JSON.stringify(c));
  assert.deepEqual((c as Extract<typeof c, { kind: 'event' }>).event, {
    kind: 'queue.group',
    identity: 'delivery:merge_group:guid-7',
    repository: 'octo-org/octo-repo',
    headSha: QUEUE_SHA,
    parentSha: '380387fbc80638b734a49e1be1c4dfec1c01b33c',
    pullRequest: 104,
  });
});

test('a merge_group merged into the base is kept as such: the base moved to that commit', () => {
  const body = example('merge_group', (e) => e.action === 'checks_requested');
  body.action = 'destroyed';
  body.reason = 'merged';
  const c = classifyDelivery('merge_group', body, 'guid-6');
  assert.equal(c.kind, 'event', JSON.stringify(c));
  const e = (c as Extract<typeof c, { kind: 'event' }>).event;
  assert.equal(e.kind === 'queue.group' && e.merged, true);
});

test('a merge_group let go otherwise, or one whose branch or commits are not the queue’s, is acknowledged and ignored', () => {
  const destroyed = example('merge_group', (e) => e.action === 'checks_requested');
  destroyed.action = 'destroyed';
  destroyed.reason = 'dequeued';
  const invalidated = example('merge_group', (e) => e.action === 'checks_requested');
  invalidated.action = 'destroyed';
  invalidated.reason = 'invalidated';
  const otherBranch = example('merge_group', (e) => e.action === 'checks_requested');
  otherBranch.merge_group.head_ref = 'refs/heads/main';
  const shortSha = example('merge_group', (e) => e.action === 'checks_requested');
  shortSha.merge_group.base_sha = '380387f';
  for (const body of [destroyed, invalidated, otherBranch, shortSha]) {
    const c = classifyDelivery('merge_group', body, 'guid-8');
    assert.deepEqual(c, {
      kind: 'ignored',
      reason: 'not_actionable_event',
      identity: 'delivery:merge_group:guid-8',
      repository: 'octo-org/octo-repo',
    });
  }
  const broken = example('merge_group', (e) => e.action === 'checks_requested');
  delete broken.merge_group.base_sha;
  assert.equal(classifyDelivery('merge_group', broken, 'guid-9').kind, 'rejected');
});
