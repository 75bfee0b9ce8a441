// The fake GitLab's state: a plain object tests read (and may write) directly. Projects are keyed by
// their lower-case path_with_namespace ('group/sub/project'); merge requests by GitLab's own reference
// form, 'group/sub/project!7'. Records keep what a test cares about; payloads.ts derives the rest of
// GitLab's documented shapes when answering.

/** GitLab's role levels: 10 guest, 20 reporter, 30 developer, 40 maintainer, 50 owner. */
export type AccessLevel = number;

export interface GlUser {
  id: number;
  username: string;
  name: string;
  /** The account's state; absent = 'active' (others: 'blocked', 'banned', 'deactivated', …). */
  state?: string;
}

export interface GlProject {
  id: number;
  /** path_with_namespace as given (case kept). */
  path: string;
  defaultBranch: string;
  /** user id → access level. */
  members: Record<number, AccessLevel>;
  /** user id → membership_state when not 'active' (e.g. 'awaiting' a seat or an invitation). */
  membershipStates?: Record<number, string>;
  /** branch name → head sha and protection; the default branch is protected. */
  branches: Record<string, { sha: string; protected: boolean }>;
  /** Labels that exist in the project (add_labels creates missing ones, as GitLab does). */
  labels: string[];
  /**
   * false (default): any authenticated user reads and writes. true: a private project — non-members get
   * 404, and writes need the documented minimum role (notes: guest; labels: reporter or the MR author;
   * statuses and retries: developer).
   */
  strictAccess: boolean;
}

export type MergeRequestState = 'opened' | 'closed' | 'merged' | 'locked';
export type ReviewerState = 'unreviewed' | 'reviewed' | 'requested_changes' | 'approved' | 'unapproved';

export interface GlMergeRequest {
  /** Instance-wide id (GitLab's `id`), unlike `iid`. */
  id: number;
  iid: number;
  projectId: number;
  sourceProjectId: number;
  title: string;
  description: string;
  state: MergeRequestState;
  draft: boolean;
  /** The current head sha; `shas` is every head the MR has had, oldest first. */
  headSha: string;
  shas: string[];
  /** diff_refs.base_sha / start_sha; default a sha derived from the target branch. */
  baseSha: string;
  sourceBranch: string;
  targetBranch: string;
  authorId: number;
  createdAt: string;
  updatedAt: string;
  mergedAt: string | null;
  closedAt: string | null;
  reviewers: Array<{ userId: number; state: ReviewerState; createdAt: string }>;
  /** Overrides the derived detailed_merge_status (e.g. 'conflict', 'ci_must_pass'). */
  detailedMergeStatus?: string;
}

export type JobStatus =
  | 'created'
  | 'pending'
  | 'running'
  | 'success'
  | 'failed'
  | 'canceled'
  | 'skipped'
  | 'manual'
  | 'scheduled'
  | 'waiting_for_resource'
  | 'preparing';

export interface GlPipeline {
  id: number;
  /** Per-project sequence number (GitLab's `iid`). */
  iid: number;
  projectId: number;
  sha: string;
  ref: string;
  status: string;
  source: string;
  userId: number | null;
  createdAt: string;
  updatedAt: string;
  startedAt: string | null;
  finishedAt: string | null;
}

export interface GlJob {
  id: number;
  projectId: number;
  pipelineId: number;
  name: string;
  stage: string;
  status: JobStatus;
  allowFailure: boolean;
  failureReason: string | null;
  /** A newer job of the same name replaced it (a retry); hidden from pipeline jobs unless include_retried. */
  retried: boolean;
  userId: number | null;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
}

export interface GlNote {
  id: number;
  body: string;
  authorId: number;
  system: boolean;
  createdAt: string;
  updatedAt: string;
  /** Issue 36 (decision 0077): the discussion it belongs to (40 hex characters); absent = its own, a single note. */
  discussionId?: string;
  /** A note of a thread that can be resolved (a diff note, a started thread); absent = a plain comment. */
  resolvable?: boolean;
  /** Whether its thread is resolved (kept on every note of the thread, as GitLab shows it), and by whom. */
  resolved?: boolean;
  resolvedBy?: number;
  /** Where a diff note sits, on the merge request's head. */
  position?: { path: string; line: number; headSha: string; baseSha: string };
}

/** Issue 36: a project's issue (POST /projects/:id/issues), with its notes. */
export interface GlIssue {
  id: number;
  iid: number;
  projectId: number;
  title: string;
  description: string | null;
  state: 'opened' | 'closed';
  authorId: number;
  createdAt: string;
  updatedAt: string;
  closedAt: string | null;
  notes: GlNote[];
}

/** An external commit status (POST /projects/:id/statuses/:sha), as stored. */
export interface GlCommitStatus {
  id: number;
  /** path_with_namespace as the project was added. */
  path: string;
  sha: string;
  ref: string;
  name: string;
  state: 'pending' | 'running' | 'success' | 'failed' | 'canceled' | 'skipped';
  description: string | null;
  target_url: string | null;
  pipelineId: number;
  authorId: number;
  allowFailure: boolean;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
}

/** One accepted status POST; `id` is the status record it created or updated. */
export interface PostedStatus {
  id: number;
  path: string;
  sha: string;
  ref: string;
  name: string;
  state: GlCommitStatus['state'];
  description: string | null;
  target_url: string | null;
  pipelineId: number;
  at: string;
}

export interface GlCompareDiff {
  old_path: string;
  new_path: string;
  new_file?: boolean;
  renamed_file?: boolean;
  deleted_file?: boolean;
  diff: string;
}

export interface FakeGitLabState {
  users: Record<number, GlUser>;
  /** token → user id. */
  tokens: Record<string, number>;
  /** lower-case path_with_namespace → project. */
  projects: Record<string, GlProject>;
  /** 'group/project!7' → merge request. */
  mergeRequests: Record<string, GlMergeRequest>;
  /** 'group/project!7' → the MR's labels (the one copy; answers sort them, as GitLab does). */
  labels: Record<string, string[]>;
  /** 'group/project!7' → notes, oldest first. */
  notes: Record<string, GlNote[]>;
  pipelines: Record<number, GlPipeline>;
  jobs: Record<number, GlJob>;
  /** job id → raw trace bytes. */
  traces: Record<number, Buffer>;
  /** The external commit statuses GitLab holds (a post to a pending/running one of the same name updates it). */
  commitStatuses: GlCommitStatus[];
  /** Every accepted POST …/statuses/:sha, in order, as posted (a log: updates are separate entries). */
  statuses: PostedStatus[];
  /** POST …/pipelines/:id/retry calls accepted, in order. */
  pipelineRetries: Array<{ path: string; pipelineId: number }>;
  /** Job retries (the API's or retryJob's), in order. */
  jobRetries: Array<{ path: string; jobId: number; newJobId: number }>;
  /** Notes created through the API (POST), not by addNote. */
  createdNotes: number;
  /** Issue 36: PUT …/merge_requests/:iid/rebase accepted, in order: the head it replaced and the rebased head. */
  rebases: Array<{ path: string; iid: number; from: string; to: string }>;
  /** Issue 36: 'group/project#7' → the project's issue (iids per project, from 1). */
  issues: Record<string, GlIssue>;
  /** 'group/project@from...to' → diffs; absent = 404. */
  compares: Record<string, GlCompareDiff[]>;
  nextId: number;
  /** Timestamps for new records and changes; tests may replace it. Answers never repeat a timestamp. */
  now: () => Date;
  lastTime: number;
}

export function createState(): FakeGitLabState {
  return {
    users: {},
    tokens: {},
    projects: {},
    mergeRequests: {},
    labels: {},
    notes: {},
    pipelines: {},
    jobs: {},
    traces: {},
    commitStatuses: [],
    statuses: [],
    pipelineRetries: [],
    jobRetries: [],
    createdNotes: 0,
    rebases: [],
    issues: {},
    compares: {},
    nextId: 1000,
    now: () => new Date(),
    lastTime: 0,
  };
}

export const projectKey = (path: string): string => path.toLowerCase();
export const mrKey = (path: string, iid: number): string => `${projectKey(path)}!${iid}`;
export const issueKey = (path: string, iid: number): string => `${projectKey(path)}#${iid}`;
export const compareKey = (path: string, from: string, to: string): string => `${projectKey(path)}@${from}...${to}`;

export function nextId(state: FakeGitLabState): number {
  return state.nextId++;
}

/** ISO-8601 with milliseconds, as GitLab writes them; strictly increasing so "updated_at moves" always holds. */
export function isoNow(state: FakeGitLabState): string {
  const t = Math.max(state.now().getTime(), state.lastTime + 1);
  state.lastTime = t;
  return new Date(t).toISOString();
}
