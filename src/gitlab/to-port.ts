// GitLab's JSON answers turned into the port's records (which speak GitHub's words), naming only
// the fields fixloop reads. The mapping, in short (SPEC B4, E1, F1–F2, J1, K3–K4, K8, Q1):
// - repository = the project's path_with_namespace, lower-cased ('group/sub/project'), sent
//   URL-encoded as the project id; a pull request is a merge request, its number the iid.
// - A check run is a job of the sha's newest pipeline per ref and source (client.ts picks them),
//   retried attempts left out so the latest stands; app 'gitlab-ci', id = the job id (its trace).
//   An allowed failure is never red (neutral); a manual job that blocks the pipeline waits, one that
//   does not is skipped, as GitLab's own pipeline status reads them.
// - A commit status is an external status on the sha (not a job's own entry in the same list).
// - Issue comments are the merge request's notes, GitLab's system notes left out.
// - Reviews are the reviewers' states: GitLab keeps one current state per reviewer, not a history.
// - Standing (author association) is the member's access level, inherited from groups included.
// - Names, refs, usernames and bodies are cleaned of control and bidirectional characters (issue 31).
// And what the port's optional methods mean on GitLab (client.ts): a job's log is its trace, read
// with the API token (readJobLog; there is no signed jobLogUrl); authorAssociation is the member's
// access level in the port's words (Owner → OWNER, Maintainer → MEMBER, Developer → COLLABORATOR,
// less → NONE), since GitLab's hooks carry none; updateBranch is the merge request's rebase (refused
// when its head moved); a comment is edited as a note through its merge request.
import type {
  CheckRunInfo,
  CommitStatusInfo,
  ComparedFile,
  Comparison,
  IssueCommentInfo,
  PullRequestInfo,
  ReviewInfo,
} from '../app/provider-port.js';
import { untrustedLine, untrustedLineOrNull, untrustedText, untrustedTextOrNull } from '../core/untrusted-text.js';

interface UserJson {
  id?: number;
  username: string;
  /** On some endpoints; project and group access tokens act as bot users. */
  bot?: boolean;
}

export interface MergeRequestJson {
  iid: number;
  state: string; // opened | closed | locked | merged
  draft?: boolean;
  work_in_progress?: boolean;
  sha: string | null;
  diff_refs?: { head_sha?: string | null } | null;
  source_branch: string;
  target_branch: string;
  title?: string | null;
  source_project_id: number;
  target_project_id: number;
  author: UserJson | null;
  labels?: Array<string | { name?: string }>;
  detailed_merge_status?: string | null;
  updated_at: string;
}

/**
 * state: opened (and locked, GitLab's brief state while a merge is under way) → open, else closed;
 * merged only when merged. headRepository is the source project's path, which client.ts looks up
 * for a fork (null when it cannot be read). mergeableState is GitLab's detailed_merge_status
 * ('mergeable', 'conflict', 'ci_must_pass', …), not GitHub's words: nothing in core reads its values.
 */
export function toPullRequest(
  repository: string,
  data: MergeRequestJson,
  headRepository: string | null,
): PullRequestInfo {
  return {
    repository: repository.toLowerCase(),
    number: data.iid,
    state: data.state === 'opened' || data.state === 'locked' ? 'open' : 'closed',
    merged: data.state === 'merged',
    headSha: data.sha ?? data.diff_refs?.head_sha ?? '',
    headRef: untrustedLine(data.source_branch),
    headRepository,
    baseRef: untrustedLine(data.target_branch),
    author: untrustedLineOrNull(data.author?.username ?? null),
    title: untrustedLineOrNull(data.title ?? null),
    draft: data.draft ?? data.work_in_progress ?? false,
    labels: (data.labels ?? []).flatMap((l) =>
      typeof l === 'string' ? [untrustedLine(l)] : l.name === undefined ? [] : [untrustedLine(l.name)],
    ),
    mergeableState: data.detailed_merge_status ?? null,
    updatedAt: data.updated_at,
  };
}

export interface PipelineJson {
  id: number;
  sha: string;
  ref: string | null;
  source?: string | null;
  status: string;
}

/**
 * The pipelines whose jobs stand for the sha: the newest (highest id) per ref and source. A branch
 * pipeline and a merge request pipeline of one commit are both shown, as GitLab shows both; a
 * pipeline run again for the same ref supersedes the older one; a child pipeline keeps its own.
 */
export function newestPipelines(pipelines: readonly PipelineJson[]): PipelineJson[] {
  const newest = new Map<string, PipelineJson>();
  for (const p of pipelines) {
    const key = `${p.ref ?? ''}\u0000${p.source ?? ''}`;
    const seen = newest.get(key);
    if (seen === undefined || p.id > seen.id) newest.set(key, p);
  }
  return [...newest.values()].sort((a, b) => b.id - a.id);
}

export interface JobJson {
  id: number;
  name: string;
  status: string;
  allow_failure?: boolean;
  started_at: string | null;
  finished_at: string | null;
  web_url: string | null;
  failure_reason?: string | null;
  pipeline?: { id: number } | null;
}

/**
 * A job's status in check-run words, judged as GitLab judges its pipeline (decision 0034): success →
 * success; failed → failure, but a job that may fail counts as passed ("passed with warnings": never
 * red, never holding the gate); canceled → cancelled; skipped, and a manual job that does not block
 * the pipeline (allow_failure, the default for a manual job outside rules), count as passed as well,
 * since GitLab's pipeline passes without them; a blocking manual job → waiting (a person must start
 * it: not green); created, pending and the other not-yet-started statuses → queued; running and
 * canceling → in_progress. A status GitLab adds later is queued: never a pass. `PASSED_AS` names what
 * a passing non-success was, for the entry's title.
 */
export function checkRunState(status: string, allowFailure: boolean): { status: string; conclusion: string | null } {
  switch (status) {
    case 'success':
      return { status: 'completed', conclusion: 'success' };
    case 'failed':
      return { status: 'completed', conclusion: allowFailure ? 'success' : 'failure' };
    case 'canceled':
      return { status: 'completed', conclusion: 'cancelled' };
    case 'skipped':
      return { status: 'completed', conclusion: 'success' };
    case 'manual':
      return allowFailure ? { status: 'completed', conclusion: 'success' } : { status: 'waiting', conclusion: null };
    case 'running':
    case 'canceling':
      return { status: 'in_progress', conclusion: null };
    default:
      // created, pending, waiting_for_resource, preparing, scheduled, and any status added later.
      return { status: 'queued', conclusion: null };
  }
}

/** What a job counted as passed really was, said in its check run's title (pr checks, the dashboard). */
export function passedAs(data: Pick<JobJson, 'status' | 'allow_failure'>): string | null {
  if (data.status === 'failed' && (data.allow_failure ?? false)) return 'failed, allowed to fail';
  if (data.status === 'skipped') return 'skipped';
  if (data.status === 'manual' && (data.allow_failure ?? false)) return 'manual, not started (does not block)';
  return null;
}

/** Whether the job is red for the gate: failed, and not allowed to. */
export function isRedJob(data: JobJson): boolean {
  return data.status === 'failed' && !(data.allow_failure ?? false);
}

/**
 * A job as a check run. A red job's output is its evidence (the poll's failure text, C5/C6): the tail
 * of its trace as summary, with GitLab's failure_reason as title. Without the trace its output is
 * empty — never the bare failure_reason, which every script failure shares ("script_failure") and
 * would make two different failures look the same (T5).
 */
export function toCheckRun(data: JobJson, trace: string | null = null): CheckRunInfo {
  const { status, conclusion } = checkRunState(data.status, data.allow_failure ?? false);
  const red = isRedJob(data);
  const title = passedAs(data) ?? (red && trace === null ? null : untrustedLineOrNull(data.failure_reason ?? null));
  return {
    id: data.id,
    // The name alone, as GitLab's pipeline and its required-job rules name a job (no stage prefix).
    name: untrustedLine(data.name),
    status,
    conclusion,
    startedAt: data.started_at,
    completedAt: status === 'completed' ? data.finished_at : null,
    detailsUrl: data.web_url,
    appSlug: 'gitlab-ci',
    outputTitle: title,
    outputSummary: red ? untrustedTextOrNull(trace) : null,
    // A job that is not red but did not simply pass says what it was (pr checks shows it).
    ...(!red && title !== null ? { passedAs: title } : {}),
  };
}

export interface CommitStatusJson {
  id: number;
  name: string;
  status: string;
  description: string | null;
  target_url: string | null;
  created_at: string | null;
  started_at?: string | null;
  finished_at?: string | null;
}

/** failed → failure, canceled → error (both red, as GitHub's), success → success, anything else pending. */
export function toCommitStatus(data: CommitStatusJson): CommitStatusInfo {
  const state: CommitStatusInfo['state'] =
    data.status === 'failed'
      ? 'failure'
      : data.status === 'canceled'
        ? 'error'
        : data.status === 'success'
          ? 'success'
          : 'pending';
  return {
    context: untrustedLine(data.name),
    state,
    description: untrustedLineOrNull(data.description),
    targetUrl: data.target_url,
    updatedAt: data.finished_at ?? data.started_at ?? data.created_at,
  };
}

/** fixloop's state words → GitLab's: an error is a failure there (GitLab has no separate error state). */
export function gitlabStatusState(state: CommitStatusInfo['state']): 'pending' | 'success' | 'failed' {
  return state === 'success' ? 'success' : state === 'pending' ? 'pending' : 'failed';
}

/** GitLab keeps a commit status's description to 255 characters. */
export const STATUS_DESCRIPTION_MAX = 255;

export function statusDescription(text: string): string {
  const chars = [...text];
  return chars.length <= STATUS_DESCRIPTION_MAX ? text : `${chars.slice(0, STATUS_DESCRIPTION_MAX - 1).join('')}…`;
}

/** Project and group access tokens act as users named project_<id>_bot… / group_<id>_bot…. */
const TOKEN_BOT = /^(?:project|group)_\d+_bot(?:_[0-9a-f]+)?\d*$/;

/** 'Bot' for a bot user (its `bot` flag where the endpoint gives it, or an access token's name), else 'User'. */
export function userType(user: UserJson | null | undefined): string | null {
  if (!user) return null;
  return user.bot === true || TOKEN_BOT.test(user.username) ? 'Bot' : 'User';
}

export interface NoteJson {
  id: number;
  body: string | null;
  author: UserJson | null;
  system: boolean;
  created_at?: string;
  updated_at: string;
}

export function toIssueComment(data: NoteJson): IssueCommentInfo {
  return {
    id: data.id,
    body: data.body ?? '',
    author: untrustedLineOrNull(data.author?.username ?? null),
    authorType: userType(data.author),
    updatedAt: data.updated_at,
  };
}

export interface ReviewerJson {
  user: UserJson;
  state: string; // unreviewed | review_started | reviewed | requested_changes | approved | unapproved
  created_at?: string | null;
}

/**
 * GitLab has no review objects: each reviewer has one current state. requested_changes becomes a
 * CHANGES_REQUESTED review and approved an APPROVED one; the rest (not yet reviewed, commented) are
 * no verdict and are left out. The review's id is the reviewer's user id — stable while the state
 * stands, so the same request for changes is not taken for a new one on every read — and its body
 * that reviewer's latest note on the merge request, which is where GitLab's "request changes"
 * summary lands ('' when none). submittedAt is that note's time, else when the reviewer was added.
 */
export function toReviews(reviewers: readonly ReviewerJson[], notes: readonly NoteJson[]): ReviewInfo[] {
  const latestNote = new Map<string, NoteJson>();
  for (const n of notes) {
    if (n.system || !n.author) continue;
    const seen = latestNote.get(n.author.username);
    if (seen === undefined || noteTime(n) >= noteTime(seen)) latestNote.set(n.author.username, n);
  }
  return reviewers.flatMap((r): ReviewInfo[] => {
    const state = r.state === 'requested_changes' ? 'CHANGES_REQUESTED' : r.state === 'approved' ? 'APPROVED' : null;
    if (state === null || r.user.id === undefined) return [];
    const note = latestNote.get(r.user.username);
    return [
      {
        id: r.user.id,
        state,
        body: untrustedText(note?.body ?? ''),
        author: untrustedLine(r.user.username),
        authorType: userType(r.user),
        submittedAt: note?.created_at ?? note?.updated_at ?? r.created_at ?? null,
        commitId: null,
      },
    ];
  });
}

function noteTime(n: NoteJson): number {
  const t = Date.parse(n.created_at ?? n.updated_at);
  return Number.isFinite(t) ? t : 0;
}

export interface DiffJson {
  old_path: string;
  new_path: string;
  new_file: boolean;
  renamed_file: boolean;
  deleted_file: boolean;
  diff: string | null;
  too_large?: boolean | null;
  collapsed?: boolean | null;
}

export interface CompareJson {
  diffs?: DiffJson[];
  compare_timeout?: boolean;
  /** Set by newer GitLab when the diff was cut at its limits. */
  overflow?: boolean;
}

/** GitLab lists at most this many files of a diff (the instance's diff_max_files, 1000 by default). */
export const COMPARE_FILES_CAP = 1000;

export function toComparedFile(d: DiffJson): ComparedFile {
  const status: ComparedFile['status'] = d.new_file
    ? 'added'
    : d.deleted_file
      ? 'removed'
      : d.renamed_file
        ? 'renamed'
        : 'modified';
  // A diff too large (or collapsed) to show comes with an empty patch: there is none to read.
  const patch = d.too_large || d.collapsed || !d.diff ? null : d.diff;
  const file: ComparedFile = { path: d.new_path, status, patch, blobSha: null };
  if (d.renamed_file && d.old_path !== '') file.previousPath = d.old_path;
  return file;
}

export function toComparison(data: CompareJson): Comparison {
  const files = (data.diffs ?? []).map(toComparedFile);
  return {
    files,
    truncated: data.overflow === true || data.compare_timeout === true || files.length >= COMPARE_FILES_CAP,
  };
}

/**
 * A member's access level in GitHub's association words (provider-port.ts): Owner (50) → OWNER,
 * Maintainer (40) → MEMBER, Developer (30) → COLLABORATOR, Reporter and below → NONE.
 */
export function associationOf(accessLevel: number): string {
  if (accessLevel >= 50) return 'OWNER';
  if (accessLevel >= 40) return 'MEMBER';
  if (accessLevel >= 30) return 'COLLABORATOR';
  return 'NONE';
}

/**
 * F1/F2: whether a member's access level counts (decision 0042): the account is active (not blocked,
 * banned, deactivated or awaiting an administrator) and the membership is active (not awaiting a seat
 * or an invitation). A field an older GitLab does not send counts as active.
 */
export function activeMember(member: { state?: unknown; membership_state?: unknown }): boolean {
  const active = (v: unknown) => v === undefined || v === null || v === 'active';
  return active(member.state) && active(member.membership_state);
}
