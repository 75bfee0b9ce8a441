// The part of a code host fixloop reads and writes, declared by the use-cases that need it (poll,
// green gate, pr checks, hand-off), in one vocabulary whatever the host: a change under review
// ("pull request"), check runs, commit statuses, comments, reviews. Each host's folder implements
// its half and maps its own records onto these (its to-port.ts says how); app/providers.ts routes
// each repository to its Work's host. Tests use real fake servers behind the same adapters.
// SPEC B4, E1–E4, J1–J2, K5, K8, Q1.

import type { QueueEjection } from '../core/merge-queue.js';
import type { LabelActor, RepositoryPermission } from '../core/standing.js';
import { CI_JOB_APPS as DEFAULT_CI_JOB_APPS, DEFAULT_HOST } from '../hosts/defaults.js';

export interface PullRequestInfo {
  repository: string; // owner/name, lower-case
  number: number;
  state: 'open' | 'closed';
  merged: boolean;
  headSha: string;
  headRef: string;
  /** owner/name of the head repository; null when it was deleted. Differs from base for forks. */
  headRepository: string | null;
  baseRef: string;
  author: string | null;
  /** Issue 33: the pull request's title (one line); absent where a reader does not ask for it. */
  title?: string | null;
  draft: boolean;
  labels: string[];
  mergeableState: string | null;
  updatedAt: string;
}

export interface CheckRunInfo {
  id: number;
  name: string;
  status: string; // queued | in_progress | completed | waiting | requested | pending
  conclusion: string | null;
  startedAt: string | null;
  completedAt: string | null;
  detailsUrl: string | null;
  /**
   * The app that ran it, as the host names it; for a CI job with a readable log (CI_JOB_APPS) the
   * run's id is the job's id.
   */
  appSlug: string | null;
  outputTitle: string | null;
  outputSummary: string | null;
  /**
   * What a run that is not red really was, when the host says (a job allowed to fail: "failed,
   * allowed to fail"; skipped), shown by pr checks; absent for a run that simply passed.
   */
  passedAs?: string;
  /** The commit it ran on, where the host says (a base branch's red is told with its commit; issue 36). */
  headSha?: string;
}

export interface CommitStatusInfo {
  context: string;
  state: 'error' | 'failure' | 'pending' | 'success';
  description: string | null;
  targetUrl: string | null;
  updatedAt: string | null;
}

export interface CommitStatusWrite {
  context: string;
  state: 'error' | 'failure' | 'pending' | 'success';
  description: string;
  /** Where the status links to (the Task's timeline on the dashboard); null for none. */
  targetUrl: string | null;
}

export interface IssueCommentInfo {
  id: number;
  body: string;
  author: string | null;
  authorType: string | null; // User | Bot
  updatedAt: string;
}

export interface ReviewInfo {
  id: number;
  state: string; // APPROVED | CHANGES_REQUESTED | COMMENTED | DISMISSED | PENDING
  body: string;
  author: string | null;
  authorType: string | null;
  submittedAt: string | null;
  commitId: string | null;
}

/** One file of a comparison (SPEC K3, K4): what a push changed, as the host's comparison lists it. */
export interface ComparedFile {
  /** The path after the change. */
  path: string;
  /** A host's other kinds map onto these (a copy is `added`, a file changed in mode only `modified`). */
  status: 'added' | 'modified' | 'removed' | 'renamed';
  /** The file's unified-diff hunks; null for binary files and diffs too large for the host to show. */
  patch: string | null;
  /** For a rename or a copy: the path it came from. */
  previousPath?: string;
  /** The blob SHA the host names for the file (tells two binary or patch-less changes apart); null when none. */
  blobSha: string | null;
  /** Lines added and removed, where the host counts them (even without a patch); else read from the patch. */
  additions?: number;
  deletions?: number;
}

/** One inline comment of a review, as far as a bot round's fingerprint needs it (issue 36). */
export interface ReviewComment {
  path: string;
  body: string;
}

export interface Comparison {
  files: ComparedFile[];
  /** True when the host cut the list of files short at its cap (some may be missing). */
  truncated: boolean;
}

/** What one bulk read tells of a pull request (N3): enough to see whether anything changed since. */
export interface PullRequestGlance {
  number: number;
  state: 'open' | 'closed';
  merged: boolean;
  headSha: string;
  /** Moves with labels, title, reviews and pushes. */
  updatedAt: string;
  /** The head commit's check rollup (SUCCESS, FAILURE, PENDING, ERROR, EXPECTED); null without any check. */
  rollup: string | null;
}

/** A pull request with every check run and status of its head, read in bulk with others (N3). */
export interface PullRequestReading {
  pr: PullRequestInfo;
  runs: CheckRunInfo[];
  statuses: CommitStatusInfo[];
}

/** The rate limit of one of the host's resources (e.g. its REST and GraphQL APIs) as its last answer said. */
export interface RateLimitState {
  resource: string;
  remaining: number;
  limit: number;
  resetAt: string;
}

/**
 * The name of the default host (the registry's first; src/hosts/defaults.ts), said where no host is
 * known: an error raised without its host, and a request that finds no host port configured at all.
 */
export const DEFAULT_HOST_NAME: string = DEFAULT_HOST.name;

/** A code host's answer fixloop can act on: its status, and whether trying again later may help. */
export class ProviderError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly retryable: boolean,
    /** The id of the host that answered (a Work's `provider`); absent: the default host's. */
    readonly provider: string = DEFAULT_HOST.id,
    /** The host's name as people know it (its words' `name`); absent: the default host's. */
    private readonly hostName?: string,
  ) {
    super(message);
    this.name = 'ProviderError';
  }

  /** The host's name as a person reads it ("<host> answered 404 …"). */
  get host(): string {
    return this.hostName ?? DEFAULT_HOST_NAME;
  }
}

/** The apps whose check runs are CI jobs with a readable log (src/hosts/defaults.ts). */
export const CI_JOB_APPS: readonly string[] = DEFAULT_CI_JOB_APPS;

export interface ProviderPort {
  getPullRequest(repository: string, number: number): Promise<PullRequestInfo>;
  /** Every check run for the ref, all pages. */
  listCheckRuns(repository: string, ref: string): Promise<CheckRunInfo[]>;
  /** The latest status per context for the ref. */
  listStatuses(repository: string, ref: string): Promise<CommitStatusInfo[]>;
  /** Required status check contexts of the branch's protection; null when it cannot be read. */
  requiredChecks(repository: string, branch: string): Promise<string[] | null>;
  /** The signed URL the jobs-logs endpoint redirects to (302 Location); never followed with credentials. */
  jobLogUrl(repository: string, jobId: number): Promise<string>;
  /**
   * J2 where the host serves a job's log itself (read with the API token): the tail under the same
   * bounds as a signed URL's. null (or absent): read it through jobLogUrl.
   */
  readJobLog?(
    repository: string,
    jobId: number,
    opts: { lines: number },
  ): Promise<{ text: string; truncated: boolean } | null>;
  /**
   * F1/F2 where webhooks carry no author association: the login's standing with the repository, in
   * the association words OWNER, MEMBER, COLLABORATOR, NONE (the adapter maps its host's roles onto
   * them); null when it cannot be read.
   */
  authorAssociation?(repository: string, login: string): Promise<string | null>;
  /**
   * F1/F2 (decision 0042): the login's role on the repository, as the host reports it (kept briefly
   * by the adapter); `none` when they have none (404). Throws (a ProviderError) when it cannot be
   * read: a 5xx, the network, a 403 to fixloop itself.
   */
  repositoryPermission?(repository: string, login: string): Promise<RepositoryPermission>;
  /**
   * K5 with F1 (decision 0042): who last added `label` to the pull request, from its issue events
   * (any case); null when no event says so. Throws when the events cannot be read.
   */
  labelActor?(repository: string, number: number, label: string): Promise<LabelActor | null>;
  /**
   * The workflow run a CI job belongs to (a CI job's check run id is its job id); a 404
   * (ProviderError) when the check run is no CI job (issue 17).
   */
  workflowRunOfJob(repository: string, jobId: number): Promise<number>;
  /** Re-runs the failed jobs of a completed workflow run (the token needs the right to; issue 17). */
  rerunFailedJobs(repository: string, runId: number): Promise<void>;
  /**
   * Issue 36: brings the pull request's branch up to date with its base, no model run, refused when
   * the head is no longer `expectedHeadSha`. Absent: the host offers none to fixloop.
   */
  updateBranch?(repository: string, number: number, expectedHeadSha: string): Promise<void>;
  /**
   * Issue 36: puts the pull request back in its base's merge queue, only while its head is still
   * `expectedHeadSha`. Optional: a host without a merge queue has none.
   */
  enqueuePullRequest?(repository: string, number: number, expectedHeadSha: string): Promise<void>;
  /** M4: writes a commit status on the sha (fixloop's own `fixloop` context). */
  createCommitStatus(repository: string, sha: string, status: CommitStatusWrite): Promise<void>;
  addLabels(repository: string, number: number, labels: string[]): Promise<void>;
  removeLabel(repository: string, number: number, label: string): Promise<void>;
  listIssueComments(repository: string, number: number): Promise<IssueCommentInfo[]>;
  createIssueComment(repository: string, number: number, body: string): Promise<IssueCommentInfo>;
  /** Edits one of fixloop's own comments on the pull request. */
  updateIssueComment(repository: string, number: number, commentId: number, body: string): Promise<IssueCommentInfo>;
  listReviews(repository: string, number: number): Promise<ReviewInfo[]>;
  /**
   * Issue 36: a review's inline comments, the file and the text of each (the first 100), for the
   * fingerprint of a bot's findings. Absent: the host has none apart from the review (its body alone counts).
   */
  reviewComments?(repository: string, number: number, reviewId: number): Promise<ReviewComment[]>;
  /** The files changed from `base` to `head` (three-dot: from their merge base), as one comparison. */
  compareCommits(repository: string, base: string, head: string): Promise<Comparison>;
  /**
   * N3: many pull requests of one repository in one bulk read, by number; a pull request the
   * answer lacks (not found) is absent from the map. Optional: without it the poll reads one by one.
   */
  glancePullRequests?(repository: string, numbers: number[]): Promise<Map<number, PullRequestGlance>>;
  /** N3: as glancePullRequests, with each head's check runs and statuses; one that did not fit is absent. */
  readPullRequests?(repository: string, numbers: number[]): Promise<Map<number, PullRequestReading>>;
  /** What the host's answers last said of each rate limit. */
  rateLimits?(): RateLimitState[];
  /** The login fixloop acts as on the repository's host (its own identity never rings a doorbell, F2). */
  selfLogin(repository?: string): Promise<string | null>;
  /**
   * Decision 0075: why the host's merge queue let the pull request go, when its queue run was cancelled
   * with no check failing, from what the host recorded of it; null when it is queued again,
   * nothing says, or the host has no such record. `said` is the host's own words, for the notice.
   */
  queueDrop?(repository: string, number: number): Promise<{ reason: QueueEjection; said: string } | null>;
  /** Issue 36 item 4: files an issue on the repository (a red base, where the Work sets `baseIssue`). */
  createIssue?(repository: string, title: string, body: string): Promise<{ number: number }>;
  /** Issue 36 item 4: closes an issue fixloop filed, after one last comment saying why. */
  closeIssue?(repository: string, number: number, comment: string): Promise<void>;
}
