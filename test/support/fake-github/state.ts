// The fake GitHub's state: a plain object a test reads and writes directly, keyed the way a person
// names things (`acme/shop#7`, `acme/shop@<sha>`, `acme/shop:main`; always lower-case). Records hold
// only what a test cares about; payloads.ts fills in the rest of GitHub's shape when answering.

export interface FakeRepo {
  /** As GitHub shows it, case kept ("Acme/Shop"). */
  fullName: string;
  id: number;
  private?: boolean;
  defaultBranch?: string;
}

export interface FakePull {
  headSha: string;
  headRef?: string;
  /** owner/name of the head repository as shown; null = deleted fork; default the base repository. */
  headRepo?: string | null;
  baseRef?: string;
  baseSha?: string;
  title?: string;
  body?: string | null;
  state?: 'open' | 'closed';
  merged?: boolean;
  draft?: boolean;
  author?: string;
  labels?: string[];
  mergeableState?: string;
  createdAt?: string;
  updatedAt?: string;
}

export interface FakeCheckRun {
  /** For a GitHub Actions job this is also the job id (its log: `state.logs[id]`). */
  id: number;
  name: string;
  status?: 'queued' | 'in_progress' | 'completed' | 'waiting' | 'requested' | 'pending';
  conclusion?: string | null;
  startedAt?: string | null;
  completedAt?: string | null;
  detailsUrl?: string | null;
  /** The app that ran it; default "github-actions". */
  appSlug?: string;
  outputTitle?: string | null;
  outputSummary?: string | null;
  /** The workflow run an Actions job belongs to (GET actions/jobs/{id} → run_id); default one per commit. */
  runId?: number;
}

/** A re-run the fake was asked for (POST actions/runs/{run_id}/rerun-failed-jobs, answered 201). */
export interface FakeRerun {
  /** Lower-case owner/name. */
  repo: string;
  runId: number;
  at: string;
}

export interface FakeStatus {
  id?: number;
  context: string;
  state: 'error' | 'failure' | 'pending' | 'success';
  description?: string | null;
  targetUrl?: string | null;
  createdAt?: string;
  updatedAt?: string;
}

export interface FakeComment {
  id: number;
  body: string;
  author?: string;
  authorType?: 'User' | 'Bot' | 'Organization';
  createdAt?: string;
  updatedAt?: string;
}

export interface FakeReview {
  id: number;
  state: 'APPROVED' | 'CHANGES_REQUESTED' | 'COMMENTED' | 'DISMISSED' | 'PENDING';
  body?: string;
  author?: string;
  authorType?: 'User' | 'Bot';
  commitId?: string | null;
  submittedAt?: string;
  /** Issue 36: the review's inline comments (GET …/reviews/{review_id}/comments). */
  comments?: FakeReviewComment[];
}

/** One inline comment of a review: the file and line it sits on, and its text. */
export interface FakeReviewComment {
  path: string;
  body: string;
  /** The line of the file it is on; default 1. */
  line?: number;
}

/** One file of a comparison, as a test names it (payloads.ts adds counts, URLs and the blob SHA). */
export interface FakeCompareFile {
  path: string;
  /** Default modified. */
  status?: 'added' | 'removed' | 'modified' | 'renamed' | 'copied' | 'changed' | 'unchanged';
  /** The unified-diff hunks; absent or null = no patch shown (binary, or too large). */
  patch?: string | null;
  /** For a rename or copy. */
  previousPath?: string;
}

export interface FakeCompare {
  files: FakeCompareFile[];
  /** Commits from base to head (oldest first); default one commit, the head. */
  commits?: Array<{ sha: string; message?: string; author?: string }>;
}

/** Branch protection's required status checks; 'forbidden' answers 403 (credentials may not read it). */
export type FakeProtection =
  { contexts: string[]; checks: Array<{ context: string; app_id: number | null }>; strict?: boolean } | 'forbidden';

/** V3: an App created from a manifest, with the credentials its conversion answers once. */
export interface FakeManifestApp {
  id: number;
  slug: string;
  name: string;
  owner: { login: string; type: 'User' | 'Organization' };
  pem: string;
  webhookSecret: string;
  clientId: string;
  clientSecret: string;
}

export interface FakeApp {
  id: number;
  slug: string;
  /** PEM (SPKI) of the key whose private half signs the App's JWTs. */
  publicKey: string;
}

export interface FakeInstallationToken {
  installationId: number;
  /** Lower-case owner the installation is on. */
  account: string;
  expiresAt: string;
}

/** Issue 36: an accepted PUT pulls/{n}/update-branch: the head it replaced and the merge commit it made. */
export interface FakeBranchUpdate {
  /** 'acme/shop#7' */
  pull: string;
  from: string;
  to: string;
  at: string;
}

/** Who added a label to a pull request, as GET issues/{n}/events reports it (a `labeled` event). */
export interface FakeLabelEvent {
  id: number;
  label: string;
  actor: string;
  createdAt: string;
}

/** An issue filed through POST /repos/{owner}/{repo}/issues. */
export interface FakeIssue {
  number: number;
  title: string;
  body: string | null;
  state: 'open' | 'closed';
  stateReason: string | null;
  author: string;
  authorType: 'User' | 'Bot';
  createdAt: string;
  updatedAt: string;
  closedAt: string | null;
}

/** A person's role on a repository (GET collaborators/{username}/permission answers it as role_name). */
export type FakeRole = 'read' | 'triage' | 'write' | 'maintain' | 'admin';

export interface FakeState {
  repos: Record<string, FakeRepo>;
  /** 'acme/shop#7' */
  pulls: Record<string, FakePull>;
  /** 'acme/shop@<sha>', in creation order. */
  checkRuns: Record<string, FakeCheckRun[]>;
  /** 'acme/shop@<sha>', oldest first; the combined status shows the latest per context. */
  statuses: Record<string, FakeStatus[]>;
  /** 'acme/shop:main'; absent = branch not protected (404). */
  protection: Record<string, FakeProtection>;
  /** job id → the whole log text served by the blob host. */
  logs: Record<number, string>;
  /** A job whose logs redirect somewhere else than the blob host (e.g. a plain-http URL). */
  logRedirects: Record<number, string>;
  /** 'acme/shop#7', oldest first. */
  comments: Record<string, FakeComment[]>;
  /** 'acme/shop#7', chronological. */
  reviews: Record<string, FakeReview[]>;
  /** 'acme/shop@<base>...<head>': what GET compare answers; absent = 404, as for an unknown commit. */
  compares: Record<string, FakeCompare>;
  /** Re-runs of failed jobs asked for and accepted, in order. */
  reruns: FakeRerun[];
  /** Issue 36: pull requests put back in the merge queue (GraphQL `enqueuePullRequest`), in order. */
  enqueued?: Array<{ repository: string; number: number; expectedHeadOid: string | null }>;
  /** 'acme/shop' → 'forbidden': rerun-failed-jobs answers 403, as for a token without actions: write. */
  rerunPolicy: Record<string, 'forbidden'>;
  /** 'acme/shop@<sha>' → the workflow run id the commit's Actions jobs belong to unless they name one. */
  workflowRuns: Record<string, number>;
  /**
   * 'acme/shop:main' → the branch's head sha: `commits/{ref}/…` given that branch's name reads that
   * commit, as GitHub does; any other ref is taken as a sha.
   */
  branches: Record<string, string>;
  /**
   * 'acme/shop#7' → the `labeled` events recorded (labels added through the API or `labelBy`). A label
   * on the pull request without one was added by the repository's owner (the events show it so).
   */
  labelEvents: Record<string, FakeLabelEvent[]>;
  /**
   * 'acme/shop' → lower-case login → role; a login absent is no collaborator (404), except the
   * repository's owner account, which is admin as on GitHub.
   */
  collaborators: Record<string, Record<string, FakeRole>>;
  /** 'acme/shop#12' → an issue filed through the API (issue 36: a red base); numbered after the pulls. */
  issues: Record<string, FakeIssue>;
  /** personal token → login. */
  userTokens: Record<string, string>;
  app: FakeApp | null;
  /** V3: Apps created from a manifest, by the one-hour code GitHub hands back (deleted once converted). */
  manifestCodes: Record<string, FakeManifestApp>;
  /** V3: every manifest GitHub's "new App" page received, in order. */
  manifests: Array<{ manifest: Record<string, unknown>; organization: string | null; state: string | null }>;
  /** lower-case owner → installation id of the App there. */
  installations: Record<string, number>;
  /** installation token → what it may act on. */
  installationTokens: Record<string, FakeInstallationToken>;
  /** Issue 36: branch updates accepted, in order (each moved its pull request's head). */
  branchUpdates: FakeBranchUpdate[];
  /** Ids handed out to new records. */
  nextId: number;
  /** Timestamps given to new records and mutations; tests may move it. */
  now: () => Date;
}

export function createState(): FakeState {
  return {
    repos: {},
    pulls: {},
    checkRuns: {},
    statuses: {},
    protection: {},
    logs: {},
    logRedirects: {},
    comments: {},
    reviews: {},
    compares: {},
    reruns: [],
    rerunPolicy: {},
    workflowRuns: {},
    branches: {},
    collaborators: {},
    labelEvents: {},
    issues: {},
    userTokens: {},
    app: null,
    manifestCodes: {},
    manifests: [],
    installations: {},
    installationTokens: {},
    branchUpdates: [],
    nextId: 1000,
    now: () => new Date(),
  };
}

export const repoKey = (repo: string): string => repo.toLowerCase();
export const pullKey = (repo: string, number: number): string => `${repoKey(repo)}#${number}`;
export const refKey = (repo: string, sha: string): string => `${repoKey(repo)}@${sha}`;
export const compareKey = (repo: string, base: string, head: string): string => `${repoKey(repo)}@${base}...${head}`;
export const branchKey = (repo: string, branch: string): string => `${repoKey(repo)}:${branch}`;

/** The commit `ref` names in `commits/{ref}/…`: a branch set with setBranch is its head; anything else a sha. */
export function resolveRef(state: FakeState, repo: string, ref: string): string {
  return state.branches[branchKey(repo, ref)] ?? ref;
}

export function nextId(state: FakeState): number {
  return state.nextId++;
}

export function isoNow(state: FakeState): string {
  return state
    .now()
    .toISOString()
    .replace(/\.\d{3}Z$/, 'Z');
}

/** The repository record for owner/name, created on first mention with the casing given. */
export function ensureRepo(state: FakeState, fullName: string): FakeRepo {
  const key = repoKey(fullName);
  let repo = state.repos[key];
  if (repo === undefined) {
    repo = { fullName, id: nextId(state) };
    state.repos[key] = repo;
  }
  return repo;
}
