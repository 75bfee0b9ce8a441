// Reviewer rejections and the comment doorbell (SPEC F1, F2). A review requesting changes, or an
// allow-listed reviewer bot's finding, becomes a durable rejection; a comment is only a doorbell for
// an existing rejection row, and the row it rings for is checked: own identity and untrusted bots never
// ring, a `gate` row is never cashed in by a comment, same pull request, under a week old, unconsumed.
import type { RejectionSource } from './types.js';

/** F2: a row a comment rings for must be younger than this (7 days). */
export const DOORBELL_MAX_AGE_MS = 7 * 24 * 60 * 60 * 1000;

/** An instant: ISO-8601 text or epoch milliseconds. */
export type Instant = string | number;

/** The fields of a review read here (the GitHub port's ReviewInfo fits). */
export interface ReviewLike {
  id: number;
  state: string; // APPROVED | CHANGES_REQUESTED | COMMENTED | DISMISSED | PENDING (any case)
  body: string;
  author: string | null;
  authorType: string | null; // User | Bot
  submittedAt: string | null;
  commitId: string | null;
}

export interface ReviewerIdentity {
  /** Logins of reviewer bots whose findings count (with or without the `[bot]` suffix, any case). */
  allowBots: readonly string[];
  /** The login fixloop acts as; null when unknown. */
  selfLogin: string | null;
}

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
 * or pending reviews, fixloop's own reviews, unknown authors and other bots carry none.
 */
export function rejectionFromReview(review: ReviewLike, who: ReviewerIdentity): RejectionCandidate | null {
  const kind = authorKind(review.author, review.authorType, who);
  const state = review.state.toUpperCase();
  const candidate = (source: RejectionCandidate['source']): RejectionCandidate => ({
    source,
    reviewId: review.id,
    author: review.author ?? '',
    body: review.body,
    headSha: review.commitId,
    submittedAt: review.submittedAt,
  });
  switch (kind) {
    case 'person':
      return state === 'CHANGES_REQUESTED' ? candidate('review') : null;
    case 'trusted_bot':
      return state === 'CHANGES_REQUESTED' || (state === 'COMMENTED' && review.body.trim() !== '')
        ? candidate('bot')
        : null;
    case 'self':
    case 'untrusted_bot':
    case 'unknown':
      return null;
  }
}

const DOORBELL_REASONS = [
  'own_identity', // fixloop's own comment
  'untrusted_bot', // a bot that is not allow-listed
  'unknown_author', // a deleted account, or an account type that is neither a person nor a bot
  'no_row', // no rejection row to ring for
  'gate_row', // a CI failure is never cashed in by a comment
  'other_pull_request', // the row is about another pull request
  'too_old', // the row is a week old or more (or its time cannot be read)
  'already_consumed', // the row was already answered by an attempt
] as const;
export type DoorbellReason = (typeof DOORBELL_REASONS)[number];

export interface PullRequestRef {
  repository: string; // owner/name (compared case-insensitively)
  number: number;
}

export interface DoorbellInput {
  comment: { author: string | null; authorType: string | null; pullRequest: PullRequestRef; createdAt: Instant };
  row: { source: RejectionSource; pullRequest: PullRequestRef; createdAt: Instant; consumed: boolean } | null;
  selfLogin: string | null;
  allowBots: readonly string[];
  now: Instant;
}

export type DoorbellVerdict = { ring: true } | { ring: false; reason: DoorbellReason };

/** F2: whether a comment rings for the rejection row it points at. The first failing rule is the reason. */
export function doorbell(i: DoorbellInput): DoorbellVerdict {
  const no = (reason: DoorbellReason): DoorbellVerdict => ({ ring: false, reason });
  switch (authorKind(i.comment.author, i.comment.authorType, i)) {
    case 'self':
      return no('own_identity');
    case 'untrusted_bot':
      return no('untrusted_bot');
    case 'unknown':
      return no('unknown_author');
    case 'person':
    case 'trusted_bot':
      break;
  }
  const row = i.row;
  if (row === null) return no('no_row');
  if (row.source === 'gate') return no('gate_row');
  if (!samePullRequest(row.pullRequest, i.comment.pullRequest)) return no('other_pull_request');
  // Age at the later of now and the comment's own time; an unreadable time fails closed.
  const born = toMs(row.createdAt);
  const at = Math.max(toMs(i.now), toMs(i.comment.createdAt));
  if (!Number.isFinite(born) || Number.isNaN(at) || at - born >= DOORBELL_MAX_AGE_MS) return no('too_old');
  if (row.consumed) return no('already_consumed');
  return { ring: true };
}

type AuthorKind = 'self' | 'person' | 'trusted_bot' | 'untrusted_bot' | 'unknown';

/**
 * Who wrote it. Own identity first (fixloop may act as an App, `name[bot]`); a bot is known by its type
 * or its `[bot]` suffix; a person only by type `User` — anything else fails closed.
 */
function authorKind(author: string | null, authorType: string | null, who: ReviewerIdentity): AuthorKind {
  if (author === null || author.trim() === '') return 'unknown';
  const login = normalLogin(author);
  if (who.selfLogin !== null && who.selfLogin.trim() !== '' && login === normalLogin(who.selfLogin)) return 'self';
  const bot = authorType === 'Bot' || /\[bot\]$/i.test(author.trim());
  if (bot) return who.allowBots.some((b) => normalLogin(b) === login) ? 'trusted_bot' : 'untrusted_bot';
  return authorType === 'User' ? 'person' : 'unknown';
}

function normalLogin(login: string): string {
  return login
    .trim()
    .toLowerCase()
    .replace(/\[bot\]$/, '');
}

function samePullRequest(a: PullRequestRef, b: PullRequestRef): boolean {
  return a.number === b.number && a.repository.toLowerCase() === b.repository.toLowerCase();
}

/** Epoch ms, or NaN when the instant cannot be read. */
function toMs(t: Instant): number {
  if (typeof t === 'number') return Number.isFinite(t) ? t : Number.NaN;
  return Date.parse(t);
}
