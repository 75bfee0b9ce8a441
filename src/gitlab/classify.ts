// Classify one verified GitLab webhook into the provider-neutral events the gate evaluates (issue 19,
// SPEC Q1 with A2–A4, B3, B5, F2): Job and Pipeline hooks become CI results, a Merge Request hook a
// pull-request change, a Note on a merge request a comment. Pure: the event name, the parsed body and
// the delivery's id (its Idempotency-Key) in, a value out; never throws. Decision 0032.
import type { Classification, CheckResult, HeadPointer } from '../core/neutral-events.js';
import type { MergeQueueContext } from '../core/merge-queue.js';
import { ciIdentity, deliveryIdentity } from '../core/identity.js';
import { shapeMismatch } from '../core/shape-mismatch.js';
import { boundCheckName } from '../core/bounded-text.js';
import { commentCommand } from '../core/comment-command.js';
import type { Verdict } from '../core/verdict.js';
import {
  GITLAB_EVENTS,
  isGitlabEvent,
  type gitlabJobPayload,
  type gitlabMergeRequestPayload,
  type gitlabNotePayload,
  type gitlabPipelinePayload,
} from './payloads.js';
import type { z } from 'zod';

/** A job or pipeline in one of these has finished; any other status (created, running, manual, …) has not (A4). */
const FINISHED: ReadonlySet<string> = new Set(['success', 'failed', 'canceled', 'skipped']);

/**
 * B3 for GitLab: `failed` is red unless the job may fail (GitLab shows the pipeline passed, with a
 * warning); `canceled` and `skipped` are not red; `success` is green.
 */
export function verdictOfGitlabStatus(status: string, allowFailure: boolean): Verdict {
  if (status === 'success') return 'green';
  if (status === 'failed') return allowFailure ? 'inconclusive' : 'red';
  if (status === 'canceled' || status === 'skipped') return 'inconclusive';
  return 'unsettled';
}

/**
 * GitLab writes times as ISO-8601 or as `2016-08-12 15:26:29 UTC`; either becomes ISO-8601, and
 * anything else null (never "now": B5).
 */
export function gitlabTime(value: string | null | undefined): string | null {
  if (!value) return null;
  const m = /^(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2}(?:\.\d+)?) UTC$/.exec(value.trim());
  const ms = Date.parse(m ? `${m[1]}T${m[2]}Z` : value);
  return Number.isFinite(ms) ? new Date(ms).toISOString() : null;
}

/** The merge request a ref names (`refs/merge-requests/<iid>/head|merge|train`), and which of the three. */
function mergeRequestRef(ref: string): { iid: number; kind: string } | null {
  const m = /^refs\/merge-requests\/(\d+)\/(head|merge|train)$/.exec(ref);
  return m ? { iid: Number(m[1]), kind: m[2]! } : null;
}

export function classifyGitlabDelivery(eventName: string, body: unknown, deliveryId: string): Classification {
  if (!isGitlabEvent(eventName)) return { kind: 'unknown_event' };
  const parsed = GITLAB_EVENTS[eventName].safeParse(body);
  if (!parsed.success) return shapeMismatch(eventName, parsed.error);
  const p = parsed.data as never;
  switch (eventName) {
    case 'Job Hook':
      return fromJob(p);
    case 'Pipeline Hook':
      return fromPipeline(p);
    case 'Merge Request Hook':
      return fromMergeRequest(p, deliveryId);
    case 'Note Hook':
      return fromNote(p, deliveryId);
  }
}

function repositoryOf(p: { project: { path_with_namespace: string } }): string {
  return p.project.path_with_namespace.toLowerCase();
}

/**
 * What a CI hook says of the merge request it ran for. GitLab's documented Job and Pipeline hooks
 * name the merge request but never its current head, so the pointer carries the commit the pipeline
 * ran for, marked unconfirmed: it finds the Task by number, and the evaluator reads the merge
 * request's own head from GitLab before B5 judges (decision 0034). A merged-results or merge-train
 * commit is never the merge request's head: no pointer, no branch.
 */
function placement(
  sha: string,
  ref: string,
  tag: boolean,
  mr: {
    iid: number;
    source_branch?: string;
    target_branch?: string | undefined;
    source_project_id?: number | undefined;
    target_project_id?: number | undefined;
  } | null,
  cancelled = false,
): { pointers: HeadPointer[]; branch: string | null; fork: boolean; queue?: MergeQueueContext } {
  const fork =
    mr?.source_project_id != null && mr.target_project_id != null && mr.source_project_id !== mr.target_project_id;
  const byRef = mergeRequestRef(ref);
  // Issue 36: a merge train's commit is the merge request's red combined with the train; the hook
  // names neither the head it was built from nor the merge requests ahead of it.
  if (byRef?.kind === 'train')
    return {
      pointers: [],
      branch: null,
      fork,
      queue: {
        baseRef: mr?.target_branch ?? null,
        pullRequest: byRef.iid,
        headSha: null,
        others: null,
        // Decision 0075: a train pipeline cancelled, no job failing: the merge request may have left the
        // train for a reason only its system notes say (GitLab's hooks do not).
        ...(cancelled ? { cancelled: true } : {}),
      },
    };
  if (byRef && byRef.kind !== 'head') return { pointers: [], branch: null, fork };
  const iid = mr?.iid ?? byRef?.iid ?? null;
  const pointers: HeadPointer[] = iid === null ? [] : [{ number: iid, headSha: sha, fork, unconfirmed: true }];
  const branch = mr?.source_branch ?? (byRef || tag ? null : ref);
  return { pointers, branch, fork };
}

function fromJob(p: z.infer<typeof gitlabJobPayload>): Classification {
  const repository = repositoryOf(p);
  const status = p.build_status;
  const identity = ciIdentity({ kind: 'job', repository, sha: p.sha, id: p.build_id, status });
  // A manual job waits for a person; like running or pending, it has no verdict yet (A4).
  if (!FINISHED.has(status)) return { kind: 'dropped', reason: 'not_completed', identity, repository };
  const allowFailure = p.build_allow_failure ?? false;
  return {
    kind: 'event',
    event: {
      ...ciCommon(repository, identity, p.sha),
      ciKind: 'run',
      // The name alone, as the poll reads it and as a pipeline's jobs are unique by (decision 0034).
      name: boundCheckName(p.build_name),
      conclusion: status === 'failed' && allowFailure ? 'failed_allowed' : status,
      verdict: verdictOfGitlabStatus(status, allowFailure),
      completedAt: gitlabTime(p.build_finished_at),
      ...placement(p.sha, p.ref, p.tag ?? false, null),
      // A Job hook carries no log: the trace is read later (J1/J2 for GitLab, not yet). An empty
      // output is degraded evidence, never "the same failure again" (T5).
      output: '',
      url: null,
    },
  };
}

function fromPipeline(p: z.infer<typeof gitlabPipelinePayload>): Classification {
  const a = p.object_attributes;
  const repository = repositoryOf(p);
  const identity = ciIdentity({ kind: 'pipeline', repository, sha: a.sha, id: a.id, status: a.status });
  if (!FINISHED.has(a.status)) return { kind: 'dropped', reason: 'not_completed', identity, repository };
  return {
    kind: 'event',
    event: {
      ...ciCommon(repository, identity, a.sha),
      // A pipeline sums up its jobs, as a workflow run does: it carries no output of its own.
      ciKind: 'workflow',
      name: boundCheckName(`pipeline:${a.name || a.id}`),
      conclusion: a.status,
      verdict: verdictOfGitlabStatus(a.status, false),
      completedAt: gitlabTime(a.finished_at),
      ...placement(a.sha, a.ref, a.tag ?? false, p.merge_request ?? null, a.status === 'canceled'),
      output: '',
      url: a.url ?? null,
    },
  };
}

function ciCommon(repository: string, identity: string, sha: string) {
  return { source: 'gitlab', kind: 'ci.result', identity, repository, sha } as const satisfies Partial<CheckResult>;
}

/** GitLab's merge request actions, as the gate knows them from GitHub's `pull_request` (adoption, B1). */
function actionOf(p: z.infer<typeof gitlabMergeRequestPayload>): string {
  const a = p.object_attributes;
  switch (a.action) {
    case 'open':
      return 'opened';
    case 'reopen':
      return 'reopened';
    case 'close':
    case 'merge':
      return 'closed';
    case 'update':
      if (a.oldrev) return 'synchronize';
      if (p.changes?.draft?.previous === true && p.changes.draft.current === false) return 'ready_for_review';
      return 'edited';
    default:
      return a.action ?? 'edited';
  }
}

/**
 * F1 on GitLab: a reviewer who submits a review with "Request changes" is announced as an `update`
 * whose only change is the reviewers' states. The hook carries no review text (a summary arrives as a
 * separate note): the gate reads what the reviewer wrote from the merge request's discussions.
 */
function reviewerRequestedChanges(p: z.infer<typeof gitlabMergeRequestPayload>) {
  const r = p.changes?.reviewers;
  if (p.object_attributes.action !== 'update' || p.object_attributes.oldrev || !r?.current) return null;
  const others = Object.keys(p.changes ?? {}).filter((k) => !['reviewers', 'updated_at', 'updated_by_id'].includes(k));
  if (others.length > 0) return null;
  const before = new Map((r.previous ?? []).map((x) => [x.id, x.state]));
  return r.current.find((x) => x.state === 'requested_changes' && before.get(x.id) !== 'requested_changes') ?? null;
}

function fromMergeRequest(p: z.infer<typeof gitlabMergeRequestPayload>, deliveryId: string): Classification {
  const a = p.object_attributes;
  const requested = reviewerRequestedChanges(p);
  if (requested)
    return {
      kind: 'event',
      event: {
        kind: 'review.submitted',
        identity: deliveryIdentity('Merge Request Hook', deliveryId),
        repository: repositoryOf(p),
        number: a.iid,
        reviewId: requested.id,
        state: 'changes_requested',
        // GitLab sends the state alone: the reviewer's words are read from its discussions (decision 0079).
        body: '',
        textUnsent: true,
        author: requested.username,
        authorType: 'User',
        // F1: GitLab's standing is the member access level, read when the review is evaluated.
        authorAssociation: null,
        headSha: a.last_commit.id,
        submittedAt: gitlabTime(a.updated_at),
      },
    };
  const action = actionOf(p);
  const fork =
    a.source_project_id != null && a.target_project_id != null && a.source_project_id !== a.target_project_id;
  return {
    kind: 'event',
    event: {
      kind: 'pr.changed',
      identity: deliveryIdentity('Merge Request Hook', deliveryId),
      repository: repositoryOf(p),
      number: a.iid,
      action,
      prState: a.state === 'merged' ? 'merged' : a.state === 'closed' ? 'closed' : 'open',
      // B5: the merge request's own head, as the event reports it.
      headSha: a.last_commit.id,
      before: action === 'synchronize' ? (a.oldrev ?? null) : null,
      branch: a.source_branch,
      fork,
      updatedAt: gitlabTime(a.updated_at),
      // The hook names who acted, and the author only by id: the actor is the author when it opened it.
      author: a.action === 'open' ? (p.user?.username ?? null) : null,
      draft: a.draft ?? a.work_in_progress ?? false,
      headRepository: a.source ? a.source.path_with_namespace.toLowerCase() : null,
      labels: (a.labels ?? p.labels ?? []).map((l) => l.title),
      baseRef: a.target_branch ?? null,
      ...(a.detailed_merge_status ? { mergeableState: a.detailed_merge_status } : {}),
    },
  };
}

function fromNote(p: z.infer<typeof gitlabNotePayload>, deliveryId: string): Classification {
  const n = p.object_attributes;
  const repository = repositoryOf(p);
  const identity = deliveryIdentity('Note Hook', deliveryId);
  // A note on a commit, an issue or a snippet, and GitLab's own system notes, steer nothing.
  if (n.noteable_type !== 'MergeRequest' || !p.merge_request || n.system === true)
    return { kind: 'ignored', reason: 'not_actionable_event', identity, repository };
  return {
    kind: 'event',
    event: {
      kind: 'comment',
      identity,
      repository,
      number: p.merge_request.iid,
      action: n.action === 'update' ? 'edited' : 'created',
      author: p.user?.username ?? null,
      authorType: 'User',
      // F1/F2: standing is GitLab's member access level, which the Note hook does not carry: the
      // evaluator reads it from GitLab (decision 0034); unreadable, the author has no standing.
      authorAssociation: null,
      createdAt: gitlabTime(n.created_at),
      command: commentCommand(n.note),
    },
  };
}
