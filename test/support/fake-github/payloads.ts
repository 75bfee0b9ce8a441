// GitHub's JSON shapes built from the fake's small records: every field GitHub's OpenAPI description
// requires is present (validate.ts checks each answer), with URLs pointing back at the fake.
import { createHash } from 'node:crypto';
import type {
  FakeCheckRun,
  FakeComment,
  FakeCompare,
  FakeCompareFile,
  FakeIssue,
  FakePull,
  FakeRepo,
  FakeLabelEvent,
  FakeReview,
  FakeReviewComment,
  FakeRole,
  FakeState,
  FakeStatus,
} from './state.js';
import { ensureRepo } from './state.js';

export interface Urls {
  /** REST root, e.g. http://127.0.0.1:PORT or http://127.0.0.1:PORT/api/v3. */
  api: string;
  /** Web root for html_url fields. */
  web: string;
}

const EPOCH = '2024-01-01T00:00:00Z';

/** A stable small number for a login, so the same account always has the same id. */
function accountId(login: string): number {
  let h = 7;
  for (const c of login) h = (h * 31 + c.charCodeAt(0)) % 1_000_000;
  return 1_000_000 + h;
}

export function simpleUser(
  urls: Urls,
  login: string,
  type = login.endsWith('[bot]') ? 'Bot' : 'User',
): Record<string, unknown> {
  const url = `${urls.api}/users/${encodeURIComponent(login)}`;
  return {
    login,
    id: accountId(login),
    node_id: `U_${accountId(login)}`,
    avatar_url: `${urls.web}/avatars/${encodeURIComponent(login)}`,
    gravatar_id: '',
    url,
    html_url: `${urls.web}/${encodeURIComponent(login)}`,
    followers_url: `${url}/followers`,
    following_url: `${url}/following{/other_user}`,
    gists_url: `${url}/gists{/gist_id}`,
    starred_url: `${url}/starred{/owner}{/repo}`,
    subscriptions_url: `${url}/subscriptions`,
    organizations_url: `${url}/orgs`,
    repos_url: `${url}/repos`,
    events_url: `${url}/events{/privacy}`,
    received_events_url: `${url}/received_events`,
    type,
    site_admin: false,
  };
}

/**
 * GET collaborators/{username}/permission: `permission` is the legacy base role (maintain reads as
 * write, triage as read), `role_name` the role itself; `user` a collaborator with its permissions.
 */
export function collaboratorPermission(urls: Urls, login: string, role: FakeRole): Record<string, unknown> {
  const base = role === 'maintain' ? 'write' : role === 'triage' ? 'read' : role;
  const at = (r: FakeRole) => ROLE_ORDER.indexOf(role) >= ROLE_ORDER.indexOf(r);
  return {
    permission: base,
    role_name: role,
    user: {
      ...simpleUser(urls, login, 'User'),
      permissions: {
        pull: at('read'),
        triage: at('triage'),
        push: at('write'),
        maintain: at('maintain'),
        admin: at('admin'),
      },
      role_name: role,
    },
  };
}
const ROLE_ORDER: readonly FakeRole[] = ['read', 'triage', 'write', 'maintain', 'admin'];

/** A `labeled` issue event (GET issues/{n}/events). */
export function labeledEvent(urls: Urls, repo: FakeRepo, e: FakeLabelEvent): Record<string, unknown> {
  return {
    id: e.id,
    node_id: `LE_${e.id}`,
    url: `${urls.api}/repos/${repo.fullName}/issues/events/${e.id}`,
    actor: simpleUser(urls, e.actor),
    event: 'labeled',
    commit_id: null,
    commit_url: null,
    created_at: e.createdAt,
    performed_via_github_app: null,
    label: { name: e.label, color: 'ededed' },
  };
}

export function privateUser(urls: Urls, login: string): Record<string, unknown> {
  return {
    ...simpleUser(urls, login),
    name: login,
    company: null,
    blog: '',
    location: null,
    email: null,
    hireable: null,
    bio: null,
    public_repos: 1,
    public_gists: 0,
    followers: 0,
    following: 0,
    created_at: EPOCH,
    updated_at: EPOCH,
    private_gists: 0,
    total_private_repos: 0,
    owned_private_repos: 0,
    disk_usage: 0,
    collaborators: 0,
    two_factor_authentication: true,
  };
}

const REPO_URL_TEMPLATES: Record<string, string> = {
  archive_url: '/{archive_format}{/ref}',
  assignees_url: '/assignees{/user}',
  blobs_url: '/git/blobs{/sha}',
  branches_url: '/branches{/branch}',
  collaborators_url: '/collaborators{/collaborator}',
  comments_url: '/comments{/number}',
  commits_url: '/commits{/sha}',
  compare_url: '/compare/{base}...{head}',
  contents_url: '/contents/{+path}',
  contributors_url: '/contributors',
  deployments_url: '/deployments',
  downloads_url: '/downloads',
  events_url: '/events',
  forks_url: '/forks',
  git_commits_url: '/git/commits{/sha}',
  git_refs_url: '/git/refs{/sha}',
  git_tags_url: '/git/tags{/sha}',
  hooks_url: '/hooks',
  issue_comment_url: '/issues/comments{/number}',
  issue_events_url: '/issues/events{/number}',
  issues_url: '/issues{/number}',
  keys_url: '/keys{/key_id}',
  labels_url: '/labels{/name}',
  languages_url: '/languages',
  merges_url: '/merges',
  milestones_url: '/milestones{/number}',
  notifications_url: '/notifications{?since,all,participating}',
  pulls_url: '/pulls{/number}',
  releases_url: '/releases{/id}',
  stargazers_url: '/stargazers',
  statuses_url: '/statuses/{sha}',
  subscribers_url: '/subscribers',
  subscription_url: '/subscription',
  tags_url: '/tags',
  teams_url: '/teams',
  trees_url: '/git/trees{/sha}',
};

export function minimalRepository(urls: Urls, repo: FakeRepo): Record<string, unknown> {
  const [owner = '', name = ''] = repo.fullName.split('/');
  const url = `${urls.api}/repos/${repo.fullName}`;
  const links = Object.fromEntries(Object.entries(REPO_URL_TEMPLATES).map(([key, tail]) => [key, `${url}${tail}`]));
  return {
    id: repo.id,
    node_id: `R_${repo.id}`,
    name,
    full_name: repo.fullName,
    owner: simpleUser(urls, owner, 'Organization'),
    private: repo.private ?? false,
    html_url: `${urls.web}/${repo.fullName}`,
    description: null,
    fork: false,
    url,
    ...links,
  };
}

export function repository(urls: Urls, repo: FakeRepo): Record<string, unknown> {
  const web = `${urls.web}/${repo.fullName}`;
  return {
    ...minimalRepository(urls, repo),
    git_url: `${web.replace(/^https?:/, 'git:')}.git`,
    ssh_url: `git@fake-github:${repo.fullName}.git`,
    clone_url: `${web}.git`,
    svn_url: web,
    mirror_url: null,
    homepage: null,
    language: 'TypeScript',
    license: null,
    forks: 0,
    forks_count: 0,
    stargazers_count: 0,
    watchers_count: 0,
    watchers: 0,
    size: 1,
    default_branch: repo.defaultBranch ?? 'main',
    open_issues: 0,
    open_issues_count: 0,
    has_issues: true,
    has_projects: true,
    has_wiki: false,
    has_pages: false,
    has_downloads: true,
    archived: false,
    disabled: false,
    pushed_at: EPOCH,
    created_at: EPOCH,
    updated_at: EPOCH,
  };
}

export function label(urls: Urls, repo: FakeRepo, name: string): Record<string, unknown> {
  const id = accountId(`${repo.fullName}:${name}`);
  return {
    id,
    node_id: `LA_${id}`,
    url: `${urls.api}/repos/${repo.fullName}/labels/${encodeURIComponent(name)}`,
    name,
    description: null,
    color: 'ededed',
    default: false,
  };
}

export function pullRequest(
  urls: Urls,
  state: FakeState,
  repo: FakeRepo,
  number: number,
  pull: FakePull,
): Record<string, unknown> {
  const url = `${urls.api}/repos/${repo.fullName}/pulls/${number}`;
  const html = `${urls.web}/${repo.fullName}/pull/${number}`;
  const issue = `${urls.api}/repos/${repo.fullName}/issues/${number}`;
  const statuses = `${urls.api}/repos/${repo.fullName}/statuses/${pull.headSha}`;
  const author = pull.author ?? 'octocat';
  const headRepo = pull.headRepo === null ? null : ensureRepo(state, pull.headRepo ?? repo.fullName);
  const headRef = pull.headRef ?? `agent/pr-${number}`;
  const baseRef = pull.baseRef ?? repo.defaultBranch ?? 'main';
  const merged = pull.merged ?? false;
  const updatedAt = pull.updatedAt ?? EPOCH;
  const closed = (pull.state ?? 'open') === 'closed';
  const id = accountId(`${repo.fullName}#${number}`);
  return {
    url,
    id,
    node_id: `PR_${id}`,
    html_url: html,
    diff_url: `${html}.diff`,
    patch_url: `${html}.patch`,
    issue_url: issue,
    commits_url: `${url}/commits`,
    review_comments_url: `${url}/comments`,
    review_comment_url: `${urls.api}/repos/${repo.fullName}/pulls/comments{/number}`,
    comments_url: `${issue}/comments`,
    statuses_url: statuses,
    number,
    state: closed ? 'closed' : 'open',
    locked: false,
    title: pull.title ?? `Pull request ${number}`,
    user: simpleUser(urls, author),
    body: pull.body === undefined ? null : pull.body,
    labels: (pull.labels ?? []).map((name) => label(urls, repo, name)),
    milestone: null,
    active_lock_reason: null,
    created_at: pull.createdAt ?? EPOCH,
    updated_at: updatedAt,
    closed_at: closed ? updatedAt : null,
    merged_at: merged ? updatedAt : null,
    merge_commit_sha: merged ? '0'.repeat(40) : null,
    assignee: null,
    assignees: [],
    requested_reviewers: [],
    requested_teams: [],
    head: {
      label: `${(headRepo?.fullName ?? repo.fullName).split('/')[0]}:${headRef}`,
      ref: headRef,
      sha: pull.headSha,
      user: simpleUser(urls, (headRepo?.fullName ?? repo.fullName).split('/')[0] ?? '', 'Organization'),
      repo: headRepo === null ? null : repository(urls, headRepo),
    },
    base: {
      label: `${repo.fullName.split('/')[0]}:${baseRef}`,
      ref: baseRef,
      sha: pull.baseSha ?? 'b'.repeat(40),
      user: simpleUser(urls, repo.fullName.split('/')[0] ?? '', 'Organization'),
      repo: repository(urls, repo),
    },
    _links: {
      self: { href: url },
      html: { href: html },
      issue: { href: issue },
      comments: { href: `${issue}/comments` },
      review_comments: { href: `${url}/comments` },
      review_comment: { href: `${urls.api}/repos/${repo.fullName}/pulls/comments{/number}` },
      commits: { href: `${url}/commits` },
      statuses: { href: statuses },
    },
    author_association: 'CONTRIBUTOR',
    auto_merge: null,
    draft: pull.draft ?? false,
    merged,
    mergeable: closed ? null : true,
    rebaseable: closed ? null : true,
    mergeable_state: pull.mergeableState ?? 'clean',
    merged_by: null,
    comments: 0,
    review_comments: 0,
    maintainer_can_modify: false,
    commits: 1,
    additions: 1,
    deletions: 0,
    changed_files: 1,
  };
}

export function integration(urls: Urls, id: number, slug: string): Record<string, unknown> {
  return {
    id,
    slug,
    node_id: `A_${id}`,
    client_id: `Iv1.${slug}`,
    owner: simpleUser(urls, slug === 'github-actions' ? 'github' : 'acme', 'Organization'),
    name: slug,
    description: null,
    external_url: `${urls.web}/apps/${slug}`,
    html_url: `${urls.web}/apps/${slug}`,
    created_at: EPOCH,
    updated_at: EPOCH,
    permissions: {
      checks: 'write',
      contents: 'read',
      issues: 'write',
      metadata: 'read',
      pull_requests: 'write',
      statuses: 'read',
    },
    events: ['check_run', 'check_suite', 'pull_request', 'status'],
  };
}

/** A check run's status as answered: as set, else completed when it has a conclusion, else queued. */
export function checkRunStatus(run: FakeCheckRun): string {
  return run.status ?? (run.conclusion === undefined || run.conclusion === null ? 'queued' : 'completed');
}

export function checkRun(urls: Urls, repo: FakeRepo, sha: string, run: FakeCheckRun): Record<string, unknown> {
  const status = checkRunStatus(run);
  const slug = run.appSlug ?? 'github-actions';
  const url = `${urls.api}/repos/${repo.fullName}/check-runs/${run.id}`;
  return {
    id: run.id,
    head_sha: sha,
    node_id: `CR_${run.id}`,
    external_id: String(run.id),
    url,
    html_url: `${urls.web}/${repo.fullName}/runs/${run.id}`,
    details_url:
      run.detailsUrl === undefined
        ? `${urls.web}/${repo.fullName}/actions/runs/${run.runId ?? 1}/job/${run.id}`
        : run.detailsUrl,
    status,
    conclusion: run.conclusion ?? null,
    started_at: run.startedAt === undefined ? EPOCH : run.startedAt,
    completed_at: run.completedAt === undefined ? (status === 'completed' ? EPOCH : null) : run.completedAt,
    output: {
      title: run.outputTitle ?? null,
      summary: run.outputSummary ?? null,
      text: null,
      annotations_count: 0,
      annotations_url: `${url}/annotations`,
    },
    name: run.name,
    check_suite: { id: 1 },
    app: integration(urls, slug === 'github-actions' ? 15368 : accountId(slug), slug),
    pull_requests: [],
  };
}

/** The conclusions a workflow job can have (a check run's `stale` is GitHub's own, never a job's). */
const JOB_CONCLUSIONS = ['success', 'failure', 'neutral', 'cancelled', 'skipped', 'timed_out', 'action_required'];

/** An Actions job (GET actions/jobs/{job_id}): the check run seen from the workflow run it belongs to. */
export function job(
  urls: Urls,
  repo: FakeRepo,
  sha: string,
  run: FakeCheckRun,
  runId: number,
): Record<string, unknown> {
  const status = checkRunStatus(run);
  const conclusion = run.conclusion != null && JOB_CONCLUSIONS.includes(run.conclusion) ? run.conclusion : null;
  const startedAt = run.startedAt ?? EPOCH;
  return {
    id: run.id,
    run_id: runId,
    run_url: `${urls.api}/repos/${repo.fullName}/actions/runs/${runId}`,
    run_attempt: 1,
    node_id: `CR_${run.id}`,
    head_sha: sha,
    url: `${urls.api}/repos/${repo.fullName}/actions/jobs/${run.id}`,
    html_url: `${urls.web}/${repo.fullName}/actions/runs/${runId}/job/${run.id}`,
    status,
    conclusion,
    created_at: startedAt,
    started_at: startedAt,
    completed_at: run.completedAt === undefined ? (status === 'completed' ? EPOCH : null) : run.completedAt,
    name: run.name,
    steps: [],
    check_run_url: `${urls.api}/repos/${repo.fullName}/check-runs/${run.id}`,
    labels: ['ubuntu-latest'],
    runner_id: null,
    runner_name: null,
    runner_group_id: null,
    runner_group_name: null,
    workflow_name: 'CI',
    head_branch: null,
  };
}

export function simpleCommitStatus(
  urls: Urls,
  repo: FakeRepo,
  sha: string,
  status: FakeStatus,
): Record<string, unknown> {
  const id = status.id ?? 0;
  return {
    id,
    node_id: `SC_${id}`,
    state: status.state,
    context: status.context,
    description: status.description ?? null,
    target_url: status.targetUrl ?? null,
    avatar_url: null,
    url: `${urls.api}/repos/${repo.fullName}/statuses/${sha}`,
    created_at: status.createdAt ?? EPOCH,
    updated_at: status.updatedAt ?? status.createdAt ?? EPOCH,
  };
}

export function commitStatus(urls: Urls, repo: FakeRepo, sha: string, status: FakeStatus): Record<string, unknown> {
  return { ...simpleCommitStatus(urls, repo, sha, status), creator: simpleUser(urls, 'ci-bot') };
}

/** GitHub's rule: failure if any latest status is error/failure, pending if any is pending or none exist. */
export function combinedState(latest: FakeStatus[]): string {
  if (latest.some((s) => s.state === 'error' || s.state === 'failure')) return 'failure';
  if (latest.length === 0 || latest.some((s) => s.state === 'pending')) return 'pending';
  return 'success';
}

export function issueComment(
  urls: Urls,
  repo: FakeRepo,
  number: number,
  comment: FakeComment,
): Record<string, unknown> {
  const author = comment.author ?? 'octocat';
  return {
    id: comment.id,
    node_id: `IC_${comment.id}`,
    url: `${urls.api}/repos/${repo.fullName}/issues/comments/${comment.id}`,
    html_url: `${urls.web}/${repo.fullName}/pull/${number}#issuecomment-${comment.id}`,
    issue_url: `${urls.api}/repos/${repo.fullName}/issues/${number}`,
    body: comment.body,
    user: simpleUser(urls, author, comment.authorType),
    created_at: comment.createdAt ?? EPOCH,
    updated_at: comment.updatedAt ?? comment.createdAt ?? EPOCH,
    author_association: comment.authorType === 'Bot' ? 'NONE' : 'MEMBER',
  };
}

/** An issue as GitHub answers POST /issues and PATCH /issues/{n} (the `issue` schema). */
export function issue(urls: Urls, repo: FakeRepo, i: FakeIssue, comments: number): Record<string, unknown> {
  const url = `${urls.api}/repos/${repo.fullName}/issues/${i.number}`;
  return {
    id: 500_000 + i.number,
    node_id: `I_${i.number}`,
    url,
    repository_url: `${urls.api}/repos/${repo.fullName}`,
    labels_url: `${url}/labels{/name}`,
    comments_url: `${url}/comments`,
    events_url: `${url}/events`,
    html_url: `${urls.web}/${repo.fullName}/issues/${i.number}`,
    number: i.number,
    state: i.state,
    state_reason: i.stateReason,
    title: i.title,
    body: i.body,
    user: simpleUser(urls, i.author, i.authorType),
    labels: [],
    assignee: null,
    assignees: [],
    milestone: null,
    locked: false,
    comments,
    closed_at: i.closedAt,
    created_at: i.createdAt,
    updated_at: i.updatedAt,
    author_association: i.authorType === 'Bot' ? 'NONE' : 'MEMBER',
  };
}

export function review(urls: Urls, repo: FakeRepo, number: number, r: FakeReview): Record<string, unknown> {
  const html = `${urls.web}/${repo.fullName}/pull/${number}#pullrequestreview-${r.id}`;
  const pr = `${urls.api}/repos/${repo.fullName}/pulls/${number}`;
  return {
    id: r.id,
    node_id: `PRR_${r.id}`,
    user: simpleUser(urls, r.author ?? 'reviewer', r.authorType),
    body: r.body ?? '',
    state: r.state,
    html_url: html,
    pull_request_url: pr,
    _links: { html: { href: html }, pull_request: { href: pr } },
    ...(r.state === 'PENDING' ? {} : { submitted_at: r.submittedAt ?? EPOCH }),
    commit_id: r.commitId === undefined ? null : r.commitId,
    author_association: r.authorType === 'Bot' ? 'NONE' : 'MEMBER',
  };
}

/** GET /repos/{owner}/{repo}/pulls/{pull_number}/reviews/{review_id}/comments: one `review-comment`. */
export function reviewComment(
  urls: Urls,
  repo: FakeRepo,
  number: number,
  r: FakeReview,
  c: FakeReviewComment,
  index: number,
): Record<string, unknown> {
  const id = r.id * 1000 + index + 1;
  const url = `${urls.api}/repos/${repo.fullName}/pulls/comments/${id}`;
  const html = `${urls.web}/${repo.fullName}/pull/${number}#discussion_r${id}`;
  const pr = `${urls.api}/repos/${repo.fullName}/pulls/${number}`;
  const line = c.line ?? 1;
  const commit = r.commitId ?? '0'.repeat(40);
  return {
    url,
    pull_request_review_id: r.id,
    id,
    node_id: `PRRC_${id}`,
    diff_hunk: `@@ -${line},1 +${line},1 @@`,
    path: c.path,
    position: 1,
    original_position: 1,
    commit_id: commit,
    original_commit_id: commit,
    user: simpleUser(urls, r.author ?? 'reviewer', r.authorType),
    body: c.body,
    created_at: r.submittedAt ?? EPOCH,
    updated_at: r.submittedAt ?? EPOCH,
    html_url: html,
    pull_request_url: pr,
    author_association: r.authorType === 'Bot' ? 'NONE' : 'MEMBER',
    _links: { self: { href: url }, html: { href: html }, pull_request: { href: pr } },
    side: 'RIGHT',
    line,
    original_line: line,
    subject_type: 'line',
  };
}

export function installation(
  urls: Urls,
  id: number,
  appId: number,
  appSlug: string,
  owner: string,
): Record<string, unknown> {
  return {
    id,
    account: simpleUser(urls, owner, 'Organization'),
    repository_selection: 'all',
    access_tokens_url: `${urls.api}/app/installations/${id}/access_tokens`,
    repositories_url: `${urls.api}/installation/repositories`,
    html_url: `${urls.web}/organizations/${owner}/settings/installations/${id}`,
    app_id: appId,
    app_slug: appSlug,
    target_id: accountId(owner),
    target_type: 'Organization',
    permissions: {
      checks: 'read',
      issues: 'write',
      pull_requests: 'write',
      statuses: 'read',
      actions: 'read',
      metadata: 'read',
    },
    events: ['check_run', 'pull_request', 'status'],
    created_at: EPOCH,
    updated_at: EPOCH,
    single_file_name: null,
    suspended_by: null,
    suspended_at: null,
  };
}

export function statusCheckPolicy(
  urls: Urls,
  repo: FakeRepo,
  branch: string,
  policy: { contexts: string[]; checks: Array<{ context: string; app_id: number | null }>; strict?: boolean },
): Record<string, unknown> {
  const url = `${urls.api}/repos/${repo.fullName}/branches/${encodeURIComponent(branch)}/protection/required_status_checks`;
  return {
    url,
    strict: policy.strict ?? true,
    contexts: policy.contexts,
    contexts_url: `${url}/contexts`,
    checks: policy.checks,
  };
}

/** A stable 40-hex SHA for anything the fake must name but a test never chose (blobs, trees). */
function fakeSha(...parts: string[]): string {
  return createHash('sha1').update(parts.join('\u0000')).digest('hex');
}

export function commit(
  urls: Urls,
  repo: FakeRepo,
  sha: string,
  parents: string[],
  opts: { message?: string; author?: string } = {},
): Record<string, unknown> {
  const url = `${urls.api}/repos/${repo.fullName}/commits/${sha}`;
  const html = `${urls.web}/${repo.fullName}/commit/${sha}`;
  const login = opts.author ?? 'octocat';
  const person = { name: login, email: `${login.replace(/\[bot\]$/, '')}@users.noreply.fake-github.test`, date: EPOCH };
  const tree = fakeSha('tree', sha);
  return {
    url,
    sha,
    node_id: `C_${sha.slice(0, 20)}`,
    html_url: html,
    comments_url: `${url}/comments`,
    commit: {
      url: `${urls.api}/repos/${repo.fullName}/git/commits/${sha}`,
      author: person,
      committer: person,
      message: opts.message ?? `commit ${sha.slice(0, 7)}`,
      comment_count: 0,
      tree: { sha: tree, url: `${urls.api}/repos/${repo.fullName}/git/trees/${tree}` },
      verification: { verified: false, reason: 'unsigned', payload: null, signature: null, verified_at: null },
    },
    author: simpleUser(urls, login),
    committer: simpleUser(urls, login),
    parents: parents.map((p) => ({
      sha: p,
      url: `${urls.api}/repos/${repo.fullName}/commits/${p}`,
      html_url: `${urls.web}/${repo.fullName}/commit/${p}`,
    })),
  };
}

/** Lines a patch adds and removes (what GitHub counts as additions and deletions). */
function patchCounts(patch: string | null | undefined): { additions: number; deletions: number } {
  let additions = 0;
  let deletions = 0;
  for (const line of (patch ?? '').split('\n')) {
    if (line.startsWith('+')) additions++;
    else if (line.startsWith('-')) deletions++;
  }
  return { additions, deletions };
}

export function diffEntry(urls: Urls, repo: FakeRepo, head: string, file: FakeCompareFile): Record<string, unknown> {
  const { additions, deletions } = patchCounts(file.patch);
  const status = file.status ?? 'modified';
  const path = file.path.split('/').map(encodeURIComponent).join('/');
  const entry: Record<string, unknown> = {
    // A removed file's entry names the blob it had; the fake's blob SHAs are stable digests.
    sha: fakeSha('blob', file.path, file.patch ?? '', status),
    filename: file.path,
    status,
    additions,
    deletions,
    changes: additions + deletions,
    blob_url: `${urls.web}/${repo.fullName}/blob/${head}/${path}`,
    raw_url: `${urls.web}/${repo.fullName}/raw/${head}/${path}`,
    contents_url: `${urls.api}/repos/${repo.fullName}/contents/${path}?ref=${head}`,
  };
  if (file.patch !== undefined && file.patch !== null) entry.patch = file.patch;
  if (file.previousPath !== undefined) entry.previous_filename = file.previousPath;
  return entry;
}

/** GET compare base...head: the fake's head descends from its base (status ahead; identical when equal). */
export function commitComparison(
  urls: Urls,
  repo: FakeRepo,
  base: string,
  head: string,
  compare: FakeCompare,
): Record<string, unknown> {
  const identical = base === head;
  const listed = identical ? [] : (compare.commits ?? [{ sha: head }]);
  const commits = listed.map((c, i) =>
    commit(urls, repo, c.sha, [i === 0 ? base : listed[i - 1]!.sha], {
      ...(c.message ? { message: c.message } : {}),
      ...(c.author ? { author: c.author } : {}),
    }),
  );
  const baseCommit = commit(urls, repo, base, [fakeSha('parent', base)]);
  const web = `${urls.web}/${repo.fullName}`;
  return {
    url: `${urls.api}/repos/${repo.fullName}/compare/${base}...${head}`,
    html_url: `${web}/compare/${base}...${head}`,
    permalink_url: `${web}/compare/${repo.fullName.split('/')[0]}:${base}...${repo.fullName.split('/')[0]}:${head}`,
    diff_url: `${web}/compare/${base}...${head}.diff`,
    patch_url: `${web}/compare/${base}...${head}.patch`,
    base_commit: baseCommit,
    merge_base_commit: baseCommit,
    status: identical ? 'identical' : 'ahead',
    ahead_by: commits.length,
    behind_by: 0,
    total_commits: commits.length,
    commits,
    // GitHub shows at most 300 files of a comparison, without saying it cut the list.
    files: (identical ? [] : compare.files).slice(0, 300).map((f) => diffEntry(urls, repo, head, f)),
  };
}

export function error(message: string, status: number): Record<string, unknown> {
  return { message, documentation_url: 'https://docs.github.com/rest', status: String(status) };
}
