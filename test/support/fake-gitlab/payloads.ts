// GitLab REST v4 answer shapes, built from the fake's records. Field names and types follow GitLab's
// API entities (UserBasic, ProjectWithAccess, MergeRequest(Basic), Ci::Pipeline(Basic), Ci::Job,
// Note, CommitStatus, Member, Compare, Branch); values a test never set get plausible defaults.
import { createHash } from 'node:crypto';
import type {
  FakeGitLabState,
  GlCommitStatus,
  GlCompareDiff,
  GlIssue,
  GlJob,
  GlMergeRequest,
  GlNote,
  GlPipeline,
  GlProject,
  GlUser,
} from './state.js';
import { mrKey } from './state.js';

/** A 40-hex sha derived from any text: stable stand-ins for commits a test never named. */
export const fakeSha = (seed: string): string => createHash('sha1').update(seed).digest('hex');

export function userBasic(web: string, user: GlUser): Record<string, unknown> {
  return {
    id: user.id,
    username: user.username,
    name: user.name,
    state: user.state ?? 'active',
    locked: false,
    avatar_url: `${web}/uploads/-/system/user/avatar/${user.id}/avatar.png`,
    web_url: `${web}/${user.username}`,
  };
}

export function currentUser(web: string, user: GlUser): Record<string, unknown> {
  return {
    ...userBasic(web, user),
    created_at: '2020-01-01T00:00:00.000Z',
    bio: '',
    location: '',
    public_email: null,
    skype: '',
    linkedin: '',
    twitter: '',
    discord: '',
    website_url: '',
    organization: '',
    job_title: '',
    pronouns: null,
    bot: /_bot(_|$)/.test(user.username),
    work_information: null,
    local_time: null,
    last_sign_in_at: null,
    confirmed_at: '2020-01-01T00:00:00.000Z',
    last_activity_on: null,
    email: `${user.username}@example.com`,
    theme_id: 1,
    color_scheme_id: 1,
    projects_limit: 100000,
    current_sign_in_at: null,
    identities: [],
    can_create_group: true,
    can_create_project: true,
    two_factor_enabled: false,
    external: false,
    private_profile: false,
    commit_email: `${user.username}@example.com`,
    is_admin: false,
  };
}

export function project(web: string, p: GlProject): Record<string, unknown> {
  const parts = p.path.split('/');
  const name = parts[parts.length - 1]!;
  const namespace = parts.slice(0, -1).join('/');
  const nsName = parts[parts.length - 2] ?? name;
  return {
    id: p.id,
    description: null,
    name,
    name_with_namespace: parts.join(' / '),
    path: name,
    path_with_namespace: p.path,
    created_at: '2020-01-01T00:00:00.000Z',
    default_branch: p.defaultBranch,
    tag_list: [],
    topics: [],
    ssh_url_to_repo: `git@${new URL(web).host}:${p.path}.git`,
    http_url_to_repo: `${web}/${p.path}.git`,
    web_url: `${web}/${p.path}`,
    readme_url: null,
    avatar_url: null,
    forks_count: 0,
    star_count: 0,
    last_activity_at: '2020-01-01T00:00:00.000Z',
    namespace: {
      id: Number.parseInt(fakeSha(namespace).slice(0, 6), 16),
      name: nsName,
      path: nsName,
      kind: 'group',
      full_path: namespace,
      parent_id: null,
      avatar_url: null,
      web_url: `${web}/groups/${namespace}`,
    },
    visibility: p.strictAccess ? 'private' : 'public',
    archived: false,
    empty_repo: false,
    issues_enabled: true,
    merge_requests_enabled: true,
    jobs_enabled: true,
    only_allow_merge_if_pipeline_succeeds: false,
    only_allow_merge_if_all_discussions_are_resolved: false,
    merge_method: 'merge',
  };
}

export function pipelineBasic(web: string, path: string, p: GlPipeline): Record<string, unknown> {
  return {
    id: p.id,
    iid: p.iid,
    project_id: p.projectId,
    sha: p.sha,
    ref: p.ref,
    status: p.status,
    source: p.source,
    created_at: p.createdAt,
    updated_at: p.updatedAt,
    web_url: `${web}/${path}/-/pipelines/${p.id}`,
    name: null,
  };
}

export function pipeline(web: string, path: string, p: GlPipeline, user: GlUser | null): Record<string, unknown> {
  const duration =
    p.startedAt !== null && p.finishedAt !== null
      ? Math.round((Date.parse(p.finishedAt) - Date.parse(p.startedAt)) / 1000)
      : null;
  return {
    ...pipelineBasic(web, path, p),
    before_sha: '0000000000000000000000000000000000000000',
    tag: false,
    yaml_errors: null,
    user: user === null ? null : userBasic(web, user),
    started_at: p.startedAt,
    finished_at: p.finishedAt,
    committed_at: null,
    duration,
    queued_duration: p.startedAt === null ? null : 0,
    coverage: null,
    detailed_status: detailedStatus(web, path, p),
  };
}

const STATUS_TEXT: Record<string, { text: string; icon: string; group: string }> = {
  created: { text: 'Created', icon: 'status_created', group: 'created' },
  pending: { text: 'Pending', icon: 'status_pending', group: 'pending' },
  running: { text: 'Running', icon: 'status_running', group: 'running' },
  success: { text: 'Passed', icon: 'status_success', group: 'success' },
  failed: { text: 'Failed', icon: 'status_failed', group: 'failed' },
  canceled: { text: 'Canceled', icon: 'status_canceled', group: 'canceled' },
  skipped: { text: 'Skipped', icon: 'status_skipped', group: 'skipped' },
  manual: { text: 'Manual', icon: 'status_manual', group: 'manual' },
  scheduled: { text: 'Scheduled', icon: 'status_scheduled', group: 'scheduled' },
};

function detailedStatus(web: string, path: string, p: GlPipeline): Record<string, unknown> {
  const s = STATUS_TEXT[p.status] ?? { text: p.status, icon: `status_${p.status}`, group: p.status };
  return {
    icon: s.icon,
    text: s.text,
    label: s.text.toLowerCase(),
    group: s.group,
    tooltip: s.text.toLowerCase(),
    has_details: true,
    details_path: `/${path}/-/pipelines/${p.id}`,
    illustration: null,
    favicon: `/assets/ci_favicons/favicon_${s.icon}.png`,
  };
}

export function commit(web: string, path: string, sha: string): Record<string, unknown> {
  return {
    id: sha,
    short_id: sha.slice(0, 8),
    created_at: '2020-01-01T00:00:00.000+00:00',
    parent_ids: [fakeSha(`parent of ${sha}`)],
    title: `Commit ${sha.slice(0, 8)}`,
    message: `Commit ${sha.slice(0, 8)}\n`,
    author_name: 'Example Author',
    author_email: 'author@example.com',
    authored_date: '2020-01-01T00:00:00.000+00:00',
    committer_name: 'Example Author',
    committer_email: 'author@example.com',
    committed_date: '2020-01-01T00:00:00.000+00:00',
    trailers: {},
    extended_trailers: {},
    web_url: `${web}/${path}/-/commit/${sha}`,
  };
}

export function job(
  web: string,
  path: string,
  j: GlJob,
  p: GlPipeline,
  user: GlUser | null,
  detail: boolean,
): Record<string, unknown> {
  const duration =
    j.startedAt === null
      ? null
      : ((j.finishedAt === null ? Date.now() : Date.parse(j.finishedAt)) - Date.parse(j.startedAt)) / 1000;
  const body: Record<string, unknown> = {
    id: j.id,
    status: j.status,
    stage: j.stage,
    name: j.name,
    ref: p.ref,
    tag: false,
    coverage: null,
    allow_failure: j.allowFailure,
    created_at: j.createdAt,
    started_at: j.startedAt,
    finished_at: j.finishedAt,
    erased_at: null,
    duration,
    queued_duration: j.startedAt === null ? null : 0.5,
    user: user === null ? null : userBasic(web, user),
    commit: commit(web, path, p.sha),
    pipeline: {
      id: p.id,
      iid: p.iid,
      project_id: p.projectId,
      sha: p.sha,
      ref: p.ref,
      status: p.status,
      source: p.source,
      created_at: p.createdAt,
      updated_at: p.updatedAt,
      web_url: `${web}/${path}/-/pipelines/${p.id}`,
    },
    web_url: `${web}/${path}/-/jobs/${j.id}`,
    project: { ci_job_token_scope_enabled: false },
  };
  if (j.status === 'failed') body.failure_reason = j.failureReason ?? 'script_failure';
  if (detail) {
    Object.assign(body, {
      artifacts: [],
      runner: null,
      runner_manager: null,
      artifacts_expire_at: null,
      archived: false,
      tag_list: [],
    });
  }
  return body;
}

export function note(
  web: string,
  n: GlNote,
  author: GlUser,
  mr: GlMergeRequest,
  resolver: GlUser | null = null,
): Record<string, unknown> {
  const resolvable = n.resolvable === true;
  return {
    id: n.id,
    type: n.position ? 'DiffNote' : resolvable ? 'DiscussionNote' : null,
    body: n.body,
    attachment: null,
    author: userBasic(web, author),
    created_at: n.createdAt,
    updated_at: n.updatedAt,
    system: n.system,
    noteable_id: mr.id,
    noteable_type: 'MergeRequest',
    project_id: mr.projectId,
    resolvable,
    // doc/api/discussions.md: a resolvable note says whether its thread is resolved, and by whom.
    ...(resolvable
      ? {
          resolved: n.resolved === true,
          resolved_by: n.resolved === true && resolver !== null ? userBasic(web, resolver) : null,
          resolved_at: n.resolved === true ? n.updatedAt : null,
        }
      : {}),
    ...(n.position
      ? {
          position: {
            base_sha: n.position.baseSha,
            start_sha: n.position.baseSha,
            head_sha: n.position.headSha,
            old_path: n.position.path,
            new_path: n.position.path,
            position_type: 'text',
            old_line: null,
            new_line: n.position.line,
            line_range: null,
          },
        }
      : {}),
    confidential: false,
    internal: false,
    imported: false,
    imported_from: 'none',
    noteable_iid: mr.iid,
    commands_changes: {},
  };
}

/**
 * GitLab's Discussion entity (doc/api/discussions.md): a thread, or a single note on its own
 * (`individual_note`), its notes oldest first.
 */
export function discussion(
  id: string,
  notes: readonly GlNote[],
  render: (n: GlNote) => Record<string, unknown>,
): Record<string, unknown> {
  const single = notes.length === 1 && notes[0]!.resolvable !== true;
  return { id, individual_note: single, notes: notes.map(render) };
}

/** A discussion's id as GitLab writes them: 40 hex characters. */
export const discussionIdOf = (noteId: number): string => fakeSha(`discussion:${noteId}`);

/** GitLab's Issue entity (doc/api/issues.md), the fields a client reads and their neighbours. */
export function issue(web: string, path: string, i: GlIssue, author: GlUser): Record<string, unknown> {
  return {
    id: i.id,
    iid: i.iid,
    project_id: i.projectId,
    title: i.title,
    description: i.description,
    state: i.state,
    created_at: i.createdAt,
    updated_at: i.updatedAt,
    closed_at: i.closedAt,
    closed_by: i.state === 'closed' ? userBasic(web, author) : null,
    labels: [],
    milestone: null,
    assignees: [],
    author: userBasic(web, author),
    type: 'ISSUE',
    issue_type: 'issue',
    user_notes_count: i.notes.length,
    confidential: false,
    discussion_locked: null,
    web_url: `${web}/${path}/-/issues/${i.iid}`,
    references: { short: `#${i.iid}`, relative: `#${i.iid}`, full: `${path}#${i.iid}` },
  };
}

/** A note on an issue (the Notes API's entity, noteable_type Issue). */
export function issueNote(web: string, n: GlNote, author: GlUser, i: GlIssue): Record<string, unknown> {
  return {
    id: n.id,
    type: null,
    body: n.body,
    attachment: null,
    author: userBasic(web, author),
    created_at: n.createdAt,
    updated_at: n.updatedAt,
    system: n.system,
    noteable_id: i.id,
    noteable_type: 'Issue',
    project_id: i.projectId,
    resolvable: false,
    confidential: false,
    internal: false,
    noteable_iid: i.iid,
  };
}

export function commitStatus(web: string, s: GlCommitStatus, author: GlUser): Record<string, unknown> {
  return {
    id: s.id,
    sha: s.sha,
    ref: s.ref,
    status: s.state,
    name: s.name,
    target_url: s.target_url,
    description: s.description,
    created_at: s.createdAt,
    started_at: s.startedAt,
    finished_at: s.finishedAt,
    allow_failure: s.allowFailure,
    coverage: null,
    pipeline_id: s.pipelineId,
    author: userBasic(web, author),
  };
}

export function member(
  web: string,
  user: GlUser,
  accessLevel: number,
  membershipState = 'active',
): Record<string, unknown> {
  return {
    ...userBasic(web, user),
    access_level: accessLevel,
    created_at: '2020-01-01T00:00:00.000Z',
    created_by: null,
    expires_at: null,
    membership_state: membershipState,
  };
}

export function compare(
  web: string,
  path: string,
  from: string,
  to: string,
  diffs: GlCompareDiff[],
): Record<string, unknown> {
  const same = from === to;
  return {
    commit: same ? null : commit(web, path, to),
    commits: same ? [] : [commit(web, path, to)],
    diffs: same
      ? []
      : diffs.map((d) => ({
          diff: d.diff,
          new_path: d.new_path,
          old_path: d.old_path,
          a_mode: d.new_file ? '0' : '100644',
          b_mode: d.deleted_file ? '0' : '100644',
          new_file: d.new_file ?? false,
          renamed_file: d.renamed_file ?? false,
          deleted_file: d.deleted_file ?? false,
          generated_file: false,
        })),
    compare_timeout: false,
    compare_same_ref: same,
    web_url: `${web}/${path}/-/compare/${from}...${to}`,
  };
}

export function branch(
  web: string,
  p: GlProject,
  name: string,
  b: { sha: string; protected: boolean },
): Record<string, unknown> {
  return {
    name,
    commit: commit(web, p.path, b.sha),
    merged: false,
    protected: b.protected,
    developers_can_push: false,
    developers_can_merge: false,
    can_push: true,
    default: name === p.defaultBranch,
    web_url: `${web}/${p.path}/-/tree/${name}`,
  };
}

export interface MrContext {
  web: string;
  state: FakeGitLabState;
  project: GlProject;
  mr: GlMergeRequest;
  /** The pipeline head_pipeline shows (detail only). */
  headPipeline: GlPipeline | null;
  /** Whether to render the single-MR (detailed) shape. */
  detail: boolean;
  /** Access level of the caller, for user.can_merge. */
  callerLevel: number;
}

export function mergeRequest(ctx: MrContext): Record<string, unknown> {
  const { web, state, project: p, mr } = ctx;
  const user = (id: number) => userBasic(web, state.users[id]!);
  const labels = [...(state.labels[mrKey(p.path, mr.iid)] ?? [])].sort();
  const requestedChanges = mr.reviewers.some((r) => r.state === 'requested_changes');
  const detailed =
    mr.detailedMergeStatus ??
    (mr.state !== 'opened'
      ? 'not_open'
      : mr.draft
        ? 'draft_status'
        : requestedChanges
          ? 'requested_changes'
          : 'mergeable');
  const body: Record<string, unknown> = {
    id: mr.id,
    iid: mr.iid,
    project_id: mr.projectId,
    title: mr.title,
    description: mr.description,
    state: mr.state,
    created_at: mr.createdAt,
    updated_at: mr.updatedAt,
    merged_by: mr.state === 'merged' ? user(mr.authorId) : null,
    merge_user: mr.state === 'merged' ? user(mr.authorId) : null,
    merged_at: mr.mergedAt,
    closed_by: mr.state === 'closed' ? user(mr.authorId) : null,
    closed_at: mr.closedAt,
    target_branch: mr.targetBranch,
    source_branch: mr.sourceBranch,
    user_notes_count: (state.notes[mrKey(p.path, mr.iid)] ?? []).filter((n) => !n.system).length,
    upvotes: 0,
    downvotes: 0,
    author: user(mr.authorId),
    assignees: [],
    assignee: null,
    reviewers: mr.reviewers.map((r) => user(r.userId)),
    source_project_id: mr.sourceProjectId,
    target_project_id: mr.projectId,
    labels,
    draft: mr.draft,
    imported: false,
    imported_from: 'none',
    work_in_progress: mr.draft,
    milestone: null,
    merge_when_pipeline_succeeds: false,
    merge_status: detailed === 'conflict' ? 'cannot_be_merged' : 'can_be_merged',
    detailed_merge_status: detailed,
    merge_after: null,
    sha: mr.headSha,
    merge_commit_sha: null,
    squash_commit_sha: null,
    discussion_locked: null,
    should_remove_source_branch: null,
    force_remove_source_branch: false,
    prepared_at: mr.createdAt,
    reference: `!${mr.iid}`,
    references: { short: `!${mr.iid}`, relative: `!${mr.iid}`, full: `${p.path}!${mr.iid}` },
    web_url: `${web}/${p.path}/-/merge_requests/${mr.iid}`,
    time_stats: { time_estimate: 0, total_time_spent: 0, human_time_estimate: null, human_total_time_spent: null },
    squash: false,
    squash_on_merge: false,
    task_completion_status: { count: 0, completed_count: 0 },
    has_conflicts: detailed === 'conflict',
    blocking_discussions_resolved: true,
  };
  if (mr.sourceProjectId !== mr.projectId) {
    body.allow_collaboration = false;
    body.allow_maintainer_to_push = false;
  }
  if (ctx.detail) {
    const sourcePath = Object.values(state.projects).find((x) => x.id === mr.sourceProjectId)?.path ?? p.path;
    Object.assign(body, {
      subscribed: false,
      changes_count: null,
      latest_build_started_at: ctx.headPipeline?.startedAt ?? null,
      latest_build_finished_at: ctx.headPipeline?.finishedAt ?? null,
      first_deployed_to_production_at: null,
      pipeline: ctx.headPipeline === null ? null : pipelineBasic(web, sourcePath, ctx.headPipeline),
      head_pipeline:
        ctx.headPipeline === null
          ? null
          : pipeline(web, sourcePath, ctx.headPipeline, state.users[ctx.headPipeline.userId ?? -1] ?? null),
      diff_refs: { base_sha: mr.baseSha, head_sha: mr.headSha, start_sha: mr.baseSha },
      merge_error: null,
      // Issue 36: commits the source lacks of the target (the single read answers it): some when it needs a rebase.
      diverged_commits_count: detailed === 'need_rebase' ? 1 : 0,
      first_contribution: false,
      user: { can_merge: ctx.callerLevel >= 30 },
    });
  }
  return body;
}
