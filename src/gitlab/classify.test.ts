// Issue 19 (SPEC Q1 with A2–A4, B3, B5, F2): classifying GitLab's Job, Pipeline, Merge Request and
// Note hooks, against GitLab's own documented examples (test/fixtures/gitlab/README.md).
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { CheckResult, Classification, CommentRang, PullRequestChange } from '../core/neutral-events.js';
import { classifyGitlabDelivery, gitlabTime } from './classify.js';
import { headChecksOf } from '../core/head-checks.js';
import { builtInHosts } from '../../test/support/host-registry.js';

type Json = any; // GitLab example payloads, edited freely in tests

function fixture(name: string): Json {
  return JSON.parse(readFileSync(new URL(`../../test/fixtures/gitlab/${name}.json`, import.meta.url), 'utf8'));
}

const JOB_SHA = '2293ada6b400935a1378653304eaf6221e0fdb8f';

/** GitLab's Job example, finished as the test says (the example itself is `created`). */
function job(edit: Record<string, unknown> = {}): Json {
  return { ...fixture('job-hook'), build_status: 'failed', build_finished_at: '2021-02-23 02:43:10 UTC', ...edit };
}

type Event = Extract<Classification, { kind: 'event' }>['event'];

function eventOf(c: Classification): Event {
  assert.equal(c.kind, 'event', JSON.stringify(c));
  return (c as Extract<Classification, { kind: 'event' }>).event;
}

function check(c: Classification): CheckResult {
  const e = eventOf(c);
  assert.equal(e.kind, 'ci.result');
  return e as CheckResult;
}

describe('Job Hook', () => {
  test('A4: the documented example (created) and every unfinished status are dropped, manual included', () => {
    assert.deepEqual(classifyGitlabDelivery('Job Hook', fixture('job-hook'), 'k1'), {
      kind: 'dropped',
      reason: 'not_completed',
      identity: `check:gitlab-org/gitlab-test@${JOB_SHA}:job:1977:created`,
      repository: 'gitlab-org/gitlab-test',
    });
    for (const status of ['pending', 'running', 'manual', 'waiting_for_resource', 'preparing', 'scheduled']) {
      assert.equal(classifyGitlabDelivery('Job Hook', job({ build_status: status }), 'k1').kind, 'dropped', status);
    }
  });

  test('A3: a failed job is a red result named by repository, commit, job id and status', () => {
    const r = check(classifyGitlabDelivery('Job Hook', job(), 'k1'));
    assert.equal(r.source, 'gitlab');
    assert.equal(r.ciKind, 'run');
    assert.equal(r.identity, `check:gitlab-org/gitlab-test@${JOB_SHA}:job:1977:failed`);
    assert.equal(r.repository, 'gitlab-org/gitlab-test');
    assert.equal(r.sha, JOB_SHA);
    assert.equal(r.name, 'test');
    assert.equal(r.verdict, 'red');
    assert.equal(r.completedAt, '2021-02-23T02:43:10.000Z');
    // A branch pipeline: no merge request named, so no pointer; the Task is found by branch.
    assert.deepEqual(r.pointers, []);
    assert.equal(r.branch, 'gitlab-script-trigger');
    assert.equal(r.output, '', 'a Job hook carries no log: degraded evidence, never "unchanged" (T5)');
  });

  test('A3: a redelivery is the same identity; a retried job (a new job id) is a new one', () => {
    const first = check(classifyGitlabDelivery('Job Hook', job(), 'k1'));
    assert.equal(check(classifyGitlabDelivery('Job Hook', job(), 'k2')).identity, first.identity);
    const retried = check(classifyGitlabDelivery('Job Hook', job({ build_id: 1980, retries_count: 3 }), 'k3'));
    assert.notEqual(retried.identity, first.identity);
  });

  test('B3: a job allowed to fail that failed is not red; canceled and skipped are not red; success is green', () => {
    const allowed = check(classifyGitlabDelivery('Job Hook', job({ build_allow_failure: true }), 'k1'));
    assert.equal(allowed.verdict, 'inconclusive');
    assert.equal(allowed.conclusion, 'failed_allowed');
    assert.equal(
      check(classifyGitlabDelivery('Job Hook', job({ build_status: 'canceled' }), 'k')).verdict,
      'inconclusive',
    );
    assert.equal(
      check(classifyGitlabDelivery('Job Hook', job({ build_status: 'skipped' }), 'k')).verdict,
      'inconclusive',
    );
    assert.equal(check(classifyGitlabDelivery('Job Hook', job({ build_status: 'success' }), 'k')).verdict, 'green');
  });

  test('B5: a job of a merge request pipeline names the merge request; merged results and trains name none', () => {
    const mr = check(classifyGitlabDelivery('Job Hook', job({ ref: 'refs/merge-requests/7/head' }), 'k'));
    assert.deepEqual(mr.pointers, [{ number: 7, headSha: JOB_SHA, fork: false, unconfirmed: true }]);
    assert.equal(mr.branch, null);
    for (const ref of ['refs/merge-requests/7/merge', 'refs/merge-requests/7/train']) {
      const r = check(classifyGitlabDelivery('Job Hook', job({ ref }), 'k'));
      assert.deepEqual([r.pointers, r.branch], [[], null], ref);
    }
    const tag = check(classifyGitlabDelivery('Job Hook', job({ ref: 'v1.0.0', tag: true }), 'k'));
    assert.equal(tag.branch, null);
  });

  test('B5: a finished job with no usable time carries none (never "now")', () => {
    assert.equal(check(classifyGitlabDelivery('Job Hook', job({ build_finished_at: null }), 'k')).completedAt, null);
  });
});

describe('Pipeline Hook', () => {
  test('the documented example: a green pipeline of merge request !1, found by its number and source branch', () => {
    const r = check(classifyGitlabDelivery('Pipeline Hook', fixture('pipeline-hook'), 'k'));
    assert.equal(r.ciKind, 'workflow');
    assert.equal(
      r.identity,
      'check:gitlab-org/gitlab-test@bcbb5ec396a2c0f828686f14fac9b80b780504f2:pipeline:31:success',
    );
    assert.equal(r.verdict, 'green');
    assert.equal(r.completedAt, '2016-08-12T15:26:29.000Z');
    assert.deepEqual(r.pointers, [
      { number: 1, headSha: 'bcbb5ec396a2c0f828686f14fac9b80b780504f2', fork: false, unconfirmed: true },
    ]);
    assert.equal(r.branch, 'test');
    assert.equal(r.url, 'http://example.com/gitlab-org/gitlab-test/-/pipelines/31');
  });

  test('B3, A4: a failed pipeline is red; a running one is dropped; a fork merge request is a fork', () => {
    const p = fixture('pipeline-hook');
    const failed = { ...p, object_attributes: { ...p.object_attributes, status: 'failed' } };
    assert.equal(check(classifyGitlabDelivery('Pipeline Hook', failed, 'k')).verdict, 'red');
    const running = { ...p, object_attributes: { ...p.object_attributes, status: 'running' } };
    assert.equal(classifyGitlabDelivery('Pipeline Hook', running, 'k').kind, 'dropped');
    const fork = { ...p, merge_request: { ...p.merge_request, source_project_id: 99 } };
    assert.equal(check(classifyGitlabDelivery('Pipeline Hook', fork, 'k')).fork, true);
  });
});

describe('Merge Request Hook', () => {
  /** GitLab's example as the update a submitted "Request changes" review sends (reviewer states changed only). */
  function reviewSubmitted(previous: string, current: string, extraChanges: Record<string, unknown> = {}): Json {
    const p = fixture('merge-request-hook');
    p.object_attributes = { ...p.object_attributes, action: 'update', oldrev: undefined };
    p.changes = {
      updated_at: { previous: '2026-12-01 10:00:00 UTC', current: '2026-12-01 10:05:00 UTC' },
      reviewers: {
        previous: [{ id: 7, username: 'reviewer', state: previous }],
        current: [{ id: 7, username: 'reviewer', state: current }],
      },
      ...extraChanges,
    };
    return p;
  }

  test('F1: a reviewer whose state becomes requested_changes is a changes-requested review, standing read later', () => {
    const e = eventOf(
      classifyGitlabDelivery('Merge Request Hook', reviewSubmitted('unreviewed', 'requested_changes'), 'k'),
    );
    assert.equal(e.kind, 'review.submitted');
    const r = e as Extract<Event, { kind: 'review.submitted' }>;
    assert.equal(r.state, 'changes_requested');
    assert.equal(r.author, 'reviewer');
    assert.equal(r.reviewId, 7);
    assert.equal(r.authorAssociation, null);
    assert.equal(r.headSha, fixture('merge-request-hook').object_attributes.last_commit.id);
  });

  test('F1: a reviewer already at requested_changes, an approval, or an update with other changes is no new review', () => {
    for (const p of [
      reviewSubmitted('requested_changes', 'requested_changes'),
      reviewSubmitted('unreviewed', 'approved'),
      reviewSubmitted('unreviewed', 'requested_changes', { labels: { previous: [], current: [] } }),
    ])
      assert.equal(eventOf(classifyGitlabDelivery('Merge Request Hook', p, 'k')).kind, 'pr.changed');
  });

  test('B5: the documented example opens merge request !1 with its own head, last_commit', () => {
    const e = eventOf(classifyGitlabDelivery('Merge Request Hook', fixture('merge-request-hook'), 'key-1'));
    assert.deepEqual(e, {
      kind: 'pr.changed',
      identity: 'delivery:Merge Request Hook:key-1',
      repository: 'gitlabhq/gitlab-test',
      number: 1,
      action: 'opened',
      prState: 'open',
      headSha: 'da1560886d4f094c3e6c9ef40349f7d38b5d27d7',
      before: null,
      branch: 'ms-viewport',
      fork: false,
      updatedAt: '2013-12-03T17:23:34.000Z',
      author: 'root',
      draft: false,
      headRepository: 'awesome_space/awesome_project',
      labels: ['API'],
      baseRef: 'master',
      // Issue 36: the documented example's detailed_merge_status, read as the head's merge state.
      mergeableState: 'mergeable',
    });
  });

  test('B1: a push (update with oldrev) is a synchronize from that head; a merge closes it as merged', () => {
    const p = fixture('merge-request-hook');
    const push = { ...p, object_attributes: { ...p.object_attributes, action: 'update', oldrev: 'a'.repeat(40) } };
    const pushed = eventOf(classifyGitlabDelivery('Merge Request Hook', push, 'k')) as PullRequestChange;
    assert.deepEqual([pushed.action, pushed.before, pushed.author], ['synchronize', 'a'.repeat(40), null]);
    const merge = { ...p, object_attributes: { ...p.object_attributes, action: 'merge', state: 'merged' } };
    const merged = eventOf(classifyGitlabDelivery('Merge Request Hook', merge, 'k')) as PullRequestChange;
    assert.deepEqual([merged.action, merged.prState], ['closed', 'merged']);
    // The example's changes mark it ready (draft true → false): without new code, an update is that.
    const ready = { ...p, object_attributes: { ...p.object_attributes, action: 'update' } };
    assert.equal(
      (eventOf(classifyGitlabDelivery('Merge Request Hook', ready, 'k')) as PullRequestChange).action,
      'ready_for_review',
    );
  });

  test('A3: a redelivery with the same Idempotency-Key is the same identity; another delivery is not', () => {
    const p = fixture('merge-request-hook');
    const a = eventOf(classifyGitlabDelivery('Merge Request Hook', p, 'key-1')).identity;
    assert.equal(eventOf(classifyGitlabDelivery('Merge Request Hook', p, 'key-1')).identity, a);
    assert.notEqual(eventOf(classifyGitlabDelivery('Merge Request Hook', p, 'key-2')).identity, a);
  });
});

describe('Note Hook', () => {
  test('F2: a note on a merge request rings as a comment, with no standing (the hook carries no access level)', () => {
    const e = eventOf(classifyGitlabDelivery('Note Hook', fixture('note-hook-merge-request'), 'k')) as CommentRang;
    assert.equal(e.kind, 'comment');
    assert.equal(e.repository, 'gitlab-org/gitlab-test');
    assert.equal(e.number, 1);
    assert.equal(e.action, 'created');
    assert.equal(e.author, 'root');
    assert.equal(e.authorAssociation, null);
    assert.equal(e.createdAt, '2015-05-17T18:21:36.000Z');
    assert.equal(e.command, null);
  });

  test('P1: a `/fixloop` command on the first line of the note is read', () => {
    const p = fixture('note-hook-merge-request');
    const body = { ...p, object_attributes: { ...p.object_attributes, note: '/fixloop retry' } };
    assert.equal((eventOf(classifyGitlabDelivery('Note Hook', body, 'k')) as CommentRang).command, 'retry');
  });

  test('a note on an issue, and a system note, are ignored', () => {
    assert.equal(classifyGitlabDelivery('Note Hook', fixture('note-hook-issue'), 'k').kind, 'ignored');
    const p = fixture('note-hook-merge-request');
    const system = { ...p, object_attributes: { ...p.object_attributes, system: true } };
    assert.deepEqual(classifyGitlabDelivery('Note Hook', system, 'k'), {
      kind: 'ignored',
      reason: 'not_actionable_event',
      identity: 'delivery:Note Hook:k',
      repository: 'gitlab-org/gitlab-test',
    });
  });
});

describe('the edge', () => {
  test('an event fixloop does not handle is unknown; a body of another event is a shape mismatch', () => {
    assert.deepEqual(classifyGitlabDelivery('Push Hook', { object_kind: 'push' }, 'k'), { kind: 'unknown_event' });
    const c = classifyGitlabDelivery('Job Hook', fixture('pipeline-hook'), 'k');
    assert.equal(c.kind, 'rejected');
  });

  test('a stored GitLab delivery classifies the same through the host registry (sweep, head checks)', () => {
    const hosts = builtInHosts();
    assert.deepEqual(hosts.classify('Job Hook', job(), 'k1'), classifyGitlabDelivery('Job Hook', job(), 'k1'));
    assert.deepEqual(hosts.classify('Push Hook', {}, 'k1'), { kind: 'unknown_event' });
  });

  test("GitLab's two ways of writing a time read as one instant; anything else is no time", () => {
    assert.equal(gitlabTime('2016-08-12 15:26:29 UTC'), '2016-08-12T15:26:29.000Z');
    assert.equal(gitlabTime('2021-02-23T02:41:37.886Z'), '2021-02-23T02:41:37.886Z');
    assert.equal(gitlabTime('2021-04-28 21:50:00 +0200'), '2021-04-28T19:50:00.000Z');
    assert.equal(gitlabTime('soon'), null);
    assert.equal(gitlabTime(null), null);
  });
});

test("T6: a head's stored GitLab jobs are its matrix, and a red job is its newest red", () => {
  const stored = [
    job({ build_id: 1, build_name: 'lint', build_status: 'success' }),
    job({ build_id: 2, build_name: 'unit' }),
    job({ build_id: 3, build_name: 'e2e', build_allow_failure: true }),
  ].map((body, i) => ({
    id: i + 1,
    eventName: 'Job Hook',
    deliveryId: `k${i}`,
    payload: JSON.stringify(body),
    receivedAt: '2026-12-01T10:00:00Z',
  }));
  const h = headChecksOf(stored, builtInHosts().classify);
  assert.deepEqual(
    h.checks.map((c) => [c.name, c.verdict]),
    [
      ['lint', 'green'],
      ['unit', 'red'],
      ['e2e', 'inconclusive'],
    ],
  );
  assert.equal(h.newestRed?.eventId, 2);
  assert.deepEqual(h.redCheckRunIds, [], 'a GitLab job is no GitHub check run to re-run');
});
