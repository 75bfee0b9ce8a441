// Reviewer rejections and the comment doorbell (SPEC F1, F2). A review requesting changes, or an
// allow-listed reviewer bot's finding, becomes a durable rejection; a comment is only a doorbell for
// an existing rejection row, and the row it rings for is checked: only authors with standing ring
// (standing.ts), a `gate` row is never cashed in by a comment, same pull request, under a week old,
// its own author still with standing, unconsumed.
import type { RejectionSource } from './types.js';
import { standingOf, type Author, type HostAnswer, type StandingRules } from './standing.js';

/** F2: a row a comment rings for must be younger than this (7 days). */
export const DOORBELL_MAX_AGE_MS = 7 * 24 * 60 * 60 * 1000;

/** An instant: ISO-8601 text or epoch milliseconds. */
export type Instant = string | number;

/** The fields of a review read here, as classify.ts reports them. */
export interface ReviewLike {
  id: number;
  state: string; // APPROVED | CHANGES_REQUESTED | COMMENTED | DISMISSED | PENDING (any case)
  body: string;
  author: string | null;
  authorType: string | null; // User | Bot
  authorAssociation: string | null; // OWNER, MEMBER, … (standing.ts)
  submittedAt: string | null;
  commitId: string | null;
}

/** Who fixloop is, which bots count and which associations the Work trusts (standing.ts). */
export type ReviewerIdentity = StandingRules;

export interface RejectionCandidate {
  source: Extract<RejectionSource, 'review' | 'bot'>;
  reviewId: number;
  author: string;
  body: string;
  headSha: string | null;
  submittedAt: string | null;
}

/**
 * F1: the rejection a review carries, or null. A person's CHANGES_REQUESTED; or an allow-listed bot's
 * finding — CHANGES_REQUESTED, or COMMENTED with a non-empty body. Approvals, plain comments, dismissed
 * or pending reviews, and every review by an author without standing carry none.
 */
export function rejectionFromReview(
  review: ReviewLike,
  who: ReviewerIdentity,
  /** What the host said of the reviewer when asked (standing.ts: permissionNeeded). */
  answer?: HostAnswer,
): RejectionCandidate | null {
  const standing = standingOf(
    { login: review.author, type: review.authorType, association: review.authorAssociation },
    who,
    answer,
  );
  const state = review.state.toUpperCase();
  const candidate = (source: RejectionCandidate['source']): RejectionCandidate => ({
    source,
    reviewId: review.id,
    author: review.author ?? '',
    body: review.body,
    headSha: review.commitId,
    submittedAt: review.submittedAt,
  });
  switch (standing.kind) {
    case 'person':
      return state === 'CHANGES_REQUESTED' ? candidate('review') : null;
    case 'bot':
      return state === 'CHANGES_REQUESTED' || (state === 'COMMENTED' && review.body.trim() !== '')
        ? candidate('bot')
        : null;
    case 'none':
      return null;
  }
}

const DOORBELL_REASONS = [
  'own_identity', // fixloop's own comment
  'untrusted_bot', // a bot that is not allow-listed
  'unknown_author', // a deleted account, or an account type that is neither a person nor a bot
  'bot_lookalike', // an account that is not a Bot, under an allow-listed bot's login
  'author_without_standing', // a person whose association (or permission) the Work does not trust
  'standing_unreadable', // the host could not say whether the comment's or the row's author has standing
  'no_row', // no rejection row to ring for
  'gate_row', // a CI failure is never cashed in by a comment
  'other_pull_request', // the row is about another pull request
  'too_old', // the row is a week old or more (or its time cannot be read)
  'row_without_standing', // the row's own author has no standing (stored before the rule, or trust narrowed since)
  'already_consumed', // the row was already answered by an attempt
] as const;
export type DoorbellReason = (typeof DOORBELL_REASONS)[number];

export interface PullRequestRef {
  repository: string; // owner/name (compared case-insensitively)
  number: number;
}

export interface DoorbellInput extends StandingRules {
  comment: {
    author: string | null;
    authorType: string | null;
    authorAssociation: string | null;
    /** What the host said of the comment's author when asked (standing.ts: permissionNeeded). */
    answer?: HostAnswer | undefined;
    pullRequest: PullRequestRef;
    createdAt: Instant;
  };
  row: {
    source: RejectionSource;
    /** Who wrote the review the row holds; null for a row stored before authors were (or a gate row). */
    author: Author | null;
    /** What the host said of the row's author when asked, now (a row's standing is never stored). */
    authorAnswer?: HostAnswer | undefined;
    pullRequest: PullRequestRef;
    createdAt: Instant;
    consumed: boolean;
  } | null;
  now: Instant;
}

export type DoorbellVerdict = { ring: true } | { ring: false; reason: DoorbellReason };

/** F2: whether a comment rings for the rejection row it points at. The first failing rule is the reason. */
export function doorbell(i: DoorbellInput): DoorbellVerdict {
  const no = (reason: DoorbellReason): DoorbellVerdict => ({ ring: false, reason });
  const c = i.comment;
  const standing = standingOf({ login: c.author, type: c.authorType, association: c.authorAssociation }, i, c.answer);
  if (standing.kind === 'none') return no(standing.reason);
  const row = i.row;
  if (row === null) return no('no_row');
  if (row.source === 'gate') return no('gate_row');
  if (!samePullRequest(row.pullRequest, c.pullRequest)) return no('other_pull_request');
  // Age at the later of now and the comment's own time; an unreadable time fails closed.
  const born = toMs(row.createdAt);
  const at = Math.max(toMs(i.now), toMs(c.createdAt));
  if (!Number.isFinite(born) || Number.isNaN(at) || at - born >= DOORBELL_MAX_AGE_MS) return no('too_old');
  // A doorbell cannot lend standing to a row that never had it: the row's author is checked again.
  const rowStanding = row.author === null ? null : standingOf(row.author, i, row.authorAnswer);
  if (rowStanding?.kind === 'none' && rowStanding.reason === 'standing_unreadable') return no('standing_unreadable');
  if (rowStanding === null || rowStanding.kind === 'none') return no('row_without_standing');
  if (row.consumed) return no('already_consumed');
  return { ring: true };
}

function samePullRequest(a: PullRequestRef, b: PullRequestRef): boolean {
  return a.number === b.number && a.repository.toLowerCase() === b.repository.toLowerCase();
}

/** Epoch ms, or NaN when the instant cannot be read. */
function toMs(t: Instant): number {
  if (typeof t === 'number') return Number.isFinite(t) ? t : Number.NaN;
  return Date.parse(t);
}
