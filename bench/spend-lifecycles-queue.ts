// The spend corpus's merge-queue lifecycles (issue 36 item 1) and what GitHub sends for a queue step:
// the queue's commit (`gh-readonly-queue/main/pr-<n>-<head>`) reports its jobs with no pull request
// pointer, then the pull request leaves the queue (`dequeued`) with its reason.
import {
  checkRunPayload,
  delivery,
  pullRequestPayload,
  workflowRunPayload,
  checkSuitePayload,
} from '../test/support/deliveries.js';
import { ok, fail, ci, oneLine, type Lifecycle, type QueueStep } from './spend-lifecycle.js';
import type { StreamItem } from './spend-world.js';

const REPO = { owner: 'acme', name: 'shop', id: 4242 };

/** The deliveries of one queue step, in the order GitHub sends them. */
export function queueDeliveries(
  step: QueueStep,
  w: {
    pr: number;
    headSha: string;
    queueSha: string;
    now: Date;
    nextCheckRun: () => number;
    deliveryId: () => string;
  },
): StreamItem[] {
  const branch = `gh-readonly-queue/main/pr-${w.pr}-${w.headSha}`;
  const completedAt = w.now.toISOString();
  const sha = w.queueSha;
  const items: StreamItem[] = [];
  for (const job of step.jobs) {
    const p = checkRunPayload({
      repo: REPO,
      sha,
      id: w.nextCheckRun(),
      name: job.name,
      status: 'completed',
      conclusion: job.conclusion,
      completedAt,
      branch,
      pr: null,
      ...(job.output ? { output: job.output } : {}),
    });
    items.push({
      event: { kind: 'check_run', sha, name: job.name, status: 'completed', conclusion: job.conclusion },
      delivery: delivery('check_run', p, w.deliveryId()),
      burst: 0,
    });
  }
  const red = step.jobs.some((j) => j.conclusion === 'failure');
  const conclusion = red ? 'failure' : 'success';
  const runId = w.nextCheckRun();
  // A queue that ran no job (a conflict found before any) reports no suite or workflow run either.
  if (step.jobs.length > 0) {
    const suite = checkSuitePayload({ repo: REPO, sha, id: runId + 1, conclusion, pr: null, updatedAt: completedAt });
    suite.check_suite.head_branch = branch;
    suite.check_suite.app = { ...suite.check_suite.app, slug: 'github-actions', name: 'GitHub Actions' };
    items.push({
      event: { kind: 'check_suite', sha, name: 'suite:github-actions', conclusion },
      delivery: delivery('check_suite', suite, w.deliveryId()),
      burst: 0,
    });
    const wf = workflowRunPayload({ repo: REPO, sha, id: runId, conclusion, pr: null, updatedAt: completedAt });
    wf.workflow_run.name = 'Merge queue';
    wf.workflow_run.head_branch = branch;
    items.push({
      event: { kind: 'workflow_run', sha, name: 'workflow:Merge queue', conclusion },
      delivery: delivery('workflow_run', wf, w.deliveryId()),
      burst: 0,
    });
  }
  const reason = step.dequeued ?? (red ? 'CI_FAILURE' : null);
  if (reason !== null) {
    const p = pullRequestPayload({ repo: REPO, number: w.pr, action: 'dequeued', headSha: w.headSha, reason });
    p.pull_request.head.ref = `agent/queue-${w.pr}`;
    items.push({
      event: { kind: 'dequeued', sha: w.headSha, reason },
      delivery: delivery('pull_request', p, w.deliveryId()),
      burst: 0,
    });
  }
  return items;
}

const queue = (head: string, jobs: QueueStep['jobs'], dequeued?: string): QueueStep => ({
  kind: 'queue',
  head,
  jobs,
  ...(dequeued ? { dequeued } : {}),
});

const COMBINED_FAILURE = [
  'FAIL src/checkout.test.ts > checkout > applies the coupon',
  'TypeError: cart.discounts is not a function (renamed to cart.discountLines by the change merged ahead of it, #160)',
].join('\n');

/** Green on its own, red only combined with the queue: one attempt on the head, then green in the queue. */
export const queueEjection: Lifecycle = {
  id: 'queue-ejection',
  title: 'ejected from the merge queue by a failing check',
  pr: 161,
  oracle: 1,
  informed: 1,
  informedWhy: "A is green alone; the queue's commit fails a check the agent can fix: one run",
  fixes: 1,
  firstHead: 'A',
  world: [ci('A', [ok('test'), ok('lint')]), queue('A', [fail('test', COMBINED_FAILURE), ok('lint')])],
  agent: {
    A: [
      {
        kind: 'push',
        to: 'B',
        verdict: 'fix',
        files: [oneLine('src/checkout.ts', 40, '  return cart.discounts();', '  return cart.discountLines();')],
        then: [ci('B', [ok('test'), ok('lint')]), queue('B', [ok('test'), ok('lint')])],
      },
    ],
  },
  fixloop:
    "one attempt for the queue's red, framed as failing only combined with the queue; nothing for its suite, workflow run or the CI_FAILURE ejection",
};

/** Removed from the queue by a person after a conflict with a queued pull request: no run can help. */
export const queueConflict: Lifecycle = {
  id: 'queue-conflict',
  title: 'ejected from the merge queue by a conflict',
  pr: 162,
  oracle: 0,
  informed: 0,
  informedWhy: 'the ejection says it conflicts with a pull request ahead of it: a person decides',
  fixes: 0,
  firstHead: 'A',
  world: [ci('A', [ok('test')]), queue('A', [], 'MERGE_CONFLICT')],
  agent: {},
  fixloop: 'no run; the queue_ejected notice tells a person',
  notice: { reason: /^queue_ejected$/, what: 'queue_ejected' },
};
