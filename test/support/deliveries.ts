// Deliveries built from GitHub's own example payloads (@octokit/webhooks-examples): a real
// example is cloned and only the fields a scenario is about are changed, then signed.
import { createRequire } from 'node:module';
import { randomUUID } from 'node:crypto';
import { sign } from '@octokit/webhooks-methods';

const require = createRequire(import.meta.url);
const examples = require('@octokit/webhooks-examples/api.github.com/index.json') as Array<{
  name: string;
  examples: any[];
}>;

/**
 * The time a built payload says its result completed (or its comment was made) unless the test
 * gives one: a clock of its own, not the machine's, so that no test depends on the day it runs. It
 * starts an hour after the fake GitHub harness's clock (github-harness.ts) and moves a millisecond
 * per payload, so payloads built one after another complete in that order, as real ones would.
 */
let payloadClock = Date.parse('2026-11-30T09:00:00Z');
export function payloadTime(): string {
  payloadClock += 1;
  return new Date(payloadClock).toISOString();
}

export function examplesOf(event: string): any[] {
  return examples.find((e) => e.name === event)?.examples ?? [];
}

function example(event: string, pick: (e: any) => boolean): any {
  const found = examplesOf(event).find(pick);
  if (!found) throw new Error(`no ${event} example matches`);
  return structuredClone(found);
}

export interface Delivery {
  event: string;
  id: string;
  body: string;
}

export interface RepoSpec {
  owner: string;
  name: string;
  id?: number;
}

function setRepository(p: any, repo: RepoSpec): void {
  p.repository.full_name = `${repo.owner}/${repo.name}`;
  p.repository.name = repo.name;
  p.repository.owner.login = repo.owner;
  if (repo.id !== undefined) p.repository.id = repo.id;
}

function pointer(base: any, repoId: number, number: number, headSha: string, fork = false): any {
  const pr = structuredClone(base);
  pr.number = number;
  pr.head.sha = headSha;
  pr.head.repo.id = fork ? repoId + 1000 : repoId;
  pr.base.repo.id = repoId;
  return pr;
}

export interface CheckRunSpec {
  repo: RepoSpec;
  sha: string;
  id: number;
  name?: string;
  status?: 'queued' | 'in_progress' | 'completed';
  conclusion?: string | null;
  completedAt?: string | null;
  /** The pull request this run reports against, and its head at delivery time. */
  pr?: { number: number; headSha: string; fork?: boolean } | null;
  output?: string;
  branch?: string;
}

export function checkRunPayload(s: CheckRunSpec): any {
  const p = example('check_run', (e) => e.action === 'completed' && e.check_run.conclusion === 'failure');
  setRepository(p, s.repo);
  const status = s.status ?? 'completed';
  p.action = status === 'completed' ? 'completed' : 'created';
  const r = p.check_run;
  const basePr = r.pull_requests[0];
  r.id = s.id;
  r.name = s.name ?? `job-${s.id}`;
  r.head_sha = s.sha;
  r.status = status;
  r.conclusion = status === 'completed' ? (s.conclusion === undefined ? 'failure' : s.conclusion) : null;
  r.completed_at = status === 'completed' ? (s.completedAt === undefined ? payloadTime() : s.completedAt) : null;
  r.output = { ...r.output, title: s.output ? 'Tests failed' : null, summary: s.output ?? null, text: null };
  r.check_suite.head_sha = s.sha;
  r.check_suite.head_branch = s.branch ?? 'agent/fix';
  r.pull_requests = s.pr ? [pointer(basePr, p.repository.id, s.pr.number, s.pr.headSha, s.pr.fork)] : [];
  return p;
}

export function checkSuitePayload(s: {
  repo: RepoSpec;
  sha: string;
  id: number;
  conclusion?: string | null;
  status?: string;
  pr?: { number: number; headSha: string } | null;
  updatedAt?: string;
}): any {
  const p = example('check_suite', (e) => e.action === 'completed' && e.check_suite.pull_requests.length > 0);
  setRepository(p, s.repo);
  const basePr = p.check_suite.pull_requests[0];
  Object.assign(p.check_suite, {
    id: s.id,
    head_sha: s.sha,
    status: s.status ?? 'completed',
    conclusion:
      (s.status ?? 'completed') === 'completed' ? (s.conclusion === undefined ? 'failure' : s.conclusion) : null,
    updated_at: s.updatedAt ?? payloadTime(),
    head_branch: 'agent/fix',
  });
  p.action = (s.status ?? 'completed') === 'completed' ? 'completed' : 'requested';
  p.check_suite.pull_requests = s.pr ? [pointer(basePr, p.repository.id, s.pr.number, s.pr.headSha)] : [];
  return p;
}

export function workflowRunPayload(s: {
  repo: RepoSpec;
  sha: string;
  id: number;
  attempt?: number;
  conclusion?: string | null;
  status?: string;
  pr?: { number: number; headSha: string } | null;
  updatedAt?: string;
}): any {
  const p = example(
    'workflow_run',
    (e) => e.action === 'completed' && e.workflow_run.status === 'completed' && e.workflow_run.pull_requests.length > 0,
  );
  setRepository(p, s.repo);
  const basePr = p.workflow_run.pull_requests[0];
  const status = s.status ?? 'completed';
  Object.assign(p.workflow_run, {
    id: s.id,
    run_attempt: s.attempt ?? 1,
    head_sha: s.sha,
    status,
    conclusion: status === 'completed' ? (s.conclusion === undefined ? 'failure' : s.conclusion) : null,
    updated_at: s.updatedAt ?? payloadTime(),
    head_branch: 'agent/fix',
  });
  p.workflow_run.head_repository = { ...p.workflow_run.head_repository, full_name: `${s.repo.owner}/${s.repo.name}` };
  p.action = status === 'completed' ? 'completed' : status === 'in_progress' ? 'in_progress' : 'requested';
  p.workflow_run.pull_requests = s.pr ? [pointer(basePr, p.repository.id, s.pr.number, s.pr.headSha)] : [];
  return p;
}

export function statusPayload(s: {
  repo: RepoSpec;
  sha: string;
  context: string;
  state: string;
  updatedAt?: string | null;
  branch?: string;
}): any {
  const p = example('status', () => true);
  setRepository(p, s.repo);
  p.sha = s.sha;
  p.context = s.context;
  p.state = s.state;
  p.updated_at = s.updatedAt === undefined ? payloadTime() : s.updatedAt;
  p.branches = [{ ...(p.branches?.[0] ?? {}), name: s.branch ?? 'agent/fix' }];
  return p;
}

export function pullRequestPayload(s: {
  repo: RepoSpec;
  number: number;
  action: string;
  headSha: string;
  state?: 'open' | 'closed';
  merged?: boolean;
  branch?: string;
  /** The pull request's labels' names; the example's own when absent. */
  labels?: string[];
  /** `dequeued`: why the merge queue let it go (GitHub's documented values, e.g. `MANUAL`). */
  reason?: string;
}): any {
  const p = example('pull_request', (e) => e.action === (s.action === 'synchronize' ? 'synchronize' : 'opened'));
  setRepository(p, s.repo);
  p.action = s.action;
  p.number = s.number;
  p.pull_request.number = s.number;
  p.pull_request.state = s.state ?? 'open';
  p.pull_request.merged = s.merged ?? false;
  p.pull_request.head.sha = s.headSha;
  p.pull_request.head.ref = s.branch ?? 'agent/fix';
  p.pull_request.head.repo.id = p.repository.id;
  p.pull_request.base.repo.id = p.repository.id;
  p.pull_request.head.repo.full_name = `${s.repo.owner}/${s.repo.name}`;
  p.pull_request.base.repo.full_name = `${s.repo.owner}/${s.repo.name}`;
  p.pull_request.updated_at = payloadTime();
  if (s.labels) p.pull_request.labels = s.labels.map((name, i) => ({ id: 9000 + i, name, color: 'ededed' }));
  if (s.reason !== undefined) p.reason = s.reason;
  return p;
}

/** A `merge_group` delivery: the merge queue built `headSha` for pull request `number` on top of `baseSha`. */
export function mergeGroupPayload(s: {
  repo: RepoSpec;
  number: number;
  prHead: string;
  headSha: string;
  baseSha: string;
  /** `destroyed` with its `reason` (merged, invalidated, dequeued); `checks_requested` by default. */
  action?: string;
  reason?: string;
}): any {
  const p = example('merge_group', (e) => e.action === 'checks_requested');
  setRepository(p, s.repo);
  p.action = s.action ?? 'checks_requested';
  if (s.reason !== undefined) p.reason = s.reason;
  p.merge_group.head_sha = s.headSha;
  p.merge_group.head_ref = `refs/heads/gh-readonly-queue/main/pr-${s.number}-${s.prHead}`;
  p.merge_group.base_sha = s.baseSha;
  p.merge_group.base_ref = 'refs/heads/main';
  return p;
}

export function reviewPayload(s: {
  repo: RepoSpec;
  number: number;
  state: string;
  body: string;
  headSha: string;
  author?: string;
  authorType?: 'User' | 'Bot' | 'Organization';
  /** `author_association` (F1 standing); the example's own is OWNER. */
  association?: string;
}): any {
  const p = example('pull_request_review', (e) => e.action === 'submitted');
  setRepository(p, s.repo);
  p.review.state = s.state;
  p.review.body = s.body;
  if (s.author) p.review.user.login = s.author;
  if (s.authorType) p.review.user.type = s.authorType;
  if (s.association) p.review.author_association = s.association;
  p.pull_request.number = s.number;
  p.pull_request.head.sha = s.headSha;
  return p;
}

/** A comment on a pull request (an issue comment whose issue is a pull request). */
export function prCommentPayload(s: {
  repo: RepoSpec;
  number: number;
  body: string;
  author?: string;
  authorType?: 'User' | 'Bot' | 'Organization';
  /** `author_association` (F2 standing); the example's own is OWNER. */
  association?: string;
  createdAt?: string;
}): any {
  const p = example('issue_comment', (e) => e.action === 'created');
  setRepository(p, s.repo);
  p.issue.number = s.number;
  p.issue.pull_request = { url: `https://api.github.com/repos/${s.repo.owner}/${s.repo.name}/pulls/${s.number}` };
  p.comment.body = s.body;
  if (s.author) p.comment.user.login = s.author;
  if (s.authorType) p.comment.user.type = s.authorType;
  if (s.association) p.comment.author_association = s.association;
  p.comment.created_at = s.createdAt ?? payloadTime();
  return p;
}

export function delivery(event: string, payload: unknown, id: string = randomUUID()): Delivery {
  return { event, id, body: JSON.stringify(payload) };
}

export async function signedHeaders(d: Delivery, secret: string): Promise<Record<string, string>> {
  return {
    'content-type': 'application/json',
    'x-github-event': d.event,
    'x-github-delivery': d.id,
    'x-hub-signature-256': await sign(secret, d.body),
    'user-agent': 'GitHub-Hookshot/test',
  };
}

export async function post(url: string, d: Delivery, secret: string): Promise<{ status: number; body: any }> {
  const res = await fetch(`${url}/api/github/webhooks`, {
    method: 'POST',
    headers: await signedHeaders(d, secret),
    body: d.body,
  });
  const text = await res.text();
  let body: any = text;
  try {
    body = JSON.parse(text);
  } catch {
    /* not JSON */
  }
  return { status: res.status, body };
}
