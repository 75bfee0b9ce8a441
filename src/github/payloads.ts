// The shape of each handled GitHub delivery, naming only the fields fixloop reads.
// A body whose shape does not match its X-GitHub-Event header is rejected at the edge (A1, A2).
// Extra fields are allowed and ignored: GitHub adds fields, and old examples lack some.
// Names, refs, logins and bodies are cleaned of control and bidirectional characters as they are
// read (untrusted-text.ts), so nothing downstream stores or shows them (issue 31).
import { z } from 'zod';
import { untrustedLine, untrustedLineOrNull, untrustedText, untrustedTextOrNull } from '../core/untrusted-text.js';

/** A one-line string someone else wrote: a name, a ref, a login. */
const line = z.string().transform(untrustedLine);
const nullableLine = z.string().nullable().optional().transform(untrustedLineOrNull);
/** A body someone else wrote (a review's text, a comment, a check's output). */
const nullableText = z.string().nullable().optional().transform(untrustedTextOrNull);

const repo = z.object({
  id: z.number(),
  full_name: z.string(),
  owner: z.object({ login: line }),
});

const prPointer = z.object({
  number: z.number(),
  head: z.object({
    sha: z.string(),
    ref: line.optional(),
    repo: z.object({ id: z.number() }).nullable().optional(),
  }),
  base: z.object({
    sha: z.string().optional(),
    ref: line.optional(),
    repo: z.object({ id: z.number() }).nullable().optional(),
  }),
});

const nullableString = z.string().nullable().optional();

export const checkRunPayload = z.object({
  action: z.string(),
  repository: repo,
  check_run: z.object({
    id: z.number(),
    name: line,
    head_sha: z.string(),
    status: z.string(),
    conclusion: nullableString,
    completed_at: nullableString,
    html_url: nullableString,
    details_url: nullableString,
    output: z.object({ title: nullableLine, summary: nullableText, text: nullableText }).nullable().optional(),
    check_suite: z.object({ head_branch: nullableLine }).nullable().optional(),
    pull_requests: z.array(prPointer),
  }),
});

export const checkSuitePayload = z.object({
  action: z.string(),
  repository: repo,
  check_suite: z.object({
    id: z.number(),
    head_sha: z.string(),
    head_branch: nullableLine,
    status: nullableString,
    conclusion: nullableString,
    updated_at: nullableString,
    app: z.object({ name: line.optional(), slug: line.optional() }).nullable().optional(),
    pull_requests: z.array(prPointer),
  }),
});

export const workflowRunPayload = z.object({
  action: z.string(),
  repository: repo,
  workflow_run: z.object({
    id: z.number(),
    name: nullableLine,
    head_sha: z.string(),
    head_branch: nullableLine,
    run_attempt: z.number().optional(),
    status: nullableString,
    conclusion: nullableString,
    updated_at: nullableString,
    html_url: nullableString,
    head_repository: z.object({ id: z.number(), full_name: z.string() }).nullable().optional(),
    pull_requests: z.array(prPointer),
  }),
});

export const statusPayload = z.object({
  repository: repo,
  sha: z.string(),
  context: line,
  state: z.string(),
  description: nullableLine,
  target_url: nullableString,
  updated_at: nullableString,
  branches: z.array(z.object({ name: line })).optional(),
});

export const pullRequestPayload = z.object({
  action: z.string(),
  number: z.number(),
  /** synchronize: the head the push replaced (B1, decision 0019). */
  before: z.string().optional(),
  /** dequeued: why the merge queue let it go (issue 36: CI_FAILURE, MERGE_CONFLICT, MANUAL, …). */
  reason: z.string().nullable().optional(),
  repository: repo,
  pull_request: z.object({
    number: z.number(),
    state: z.string(),
    merged: z.boolean().nullable().optional(),
    draft: z.boolean().optional(),
    user: z.object({ login: line }).nullable().optional(),
    updated_at: nullableString,
    labels: z.array(z.object({ name: line })).optional(),
    head: z.object({
      sha: z.string(),
      ref: line,
      repo: z.object({ id: z.number(), full_name: z.string() }).nullable(),
    }),
    base: z.object({ ref: line, repo: z.object({ id: z.number(), full_name: z.string() }) }),
    /** Issue 36: dirty (conflicts), behind, clean, blocked, unstable, unknown (while GitHub computes it). */
    mergeable_state: z.string().nullable().optional(),
  }),
});

const user = z.object({ login: line, type: z.string().optional() });
/** F1/F2: the author's association with the repository; a delivery without one is kept, and has no standing. */
const authorAssociation = z.string().nullable().optional();

export const pullRequestReviewPayload = z.object({
  action: z.string(),
  repository: repo,
  review: z.object({
    id: z.number(),
    state: z.string(),
    body: nullableText,
    user: user.nullable(),
    author_association: authorAssociation,
    submitted_at: nullableString,
  }),
  pull_request: z.object({ number: z.number(), head: z.object({ sha: z.string() }) }),
});

const reviewCommentPayload = z.object({
  action: z.string(),
  repository: repo,
  comment: z.object({
    id: z.number(),
    user: user.nullable(),
    author_association: authorAssociation,
    created_at: nullableString,
  }),
  pull_request: z.object({ number: z.number() }),
});

const issueCommentPayload = z.object({
  action: z.string(),
  repository: repo,
  issue: z.object({ number: z.number(), pull_request: z.unknown().optional() }),
  comment: z.object({
    id: z.number(),
    user: user.nullable(),
    author_association: authorAssociation,
    created_at: nullableString,
    body: nullableText,
  }),
});

const pingPayload = z.object({ zen: z.string().optional(), hook_id: z.number().optional() });
const installationPayload = z.object({
  action: z.string().optional(),
  installation: z.object({ id: z.number() }),
});

/** Issue 36: the merge queue built a commit (`checks_requested`) or let one go (`destroyed`). */
export const mergeGroupPayload = z.object({
  action: z.string(),
  /** `destroyed` only: merged, invalidated or dequeued. */
  reason: z.string().optional(),
  repository: repo,
  merge_group: z.object({
    head_sha: z.string(),
    head_ref: line,
    base_sha: z.string(),
    base_ref: line.optional(),
  }),
});

/** The events of SPEC A2 and the schema each body must match. */
export const HANDLED_EVENTS = {
  check_run: checkRunPayload,
  check_suite: checkSuitePayload,
  workflow_run: workflowRunPayload,
  status: statusPayload,
  pull_request: pullRequestPayload,
  pull_request_review: pullRequestReviewPayload,
  pull_request_review_comment: reviewCommentPayload,
  issue_comment: issueCommentPayload,
  ping: pingPayload,
  installation: installationPayload,
  installation_repositories: installationPayload,
  merge_group: mergeGroupPayload,
} as const;

export type HandledEvent = keyof typeof HANDLED_EVENTS;

export function isHandledEvent(event: string): event is HandledEvent {
  return Object.hasOwn(HANDLED_EVENTS, event);
}
