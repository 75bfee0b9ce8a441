// fixloop wired to the fake GitLab (test/support/fake-gitlab/), for the core-loop scenarios of issue 19
// run against GitLab (SPEC Q1–Q3): the GitLab adapter pointed at the fake, one gitlab Work (its
// project `acme/shop-gl`, or one in a subgroup), GITLAB_WEBHOOK_SECRET set, a clock the test moves and
// the poll driven tick by tick. The fake is the state of the world; the hooks a test posts are built from GitLab's
// documented example payloads (test/fixtures/gitlab/) and from that state — the same project path and
// id, merge request iid, head commit, pipeline and job ids — so a webhook never says what the API would
// contradict.
import { readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { startFakeGitLab, type FakeGitLab } from './fake-gitlab/server.js';
import { createGitLab } from '../../src/gitlab/client.js';
import { startHarness, RecordingRunner, type Harness } from './harness.js';
import { FakeClock } from './github-harness.js';
import type { FixloopAdapters } from '../../src/main.js';
import type { TestDatabase } from './databases.js';
import { mrKey } from './fake-gitlab/state.js';

export { FakeClock };

/** The account fixloop acts as on GitLab. */
export const GL_BOT = 'fixloop-bot';
/** The gitlab Work's data project. */
export const GL_PROJECT = 'acme/shop-gl';
/** A project in a subgroup (only a gitlab Work's projects may be). */
export const GL_SUBGROUP_PROJECT = 'acme/platform/shop';
export const GL_PROJECT_ID = 7301;
/** GITLAB_WEBHOOK_SECRET's entries (rotation): hooks are sent with the first. */
export const GL_HOOK_TOKENS = ['gl-hook-token-old', 'gl-hook-token-new'];
/** GitLab's access levels (the Members API). */
export const ACCESS = { guest: 10, reporter: 20, developer: 30, maintainer: 40, owner: 50 } as const;

/** The one gitlab Work: merge requests on `agent/*` branches are adopted as Tasks. */
export function gitlabWorks(project = GL_PROJECT): unknown[] {
  return [
    {
      name: 'shop-gl',
      account: project.split('/')[0],
      provider: 'gitlab',
      repositories: [{ name: project, role: 'data', adopt: { branches: ['agent/*'] } }],
    },
  ];
}

export type GitlabEventName = 'Job Hook' | 'Pipeline Hook' | 'Merge Request Hook' | 'Note Hook';
export type JobStatus = 'created' | 'pending' | 'running' | 'success' | 'failed' | 'canceled' | 'skipped' | 'manual';

/** A job as the harness created it in the fake (and as its hooks describe it). */
export interface Job {
  id: number;
  pipelineId: number;
  iid: number;
  sha: string;
  name: string;
  stage: string;
  status: JobStatus;
  allowFailure: boolean;
  failureReason: string | null;
  retries: number;
  finishedAt: string | null;
}

export interface Pipeline {
  id: number;
  iid: number;
  sha: string;
  jobs: Job[];
}

export interface JobSpec {
  name: string;
  stage?: string;
  status: JobStatus;
  allowFailure?: boolean;
  /** The job's log, as `GET /jobs/:id/trace` serves it. */
  trace?: string;
  failureReason?: string;
}

export interface Sent {
  status: number;
  body: any;
  /** The delivery's Idempotency-Key (send it again to redeliver). */
  key: string;
}

/** The fake GitLab, the clock it and fixloop read, and the hooks GitLab would send about its state. */
export interface GitLabWorld {
  fake: FakeGitLab;
  clock: FakeClock;
  /** fixloop's token on the fake (the bot's). */
  token: string;
  project: string;
  projectId: number;
  /** A merge request in the fake (opened on `agent/<iid>` unless said), head `headSha`. */
  openMergeRequest(
    iid: number,
    o: { headSha: string; sourceBranch?: string; author?: string; labels?: string[] },
  ): void;
  /** A push to the merge request's source branch: the fake's head moves; returns the head it replaced. */
  push(iid: number, sha: string): string;
  /** A merge request pipeline (ref refs/merge-requests/<iid>/head) for `sha` with these jobs. */
  runPipeline(iid: number, sha: string, jobs: JobSpec[]): Pipeline;
  /** A job finishes (or moves) with `status`, in the fake; its finish time is the clock's now. */
  finishJob(job: Job, status: JobStatus): Job;
  /** GitLab's Retry on a job: a new job of the same name in the same pipeline, with its own id. */
  retryJob(job: Job, status: JobStatus, o?: { trace?: string }): Job;
  /** The Job Hook GitLab sends for the job as it is now. */
  jobHook(job: Job): any;
  /** The Pipeline Hook for the pipeline with `status`. */
  pipelineHook(p: Pipeline, status: string): any;
  /** The Merge Request Hook for the merge request as the fake holds it (`update` with `oldrev` is a push). */
  mergeRequestHook(iid: number, o?: { action?: string; oldrev?: string; updatedAt?: string }): any;
  /** The Note Hook for a note on the merge request, added to the fake first. */
  noteHook(iid: number, o: { body: string; author: string }): any;
  /** The notes on the merge request, as the fake holds them. */
  notes(iid: number): Array<{ id: number; body: string; author: string }>;
  /** The merge request's labels, as the fake holds them. */
  labels(iid: number): string[];
}

export interface GitLabHarness extends Harness, GitLabWorld {
  /** One poll tick, then every evaluation it caused has settled. */
  tick(): Promise<void>;
  /** Time moves on by a poll interval (the per-PR lease lasts most of one), then one tick. */
  nextTick(): Promise<void>;
  /** POSTs a hook to this fixloop (postHook). */
  hook(event: GitlabEventName, body: unknown, o?: { token?: string | null; key?: string }): Promise<Sent>;
}

export interface GitLabHarnessOptions {
  env?: Record<string, string>;
  configExtra?: Record<string, unknown>;
  runner?: RecordingRunner;
  adapters?: FixloopAdapters;
  /** The Work's data project (default GL_PROJECT). */
  project?: string;
}

function fixture(name: string): any {
  return JSON.parse(readFileSync(new URL(`../fixtures/gitlab/${name}.json`, import.meta.url), 'utf8'));
}

/** GitLab's `2016-08-12 15:26:29 UTC` form of an instant. */
export function gitlabTimeOf(d: Date): string {
  return `${d.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

/** A commit sha made of one repeated character, for readable scenarios. */
export const sha = (c: string): string => c.repeat(40).slice(0, 40);

/** fixloop on a fresh fake GitLab holding the Work's project, as the bot `fixloop-bot`. */
export async function startGitLabHarness(
  kind: 'sqlite' | 'postgres',
  opts: GitLabHarnessOptions = {},
): Promise<GitLabHarness> {
  const world = await startGitLabWorld(opts.project);
  const h = await openOnFakeGitLab(kind, world, opts);
  return {
    ...h,
    async close() {
      await h.close();
      await world.fake.close();
    },
  };
}

/** A fresh fake GitLab with the Work's project and fixloop's bot token, and the clock both read. */
export async function startGitLabWorld(project = GL_PROJECT): Promise<GitLabWorld> {
  const fake = await startFakeGitLab();
  const clock = new FakeClock();
  fake.state.now = () => clock.now();
  const token = fake.addToken(GL_BOT);
  fake.addProject(project, { id: GL_PROJECT_ID, defaultBranch: 'main' });
  return worldOn(fake, clock, token, project);
}

/** POSTs a hook to the fixloop at `baseUrl`, with X-Gitlab-Token (default the first secret) and an Idempotency-Key. */
export async function postHook(
  baseUrl: string,
  event: GitlabEventName,
  body: unknown,
  o: { token?: string | null; key?: string } = {},
): Promise<Sent> {
  const key = o.key ?? randomUUID();
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'x-gitlab-event': event,
    'idempotency-key': key,
    'x-gitlab-event-uuid': key,
  };
  const token = o.token === undefined ? GL_HOOK_TOKENS[0]! : o.token;
  if (token !== null) headers['x-gitlab-token'] = token;
  const res = await fetch(`${baseUrl}/api/gitlab/webhooks`, { method: 'POST', headers, body: JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null, key };
}

/**
 * fixloop on a fake GitLab that outlives it (a restart, a second replica), acting as the bot whose
 * token the world holds. Closing it closes fixloop only (and drops its database unless one was given).
 */
export async function openOnFakeGitLab(
  kind: 'sqlite' | 'postgres',
  world: GitLabWorld,
  opts: GitLabHarnessOptions & { db?: TestDatabase } = {},
): Promise<GitLabHarness> {
  const gitlab = createGitLab({ url: world.fake.url, token: world.token });
  const { configExtra, project: _project, ...rest } = opts;
  const h = await startHarness(kind, {
    ...rest,
    env: { GITLAB_WEBHOOK_SECRET: GL_HOOK_TOKENS.join(','), ...opts.env },
    configExtra: { works: gitlabWorks(world.project), ...configExtra },
    adapters: { github: null, gitlab, clock: world.clock, startPoll: false, ...opts.adapters },
  });
  const harness: GitLabHarness = {
    ...world,
    ...h,
    async tick() {
      await h.app.poller!.tick();
      await h.app.settle();
    },
    async nextTick() {
      world.clock.advance(120_000);
      await harness.tick();
    },
    hook: (event, body, o) => postHook(h.url, event, body, o),
  };
  return harness;
}

/**
 * The hooks GitLab would send about the fake's state. The merge requests, pipelines and jobs made
 * through it are remembered per fake, so every harness on one fake builds the same hooks.
 */
export function worldOn(fake: FakeGitLab, clock: FakeClock, token: string, project = GL_PROJECT): GitLabWorld {
  const memory = memoryOf(fake);
  const projectId = GL_PROJECT_ID;
  const now = () => clock.now();
  const world: GitLabWorld = {
    fake,
    clock,
    token,
    project,
    projectId,
    openMergeRequest(iid, o) {
      const sourceBranch = o.sourceBranch ?? `agent/${iid}`;
      fake.addMergeRequest(project, iid, {
        headSha: o.headSha,
        sourceBranch,
        targetBranch: 'main',
        ...(o.author ? { author: o.author } : {}),
        ...(o.labels ? { labels: o.labels } : {}),
      });
      memory.mrs.set(iid, { iid, sourceBranch, headSha: o.headSha, author: o.author ?? 'agent-bot' });
    },
    push(iid, to) {
      const mr = mrOf(memory, iid);
      const from = mr.headSha;
      fake.setHead(project, iid, to);
      mr.headSha = to;
      return from;
    },
    runPipeline(iid, at, jobs) {
      const { id } = fake.addPipeline(project, {
        sha: at,
        ref: `refs/merge-requests/${iid}/head`,
        status: 'running',
        source: 'merge_request_event',
      });
      const p: Pipeline = { id, iid, sha: at, jobs: [] };
      for (const spec of jobs) {
        const stage = spec.stage ?? 'test';
        const added = fake.addJob(project, id, {
          name: spec.name,
          stage,
          status: spec.status,
          ...(spec.allowFailure !== undefined ? { allowFailure: spec.allowFailure } : {}),
          ...(spec.trace !== undefined ? { trace: spec.trace } : {}),
          ...(spec.failureReason !== undefined ? { failureReason: spec.failureReason } : {}),
        });
        p.jobs.push({
          id: added.id,
          pipelineId: id,
          iid,
          sha: at,
          name: spec.name,
          stage,
          status: spec.status,
          allowFailure: spec.allowFailure ?? false,
          failureReason: spec.status === 'failed' ? (spec.failureReason ?? 'script_failure') : null,
          retries: 0,
          finishedAt: FINISHED.has(spec.status) ? gitlabTimeOf(now()) : null,
        });
      }
      for (const j of p.jobs) syncJob(fake, j);
      memory.pipelines.set(id, p);
      return p;
    },
    finishJob(job, status) {
      fake.setJobStatus(project, job.id, status);
      job.status = status;
      job.failureReason = status === 'failed' ? (job.failureReason ?? 'script_failure') : null;
      job.finishedAt = FINISHED.has(status) ? gitlabTimeOf(now()) : null;
      return syncJob(fake, job);
    },
    retryJob(job, status, o = {}) {
      const { id } = fake.retryJob(project, job.id);
      if (o.trace !== undefined) fake.setTrace(id, o.trace);
      const retried: Job = { ...job, id, retries: job.retries + 1, status: 'pending', finishedAt: null };
      memory.pipelines.get(job.pipelineId)?.jobs.push(retried);
      return status === 'pending' ? retried : world.finishJob(retried, status);
    },
    jobHook(job) {
      syncJob(fake, job);
      const p = fixture('job-hook');
      Object.assign(p, {
        ref: `refs/merge-requests/${job.iid}/head`,
        tag: false,
        before_sha: job.sha,
        sha: job.sha,
        build_id: job.id,
        build_name: job.name,
        build_stage: job.stage,
        build_status: job.status,
        build_started_at: job.finishedAt,
        build_finished_at: job.finishedAt,
        build_finished_at_iso: job.finishedAt ? job.finishedAt.replace(' UTC', 'Z').replace(' ', 'T') : null,
        build_allow_failure: job.allowFailure,
        build_failure_reason: job.failureReason ?? 'unknown_failure',
        retries_count: job.retries,
        pipeline_id: job.pipelineId,
        project_id: projectId,
        project_name: project,
      });
      p.commit = { ...p.commit, id: job.pipelineId, sha: job.sha, status: job.status };
      p.project = { ...p.project, id: projectId, path_with_namespace: project, default_branch: 'main' };
      p.source_pipeline = null;
      return p;
    },
    pipelineHook(pl, status) {
      const p = fixture('pipeline-hook');
      const mr = mrOf(memory, pl.iid);
      const kept = fake.state.pipelines[pl.id]?.finishedAt;
      const finished = FINISHED.has(status as JobStatus) ? gitlabTimeOf(kept ? new Date(kept) : now()) : null;
      Object.assign(p.object_attributes, {
        id: pl.id,
        iid: pl.id,
        name: null,
        ref: `refs/merge-requests/${pl.iid}/head`,
        sha: pl.sha,
        before_sha: pl.sha,
        source: 'merge_request_event',
        status,
        stages: [...new Set(pl.jobs.map((j) => j.stage))],
        finished_at: finished,
        url: `${fake.url}/${project}/-/pipelines/${pl.id}`,
      });
      Object.assign(p.merge_request, {
        iid: pl.iid,
        source_branch: mr.sourceBranch,
        source_project_id: projectId,
        target_project_id: projectId,
        target_branch: 'main',
      });
      p.project = { ...p.project, id: projectId, path_with_namespace: project, default_branch: 'main' };
      p.commit = { ...p.commit, id: pl.sha };
      p.source_pipeline = undefined;
      for (const j of pl.jobs) syncJob(fake, j);
      p.builds = pl.jobs.map((j) => ({
        ...p.builds[1],
        id: j.id,
        stage: j.stage,
        name: j.name,
        status: j.status,
        finished_at: j.finishedAt,
        allow_failure: j.allowFailure,
        failure_reason: j.failureReason,
      }));
      return p;
    },
    mergeRequestHook(iid, o = {}) {
      const mr = mrOf(memory, iid);
      const p = fixture('merge-request-hook');
      p.project = { ...p.project, id: projectId, path_with_namespace: project, default_branch: 'main' };
      p.user = { ...p.user, username: mr.author };
      const a = p.object_attributes;
      Object.assign(a, {
        iid,
        source_branch: mr.sourceBranch,
        target_branch: 'main',
        source_project_id: projectId,
        target_project_id: projectId,
        state: 'opened',
        action: o.action ?? 'update',
        updated_at: o.updatedAt ?? gitlabTimeOf(now()),
        draft: false,
        work_in_progress: false,
        last_commit: { ...a.last_commit, id: mr.headSha },
        labels: [],
      });
      if (o.oldrev !== undefined) a.oldrev = o.oldrev;
      a.source = { ...a.source, path_with_namespace: project };
      a.target = { ...a.target, path_with_namespace: project };
      p.labels = [];
      delete p.changes;
      return p;
    },
    noteHook(iid, o) {
      const mr = mrOf(memory, iid);
      const { id } = fake.addNote(project, iid, { body: o.body, author: o.author });
      const p = fixture('note-hook-merge-request');
      p.user = { ...p.user, username: o.author, name: o.author };
      p.project_id = projectId;
      p.project = { ...p.project, id: projectId, path_with_namespace: project };
      Object.assign(p.object_attributes, {
        id,
        note: o.body,
        noteable_type: 'MergeRequest',
        system: false,
        action: 'create',
        created_at: gitlabTimeOf(now()),
        updated_at: gitlabTimeOf(now()),
        project_id: projectId,
      });
      Object.assign(p.merge_request, {
        iid,
        source_branch: mr.sourceBranch,
        target_branch: 'main',
        source_project_id: projectId,
        target_project_id: projectId,
        state: 'opened',
      });
      p.merge_request.last_commit = { ...p.merge_request.last_commit, id: mr.headSha };
      return p;
    },
    notes(iid) {
      return notesOf(fake, project, iid);
    },
    labels(iid) {
      return labelsOf(fake, project, iid);
    },
  };
  return world;
}

/** The job as the fake holds it now: its status, finish time and failure reason are the fake's. */
function syncJob(fake: FakeGitLab, job: Job): Job {
  const j = fake.state.jobs[job.id];
  if (!j) return job;
  job.status = j.status as JobStatus;
  job.allowFailure = j.allowFailure;
  job.failureReason = j.failureReason ?? (j.status === 'failed' ? 'script_failure' : null);
  job.finishedAt = j.finishedAt ? gitlabTimeOf(new Date(j.finishedAt)) : job.finishedAt;
  return job;
}

const FINISHED = new Set<JobStatus>(['success', 'failed', 'canceled', 'skipped']);

interface Memory {
  mrs: Map<number, { iid: number; sourceBranch: string; headSha: string; author: string }>;
  pipelines: Map<number, Pipeline>;
}
const memories = new WeakMap<FakeGitLab, Memory>();
function memoryOf(fake: FakeGitLab): Memory {
  let w = memories.get(fake);
  if (!w) memories.set(fake, (w = { mrs: new Map(), pipelines: new Map() }));
  return w;
}
function mrOf(memory: Memory, iid: number) {
  const mr = memory.mrs.get(iid);
  if (!mr) throw new Error(`merge request !${iid} was not opened through the harness`);
  return mr;
}

/** The notes of `project!iid` in the fake's state (whatever the key it files them under). */
export function notesOf(
  fake: FakeGitLab,
  project: string,
  iid: number,
): Array<{ id: number; body: string; author: string }> {
  const s = fake.state;
  return (s.notes[mrKey(project, iid)] ?? []).map((n) => ({
    id: n.id,
    body: n.body,
    author: s.users[n.authorId]?.username ?? `user ${n.authorId}`,
  }));
}

/** The labels of `project!iid` in the fake's state. */
export function labelsOf(fake: FakeGitLab, project: string, iid: number): string[] {
  return [...(fake.state.labels[mrKey(project, iid)] ?? [])].sort();
}

/**
 * The agent pushes `sha(c)` to the merge request and its pipeline's `test` job fails with `trace`;
 * the next poll tick sees it (no webhook); the agent's run (if any) then ends right away.
 */
export async function redHead(h: GitLabHarness, iid: number, c: string, trace: string): Promise<void> {
  h.clock.advance(120_000);
  h.push(iid, sha(c));
  h.runPipeline(iid, sha(c), [{ name: 'test', status: 'failed', trace }]);
  await h.tick();
  const last = h.runner.starts.at(-1);
  if (last) h.runner.finish(last.runId);
  await h.app.settle();
}

/** Notes carrying fixloop's state (K8) on the merge request. */
export function stateNotes(
  h: GitLabWorld,
  iid: number,
  marker: string,
): Array<{ id: number; body: string; author: string }> {
  return h.notes(iid).filter((n) => n.body.startsWith(marker));
}

/**
 * The same through GitLab's webhooks: the agent pushes `sha(c)` (the Merge Request hook of the push,
 * with `oldrev`), a minute later the pipeline's `test` job fails on it (its Job hook); the agent's run
 * (if any) then ends. Returns the Job hook's delivery key. No poll tick.
 */
export async function redPush(
  h: GitLabHarness,
  iid: number,
  c: string,
  trace: string,
  o: { finish?: boolean } = {},
): Promise<string> {
  h.clock.advance(120_000);
  const oldrev = h.push(iid, sha(c));
  const pushed = await h.hook('Merge Request Hook', h.mergeRequestHook(iid, { action: 'update', oldrev }));
  if (pushed.status !== 202) throw new Error(`push hook answered ${pushed.status}: ${JSON.stringify(pushed.body)}`);
  h.clock.advance(60_000);
  const [job] = h.runPipeline(iid, sha(c), [{ name: 'test', status: 'failed', trace }]).jobs;
  const res = await h.hook('Job Hook', h.jobHook(job!));
  if (res.status !== 202) throw new Error(`job hook answered ${res.status}: ${JSON.stringify(res.body)}`);
  await h.app.settle();
  if (o.finish !== false) await finishLast(h);
  return res.key;
}

/** The agent's latest run (if any) ends. */
export async function finishLast(h: GitLabHarness): Promise<void> {
  const last = h.runner.starts.at(-1);
  if (last) h.runner.finish(last.runId);
  await h.app.settle();
}
