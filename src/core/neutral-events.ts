// The neutral events the core reads, whichever host sent them (SPEC Q1, issue 34): a completed CI
// result, a pull request's change, a submitted review, a comment. Each host's classifier produces them.
import type { Verdict } from './verdict.js';
import type { CommentCommand } from './comment-command.js';
import type { MergeQueueContext, QueueEjection } from './merge-queue.js';

export type CiKind = 'run' | 'suite' | 'workflow' | 'status';

/** A pull request's head as the delivery itself reports it (B5). */
export interface HeadPointer {
  number: number;
  headSha: string;
  fork: boolean;
  /**
   * B5 on GitLab: the hook named the merge request but not its head, so `headSha` is only the
   * result's own commit; the evaluator asks the host for the merge request's head before judging.
   */
  unconfirmed?: true;
}

/** A completed CI result: a `ci.result` event (A3, A5), from any host (Q1); `source` names the host. */
export interface CheckResult {
  source: string; // the host's name in the host registry
  kind: 'ci.result';
  ciKind: CiKind;
  identity: string;
  repository: string; // lower-case owner/name
  sha: string;
  name: string;
  conclusion: string | null;
  verdict: Verdict;
  completedAt: string | null; // ISO-8601, or null when the delivery carries no usable time
  pointers: HeadPointer[];
  fork: boolean; // the delivery itself says the head lives in another repository
  branch: string | null;
  output: string; // the only failing text a webhook carries (title, summary, text)
  url: string | null;
  /** Issue 36: the result is of a merge queue's commit built for one pull request, not of its head. */
  queue?: MergeQueueContext;
}

export interface PullRequestChange {
  kind: 'pr.changed';
  identity: string;
  repository: string;
  number: number;
  action: string;
  prState: 'open' | 'merged' | 'closed';
  headSha: string;
  /** synchronize only: the head this push replaced, which orders the move with no clock (B1). */
  before: string | null;
  branch: string;
  fork: boolean;
  updatedAt: string | null;
  author: string | null;
  draft: boolean;
  headRepository: string | null; // lower-case owner/name; null when the head repository is gone
  /** The pull request's labels as the event shows them (`fixloop:skip`, skip-label.ts). */
  labels: string[];
  /** The branch it merges into (T1: the base whose checks triage reads). */
  baseRef: string | null;
  /**
   * Issue 36: the host's merge state of the head as the event reports it (GitHub's mergeable_state,
   * GitLab's detailed_merge_status; core/branch-sync.ts reads both); absent or null when not said.
   */
  mergeableState?: string | null;
  /** Issue 36: the merge queue let it go (action `dequeued`), and why. */
  dequeued?: QueueEjection;
}

export interface ReviewSubmitted {
  kind: 'review.submitted';
  identity: string;
  repository: string;
  number: number;
  reviewId: number;
  state: string; // changes_requested, approved, commented, dismissed
  body: string;
  author: string | null;
  authorType: string | null;
  authorAssociation: string | null; // F1: standing (standing.ts)
  headSha: string;
  submittedAt: string | null;
  /**
   * The host sent the review's state without its text (GitLab): what the reviewer wrote is read from
   * the host's comments when the review is evaluated (core/review-text.ts); `body` is then empty.
   */
  textUnsent?: true;
}

/**
 * Issue 36 item 1: a merge queue built a commit for one pull request on top of a parent commit — the
 * base's, or the commit it built for the pull request ahead — or merged that commit into the base. Kept
 * so a red of a later queue commit can name the pull requests merged ahead of it (core/queue-ahead.ts);
 * nothing is evaluated for it.
 */
export interface QueueGroupBuilt {
  kind: 'queue.group';
  identity: string;
  repository: string;
  /** The queue's commit, whose checks run next. */
  headSha: string;
  /** The commit it was built on. */
  parentSha: string;
  /** The pull request it was built for. */
  pullRequest: number;
  /** The queue merged this commit into the base (the base's head is now this commit). */
  merged?: true;
}

export interface CommentRang {
  kind: 'comment';
  identity: string;
  repository: string;
  number: number;
  action: string;
  author: string | null;
  authorType: string | null;
  authorAssociation: string | null; // F2: standing (standing.ts)
  createdAt: string | null;
  /** `/fixloop off|on|retry|status` on the comment's first line (comment-command.ts); null for none. */
  command: CommentCommand | null;
}

export type Classification =
  | { kind: 'unknown_event' } // acknowledged, nothing stored
  | { kind: 'rejected'; reason: 'shape_mismatch'; detail: string }
  | {
      kind: 'ignored';
      reason: 'ping' | 'installation' | 'not_actionable_event' | 'own_status';
      identity: string;
      repository: string | null;
    }
  | { kind: 'dropped'; reason: 'not_completed'; identity: string; repository: string }
  | { kind: 'event'; event: LoopEvent };

/** Every event a delivery can become, stored and then evaluated in arrival order. */
export type LoopEvent = CheckResult | PullRequestChange | ReviewSubmitted | CommentRang | QueueGroupBuilt;

/**
 * How a delivery reads as neutral events, given its event name, parsed body and delivery id: the
 * host registry's (app/hosts.ts), which hands it to the host that owns the event name. Pure.
 */
export type ClassifyDelivery = (eventName: string, body: unknown, deliveryId: string) => Classification;
