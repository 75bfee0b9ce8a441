// GitHub's JSON answers turned into the port's records, naming only the fields fixloop reads;
// repository names lower-cased (GitHub treats them case-insensitively, fixloop compares them);
// names, refs, logins and bodies cleaned of control and bidirectional characters (issue 31).
// SPEC B4, E1, F1–F2, J1, K3–K4, K8.
// What GitHub's half of the provider port (app/provider-port.ts) means in GitHub's terms:
// - A check run of the `github-actions` app is an Actions job: its id is the job id, whose log
//   jobLogUrl signs and workflowRunOfJob / rerunFailedJobs re-run (`actions: write`).
// - A comparison is the compare API's: `copied` reads as `added`, `changed`/`unchanged` as
//   `modified`; a patch is null where GitHub shows none; at most 300 files (then `truncated`).
// - repositoryPermission is the collaborator-permission endpoint (decision 0042); updateBranch is
//   update-branch (merges the base in, 422 when the head moved); the bulk reads are one GraphQL
//   query (graphql-poll.ts); rate limits are the x-ratelimit-* headers, per resource.
import type {
  CheckRunInfo,
  CommitStatusInfo,
  ComparedFile,
  Comparison,
  IssueCommentInfo,
  PullRequestInfo,
  ReviewInfo,
} from '../app/provider-port.js';
import { REPOSITORY_PERMISSIONS, type RepositoryPermission } from '../core/standing.js';
import { untrustedLine, untrustedLineOrNull, untrustedText, untrustedTextOrNull } from '../core/untrusted-text.js';

interface Account {
  login: string;
  type?: string;
}

export interface PullRequestJson {
  number: number;
  state: string;
  merged?: boolean | null;
  merged_at: string | null;
  draft?: boolean;
  head: { sha: string; ref: string; repo: { full_name: string } | null };
  base: { ref: string; repo: { full_name: string } };
  user: Account | null;
  title?: string | null;
  labels: Array<{ name?: string }>;
  mergeable_state?: string | null;
  updated_at: string;
}

export function toPullRequest(data: PullRequestJson): PullRequestInfo {
  return {
    repository: data.base.repo.full_name.toLowerCase(),
    number: data.number,
    state: data.state === 'closed' ? 'closed' : 'open',
    merged: data.merged ?? data.merged_at !== null,
    headSha: data.head.sha,
    headRef: untrustedLine(data.head.ref),
    headRepository: data.head.repo === null ? null : data.head.repo.full_name.toLowerCase(),
    baseRef: untrustedLine(data.base.ref),
    author: untrustedLineOrNull(data.user?.login ?? null),
    title: untrustedLineOrNull(data.title ?? null),
    draft: data.draft ?? false,
    labels: data.labels.flatMap((label) => (label.name === undefined ? [] : [untrustedLine(label.name)])),
    mergeableState: data.mergeable_state ?? null,
    updatedAt: data.updated_at,
  };
}

export interface CheckRunJson {
  id: number;
  name: string;
  status: string;
  conclusion: string | null;
  started_at: string | null;
  completed_at: string | null;
  details_url: string | null;
  app: { slug?: string } | null;
  output: { title: string | null; summary: string | null };
  head_sha?: string;
}

export function toCheckRun(data: CheckRunJson): CheckRunInfo {
  return {
    id: data.id,
    name: untrustedLine(data.name),
    status: data.status,
    conclusion: data.conclusion,
    startedAt: data.started_at,
    completedAt: data.completed_at,
    detailsUrl: data.details_url,
    appSlug: data.app?.slug ?? null,
    outputTitle: untrustedLineOrNull(data.output.title),
    outputSummary: untrustedTextOrNull(data.output.summary),
    // Issue 36 item 4: the commit a branch's checks ran on, named by a red base's notice.
    ...(data.head_sha ? { headSha: data.head_sha } : {}),
  };
}

export interface CommitStatusJson {
  context: string;
  state: string;
  description: string | null;
  target_url: string | null;
  updated_at: string | null;
}

const STATUS_STATES = ['error', 'failure', 'pending', 'success'] as const;

export function toCommitStatus(data: CommitStatusJson): CommitStatusInfo {
  // An unknown state is neither an explicit success nor red: treat it as still pending (B4).
  const state = (STATUS_STATES as readonly string[]).includes(data.state)
    ? (data.state as CommitStatusInfo['state'])
    : 'pending';
  return {
    context: untrustedLine(data.context),
    state,
    description: untrustedLineOrNull(data.description),
    targetUrl: data.target_url,
    updatedAt: data.updated_at,
  };
}

export interface IssueCommentJson {
  id: number;
  body?: string;
  user: Account | null;
  updated_at: string;
}

export function toIssueComment(data: IssueCommentJson): IssueCommentInfo {
  return {
    id: data.id,
    body: data.body ?? '',
    author: untrustedLineOrNull(data.user?.login ?? null),
    authorType: data.user?.type ?? null,
    updatedAt: data.updated_at,
  };
}

export interface ReviewJson {
  id: number;
  state: string;
  body: string;
  user: Account | null;
  submitted_at?: string;
  commit_id: string | null;
}

export function toReview(data: ReviewJson): ReviewInfo {
  return {
    id: data.id,
    state: data.state,
    body: untrustedText(data.body),
    author: untrustedLineOrNull(data.user?.login ?? null),
    authorType: data.user?.type ?? null,
    submittedAt: data.submitted_at ?? null,
    commitId: data.commit_id,
  };
}

export interface DiffEntryJson {
  filename: string;
  status: string; // added | removed | modified | renamed | copied | changed | unchanged
  patch?: string;
  previous_filename?: string;
  sha: string | null;
  additions?: number;
  deletions?: number;
}

export interface CommitComparisonJson {
  files?: DiffEntryJson[];
}

/** GitHub shows at most this many files of a comparison (and says nothing when it cuts). */
const COMPARE_FILES_CAP = 300;

export function toComparedFile(data: DiffEntryJson): ComparedFile {
  // A copy is a new file at its path; `changed` (a mode change) and `unchanged` modify nothing new.
  const status: ComparedFile['status'] =
    data.status === 'added' || data.status === 'copied'
      ? 'added'
      : data.status === 'removed'
        ? 'removed'
        : data.status === 'renamed'
          ? 'renamed'
          : 'modified';
  const file: ComparedFile = { path: data.filename, status, patch: data.patch ?? null, blobSha: data.sha ?? null };
  if (data.previous_filename !== undefined && data.previous_filename !== '') file.previousPath = data.previous_filename;
  // Issue 36: GitHub counts the lines even of a file it shows no patch for, so the bound on diff growth sees them.
  if (typeof data.additions === 'number' && typeof data.deletions === 'number') {
    file.additions = data.additions;
    file.deletions = data.deletions;
  }
  return file;
}

export function toComparison(data: CommitComparisonJson): Comparison {
  const files = (data.files ?? []).map(toComparedFile);
  return { files, truncated: files.length >= COMPARE_FILES_CAP };
}

/** GET /repos/{owner}/{repo}/collaborators/{username}/permission, the two fields read (decision 0042). */
export interface CollaboratorPermissionJson {
  permission?: unknown; // admin | write | read | none (maintain reads as write, triage as read)
  role_name?: unknown; // admin | maintain | write | triage | read, or a custom role's name
}

/**
 * F1/F2: the role the endpoint answers — `role_name` when it is one of GitHub's own roles (only it
 * names triage and maintain), else `permission` (a custom role's base role); anything else is `none`.
 */
export function toRepositoryPermission(data: CollaboratorPermissionJson): RepositoryPermission {
  const known = (v: unknown): RepositoryPermission | null => {
    const name = typeof v === 'string' ? v.trim().toLowerCase() : '';
    return (REPOSITORY_PERMISSIONS as readonly string[]).includes(name) ? (name as RepositoryPermission) : null;
  };
  return known(data.role_name) ?? known(data.permission) ?? 'none';
}
