// The shape of each handled GitLab webhook (issue 19, SPEC Q1), naming only the fields fixloop reads.
// A body whose shape does not match its X-Gitlab-Event header is rejected at the edge, as on GitHub
// (A1, A2). Extra fields are allowed and ignored: GitLab adds fields, and older versions lack some.
// Names, refs, usernames and bodies are cleaned of control and bidirectional characters as they are
// read (untrusted-text.ts, issue 31).
import { z } from 'zod';
import { untrustedLine, untrustedLineOrNull, untrustedTextOrNull } from '../core/untrusted-text.js';

/** A one-line string someone else wrote: a name, a ref, a username. */
const line = z.string().transform(untrustedLine);
const nullableLine = z.string().nullable().optional().transform(untrustedLineOrNull);

const nullableString = z.string().nullable().optional();

/** A project as every hook carries it; `path_with_namespace` names the repository (lower-cased). */
const project = z.object({
  id: z.number().optional(),
  path_with_namespace: z.string(),
});

/** A merge request's reviewer as hooks list them; `state` only on GitLab versions that track review states. */
const reviewer = z.object({ id: z.number(), username: line, state: z.string().optional() });

const user = z
  .object({
    username: line.optional(),
  })
  .nullable()
  .optional();

export const gitlabJobPayload = z.object({
  object_kind: z.literal('build'),
  ref: line,
  tag: z.boolean().optional(),
  sha: z.string(),
  build_id: z.number(),
  build_name: line,
  build_stage: nullableLine,
  build_status: z.string(),
  build_finished_at: nullableString,
  build_allow_failure: z.boolean().optional(),
  build_failure_reason: nullableLine,
  pipeline_id: z.number().optional(),
  project,
});

export const gitlabPipelinePayload = z.object({
  object_kind: z.literal('pipeline'),
  object_attributes: z.object({
    id: z.number(),
    name: nullableLine,
    ref: line,
    tag: z.boolean().optional(),
    sha: z.string(),
    status: z.string(),
    finished_at: nullableString,
    url: nullableString,
  }),
  merge_request: z
    .object({
      iid: z.number(),
      source_branch: line,
      /** Issue 36: a merge train's base, named in its pipeline's frame. */
      target_branch: line.optional(),
      source_project_id: z.number().optional(),
      target_project_id: z.number().optional(),
    })
    .nullable()
    .optional(),
  project,
});

const label = z.object({ title: line });

export const gitlabMergeRequestPayload = z.object({
  object_kind: z.literal('merge_request'),
  user,
  project,
  object_attributes: z.object({
    iid: z.number(),
    source_branch: line,
    target_branch: line.optional(),
    source_project_id: z.number().optional(),
    target_project_id: z.number().optional(),
    state: z.string(),
    action: z.string().optional(),
    updated_at: nullableString,
    draft: z.boolean().optional(),
    work_in_progress: z.boolean().optional(),
    /** The head before a push: present only when the event brought new code (GitLab's docs). */
    oldrev: nullableString,
    last_commit: z.object({ id: z.string() }),
    source: z.object({ path_with_namespace: z.string() }).nullable().optional(),
    labels: z.array(label).optional(),
    /** Issue 36: conflict, need_rebase, mergeable, checking, … (absent from older GitLab). */
    detailed_merge_status: z.string().nullable().optional(),
  }),
  labels: z.array(label).optional(),
  changes: z
    .object({
      draft: z.object({ previous: z.boolean().nullable(), current: z.boolean().nullable() }).optional(),
      /** Newer GitLab sends a submitted review's state (e.g. `requested_changes`) as a reviewers change. */
      reviewers: z.object({ previous: z.array(reviewer).nullable(), current: z.array(reviewer).nullable() }).optional(),
    })
    // Kept whole: which attributes changed tells a submitted review from an edit (classify.ts).
    .loose()
    .optional(),
});

export const gitlabNotePayload = z.object({
  object_kind: z.literal('note'),
  user,
  project,
  object_attributes: z.object({
    id: z.number(),
    note: z.string().nullable().optional().transform(untrustedTextOrNull),
    noteable_type: z.string(),
    system: z.boolean().optional(),
    action: z.string().optional(),
    created_at: nullableString,
  }),
  merge_request: z.object({ iid: z.number() }).nullable().optional(),
});

/** The `X-Gitlab-Event` values fixloop handles, each with the shape its body must have. */
export const GITLAB_EVENTS = {
  'Job Hook': gitlabJobPayload,
  'Pipeline Hook': gitlabPipelinePayload,
  'Merge Request Hook': gitlabMergeRequestPayload,
  'Note Hook': gitlabNotePayload,
} as const;
export type GitlabEvent = keyof typeof GITLAB_EVENTS;

export function isGitlabEvent(event: string): event is GitlabEvent {
  return Object.hasOwn(GITLAB_EVENTS, event);
}

/**
 * Every `X-Gitlab-Event` name ends in " Hook" (Push Hook, Tag Push Hook, System Hook, …) and no GitHub
 * event name has a space: how a stored delivery says which provider it came from.
 */
export function isGitlabEventName(event: string): boolean {
  return event.endsWith(' Hook');
}
