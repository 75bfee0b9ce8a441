// A fake GitLab for tests: a real node:http server answering the part of GitLab's REST API v4 fixloop
// uses, under /api/v4, in GitLab's documented shapes (there is no OpenAPI file to validate against, so
// payloads.ts follows GitLab's API entities field by field). It authenticates PRIVATE-TOKEN / Bearer
// tokens, resolves `:id` as a numeric id or an URL-encoded path, paginates with x-* and Link headers,
// answers If-None-Match with 304, records every request, injects faults, and keeps GitLab's CI rules
// that matter to a client: a retry makes a new job (the old one is hidden unless include_retried), a
// pipeline's status follows its latest jobs and external statuses, notes touch their MR's updated_at.
import { randomBytes, createHash } from 'node:crypto';
import { createServer, STATUS_CODES, type IncomingHttpHeaders, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as gl from './payloads.js';
import { createPipeline, pipelineVariables, type FakePipelineVariable } from './ci-pipelines.js';
import { fakeIdTokens, type IdTokenClaims } from './id-tokens.js';
import {
  compareKey,
  createState,
  isoNow,
  issueKey,
  mrKey,
  nextId,
  projectKey,
  type FakeGitLabState,
  type GlCommitStatus,
  type GlCompareDiff,
  type GlIssue,
  type GlJob,
  type GlMergeRequest,
  type GlNote,
  type GlPipeline,
  type GlProject,
  type GlUser,
  type JobStatus,
  type MergeRequestState,
  type ReviewerState,
} from './state.js';

export type { FakeGitLabState } from './state.js';

export interface RecordedGitLabRequest {
  method: string;
  /** Path and query as received, e.g. '/api/v4/projects/group%2Fproject/merge_requests/7'. */
  path: string;
  headers: IncomingHttpHeaders;
  /** Parsed JSON or form body, the raw text otherwise, null when empty. */
  body: unknown;
  /** The status answered, once answered. */
  status: number | null;
}

export interface FakeGitLabOptions {
  /** Each answer waits this long first: a simulated round trip (default 0). */
  latencyMs?: number;
}

export interface FakeMergeRequestInput {
  headSha: string;
  sourceBranch?: string;
  targetBranch?: string;
  author?: string;
  labels?: string[];
  state?: MergeRequestState;
  draft?: boolean;
  sourceProjectPath?: string;
  title?: string;
  description?: string;
  /** diff_refs.base_sha/start_sha; default the target branch's head (setBranch) or a derived sha. */
  baseSha?: string;
  /** Overrides the derived detailed_merge_status. */
  detailedMergeStatus?: string;
}

export interface FakeGitLab {
  /** http://127.0.0.1:PORT; the API lives under url + '/api/v4'. */
  readonly url: string;
  readonly state: FakeGitLabState;
  readonly requests: RecordedGitLabRequest[];
  /** A personal access token acting as `username` (the user is created, with `userId` if given). */
  addToken(username: string, opts?: { userId?: number }): string;
  /** `path` is the path_with_namespace; `strictAccess` makes it private with role checks (state.ts). */
  addProject(path: string, opts?: { id?: number; defaultBranch?: string; strictAccess?: boolean }): { id: number };
  /** `membershipState` other than 'active' (e.g. 'awaiting') is what GitLab shows for a pending membership. */
  addMember(path: string, username: string, accessLevel: number, opts?: { membershipState?: string }): void;
  /** The account's state ('blocked', 'banned', 'deactivated', …; 'active' again undoes it). */
  setUserState(username: string, state: string): void;
  addMergeRequest(path: string, iid: number, mr: FakeMergeRequestInput): void;
  /** A push to the MR's source branch: new head sha, updated_at moves. */
  setHead(path: string, iid: number, sha: string): void;
  /** Branch `name` points at `sha` (GET repository/branches/:branch); protected by default only for the default branch. */
  setBranch(path: string, name: string, sha: string, opts?: { protected?: boolean }): void;
  addPipeline(
    path: string,
    p: { sha: string; ref?: string; status?: string; source?: string; user?: string },
  ): { id: number };
  addJob(
    path: string,
    pipelineId: number,
    j: {
      name: string;
      stage?: string;
      status: 'created' | 'pending' | 'running' | 'success' | 'failed' | 'canceled' | 'skipped' | 'manual';
      allowFailure?: boolean;
      trace?: string;
      failureReason?: string;
    },
  ): { id: number };
  setJobStatus(path: string, jobId: number, status: string): void;
  /** As GitLab: a new job (new id, same name/stage), status 'pending'; the old one is marked retried. */
  retryJob(path: string, jobId: number): { id: number };
  setTrace(jobId: number, text: string | Buffer): void;
  /**
   * A note on the merge request: a plain comment, or (issue 36, decision 0077) a thread — `thread: {}`
   * starts one on the merge request, `thread: { file, line }` a diff thread on the head,
   * `thread: { replyTo }` answers in a thread by its discussion id. Threads start unresolved.
   */
  addNote(
    path: string,
    iid: number,
    n: {
      body: string;
      author: string;
      system?: boolean;
      thread?: { file?: string; line?: number } | { replyTo: string };
    },
  ): { id: number; discussionId: string };
  /** Resolves (or, with `resolved: false`, reopens) a thread by its discussion id, as `by` (default its first note's author). */
  resolveThread(path: string, iid: number, discussionId: string, o?: { by?: string; resolved?: boolean }): void;
  setReviewerState(path: string, iid: number, username: string, state: ReviewerState): void;
  setCompare(path: string, from: string, to: string, diffs: GlCompareDiff[]): void;
  /** The next requests whose 'METHOD /path' (path with or without query) matches answer these statuses, one each. */
  failNext(pattern: RegExp, statuses: number[]): void;
  /** Issue 35 item 6: the pipelines `POST /projects/:id/pipeline` created, oldest first, with their variables. */
  createdPipelines(): Array<{
    id: number;
    path: string;
    ref: string;
    status: string;
    variables: FakePipelineVariable[];
  }>;
  /** A pipeline's status moves (created, pending, running, manual, success, failed, canceled, skipped …). */
  setPipelineStatus(path: string, pipelineId: number, status: string): void;
  /** A CI ID token issued by this instance (issuer: `url`), as a job's `id_tokens:` holds it (id-tokens.ts). */
  issueIdToken(claims: IdTokenClaims, opts?: { ttlSeconds?: number; now?: Date; stranger?: boolean }): Promise<string>;
  /** How often its key set (`/oauth/discovery/keys`) was read. */
  readonly idTokenKeyReads: number;
  close(): Promise<void>;
}

type Params = Record<string, string>;

interface Ctx {
  method: string;
  params: Params;
  query: URLSearchParams;
  /** Body fields merged over query fields, as Grape reads parameters. */
  input: Record<string, unknown>;
  caller: GlUser;
  headers: IncomingHttpHeaders;
}

type Answer =
  | { status: number; body: unknown; headers?: Record<string, string> }
  | { status: 200; list: unknown[] }
  | { status: number; text: Buffer; contentType: string };

interface Route {
  method: string;
  pattern: RegExp;
  names: string[];
  handle(ctx: Ctx): Answer;
}

class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: Record<string, unknown>,
  ) {
    super(JSON.stringify(body));
  }
}

const fail = (status: number, message: string): never => {
  throw new ApiError(status, { message });
};
const notFound = (what?: string): never => fail(404, what === undefined ? '404 Not found' : `404 ${what} Not Found`);
const forbidden = (reason?: string): never =>
  fail(403, reason === undefined ? '403 Forbidden' : `403 Forbidden - ${reason}`);
const badParam = (message: string): never => {
  throw new ApiError(400, { error: message });
};

const FINISHED = new Set(['success', 'failed', 'canceled', 'skipped']);
const COMMIT_STATES = new Set(['pending', 'running', 'success', 'failed', 'canceled', 'skipped']);
const API = '/api/v4';

export async function startFakeGitLab(opts: FakeGitLabOptions = {}): Promise<FakeGitLab> {
  const state = createState();
  const requests: RecordedGitLabRequest[] = [];
  const faults: Array<{ pattern: RegExp; statuses: number[] }> = [];
  let web = '';
  let observed = 0;

  // ---- lookups --------------------------------------------------------------------------------

  function userByName(username: string): GlUser | undefined {
    const lower = username.toLowerCase();
    return Object.values(state.users).find((u) => u.username.toLowerCase() === lower);
  }

  function ensureUser(username: string, id?: number): GlUser {
    const existing = userByName(username);
    if (existing !== undefined) {
      if (id !== undefined && existing.id !== id) throw new Error(`user ${username} already has id ${existing.id}`);
      return existing;
    }
    let uid = id ?? nextId(state);
    while (id === undefined && state.users[uid] !== undefined) uid = nextId(state);
    if (state.users[uid] !== undefined) throw new Error(`user id ${uid} is taken by ${state.users[uid]!.username}`);
    const user: GlUser = {
      id: uid,
      username,
      name: username.replace(/[._-]+/g, ' ').replace(/\b\w/g, (c) => c.toUpperCase()),
    };
    state.users[uid] = user;
    return user;
  }

  function ensureProject(
    path: string,
    opts: { id?: number; defaultBranch?: string; strictAccess?: boolean } = {},
  ): GlProject {
    const key = projectKey(path);
    let p = state.projects[key];
    if (p === undefined) {
      const id = opts.id ?? nextId(state);
      if (Object.values(state.projects).some((x) => x.id === id)) throw new Error(`project id ${id} is taken`);
      const defaultBranch = opts.defaultBranch ?? 'main';
      p = {
        id,
        path,
        defaultBranch,
        members: {},
        branches: { [defaultBranch]: { sha: gl.fakeSha(`${key}:${defaultBranch}`), protected: true } },
        labels: [],
        strictAccess: opts.strictAccess ?? false,
      };
      state.projects[key] = p;
    } else {
      if (opts.defaultBranch !== undefined && opts.defaultBranch !== p.defaultBranch) {
        p.defaultBranch = opts.defaultBranch;
        p.branches[opts.defaultBranch] ??= { sha: gl.fakeSha(`${key}:${opts.defaultBranch}`), protected: true };
      }
      if (opts.strictAccess !== undefined) p.strictAccess = opts.strictAccess;
    }
    return p;
  }

  function projectOrThrow(path: string): GlProject {
    const p = state.projects[projectKey(path)];
    if (p === undefined) throw new Error(`no project ${path} in the fake GitLab (addProject first)`);
    return p;
  }

  function mrOrThrow(path: string, iid: number): GlMergeRequest {
    const mr = state.mergeRequests[mrKey(path, iid)];
    if (mr === undefined) throw new Error(`no merge request ${mrKey(path, iid)} in the fake GitLab`);
    return mr;
  }

  function jobOrThrow(path: string, jobId: number): GlJob {
    const p = projectOrThrow(path);
    const j = state.jobs[jobId];
    if (j === undefined || j.projectId !== p.id) throw new Error(`no job ${jobId} in ${path}`);
    return j;
  }

  const projectById = (id: number): GlProject | undefined => Object.values(state.projects).find((p) => p.id === id);
  const pathOf = (projectId: number): string => projectById(projectId)?.path ?? String(projectId);

  // ---- CI rules -------------------------------------------------------------------------------

  /** A pipeline's latest jobs: retried ones left out, as GitLab's `latest` scope does. */
  const latestJobs = (pipelineId: number): GlJob[] =>
    Object.values(state.jobs).filter((j) => j.pipelineId === pipelineId && !j.retried);

  /** The latest external status per name attached to a pipeline. */
  function latestStatuses(pipelineId: number): GlCommitStatus[] {
    const byName = new Map<string, GlCommitStatus>();
    for (const s of state.commitStatuses) if (s.pipelineId === pipelineId) byName.set(s.name, s);
    return [...byName.values()];
  }

  /**
   * GitLab's composite status (Gitlab::Ci::Status::Composite, simplified): allowed failures count as
   * success with warnings, non-blocking manual jobs are ignored, anything still moving keeps it running.
   */
  function compositeStatus(items: Array<{ status: string; allowFailure: boolean }>): string | null {
    if (items.length === 0) return null;
    const set = new Set<string>();
    for (const item of items) {
      if (item.allowFailure && (item.status === 'failed' || item.status === 'canceled'))
        set.add('success_with_warnings');
      else if (item.allowFailure && item.status === 'manual') set.add('ignored');
      else set.add(item.status);
    }
    const only = (...allowed: string[]) => [...set].every((s) => allowed.includes(s));
    const any = (...wanted: string[]) => wanted.some((s) => set.has(s));
    if (only('skipped', 'ignored')) return 'skipped';
    if (only('success', 'skipped', 'success_with_warnings', 'ignored')) return 'success';
    if (only('created', 'success_with_warnings', 'ignored')) return 'created';
    if (only('preparing', 'success_with_warnings', 'ignored')) return 'preparing';
    if (only('canceled', 'success', 'skipped', 'success_with_warnings', 'ignored')) return 'canceled';
    if (only('pending', 'created', 'skipped', 'success_with_warnings', 'ignored')) return 'pending';
    if (any('running', 'pending')) return 'running';
    if (any('waiting_for_resource')) return 'waiting_for_resource';
    if (any('manual')) return 'manual';
    if (any('scheduled')) return 'scheduled';
    if (any('preparing')) return 'preparing';
    if (any('created')) return 'running';
    return 'failed';
  }

  function recompute(p: GlPipeline): void {
    const items = [
      ...latestJobs(p.id).map((j) => ({ status: j.status as string, allowFailure: j.allowFailure })),
      ...latestStatuses(p.id).map((s) => ({ status: s.state as string, allowFailure: s.allowFailure })),
    ];
    const status = compositeStatus(items);
    if (status === null || status === p.status) return;
    setPipelineStatus(p, status);
  }

  function setPipelineStatus(p: GlPipeline, status: string): void {
    const now = isoNow(state);
    p.status = status;
    p.updatedAt = now;
    if (status === 'running' && p.startedAt === null) p.startedAt = now;
    if (FINISHED.has(status)) {
      p.startedAt ??= now;
      p.finishedAt = now;
    } else p.finishedAt = null;
  }

  function setJob(j: GlJob, status: string): void {
    const now = isoNow(state);
    j.status = status as JobStatus;
    if (status === 'running') {
      j.startedAt ??= now;
      j.finishedAt = null;
    } else if (FINISHED.has(status)) {
      if (status !== 'skipped') j.startedAt ??= now;
      j.finishedAt = now;
    } else {
      j.startedAt = null;
      j.finishedAt = null;
    }
    if (status === 'failed') j.failureReason ??= 'script_failure';
    else j.failureReason = null;
  }

  function retry(j: GlJob, userId: number | null): GlJob {
    j.retried = true;
    const fresh: GlJob = {
      id: nextId(state),
      projectId: j.projectId,
      pipelineId: j.pipelineId,
      name: j.name,
      stage: j.stage,
      status: 'pending',
      allowFailure: j.allowFailure,
      failureReason: null,
      retried: false,
      userId,
      createdAt: isoNow(state),
      startedAt: null,
      finishedAt: null,
    };
    state.jobs[fresh.id] = fresh;
    state.jobRetries.push({ path: pathOf(j.projectId), jobId: j.id, newJobId: fresh.id });
    return fresh;
  }

  /** Pipelines of a project for `sha` (and `ref` when given), newest first. */
  const pipelinesFor = (projectId: number, sha: string, ref?: string): GlPipeline[] =>
    Object.values(state.pipelines)
      .filter((p) => p.projectId === projectId && p.sha === sha && (ref === undefined || p.ref === ref))
      .sort((a, b) => b.id - a.id);

  const mrRefs = (mr: GlMergeRequest) => [
    mr.sourceBranch,
    `refs/merge-requests/${mr.iid}/head`,
    `refs/merge-requests/${mr.iid}/merge`,
  ];

  /** What GitLab keeps as the MR's head pipeline: the newest one for its head sha on its source branch or MR refs. */
  function headPipeline(mr: GlMergeRequest): GlPipeline | null {
    const refs = mrRefs(mr);
    return pipelinesFor(mr.sourceProjectId, mr.headSha).find((p) => refs.includes(p.ref)) ?? null;
  }

  function mrPipelines(mr: GlMergeRequest): GlPipeline[] {
    const refs = mrRefs(mr);
    return Object.values(state.pipelines)
      .filter((p) => p.projectId === mr.sourceProjectId && mr.shas.includes(p.sha) && refs.includes(p.ref))
      .sort((a, b) => b.id - a.id);
  }

  function touchMr(mr: GlMergeRequest): void {
    mr.updatedAt = isoNow(state);
  }

  // ---- HTTP plumbing --------------------------------------------------------------------------

  function callerOf(headers: IncomingHttpHeaders): GlUser | null {
    const privateToken = one(headers['private-token']);
    const bearer = /^Bearer\s+(.+)$/i.exec(one(headers.authorization) ?? '')?.[1];
    const token = privateToken ?? bearer;
    if (token === undefined) return null;
    const id = state.tokens[token.trim()];
    return id === undefined ? null : (state.users[id] ?? null);
  }

  function resolveProject(ctx: Ctx): GlProject {
    const raw = ctx.params.id!;
    const p = /^\d+$/.test(raw) ? projectById(Number(raw)) : state.projects[projectKey(raw)];
    if (p === undefined) return notFound('Project');
    if (p.strictAccess && p.members[ctx.caller.id] === undefined) return notFound('Project');
    return p;
  }

  const levelOf = (p: GlProject, user: GlUser): number => p.members[user.id] ?? 0;

  function requireLevel(p: GlProject, user: GlUser, level: number, orAuthorOf?: GlMergeRequest): void {
    if (!p.strictAccess) return;
    if (orAuthorOf !== undefined && orAuthorOf.authorId === user.id) return;
    if (levelOf(p, user) < level) forbidden();
  }

  function resolveMr(ctx: Ctx, p: GlProject): GlMergeRequest {
    const mr = state.mergeRequests[mrKey(p.path, Number(ctx.params.iid))];
    if (mr === undefined || !/^\d+$/.test(ctx.params.iid!)) return notFound('Merge Request');
    return mr;
  }

  function resolvePipeline(ctx: Ctx, p: GlProject): GlPipeline {
    const pipeline = state.pipelines[Number(ctx.params.pipeline_id)];
    if (pipeline === undefined || pipeline.projectId !== p.id) return notFound('Pipeline');
    return pipeline;
  }

  function resolveJob(ctx: Ctx, p: GlProject): GlJob {
    const j = state.jobs[Number(ctx.params.job_id)];
    if (j === undefined || j.projectId !== p.id) return notFound('Job');
    return j;
  }

  const mrBody = (p: GlProject, mr: GlMergeRequest, caller: GlUser, detail: boolean) =>
    gl.mergeRequest({
      web,
      state,
      project: p,
      mr,
      headPipeline: detail ? headPipeline(mr) : null,
      detail,
      callerLevel: levelOf(p, caller),
    });

  const jobBody = (p: GlProject, j: GlJob, detail: boolean) =>
    gl.job(
      web,
      p.path,
      j,
      state.pipelines[j.pipelineId]!,
      j.userId === null ? null : (state.users[j.userId] ?? null),
      detail,
    );

  const noteBody = (n: GlNote, mr: GlMergeRequest) =>
    gl.note(
      web,
      n,
      state.users[n.authorId]!,
      mr,
      n.resolvedBy === undefined ? null : (state.users[n.resolvedBy] ?? null),
    );

  const pipelineBody = (p: GlProject, pipeline: GlPipeline) =>
    gl.pipeline(web, p.path, pipeline, pipeline.userId === null ? null : (state.users[pipeline.userId] ?? null));

  function stringParam(ctx: Ctx, name: string): string | undefined {
    const v = ctx.input[name];
    if (v === undefined || v === null) return undefined;
    return Array.isArray(v) ? v.map(String).join(',') : String(v);
  }

  const csv = (v: string | undefined): string[] =>
    v === undefined
      ? []
      : v
          .split(',')
          .map((s) => s.trim())
          .filter((s) => s !== '');

  // ---- routes ---------------------------------------------------------------------------------

  const routes: Route[] = [];
  const route = (spec: string, handle: (ctx: Ctx) => Answer): void => {
    const [method, path] = spec.split(' ') as [string, string];
    const names: string[] = [];
    const pattern = new RegExp(
      `^${path.replace(/:(\w+)/g, (_m, name: string) => {
        names.push(name);
        return '([^/]+)';
      })}$`,
    );
    routes.push({ method, pattern, names, handle });
  };

  route('GET /user', (ctx) => ({ status: 200, body: gl.currentUser(web, ctx.caller) }));

  route('GET /users', (ctx) => {
    const username = ctx.query.get('username');
    const users =
      username === null ? Object.values(state.users) : [userByName(username)].filter((u) => u !== undefined);
    return { status: 200, list: users.map((u) => gl.userBasic(web, u)) };
  });

  route('GET /projects/:id', (ctx) => ({ status: 200, body: gl.project(web, resolveProject(ctx)) }));

  route('GET /projects/:id/merge_requests', (ctx) => {
    const p = resolveProject(ctx);
    const wanted = ctx.query.get('state') ?? 'all';
    const source = ctx.query.get('source_branch');
    const target = ctx.query.get('target_branch');
    const labels = csv(ctx.query.get('labels') ?? undefined);
    const iids = [...ctx.query.getAll('iids[]'), ...ctx.query.getAll('iids')].map(Number);
    const orderBy = ctx.query.get('order_by') === 'updated_at' ? 'updatedAt' : 'createdAt';
    const asc = ctx.query.get('sort') === 'asc';
    const list = Object.values(state.mergeRequests)
      .filter((mr) => mr.projectId === p.id)
      .filter((mr) => wanted === 'all' || mr.state === wanted)
      .filter((mr) => source === null || mr.sourceBranch === source)
      .filter((mr) => target === null || mr.targetBranch === target)
      .filter((mr) => iids.length === 0 || iids.includes(mr.iid))
      .filter((mr) => labels.every((l) => (state.labels[mrKey(p.path, mr.iid)] ?? []).includes(l)))
      .sort((a, b) => (a[orderBy] < b[orderBy] ? -1 : a[orderBy] > b[orderBy] ? 1 : a.id - b.id) * (asc ? 1 : -1));
    return { status: 200, list: list.map((mr) => mrBody(p, mr, ctx.caller, false)) };
  });

  route('GET /projects/:id/merge_requests/:iid', (ctx) => {
    const p = resolveProject(ctx);
    return { status: 200, body: mrBody(p, resolveMr(ctx, p), ctx.caller, true) };
  });

  route('PUT /projects/:id/merge_requests/:iid', (ctx) => {
    const p = resolveProject(ctx);
    const mr = resolveMr(ctx, p);
    requireLevel(p, ctx.caller, 20, mr);
    const key = mrKey(p.path, mr.iid);
    const replace = stringParam(ctx, 'labels');
    const add = csv(stringParam(ctx, 'add_labels'));
    const remove = csv(stringParam(ctx, 'remove_labels'));
    let labels = replace === undefined ? [...(state.labels[key] ?? [])] : csv(replace);
    for (const l of add) if (!labels.includes(l)) labels.push(l);
    labels = labels.filter((l) => !remove.includes(l));
    for (const l of labels) if (!p.labels.includes(l)) p.labels.push(l);
    let changed = JSON.stringify(labels) !== JSON.stringify(state.labels[key] ?? []);
    state.labels[key] = labels;
    const title = stringParam(ctx, 'title');
    if (title !== undefined && title !== mr.title) {
      mr.title = title;
      mr.draft = /^\s*(\[draft\]|\(draft\)|draft:|draft\s-\s|draft\s)/i.test(title);
      changed = true;
    }
    const description = stringParam(ctx, 'description');
    if (description !== undefined && description !== mr.description) {
      mr.description = description;
      changed = true;
    }
    const event = stringParam(ctx, 'state_event');
    if (event === 'close' && mr.state === 'opened') {
      mr.state = 'closed';
      mr.closedAt = isoNow(state);
      changed = true;
    } else if (event === 'reopen' && mr.state === 'closed') {
      mr.state = 'opened';
      mr.closedAt = null;
      changed = true;
    }
    if (changed) touchMr(mr);
    return { status: 200, body: mrBody(p, mr, ctx.caller, true) };
  });

  // Issue 36: GitLab rebases the source branch onto the target (a Developer may): 202, the rebase
  // runs in the background; here it is done at once — a new head, and the merge status derived again.
  route('PUT /projects/:id/merge_requests/:iid/rebase', (ctx) => {
    const p = resolveProject(ctx);
    const mr = resolveMr(ctx, p);
    requireLevel(p, ctx.caller, 30, mr);
    const to = createHash('sha1').update(`rebase:${mr.headSha}:${mr.baseSha}`).digest('hex');
    state.rebases.push({ path: p.path, iid: mr.iid, from: mr.headSha, to });
    mr.headSha = to;
    if (!mr.shas.includes(to)) mr.shas.push(to);
    delete mr.detailedMergeStatus;
    touchMr(mr);
    return { status: 202, body: { rebase_in_progress: true } };
  });

  route('GET /projects/:id/merge_requests/:iid/pipelines', (ctx) => {
    const p = resolveProject(ctx);
    const mr = resolveMr(ctx, p);
    const path = pathOf(mr.sourceProjectId);
    return { status: 200, list: mrPipelines(mr).map((x) => gl.pipelineBasic(web, path, x)) };
  });

  route('GET /projects/:id/merge_requests/:iid/reviewers', (ctx) => {
    const p = resolveProject(ctx);
    const mr = resolveMr(ctx, p);
    return {
      status: 200,
      body: mr.reviewers.map((r) => ({
        user: gl.userBasic(web, state.users[r.userId]!),
        state: r.state,
        created_at: r.createdAt,
      })),
    };
  });

  route('GET /projects/:id/merge_requests/:iid/notes', (ctx) => {
    const p = resolveProject(ctx);
    const mr = resolveMr(ctx, p);
    const by = ctx.query.get('order_by') === 'updated_at' ? 'updatedAt' : 'createdAt';
    const asc = ctx.query.get('sort') === 'asc';
    const notes = [...(state.notes[mrKey(p.path, mr.iid)] ?? [])].sort(
      (a, b) => (a[by] < b[by] ? -1 : a[by] > b[by] ? 1 : a.id - b.id) * (asc ? 1 : -1),
    );
    return { status: 200, list: notes.map((n) => noteBody(n, mr)) };
  });

  // Issue 36 (decision 0077): doc/api/discussions.md — threads and single notes, oldest first, paged.
  route('GET /projects/:id/merge_requests/:iid/discussions', (ctx) => {
    const p = resolveProject(ctx);
    const mr = resolveMr(ctx, p);
    const byId = new Map<string, GlNote[]>();
    for (const n of [...(state.notes[mrKey(p.path, mr.iid)] ?? [])].sort((a, b) => a.id - b.id)) {
      const id = n.discussionId ?? gl.discussionIdOf(n.id);
      byId.set(id, [...(byId.get(id) ?? []), n]);
    }
    return {
      status: 200,
      list: [...byId].map(([id, notes]) => gl.discussion(id, notes, (n) => noteBody(n, mr))),
    };
  });

  route('GET /projects/:id/merge_requests/:iid/notes/:note_id', (ctx) => {
    const p = resolveProject(ctx);
    const mr = resolveMr(ctx, p);
    const n = (state.notes[mrKey(p.path, mr.iid)] ?? []).find((x) => x.id === Number(ctx.params.note_id));
    if (n === undefined) return notFound('Note');
    return { status: 200, body: noteBody(n, mr) };
  });

  route('POST /projects/:id/merge_requests/:iid/notes', (ctx) => {
    const p = resolveProject(ctx);
    const mr = resolveMr(ctx, p);
    requireLevel(p, ctx.caller, 10);
    const body = stringParam(ctx, 'body');
    if (body === undefined) return badParam('body is missing');
    if (body.trim() === '') return fail(400, "400 Bad request - Note can't be blank");
    const now = isoNow(state);
    const n = { id: nextId(state), body, authorId: ctx.caller.id, system: false, createdAt: now, updatedAt: now };
    (state.notes[mrKey(p.path, mr.iid)] ??= []).push(n);
    state.createdNotes++;
    touchMr(mr);
    return { status: 201, body: gl.note(web, n, ctx.caller, mr) };
  });

  route('PUT /projects/:id/merge_requests/:iid/notes/:note_id', (ctx) => {
    const p = resolveProject(ctx);
    const mr = resolveMr(ctx, p);
    const n = (state.notes[mrKey(p.path, mr.iid)] ?? []).find((x) => x.id === Number(ctx.params.note_id));
    if (n === undefined) return notFound('Note');
    if (n.authorId !== ctx.caller.id || n.system) return forbidden();
    const body = stringParam(ctx, 'body');
    if (body === undefined) return badParam('body is missing');
    if (body !== n.body) {
      n.body = body;
      n.updatedAt = isoNow(state);
      touchMr(mr);
    }
    return { status: 200, body: gl.note(web, n, state.users[n.authorId]!, mr) };
  });

  route('GET /projects/:id/pipelines', (ctx) => {
    const p = resolveProject(ctx);
    const sha = ctx.query.get('sha');
    const ref = ctx.query.get('ref');
    const status = ctx.query.get('status');
    const source = ctx.query.get('source');
    const scope = ctx.query.get('scope');
    const asc = ctx.query.get('sort') === 'asc';
    const list = Object.values(state.pipelines)
      .filter((x) => x.projectId === p.id)
      .filter((x) => sha === null || x.sha === sha)
      .filter((x) => ref === null || x.ref === ref)
      .filter((x) => status === null || x.status === status)
      .filter((x) => source === null || x.source === source)
      .filter(
        (x) =>
          scope === null ||
          (scope === 'finished'
            ? FINISHED.has(x.status)
            : scope === 'running' || scope === 'pending'
              ? x.status === scope
              : true),
      )
      .sort((a, b) => (asc ? a.id - b.id : b.id - a.id));
    return { status: 200, list: list.map((x) => gl.pipelineBasic(web, p.path, x)) };
  });

  // Issue 35 item 6: a pipeline started on a ref with variables (ci-pipelines.ts); Developer or more.
  route('POST /projects/:id/pipeline', (ctx) => {
    const p = resolveProject(ctx);
    requireLevel(p, ctx.caller, 30);
    return createPipeline(state, p, ctx.caller, ctx.input, {
      iid: nextPipelineIid(p.id),
      body: (pipeline) => pipelineBody(p, pipeline),
    });
  });

  route('GET /projects/:id/pipelines/:pipeline_id', (ctx) => {
    const p = resolveProject(ctx);
    return { status: 200, body: pipelineBody(p, resolvePipeline(ctx, p)) };
  });

  // fixloop cancels the agent's pipeline when it ends the run first (its window, a person's cancel):
  // running and pending jobs stop; a finished pipeline is answered as it is. Developer or more.
  route('POST /projects/:id/pipelines/:pipeline_id/cancel', (ctx) => {
    const p = resolveProject(ctx);
    requireLevel(p, ctx.caller, 30);
    const pipeline = resolvePipeline(ctx, p);
    if (!['success', 'failed', 'canceled', 'skipped'].includes(pipeline.status)) {
      pipeline.status = 'canceled';
      pipeline.updatedAt = pipeline.finishedAt = isoNow(state);
    }
    return { status: 200, body: pipelineBody(p, pipeline) };
  });

  route('GET /projects/:id/pipelines/:pipeline_id/jobs', (ctx) => {
    const p = resolveProject(ctx);
    const pipeline = resolvePipeline(ctx, p);
    const includeRetried = ctx.query.get('include_retried') === 'true';
    const scopes = [...ctx.query.getAll('scope[]'), ...ctx.query.getAll('scope')].flatMap((s) => csv(s));
    const list = Object.values(state.jobs)
      .filter((j) => j.pipelineId === pipeline.id && (includeRetried || !j.retried))
      .filter((j) => scopes.length === 0 || scopes.includes(j.status))
      .sort((a, b) => b.id - a.id);
    return { status: 200, list: list.map((j) => jobBody(p, j, true)) };
  });

  route('POST /projects/:id/pipelines/:pipeline_id/retry', (ctx) => {
    const p = resolveProject(ctx);
    const pipeline = resolvePipeline(ctx, p);
    requireLevel(p, ctx.caller, 30);
    for (const j of latestJobs(pipeline.id)) {
      if (j.status === 'failed' || j.status === 'canceled') retry(j, ctx.caller.id);
      else if (j.status === 'skipped') setJob(j, 'created');
    }
    recompute(pipeline);
    state.pipelineRetries.push({ path: p.path, pipelineId: pipeline.id });
    return { status: 201, body: pipelineBody(p, pipeline) };
  });

  route('GET /projects/:id/jobs/:job_id', (ctx) => {
    const p = resolveProject(ctx);
    return { status: 200, body: jobBody(p, resolveJob(ctx, p), true) };
  });

  route('GET /projects/:id/jobs/:job_id/trace', (ctx) => {
    const p = resolveProject(ctx);
    const j = resolveJob(ctx, p);
    const trace = state.traces[j.id];
    if (trace === undefined) return notFound();
    return { status: 200, text: trace, contentType: 'text/plain; charset=utf-8' };
  });

  route('POST /projects/:id/jobs/:job_id/retry', (ctx) => {
    const p = resolveProject(ctx);
    const j = resolveJob(ctx, p);
    requireLevel(p, ctx.caller, 30);
    if (j.retried || !['success', 'failed', 'canceled'].includes(j.status)) return forbidden('Job is not retryable');
    const fresh = retry(j, ctx.caller.id);
    recompute(state.pipelines[j.pipelineId]!);
    return { status: 201, body: jobBody(p, fresh, true) };
  });

  route('POST /projects/:id/statuses/:sha', (ctx) => {
    const p = resolveProject(ctx);
    requireLevel(p, ctx.caller, 30);
    const sha = ctx.params.sha!;
    const wanted = stringParam(ctx, 'state');
    if (wanted === undefined) return badParam('state is missing');
    if (!COMMIT_STATES.has(wanted)) return badParam('state does not have a valid value');
    const name = stringParam(ctx, 'name') ?? stringParam(ctx, 'context') ?? 'default';
    const pipelineIdParam = stringParam(ctx, 'pipeline_id');
    let pipeline: GlPipeline | undefined;
    if (pipelineIdParam !== undefined) {
      pipeline = state.pipelines[Number(pipelineIdParam)];
      if (pipeline === undefined || pipeline.projectId !== p.id || pipeline.sha !== sha) return notFound('Pipeline');
    }
    const ref =
      stringParam(ctx, 'ref') ??
      pipeline?.ref ??
      pipelinesFor(p.id, sha)[0]?.ref ??
      Object.values(state.mergeRequests).find((mr) => mr.sourceProjectId === p.id && mr.headSha === sha)
        ?.sourceBranch ??
      p.defaultBranch;
    pipeline ??= pipelinesFor(p.id, sha, ref)[0];
    if (pipeline === undefined) {
      // GitLab files a status with no pipeline to run in under a new pipeline of source 'external'.
      const now = isoNow(state);
      pipeline = {
        id: nextId(state),
        iid: nextPipelineIid(p.id),
        projectId: p.id,
        sha,
        ref,
        status: 'created',
        source: 'external',
        userId: ctx.caller.id,
        createdAt: now,
        updatedAt: now,
        startedAt: null,
        finishedAt: null,
      };
      state.pipelines[pipeline.id] = pipeline;
    }
    const pipelineId = pipeline.id;
    const existing = state.commitStatuses.find(
      (s) =>
        s.path.toLowerCase() === p.path.toLowerCase() &&
        s.sha === sha &&
        s.name === name &&
        s.ref === ref &&
        s.pipelineId === pipelineId &&
        s.authorId === ctx.caller.id &&
        (s.state === 'pending' || s.state === 'running'),
    );
    if (existing !== undefined && existing.state === wanted) {
      const event = wanted === 'pending' ? 'enqueue' : 'run';
      return fail(
        400,
        `Cannot transition status via :${event} from :${wanted} (Reason(s): Status cannot transition via "${event}")`,
      );
    }
    const now = isoNow(state);
    const record: GlCommitStatus = existing ?? {
      id: nextId(state),
      path: p.path,
      sha,
      ref,
      name,
      state: 'pending',
      description: null,
      target_url: null,
      pipelineId,
      authorId: ctx.caller.id,
      allowFailure: false,
      createdAt: now,
      startedAt: null,
      finishedAt: null,
    };
    record.state = wanted as GlCommitStatus['state'];
    const description = stringParam(ctx, 'description');
    if (description !== undefined) record.description = description;
    const targetUrl = stringParam(ctx, 'target_url');
    if (targetUrl !== undefined) record.target_url = targetUrl;
    if (wanted === 'running') record.startedAt ??= now;
    if (FINISHED.has(wanted)) {
      record.startedAt ??= now;
      record.finishedAt = now;
    }
    if (existing === undefined) state.commitStatuses.push(record);
    state.statuses.push({
      id: record.id,
      path: p.path,
      sha,
      ref,
      name,
      state: record.state,
      description: record.description,
      target_url: record.target_url,
      pipelineId,
      at: now,
    });
    recompute(pipeline);
    return { status: 201, body: gl.commitStatus(web, record, ctx.caller) };
  });

  route('GET /projects/:id/repository/commits/:sha/statuses', (ctx) => {
    const p = resolveProject(ctx);
    const sha = ctx.params.sha!;
    const ref = ctx.query.get('ref');
    const name = ctx.query.get('name');
    const pipelineId = ctx.query.get('pipeline_id');
    const all = ctx.query.get('all') === 'true';
    const pipelines = pipelinesFor(p.id, sha).filter(
      (x) => (ref === null || x.ref === ref) && (pipelineId === null || x.id === Number(pipelineId)),
    );
    // GitLab lists every commit status of the commit's pipelines: the CI jobs as well as external ones.
    const rows: Array<{ id: number; body: Record<string, unknown>; name: string; latest: boolean }> = [];
    for (const pipeline of pipelines) {
      for (const j of Object.values(state.jobs).filter((x) => x.pipelineId === pipeline.id)) {
        const author = state.users[j.userId ?? -1] ?? ctx.caller;
        rows.push({
          id: j.id,
          name: j.name,
          latest: !j.retried,
          body: {
            id: j.id,
            sha,
            ref: pipeline.ref,
            status: j.status,
            name: j.name,
            target_url: `${web}/${p.path}/-/jobs/${j.id}`,
            description: null,
            created_at: j.createdAt,
            started_at: j.startedAt,
            finished_at: j.finishedAt,
            allow_failure: j.allowFailure,
            coverage: null,
            pipeline_id: pipeline.id,
            author: gl.userBasic(web, author),
          },
        });
      }
      const latest = new Set(latestStatuses(pipeline.id));
      for (const s of state.commitStatuses.filter((x) => x.pipelineId === pipeline.id)) {
        rows.push({
          id: s.id,
          name: s.name,
          latest: latest.has(s),
          body: gl.commitStatus(web, s, state.users[s.authorId]!),
        });
      }
    }
    const asc = ctx.query.get('sort') !== 'desc';
    const list = rows
      .filter((r) => (all || r.latest) && (name === null || r.name === name))
      .sort((a, b) => (asc ? a.id - b.id : b.id - a.id));
    return { status: 200, list: list.map((r) => r.body) };
  });

  route('GET /projects/:id/members/all', (ctx) => {
    const p = resolveProject(ctx);
    const q = ctx.query.get('query')?.toLowerCase();
    const ids = ctx.query.getAll('user_ids[]').map(Number);
    const list = Object.entries(p.members)
      .map(([id, level]) => ({ user: state.users[Number(id)]!, level, membership: p.membershipStates?.[Number(id)] }))
      .filter(
        ({ user }) => q === undefined || user.username.toLowerCase().includes(q) || user.name.toLowerCase().includes(q),
      )
      .filter(({ user }) => ids.length === 0 || ids.includes(user.id))
      .sort((a, b) => a.user.id - b.user.id);
    return { status: 200, list: list.map(({ user, level, membership }) => gl.member(web, user, level, membership)) };
  });

  route('GET /projects/:id/members/all/:user_id', (ctx) => {
    const p = resolveProject(ctx);
    const id = Number(ctx.params.user_id);
    const level = p.members[id];
    const user = state.users[id];
    if (level === undefined || user === undefined) return notFound();
    return { status: 200, body: gl.member(web, user, level, p.membershipStates?.[id]) };
  });

  route('GET /projects/:id/repository/compare', (ctx) => {
    const p = resolveProject(ctx);
    const from = ctx.query.get('from');
    const to = ctx.query.get('to');
    if (from === null) return badParam('from is missing');
    if (to === null) return badParam('to is missing');
    const diffs = state.compares[compareKey(p.path, from, to)];
    if (diffs === undefined) return notFound('Ref');
    return { status: 200, body: gl.compare(web, p.path, from, to, diffs) };
  });

  route('GET /projects/:id/repository/branches/:branch', (ctx) => {
    const p = resolveProject(ctx);
    const name = ctx.params.branch!;
    let b = p.branches[name];
    if (b === undefined) {
      // A branch an open MR comes from exists at the MR's head.
      const mr = Object.values(state.mergeRequests).find((x) => x.sourceProjectId === p.id && x.sourceBranch === name);
      if (mr !== undefined) b = { sha: mr.headSha, protected: false };
    }
    if (b === undefined) return notFound('Branch');
    return { status: 200, body: gl.branch(web, p, name, b) };
  });

  // Issue 36: a project's issues (doc/api/issues.md, doc/api/notes.md): filed, commented, closed.
  function resolveIssue(ctx: Ctx, p: GlProject): GlIssue {
    const i = state.issues[issueKey(p.path, Number(ctx.params.issue_iid))];
    if (i === undefined || !/^\d+$/.test(ctx.params.issue_iid!)) return notFound('Issue');
    return i;
  }
  const issueAuthor = (i: GlIssue) => state.users[i.authorId]!;

  route('POST /projects/:id/issues', (ctx) => {
    const p = resolveProject(ctx);
    requireLevel(p, ctx.caller, 10);
    const title = stringParam(ctx, 'title');
    if (title === undefined || title.trim() === '') return badParam('title is missing');
    const now = isoNow(state);
    const iid = Object.values(state.issues).filter((x) => x.projectId === p.id).length + 1;
    const i: GlIssue = {
      id: nextId(state),
      iid,
      projectId: p.id,
      title,
      description: stringParam(ctx, 'description') ?? null,
      state: 'opened',
      authorId: ctx.caller.id,
      createdAt: now,
      updatedAt: now,
      closedAt: null,
      notes: [],
    };
    state.issues[issueKey(p.path, iid)] = i;
    return { status: 201, body: gl.issue(web, p.path, i, ctx.caller) };
  });

  route('GET /projects/:id/issues/:issue_iid', (ctx) => {
    const p = resolveProject(ctx);
    const i = resolveIssue(ctx, p);
    return { status: 200, body: gl.issue(web, p.path, i, issueAuthor(i)) };
  });

  route('PUT /projects/:id/issues/:issue_iid', (ctx) => {
    const p = resolveProject(ctx);
    const i = resolveIssue(ctx, p);
    requireLevel(p, ctx.caller, 20);
    const event = stringParam(ctx, 'state_event');
    if (event !== undefined && event !== 'close' && event !== 'reopen')
      return badParam('state_event does not have a valid value');
    const now = isoNow(state);
    if (event === 'close' && i.state !== 'closed') Object.assign(i, { state: 'closed', closedAt: now });
    if (event === 'reopen' && i.state !== 'opened') Object.assign(i, { state: 'opened', closedAt: null });
    const title = stringParam(ctx, 'title');
    if (title !== undefined) i.title = title;
    const description = stringParam(ctx, 'description');
    if (description !== undefined) i.description = description;
    i.updatedAt = now;
    return { status: 200, body: gl.issue(web, p.path, i, issueAuthor(i)) };
  });

  route('POST /projects/:id/issues/:issue_iid/notes', (ctx) => {
    const p = resolveProject(ctx);
    const i = resolveIssue(ctx, p);
    requireLevel(p, ctx.caller, 10);
    const body = stringParam(ctx, 'body');
    if (body === undefined) return badParam('body is missing');
    if (body.trim() === '') return fail(400, "400 Bad request - Note can't be blank");
    const now = isoNow(state);
    const n = { id: nextId(state), body, authorId: ctx.caller.id, system: false, createdAt: now, updatedAt: now };
    i.notes.push(n);
    i.updatedAt = now;
    return { status: 201, body: gl.issueNote(web, n, ctx.caller, i) };
  });

  function nextPipelineIid(projectId: number): number {
    return Object.values(state.pipelines).filter((x) => x.projectId === projectId).length + 1;
  }

  // ---- answering ------------------------------------------------------------------------------

  function takeFault(method: string, url: URL): number | null {
    const candidates = [`${method} ${url.pathname}`, `${method} ${url.pathname}${url.search}`];
    const fault = faults.find((f) => candidates.some((c) => f.pattern.test(c)));
    if (fault === undefined) return null;
    const status = fault.statuses.shift()!;
    if (fault.statuses.length === 0) faults.splice(faults.indexOf(fault), 1);
    return status;
  }

  function rateHeaders(): Record<string, string> {
    const reset = Math.ceil(Date.now() / 60_000) * 60;
    return {
      'ratelimit-name': 'throttle_authenticated_api',
      'ratelimit-limit': '2000',
      'ratelimit-observed': String(observed),
      'ratelimit-remaining': String(Math.max(0, 2000 - observed)),
      'ratelimit-reset': String(reset),
      'ratelimit-resettime': new Date(reset * 1000).toUTCString(),
    };
  }

  function paginate(url: URL, list: unknown[]): { body: unknown[]; headers: Record<string, string> } {
    const rawPer = Number(url.searchParams.get('per_page') ?? 20);
    const perPage = Number.isFinite(rawPer) && rawPer >= 1 ? Math.min(100, Math.floor(rawPer)) : 20;
    const rawPage = Number(url.searchParams.get('page') ?? 1);
    const page = Number.isFinite(rawPage) && rawPage >= 1 ? Math.floor(rawPage) : 1;
    const totalPages = Math.max(1, Math.ceil(list.length / perPage));
    const pageUrl = (n: number) => {
      const u = new URL(url.toString());
      u.searchParams.set('page', String(n));
      u.searchParams.set('per_page', String(perPage));
      return u.toString();
    };
    const links: string[] = [];
    if (page > 1) links.push(`<${pageUrl(Math.min(page - 1, totalPages))}>; rel="prev"`);
    if (page < totalPages) links.push(`<${pageUrl(page + 1)}>; rel="next"`);
    links.push(`<${pageUrl(1)}>; rel="first"`, `<${pageUrl(totalPages)}>; rel="last"`);
    return {
      body: list.slice((page - 1) * perPage, page * perPage),
      headers: {
        'x-page': String(page),
        'x-per-page': String(perPage),
        'x-next-page': page < totalPages ? String(page + 1) : '',
        'x-prev-page': page > 1 ? String(page - 1) : '',
        'x-total': String(list.length),
        'x-total-pages': String(totalPages),
        link: links.join(', '),
      },
    };
  }

  function parseBody(raw: string, contentType: string): unknown {
    if (raw === '') return null;
    if (/json/.test(contentType)) {
      try {
        return JSON.parse(raw);
      } catch {
        return raw;
      }
    }
    if (/x-www-form-urlencoded/.test(contentType)) {
      const out: Record<string, string> = {};
      for (const [k, v] of new URLSearchParams(raw)) out[k] = v;
      return out;
    }
    return raw;
  }

  function answer(
    req: IncomingMessage,
    entry: RecordedGitLabRequest,
    url: URL,
  ): {
    status: number;
    headers: Record<string, string>;
    body: string | Buffer | null;
  } {
    const method = req.method ?? 'GET';
    const json = (status: number, body: unknown, headers: Record<string, string> = {}) => ({
      status,
      headers: { 'content-type': 'application/json', ...rateHeaders(), ...headers },
      body: JSON.stringify(body),
    });
    const faultStatus = takeFault(method, url);
    if (faultStatus !== null) {
      return json(faultStatus, { message: `${faultStatus} ${STATUS_CODES[faultStatus] ?? 'Error'}` });
    }
    if (!url.pathname.startsWith(`${API}/`)) return json(404, { error: '404 Not Found' });
    const segments = url.pathname.slice(API.length);
    let matched: { route: Route; params: Params } | null = null;
    for (const r of routes) {
      if (r.method !== method && !(method === 'HEAD' && r.method === 'GET')) continue;
      const m = r.pattern.exec(segments);
      if (m === null) continue;
      const params: Params = {};
      r.names.forEach((name, i) => (params[name] = decodeURIComponent(m[i + 1]!)));
      matched = { route: r, params };
      break;
    }
    if (matched === null) return json(404, { error: '404 Not Found' });
    const caller = callerOf(req.headers);
    if (caller === null) return json(401, { message: '401 Unauthorized' });
    observed++;
    const input: Record<string, unknown> = {};
    for (const [k, v] of url.searchParams) input[k] = v;
    if (entry.body !== null && typeof entry.body === 'object' && !Array.isArray(entry.body))
      Object.assign(input, entry.body);
    let result: Answer;
    try {
      result = matched.route.handle({
        method,
        params: matched.params,
        query: url.searchParams,
        input,
        caller,
        headers: req.headers,
      });
    } catch (err) {
      if (err instanceof ApiError) return json(err.status, err.body);
      throw err;
    }
    if ('text' in result) {
      return {
        status: result.status,
        headers: { 'content-type': result.contentType, 'content-length': String(result.text.length), ...rateHeaders() },
        body: result.text,
      };
    }
    let body: unknown;
    let headers: Record<string, string> = {};
    if ('list' in result) ({ body, headers } = paginate(url, result.list));
    else ({ body, headers = {} } = result);
    const out = json(result.status, body, headers);
    if ((method === 'GET' || method === 'HEAD') && result.status === 200) {
      const etag = `W/"${createHash('md5').update(out.body).digest('hex')}"`;
      (out.headers as Record<string, string>).etag = etag;
      if (one(req.headers['if-none-match']) === etag) {
        const { 'content-type': _dropped, ...rest } = out.headers;
        return { status: 304, headers: rest, body: null };
      }
    }
    return out;
  }

  const idTokens = fakeIdTokens(() => web);
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      // The instance as an OIDC issuer (id-tokens.ts): its key set and discovery, outside the API.
      const oidcPath = new URL(req.url ?? '/', 'http://x').pathname;
      if (req.method === 'GET' && (oidcPath === '/oauth/discovery/keys' || oidcPath.startsWith('/.well-known/'))) {
        void idTokens.answer(oidcPath).then((a) => {
          res.writeHead(a?.status ?? 404, { 'content-type': 'application/json' });
          res.end(JSON.stringify(a?.body ?? { error: '404 Not Found' }));
        });
        return;
      }
      const raw = Buffer.concat(chunks).toString('utf8');
      const entry: RecordedGitLabRequest = {
        method: req.method ?? 'GET',
        path: req.url ?? '/',
        headers: { ...req.headers },
        body: parseBody(raw, one(req.headers['content-type']) ?? ''),
        status: null,
      };
      requests.push(entry);
      const respond = () => {
        let out: { status: number; headers: Record<string, string>; body: string | Buffer | null };
        try {
          out = answer(req, entry, new URL(req.url ?? '/', web));
        } catch (err) {
          out = {
            status: 500,
            headers: { 'content-type': 'text/plain' },
            body: `fake GitLab bug: ${(err as Error).stack ?? String(err)}`,
          };
        }
        entry.status = out.status;
        res.writeHead(out.status, out.headers);
        res.end(req.method === 'HEAD' ? undefined : (out.body ?? undefined));
      };
      if ((opts.latencyMs ?? 0) > 0) setTimeout(respond, opts.latencyMs);
      else respond();
    });
  });
  web = `http://127.0.0.1:${await listen(server)}`;

  // ---- the test-facing API --------------------------------------------------------------------

  return {
    url: web,
    state,
    requests,

    addToken(username, { userId } = {}) {
      const user = ensureUser(username, userId);
      const token = `glpat-${randomBytes(15).toString('base64url')}`;
      state.tokens[token] = user.id;
      return token;
    },

    addProject(path, projectOpts = {}) {
      return { id: ensureProject(path, projectOpts).id };
    },

    addMember(path, username, accessLevel, memberOpts = {}) {
      const p = ensureProject(path);
      const id = ensureUser(username).id;
      p.members[id] = accessLevel;
      p.membershipStates ??= {};
      if (memberOpts.membershipState === undefined || memberOpts.membershipState === 'active')
        delete p.membershipStates[id];
      else p.membershipStates[id] = memberOpts.membershipState;
    },

    setUserState(username, userState) {
      ensureUser(username).state = userState;
    },

    addMergeRequest(path, iid, mr) {
      const p = ensureProject(path);
      const source = mr.sourceProjectPath === undefined ? p : ensureProject(mr.sourceProjectPath);
      const author = ensureUser(mr.author ?? 'author');
      const now = isoNow(state);
      const state_ = mr.state ?? 'opened';
      const draft = mr.draft ?? false;
      const baseTitle = mr.title ?? `Merge request !${iid}`;
      const targetBranch = mr.targetBranch ?? p.defaultBranch;
      const record: GlMergeRequest = {
        id: nextId(state),
        iid,
        projectId: p.id,
        sourceProjectId: source.id,
        title: draft && !/^draft:/i.test(baseTitle) ? `Draft: ${baseTitle}` : baseTitle,
        description: mr.description ?? '',
        state: state_,
        draft,
        headSha: mr.headSha,
        shas: [mr.headSha],
        baseSha: mr.baseSha ?? p.branches[targetBranch]?.sha ?? gl.fakeSha(`${p.path}:${targetBranch}`),
        sourceBranch: mr.sourceBranch ?? `branch-${iid}`,
        targetBranch,
        authorId: author.id,
        createdAt: now,
        updatedAt: now,
        mergedAt: state_ === 'merged' ? now : null,
        closedAt: state_ === 'closed' ? now : null,
        reviewers: [],
        ...(mr.detailedMergeStatus === undefined ? {} : { detailedMergeStatus: mr.detailedMergeStatus }),
      };
      state.mergeRequests[mrKey(p.path, iid)] = record;
      state.labels[mrKey(p.path, iid)] = [...(mr.labels ?? [])];
      for (const l of mr.labels ?? []) if (!p.labels.includes(l)) p.labels.push(l);
      state.notes[mrKey(p.path, iid)] ??= [];
    },

    setHead(path, iid, sha) {
      const mr = mrOrThrow(path, iid);
      mr.headSha = sha;
      if (!mr.shas.includes(sha)) mr.shas.push(sha);
      touchMr(mr);
    },

    setBranch(path, name, sha, branchOpts = {}) {
      const p = ensureProject(path);
      p.branches[name] = { sha, protected: branchOpts.protected ?? name === p.defaultBranch };
    },

    addPipeline(path, input) {
      const p = ensureProject(path);
      const now = isoNow(state);
      const status = input.status ?? 'created';
      const record: GlPipeline = {
        id: nextId(state),
        iid: nextPipelineIid(p.id),
        projectId: p.id,
        sha: input.sha,
        ref:
          input.ref ??
          Object.values(state.mergeRequests).find((mr) => mr.sourceProjectId === p.id && mr.shas.includes(input.sha))
            ?.sourceBranch ??
          p.defaultBranch,
        status,
        source: input.source ?? 'push',
        userId: input.user === undefined ? null : ensureUser(input.user).id,
        createdAt: now,
        updatedAt: now,
        startedAt: status === 'running' || FINISHED.has(status) ? now : null,
        finishedAt: FINISHED.has(status) ? now : null,
      };
      state.pipelines[record.id] = record;
      return { id: record.id };
    },

    addJob(path, pipelineId, input) {
      const p = projectOrThrow(path);
      const pipeline = state.pipelines[pipelineId];
      if (pipeline === undefined || pipeline.projectId !== p.id)
        throw new Error(`no pipeline ${pipelineId} in ${path}`);
      const record: GlJob = {
        id: nextId(state),
        projectId: p.id,
        pipelineId,
        name: input.name,
        stage: input.stage ?? 'test',
        status: 'created',
        allowFailure: input.allowFailure ?? false,
        failureReason: null,
        retried: false,
        userId: pipeline.userId,
        createdAt: isoNow(state),
        startedAt: null,
        finishedAt: null,
      };
      setJob(record, input.status);
      if (input.failureReason !== undefined) record.failureReason = input.failureReason;
      state.jobs[record.id] = record;
      if (input.trace !== undefined) state.traces[record.id] = Buffer.from(input.trace);
      recompute(pipeline);
      return { id: record.id };
    },

    setJobStatus(path, jobId, status) {
      const j = jobOrThrow(path, jobId);
      setJob(j, status);
      recompute(state.pipelines[j.pipelineId]!);
    },

    retryJob(path, jobId) {
      const j = jobOrThrow(path, jobId);
      const fresh = retry(j, j.userId);
      recompute(state.pipelines[j.pipelineId]!);
      return { id: fresh.id };
    },

    setTrace(jobId, text) {
      state.traces[jobId] = typeof text === 'string' ? Buffer.from(text) : Buffer.from(text);
    },

    addNote(path, iid, n) {
      const p = projectOrThrow(path);
      const mr = mrOrThrow(path, iid);
      const notes = (state.notes[mrKey(p.path, iid)] ??= []);
      const now = isoNow(state);
      const id = nextId(state);
      const t = n.thread;
      const replyTo = t !== undefined && 'replyTo' in t ? t.replyTo : undefined;
      const opened = replyTo === undefined ? undefined : notes.find((x) => x.discussionId === replyTo);
      if (replyTo !== undefined && opened === undefined) throw new Error(`no thread ${replyTo} on ${mrKey(path, iid)}`);
      const at = t !== undefined && 'file' in t && t.file !== undefined ? t : undefined;
      const record: GlNote = {
        id,
        body: n.body,
        authorId: ensureUser(n.author).id,
        system: n.system ?? false,
        createdAt: now,
        updatedAt: now,
        ...(t === undefined
          ? {}
          : {
              discussionId: replyTo ?? gl.discussionIdOf(id),
              resolvable: true,
              resolved: opened?.resolved ?? false,
              ...(opened?.resolvedBy === undefined ? {} : { resolvedBy: opened.resolvedBy }),
            }),
        ...(at
          ? { position: { path: at.file!, line: at.line ?? 1, headSha: mr.headSha, baseSha: mr.baseSha } }
          : opened?.position
            ? { position: opened.position }
            : {}),
      };
      notes.push(record);
      touchMr(mr);
      return { id, discussionId: record.discussionId ?? gl.discussionIdOf(id) };
    },

    resolveThread(path, iid, discussionId, o = {}) {
      const mr = mrOrThrow(path, iid);
      const thread = (state.notes[mrKey(path, iid)] ?? []).filter((x) => x.discussionId === discussionId);
      if (thread.length === 0) throw new Error(`no thread ${discussionId} on ${mrKey(path, iid)}`);
      const resolved = o.resolved ?? true;
      const by = o.by === undefined ? thread[0]!.authorId : ensureUser(o.by).id;
      const now = isoNow(state);
      for (const x of thread) {
        x.resolved = resolved;
        if (resolved) x.resolvedBy = by;
        else delete x.resolvedBy;
        x.updatedAt = now;
      }
      touchMr(mr);
    },

    setReviewerState(path, iid, username, reviewerState) {
      const mr = mrOrThrow(path, iid);
      const user = ensureUser(username);
      const existing = mr.reviewers.find((r) => r.userId === user.id);
      if (existing !== undefined) existing.state = reviewerState;
      else mr.reviewers.push({ userId: user.id, state: reviewerState, createdAt: isoNow(state) });
    },

    setCompare(path, from, to, diffs) {
      ensureProject(path);
      state.compares[compareKey(path, from, to)] = diffs;
    },

    failNext(pattern, statuses) {
      if (statuses.length > 0) faults.push({ pattern, statuses: [...statuses] });
    },

    createdPipelines() {
      const vars = pipelineVariables(state);
      return Object.values(state.pipelines)
        .filter((x) => vars[x.id] !== undefined)
        .sort((a, b) => a.id - b.id)
        .map((x) => ({ id: x.id, path: pathOf(x.projectId), ref: x.ref, status: x.status, variables: vars[x.id]! }));
    },

    setPipelineStatus(path, pipelineId, status) {
      const p = projectOrThrow(path);
      const pipeline = state.pipelines[pipelineId];
      if (pipeline === undefined || pipeline.projectId !== p.id)
        throw new Error(`no pipeline ${pipelineId} in ${path}`);
      setPipelineStatus(pipeline, status);
    },

    issueIdToken: (claims, tokenOpts) => idTokens.issue(claims, tokenOpts),
    get idTokenKeyReads() {
      return idTokens.jwksReads;
    },

    close() {
      return new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}

function one(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function listen(server: Server): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
  });
}
