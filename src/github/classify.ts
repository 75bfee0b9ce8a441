// Classify one verified delivery: what it is, its identity, and whether it is kept (SPEC A2–A4, B3).
// Pure: takes the event name, the parsed body and the delivery GUID; returns a value, never throws.
import { isOwnStatusContext } from '../core/commit-status.js';
import { shapeMismatch } from '../core/shape-mismatch.js';
import { ciIdentity, deliveryIdentity } from '../core/identity.js';
import { boundCheckName } from '../core/bounded-text.js';
import {
  HANDLED_EVENTS,
  isHandledEvent,
  type checkRunPayload,
  type checkSuitePayload,
  type statusPayload,
  type workflowRunPayload,
  type pullRequestPayload,
  type pullRequestReviewPayload,
  type mergeGroupPayload,
} from './payloads.js';
import { NOT_COMPLETED_STATUSES, verdictOfConclusion, verdictOfStatusState, type Verdict } from '../core/verdict.js';
import type { z } from 'zod';
import { commentCommand, type CommentCommand } from '../core/comment-command.js';
import { ejectionOf, queueOfBranch } from './merge-queue.js';

export type {
  CiKind,
  HeadPointer,
  CheckResult,
  PullRequestChange,
  ReviewSubmitted,
  CommentRang,
  Classification,
} from '../core/neutral-events.js';
import type { MergeQueueContext } from '../core/merge-queue.js';
import type {
  CiKind,
  HeadPointer,
  CheckResult,
  PullRequestChange,
  ReviewSubmitted,
  CommentRang,
  Classification,
} from '../core/neutral-events.js';

export function classifyDelivery(eventName: string, body: unknown, deliveryId: string): Classification {
  if (!isHandledEvent(eventName)) return { kind: 'unknown_event' };
  const parsed = HANDLED_EVENTS[eventName].safeParse(body);
  if (!parsed.success) return shapeMismatch(eventName, parsed.error);
  const p = parsed.data as never;
  switch (eventName) {
    case 'check_run':
      return fromCheckRun(p);
    case 'check_suite':
      return fromCheckSuite(p);
    case 'workflow_run':
      return fromWorkflowRun(p);
    case 'status':
      return fromStatus(p);
    case 'pull_request':
      return fromPullRequest(p, deliveryId);
    case 'merge_group':
      return fromMergeGroup(p, deliveryId);
    case 'pull_request_review':
      return fromReview(p, deliveryId);
    case 'pull_request_review_comment':
    case 'issue_comment':
      return fromComment(eventName, p, deliveryId);
    case 'ping':
      return { kind: 'ignored', reason: 'ping', identity: deliveryIdentity(eventName, deliveryId), repository: null };
    case 'installation':
    case 'installation_repositories':
      return {
        kind: 'ignored',
        reason: 'installation',
        identity: deliveryIdentity(eventName, deliveryId),
        repository: null,
      };
  }
}

/** ISO-8601 normalised, or null when absent or unparseable (never "now": B5). */
export function usableTime(value: string | null | undefined): string | null {
  if (!value) return null;
  const ms = Date.parse(value);
  return Number.isFinite(ms) ? new Date(ms).toISOString() : null;
}

function lower(name: string): string {
  return name.toLowerCase();
}

type Pointer = z.infer<typeof checkRunPayload>['check_run']['pull_requests'][number];

function pointersOf(prs: Pointer[]): HeadPointer[] {
  return prs.map((pr) => ({
    number: pr.number,
    headSha: pr.head.sha,
    fork: pr.head.repo?.id != null && pr.base.repo?.id != null && pr.head.repo.id !== pr.base.repo.id,
  }));
}

/**
 * Issue 36: a result on the merge queue's branch, pointing at no pull request, is of the queue's
 * commit built for the pull request its branch names.
 */
function queueOf(branch: string | null | undefined, pointers: HeadPointer[]): { queue?: MergeQueueContext } {
  const queue = pointers.length === 0 ? queueOfBranch(branch) : null;
  return queue ? { queue } : {};
}

function outputText(
  o: { title?: string | null; summary?: string | null; text?: string | null } | null | undefined,
): string {
  if (!o) return '';
  return [o.title, o.summary, o.text].filter((s): s is string => typeof s === 'string' && s.length > 0).join('\n\n');
}

function fromCheckRun(p: z.infer<typeof checkRunPayload>): Classification {
  const r = p.check_run;
  const repository = lower(p.repository.full_name);
  const identity = ciIdentity({
    kind: 'run',
    repository,
    sha: r.head_sha,
    id: r.id,
    status: r.status,
    conclusion: r.conclusion ?? null,
  });
  if (r.status !== 'completed') return { kind: 'dropped', reason: 'not_completed', identity, repository };
  const pointers = pointersOf(r.pull_requests);
  return {
    kind: 'event',
    event: {
      source: 'github',
      kind: 'ci.result',
      ciKind: 'run',
      identity,
      repository,
      sha: r.head_sha,
      name: boundCheckName(r.name),
      conclusion: r.conclusion ?? null,
      verdict: verdictOfConclusion(r.conclusion),
      completedAt: usableTime(r.completed_at),
      pointers,
      fork: pointers.some((x) => x.fork),
      branch: r.check_suite?.head_branch ?? null,
      output: outputText(r.output),
      url: r.html_url ?? r.details_url ?? null,
      ...queueOf(r.check_suite?.head_branch, pointers),
    },
  };
}

function fromCheckSuite(p: z.infer<typeof checkSuitePayload>): Classification {
  const s = p.check_suite;
  const repository = lower(p.repository.full_name);
  const status = s.status ?? 'unknown';
  const identity = ciIdentity({
    kind: 'suite',
    repository,
    sha: s.head_sha,
    id: s.id,
    status,
    conclusion: s.conclusion ?? null,
  });
  if (status !== 'completed') return { kind: 'dropped', reason: 'not_completed', identity, repository };
  const pointers = pointersOf(s.pull_requests);
  return {
    kind: 'event',
    event: {
      source: 'github',
      kind: 'ci.result',
      ciKind: 'suite',
      identity,
      repository,
      sha: s.head_sha,
      name: `suite:${s.app?.slug ?? s.app?.name ?? s.id}`,
      conclusion: s.conclusion ?? null,
      verdict: verdictOfConclusion(s.conclusion),
      completedAt: usableTime(s.updated_at),
      pointers,
      fork: pointers.some((x) => x.fork),
      branch: s.head_branch ?? null,
      output: '', // a suite carries the aggregate verdict only
      url: null,
      ...queueOf(s.head_branch, pointers),
    },
  };
}

function fromWorkflowRun(p: z.infer<typeof workflowRunPayload>): Classification {
  const w = p.workflow_run;
  const repository = lower(p.repository.full_name);
  const status = w.status ?? 'unknown';
  const identity = ciIdentity({
    kind: 'workflow',
    repository,
    sha: w.head_sha,
    id: w.id,
    attempt: w.run_attempt ?? 1,
    status,
    conclusion: w.conclusion ?? null,
  });
  if (status !== 'completed') return { kind: 'dropped', reason: 'not_completed', identity, repository };
  const pointers = pointersOf(w.pull_requests);
  const headRepo = w.head_repository?.full_name;
  return {
    kind: 'event',
    event: {
      source: 'github',
      kind: 'ci.result',
      ciKind: 'workflow',
      identity,
      repository,
      sha: w.head_sha,
      name: boundCheckName(`workflow:${w.name || w.id}`),
      conclusion: w.conclusion ?? null,
      verdict: verdictOfConclusion(w.conclusion),
      completedAt: usableTime(w.updated_at),
      pointers,
      fork: pointers.some((x) => x.fork) || (headRepo != null && lower(headRepo) !== repository),
      branch: w.head_branch ?? null,
      output: '',
      url: w.html_url ?? null,
      ...queueOf(w.head_branch, pointers),
    },
  };
}

function fromStatus(p: z.infer<typeof statusPayload>): Classification {
  const repository = lower(p.repository.full_name);
  const identity = ciIdentity({ kind: 'status', repository, sha: p.sha, context: p.context, state: p.state });
  // P3: the `fixloop` status is fixloop's own report of the loop, never a CI result that could ring it.
  if (isOwnStatusContext(p.context)) return { kind: 'ignored', reason: 'own_status', identity, repository };
  if (NOT_COMPLETED_STATUSES.has(p.state)) return { kind: 'dropped', reason: 'not_completed', identity, repository };
  const branches = p.branches ?? [];
  return {
    kind: 'event',
    event: {
      source: 'github',
      kind: 'ci.result',
      ciKind: 'status',
      identity,
      repository,
      sha: p.sha,
      name: boundCheckName(p.context),
      conclusion: p.state,
      verdict: verdictOfStatusState(p.state),
      completedAt: usableTime(p.updated_at),
      pointers: [], // a commit status never says where a pull request's head is
      fork: false,
      branch: branches.length === 1 ? branches[0]!.name : null,
      output: p.description ?? '',
      url: p.target_url ?? null,
      ...queueOf(branches.length === 1 ? branches[0]!.name : null, []),
    },
  };
}

function fromPullRequest(p: z.infer<typeof pullRequestPayload>, deliveryId: string): Classification {
  const pr = p.pull_request;
  const repository = lower(p.repository.full_name);
  const prState = pr.merged ? 'merged' : pr.state === 'closed' ? 'closed' : 'open';
  return {
    kind: 'event',
    event: {
      kind: 'pr.changed',
      identity: deliveryIdentity('pull_request', deliveryId),
      repository,
      number: pr.number,
      action: p.action,
      prState,
      headSha: pr.head.sha,
      before: p.action === 'synchronize' ? (p.before ?? null) : null,
      branch: pr.head.ref,
      fork: pr.head.repo == null || pr.head.repo.id !== pr.base.repo.id,
      updatedAt: usableTime(pr.updated_at),
      author: pr.user?.login ?? null,
      draft: pr.draft ?? false,
      headRepository: pr.head.repo ? lower(pr.head.repo.full_name) : null,
      labels: (pr.labels ?? []).map((l) => l.name),
      baseRef: pr.base.ref,
      ...(pr.mergeable_state ? { mergeableState: pr.mergeable_state } : {}),
      ...(p.action === 'dequeued' ? { dequeued: ejectionOf(p.reason) } : {}),
    },
  };
}

/**
 * Issue 36: a commit the merge queue built for a pull request on top of its parent (the base's head, or
 * the commit built for the pull request ahead), and the same commit once merged into the base, kept so
 * a later red of the queue can name the pull requests merged ahead (core/queue-ahead.ts). A group let
 * go for any other reason (invalidated, dequeued) carries nothing to keep.
 */
function fromMergeGroup(p: z.infer<typeof mergeGroupPayload>, deliveryId: string): Classification {
  const repository = lower(p.repository.full_name);
  const identity = deliveryIdentity('merge_group', deliveryId);
  const queue = queueOfBranch(p.merge_group.head_ref);
  const sha = /^[0-9a-f]{40}$/;
  const merged = p.action === 'destroyed' && p.reason === 'merged';
  if (
    (p.action !== 'checks_requested' && !merged) ||
    !queue ||
    !sha.test(p.merge_group.head_sha) ||
    !sha.test(p.merge_group.base_sha)
  )
    return { kind: 'ignored', reason: 'not_actionable_event', identity, repository };
  return {
    kind: 'event',
    event: {
      kind: 'queue.group',
      identity,
      repository,
      headSha: p.merge_group.head_sha,
      parentSha: p.merge_group.base_sha,
      pullRequest: queue.pullRequest,
      ...(merged ? { merged: true as const } : {}),
    },
  };
}

function fromReview(p: z.infer<typeof pullRequestReviewPayload>, deliveryId: string): Classification {
  return {
    kind: 'event',
    event: {
      kind: 'review.submitted',
      identity: deliveryIdentity('pull_request_review', deliveryId),
      repository: lower(p.repository.full_name),
      number: p.pull_request.number,
      reviewId: p.review.id,
      state: p.review.state.toLowerCase(),
      body: p.review.body ?? '',
      author: p.review.user?.login ?? null,
      authorType: p.review.user?.type ?? null,
      authorAssociation: p.review.author_association ?? null,
      headSha: p.pull_request.head.sha,
      submittedAt: usableTime(p.review.submitted_at),
    },
  };
}

function fromComment(
  eventName: 'issue_comment' | 'pull_request_review_comment',
  p: {
    action: string;
    repository: { full_name: string };
    comment: {
      user: { login: string; type?: string | undefined } | null;
      author_association?: string | null | undefined;
      created_at?: string | null | undefined;
      body?: string | null | undefined;
    };
    issue?: { number: number; pull_request?: unknown };
    pull_request?: { number: number };
  },
  deliveryId: string,
): Classification {
  const repository = lower(p.repository.full_name);
  const number = p.pull_request?.number ?? p.issue?.number;
  const onPullRequest = eventName === 'pull_request_review_comment' || p.issue?.pull_request != null;
  if (!onPullRequest || number == null) {
    return {
      kind: 'ignored',
      reason: 'not_actionable_event',
      identity: deliveryIdentity(eventName, deliveryId),
      repository,
    };
  }
  return {
    kind: 'event',
    event: {
      kind: 'comment',
      identity: deliveryIdentity(eventName, deliveryId),
      repository,
      number,
      action: p.action,
      author: p.comment.user?.login ?? null,
      authorType: p.comment.user?.type ?? null,
      authorAssociation: p.comment.author_association ?? null,
      createdAt: usableTime(p.comment.created_at),
      // A command only from a comment on the conversation (issue_comment), not one on a diff line.
      command: eventName === 'issue_comment' ? commentCommand(p.comment.body) : null,
    },
  };
}
