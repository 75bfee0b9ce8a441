// What the fake GitHub answers, one handler per operation in operations.ts, reading and writing the
// plain state object. Handlers return answers; server.ts adds HTTP: auth, pagination (a `list`
// answer), ETags, fault injection, recording and schema validation.
import { randomBytes } from 'node:crypto';
import type { Caller } from './credentials.js';
import type { FakeOperation } from './operations.js';
import * as gh from './payloads.js';
import type { Urls } from './payloads.js';
import { ACTIONS_RUN_ROUTES } from './actions-runs.js';
import { withCopilotWork } from './copilot-events.js';
import {
  ensureRepo,
  isoNow,
  nextId,
  pullKey,
  refKey,
  branchKey,
  compareKey,
  repoKey,
  resolveRef,
  type FakeCheckRun,
  type FakeComment,
  type FakeIssue,
  type FakeRepo,
  type FakeState,
  type FakeStatus,
} from './state.js';

export type Answer =
  | { status: number; body?: unknown; headers?: Record<string, string> }
  /** A page of `list` is served (per_page, page, Link); `wrap` shapes it, e.g. { total_count, check_runs }. */
  | { status: 200; list: unknown[]; wrap?: (items: unknown[], total: number) => unknown };

/** Who may call: the App's JWT, a token that may act on the repository, a user's token, or anyone (`public`). */
export type Access = 'app' | 'repo' | 'user' | 'public';

export interface RouteInput {
  params: Record<string, string>;
  query: URLSearchParams;
  body: unknown;
  caller: Caller;
  state: FakeState;
  urls: Urls;
  /** The signed blob-host URL for a job's log. */
  blobUrl(jobId: number): string;
}

export interface Route {
  operation: FakeOperation;
  access: Access;
  handle(input: RouteInput): Answer;
}

const notFound = (message = 'Not Found'): Answer => ({ status: 404, body: gh.error(message, 404) });
const invalid = (message: string): Answer => ({
  status: 422,
  body: { ...gh.error('Validation Failed', 422), errors: [{ resource: 'Issue', code: 'invalid', message }] },
});

function repoOf(input: RouteInput): FakeRepo {
  return ensureRepo(input.state, `${input.params.owner}/${input.params.repo}`);
}

function actorOf(input: RouteInput): { login: string; type: 'User' | 'Bot' } {
  const { caller, state } = input;
  if (caller.kind === 'user') return { login: caller.login, type: 'User' };
  return { login: `${state.app?.slug ?? 'app'}[bot]`, type: 'Bot' };
}

/** The latest status per context, in the order contexts first appeared. */
export function latestStatuses(statuses: FakeStatus[]): FakeStatus[] {
  const latest = new Map<string, FakeStatus>();
  for (const status of statuses) latest.set(status.context, status);
  return [...latest.values()];
}

export const ROUTES: readonly Route[] = [
  {
    operation: 'GET /repos/{owner}/{repo}/pulls/{pull_number}',
    access: 'repo',
    handle(input) {
      const pull = input.state.pulls[pullKey(repoOf(input).fullName, Number(input.params.pull_number))];
      if (pull === undefined) return notFound();
      return {
        status: 200,
        body: gh.pullRequest(input.urls, input.state, repoOf(input), Number(input.params.pull_number), pull),
      };
    },
  },
  {
    operation: 'GET /repos/{owner}/{repo}/commits/{ref}/check-runs',
    access: 'repo',
    handle(input) {
      const repo = repoOf(input);
      const ref = resolveRef(input.state, repo.fullName, input.params.ref!);
      let runs = input.state.checkRuns[refKey(repo.fullName, ref)] ?? [];
      if (input.query.get('filter') !== 'all') {
        // filter=latest (GitHub's default): the most recent run of each name.
        const byName = new Map(runs.map((run) => [run.name, run]));
        runs = runs.filter((run) => byName.get(run.name) === run);
      }
      return {
        status: 200,
        list: runs.map((run) => gh.checkRun(input.urls, repo, ref, run)),
        wrap: (items, total) => ({ total_count: total, check_runs: items }),
      };
    },
  },
  {
    operation: 'GET /repos/{owner}/{repo}/commits/{ref}/status',
    access: 'repo',
    handle(input) {
      const repo = repoOf(input);
      const ref = resolveRef(input.state, repo.fullName, input.params.ref!);
      const latest = latestStatuses(input.state.statuses[refKey(repo.fullName, ref)] ?? []);
      return {
        status: 200,
        list: latest.map((status) => gh.simpleCommitStatus(input.urls, repo, ref, status)),
        wrap: (items, total) => ({
          state: gh.combinedState(latest),
          statuses: items,
          sha: ref,
          total_count: total,
          repository: gh.minimalRepository(input.urls, repo),
          commit_url: `${input.urls.api}/repos/${repo.fullName}/commits/${ref}`,
          url: `${input.urls.api}/repos/${repo.fullName}/commits/${ref}/status`,
        }),
      };
    },
  },
  {
    operation: 'GET /repos/{owner}/{repo}/commits/{ref}/statuses',
    access: 'repo',
    handle(input) {
      const repo = repoOf(input);
      const ref = resolveRef(input.state, repo.fullName, input.params.ref!);
      const all = [...(input.state.statuses[refKey(repo.fullName, ref)] ?? [])].reverse();
      return { status: 200, list: all.map((status) => gh.commitStatus(input.urls, repo, ref, status)) };
    },
  },
  {
    operation: 'POST /repos/{owner}/{repo}/statuses/{sha}',
    access: 'repo',
    handle(input) {
      const repo = repoOf(input);
      const body = input.body as { state?: unknown; context?: unknown; description?: unknown; target_url?: unknown };
      const states = ['error', 'failure', 'pending', 'success'] as const;
      const state = states.find((s) => s === body?.state);
      if (!state) return invalid('state must be one of error, failure, pending, success');
      if (body.context !== undefined && typeof body.context !== 'string') return invalid('context must be a string');
      if (typeof body.description === 'string' && body.description.length > 140)
        return invalid('description is too long (maximum is 140 characters)');
      const now = isoNow(input.state);
      const status: FakeStatus = {
        id: nextId(input.state),
        context: (body.context as string | undefined) ?? 'default',
        state,
        description: typeof body.description === 'string' ? body.description : null,
        targetUrl: typeof body.target_url === 'string' ? body.target_url : null,
        createdAt: now,
        updatedAt: now,
      };
      const key = refKey(repo.fullName, input.params.sha!);
      (input.state.statuses[key] ??= []).push(status);
      return { status: 201, body: gh.commitStatus(input.urls, repo, input.params.sha!, status) };
    },
  },
  {
    operation: 'GET /repos/{owner}/{repo}/branches/{branch}/protection/required_status_checks',
    access: 'repo',
    handle(input) {
      const repo = repoOf(input);
      const policy = input.state.protection[branchKey(repo.fullName, input.params.branch!)];
      if (policy === undefined) return notFound('Branch not protected');
      if (policy === 'forbidden') return { status: 403, body: gh.error('Resource not accessible by integration', 403) };
      return { status: 200, body: gh.statusCheckPolicy(input.urls, repo, input.params.branch!, policy) };
    },
  },
  {
    operation: 'GET /repos/{owner}/{repo}/actions/jobs/{job_id}/logs',
    access: 'repo',
    handle(input) {
      const jobId = Number(input.params.job_id);
      const elsewhere = input.state.logRedirects[jobId];
      if (elsewhere !== undefined) return { status: 302, headers: { location: elsewhere } };
      if (input.state.logs[jobId] === undefined) return notFound();
      return { status: 302, headers: { location: input.blobUrl(jobId) } };
    },
  },
  {
    operation: 'GET /repos/{owner}/{repo}/actions/jobs/{job_id}',
    access: 'repo',
    handle(input) {
      const repo = repoOf(input);
      const found = findActionsJob(input.state, repo.fullName, Number(input.params.job_id));
      if (found === null) return notFound();
      return { status: 200, body: gh.job(input.urls, repo, found.sha, found.run, found.runId) };
    },
  },
  {
    operation: 'POST /repos/{owner}/{repo}/actions/runs/{run_id}/rerun-failed-jobs',
    access: 'repo',
    handle(input) {
      const repo = repoOf(input);
      const runId = Number(input.params.run_id);
      // As GitHub answers a token without actions: write (an App installed without it, a read-only PAT).
      if (input.state.rerunPolicy[repoKey(repo.fullName)] === 'forbidden')
        return { status: 403, body: gh.error('Resource not accessible by integration', 403) };
      if (!workflowRunExists(input.state, repo.fullName, runId)) return notFound();
      // GitHub re-runs only a finished workflow run.
      if (jobsOfRun(input.state, repo.fullName, runId).some((r) => gh.checkRunStatus(r) !== 'completed'))
        return { status: 403, body: gh.error('This workflow is already running', 403) };
      input.state.reruns.push({ repo: repoKey(repo.fullName), runId, at: isoNow(input.state) });
      return { status: 201, body: {} };
    },
  },
  {
    // Issue 36: GitHub merges the base into the head branch (a new merge commit is the head) and answers
    // 202; 422 when expected_head_sha is not the head any more. The merge state is `clean` after it.
    operation: 'PUT /repos/{owner}/{repo}/pulls/{pull_number}/update-branch',
    access: 'repo',
    handle(input) {
      const repo = repoOf(input);
      const key = pullKey(repo.fullName, Number(input.params.pull_number));
      const pull = input.state.pulls[key];
      if (pull === undefined) return notFound();
      const expected = (input.body as { expected_head_sha?: unknown } | null)?.expected_head_sha;
      if (typeof expected === 'string' && expected !== pull.headSha)
        return { status: 422, body: gh.error("expected head sha didn't match current head ref.", 422) };
      const to = randomBytes(20).toString('hex');
      input.state.branchUpdates.push({ pull: key, from: pull.headSha, to, at: isoNow(input.state) });
      pull.headSha = to;
      pull.mergeableState = 'clean';
      pull.updatedAt = isoNow(input.state);
      return {
        status: 202,
        body: {
          message: 'Updating pull request branch.',
          url: `${input.urls.web}/${repo.fullName}/pull/${input.params.pull_number}`,
        },
      };
    },
  },
  {
    operation: 'POST /repos/{owner}/{repo}/issues/{issue_number}/labels',
    access: 'repo',
    handle(input) {
      const repo = repoOf(input);
      const pull = input.state.pulls[pullKey(repo.fullName, Number(input.params.issue_number))];
      if (pull === undefined) return notFound();
      const body = input.body as { labels?: unknown } | unknown[] | null;
      const wanted = Array.isArray(body) ? body : body?.labels;
      if (!Array.isArray(wanted) || !wanted.every((l): l is string => typeof l === 'string'))
        return invalid('labels must be an array of strings');
      const labels = pull.labels ?? [];
      for (const name of wanted) if (!labels.some((l) => l.toLowerCase() === name.toLowerCase())) labels.push(name);
      const events = (input.state.labelEvents[pullKey(repo.fullName, Number(input.params.issue_number))] ??= []);
      for (const name of wanted)
        events.push({
          id: nextId(input.state),
          label: name,
          actor: actorOf(input).login,
          createdAt: isoNow(input.state),
        });
      pull.labels = labels;
      pull.updatedAt = isoNow(input.state);
      return { status: 200, body: labels.map((name) => gh.label(input.urls, repo, name)) };
    },
  },
  {
    operation: 'DELETE /repos/{owner}/{repo}/issues/{issue_number}/labels/{name}',
    access: 'repo',
    handle(input) {
      const repo = repoOf(input);
      const pull = input.state.pulls[pullKey(repo.fullName, Number(input.params.issue_number))];
      if (pull === undefined) return notFound();
      const name = input.params.name!.toLowerCase();
      const labels = pull.labels ?? [];
      if (!labels.some((l) => l.toLowerCase() === name)) return notFound('Label does not exist');
      pull.labels = labels.filter((l) => l.toLowerCase() !== name);
      pull.updatedAt = isoNow(input.state);
      return { status: 200, body: pull.labels.map((l) => gh.label(input.urls, repo, l)) };
    },
  },
  {
    operation: 'GET /repos/{owner}/{repo}/issues/{issue_number}/comments',
    access: 'repo',
    handle(input) {
      const repo = repoOf(input);
      const number = Number(input.params.issue_number);
      const comments = input.state.comments[pullKey(repo.fullName, number)] ?? [];
      return { status: 200, list: comments.map((c) => gh.issueComment(input.urls, repo, number, c)) };
    },
  },
  {
    operation: 'POST /repos/{owner}/{repo}/issues/{issue_number}/comments',
    access: 'repo',
    handle(input) {
      const repo = repoOf(input);
      const number = Number(input.params.issue_number);
      const text = (input.body as { body?: unknown } | null)?.body;
      if (typeof text !== 'string' || text === '') return invalid('body is required');
      const actor = actorOf(input);
      const now = isoNow(input.state);
      const comment: FakeComment = {
        id: nextId(input.state),
        body: text,
        author: actor.login,
        authorType: actor.type,
        createdAt: now,
        updatedAt: now,
      };
      (input.state.comments[pullKey(repo.fullName, number)] ??= []).push(comment);
      const json = gh.issueComment(input.urls, repo, number, comment);
      return { status: 201, body: json, headers: { location: String(json.url) } };
    },
  },
  {
    operation: 'PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}',
    access: 'repo',
    handle(input) {
      const repo = repoOf(input);
      const id = Number(input.params.comment_id);
      const text = (input.body as { body?: unknown } | null)?.body;
      if (typeof text !== 'string' || text === '') return invalid('body is required');
      const prefix = `${repoKey(repo.fullName)}#`;
      for (const [key, comments] of Object.entries(input.state.comments)) {
        const comment = key.startsWith(prefix) ? comments.find((c) => c.id === id) : undefined;
        if (comment === undefined) continue;
        comment.body = text;
        comment.updatedAt = isoNow(input.state);
        return { status: 200, body: gh.issueComment(input.urls, repo, Number(key.slice(prefix.length)), comment) };
      }
      return notFound();
    },
  },
  {
    // Issue 36 item 4: an issue on the repository; its number follows the pull requests' and issues'.
    operation: 'POST /repos/{owner}/{repo}/issues',
    access: 'repo',
    handle(input) {
      const repo = repoOf(input);
      const b = (input.body ?? {}) as { title?: unknown; body?: unknown };
      if (typeof b.title !== 'string' || b.title === '') return invalid('title is required');
      const prefix = `${repoKey(repo.fullName)}#`;
      const taken = [...Object.keys(input.state.pulls), ...Object.keys(input.state.issues)]
        .filter((k) => k.startsWith(prefix))
        .map((k) => Number(k.slice(prefix.length)));
      const actor = actorOf(input);
      const now = isoNow(input.state);
      const issue: FakeIssue = {
        number: Math.max(0, ...taken) + 1,
        title: b.title,
        body: typeof b.body === 'string' ? b.body : null,
        state: 'open',
        stateReason: null,
        author: actor.login,
        authorType: actor.type,
        createdAt: now,
        updatedAt: now,
        closedAt: null,
      };
      input.state.issues[pullKey(repo.fullName, issue.number)] = issue;
      const json = gh.issue(input.urls, repo, issue, 0);
      return { status: 201, body: json, headers: { location: String(json.url) } };
    },
  },
  {
    operation: 'PATCH /repos/{owner}/{repo}/issues/{issue_number}',
    access: 'repo',
    handle(input) {
      const repo = repoOf(input);
      const key = pullKey(repo.fullName, Number(input.params.issue_number));
      const issue = input.state.issues[key];
      if (issue === undefined) return notFound();
      const b = (input.body ?? {}) as { state?: unknown; state_reason?: unknown; title?: unknown; body?: unknown };
      if (b.state !== undefined && b.state !== 'open' && b.state !== 'closed') return invalid('state is invalid');
      const now = isoNow(input.state);
      if (typeof b.title === 'string') issue.title = b.title;
      if (typeof b.body === 'string') issue.body = b.body;
      if (b.state === 'closed' && issue.state === 'open') {
        issue.state = 'closed';
        issue.closedAt = now;
        issue.stateReason = typeof b.state_reason === 'string' ? b.state_reason : 'completed';
      } else if (b.state === 'open') {
        issue.state = 'open';
        issue.closedAt = null;
        issue.stateReason = 'reopened';
      }
      issue.updatedAt = now;
      const comments = input.state.comments[key]?.length ?? 0;
      return { status: 200, body: gh.issue(input.urls, repo, issue, comments) };
    },
  },
  {
    operation: 'GET /repos/{owner}/{repo}/pulls/{pull_number}/reviews',
    access: 'repo',
    handle(input) {
      const repo = repoOf(input);
      const number = Number(input.params.pull_number);
      const reviews = input.state.reviews[pullKey(repo.fullName, number)] ?? [];
      return { status: 200, list: reviews.map((r) => gh.review(input.urls, repo, number, r)) };
    },
  },
  {
    operation: 'GET /repos/{owner}/{repo}/pulls/{pull_number}/reviews/{review_id}/comments',
    access: 'repo',
    handle(input) {
      const repo = repoOf(input);
      const number = Number(input.params.pull_number);
      const review = (input.state.reviews[pullKey(repo.fullName, number)] ?? []).find(
        (r) => r.id === Number(input.params.review_id),
      );
      if (review === undefined) return notFound();
      return {
        status: 200,
        list: (review.comments ?? []).map((c, i) => gh.reviewComment(input.urls, repo, number, review, c, i)),
      };
    },
  },
  {
    operation: 'GET /repos/{owner}/{repo}/compare/{basehead}',
    access: 'repo',
    handle(input) {
      const repo = repoOf(input);
      const [base, head, extra] = input.params.basehead!.split('...');
      if (base === undefined || head === undefined || extra !== undefined || base === '' || head === '')
        return notFound();
      const compare = input.state.compares[compareKey(repo.fullName, base, head)];
      // GitHub answers 404 for a commit it does not know; the fake knows only the pairs a test set.
      if (compare === undefined) return notFound(`No common ancestor between ${base} and ${head}.`);
      return { status: 200, body: gh.commitComparison(input.urls, repo, base, head, compare) };
    },
  },
  {
    operation: 'GET /repos/{owner}/{repo}/collaborators/{username}/permission',
    access: 'repo',
    handle(input) {
      const login = input.params.username!;
      const repo = repoOf(input);
      const owner = repo.fullName.split('/')[0]!.toLowerCase();
      const role =
        input.state.collaborators[repoKey(repo.fullName)]?.[login.toLowerCase()] ??
        (login.toLowerCase() === owner ? 'admin' : undefined);
      // Not a collaborator (no role from the repository, a team, the organization or the enterprise).
      if (role === undefined) return notFound();
      return { status: 200, body: gh.collaboratorPermission(input.urls, login, role) };
    },
  },
  {
    operation: 'GET /repos/{owner}/{repo}/issues/{issue_number}/events',
    access: 'repo',
    handle(input) {
      const repo = repoOf(input);
      const key = pullKey(repo.fullName, Number(input.params.issue_number));
      const pull = input.state.pulls[key];
      if (pull === undefined) return notFound();
      const recorded = input.state.labelEvents[key] ?? [];
      // A label set on the state directly was added by the repository's owner, before anything recorded.
      const owner = repo.fullName.split('/')[0]!;
      const implied = (pull.labels ?? [])
        .filter((l) => !recorded.some((e) => e.label.toLowerCase() === l.toLowerCase()))
        .map((label, i) => ({ id: i + 1, label, actor: owner, createdAt: pull.createdAt ?? '2026-01-01T00:00:00Z' }));
      const labels = [...implied, ...recorded].map((e) => ({ at: e.createdAt, e }));
      // Issue 35: Copilot's work events among them, in the order they happened.
      const events = withCopilotWork(input, repo, labels, (e) => gh.labeledEvent(input.urls, repo, e));
      return { status: 200, list: events };
    },
  },
  {
    operation: 'GET /user',
    access: 'user',
    handle(input) {
      if (input.caller.kind !== 'user')
        return { status: 403, body: gh.error('Resource not accessible by integration', 403) };
      return { status: 200, body: gh.privateUser(input.urls, input.caller.login) };
    },
  },
  {
    operation: 'GET /app',
    access: 'app',
    handle(input) {
      const app = input.state.app!;
      return { status: 200, body: gh.integration(input.urls, app.id, app.slug) };
    },
  },
  {
    operation: 'GET /repos/{owner}/{repo}/installation',
    access: 'app',
    handle(input) {
      const app = input.state.app!;
      const owner = input.params.owner!.toLowerCase();
      const id = input.state.installations[owner];
      if (id === undefined) return notFound('Integration not found');
      return { status: 200, body: gh.installation(input.urls, id, app.id, app.slug, owner) };
    },
  },
  {
    operation: 'POST /app/installations/{installation_id}/access_tokens',
    access: 'app',
    handle(input) {
      const id = Number(input.params.installation_id);
      const account = Object.entries(input.state.installations).find(
        ([, installationId]) => installationId === id,
      )?.[0];
      if (account === undefined) return notFound('Integration not found');
      const token = `ghs_${randomBytes(18).toString('base64url')}`;
      const expiresAt = new Date(input.state.now().getTime() + 3600_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
      input.state.installationTokens[token] = { installationId: id, account, expiresAt };
      return {
        status: 201,
        body: {
          token,
          expires_at: expiresAt,
          permissions: { checks: 'read', issues: 'write', pull_requests: 'write', statuses: 'read', actions: 'read' },
          repository_selection: 'all',
        },
      };
    },
  },
  {
    // V3: GitHub's `integration` plus the new App's secrets, answered once per code.
    operation: 'POST /app-manifests/{code}/conversions',
    access: 'public',
    handle(input) {
      const created = input.state.manifestCodes[input.params.code!];
      if (created === undefined) return notFound();
      delete input.state.manifestCodes[input.params.code!];
      return {
        status: 201,
        body: {
          ...gh.integration(input.urls, created.id, created.slug),
          name: created.name,
          owner: gh.simpleUser(input.urls, created.owner.login, created.owner.type),
          client_id: created.clientId,
          client_secret: created.clientSecret,
          webhook_secret: created.webhookSecret,
          pem: created.pem,
        },
      };
    },
  },
  // Issue 35 item 3: workflow dispatches and the runs they make (actions-runs.ts).
  ...ACTIONS_RUN_ROUTES,
];

/** The workflow run of a commit's Actions jobs that name none: one per commit, made when first asked. */
function defaultRunId(state: FakeState, key: string): number {
  return (state.workflowRuns[key] ??= nextId(state));
}

/** The Actions job with this id in the repository (a check run of the github-actions app), and its run. */
function findActionsJob(
  state: FakeState,
  repo: string,
  jobId: number,
): { sha: string; run: FakeCheckRun; runId: number } | null {
  const prefix = `${repoKey(repo)}@`;
  for (const [key, runs] of Object.entries(state.checkRuns)) {
    const run = key.startsWith(prefix) ? runs.find((r) => r.id === jobId) : undefined;
    if (run === undefined) continue;
    if ((run.appSlug ?? 'github-actions') !== 'github-actions') return null;
    return { sha: key.slice(prefix.length), run, runId: run.runId ?? defaultRunId(state, key) };
  }
  return null;
}

function workflowRunExists(state: FakeState, repo: string, runId: number): boolean {
  const prefix = `${repoKey(repo)}@`;
  return Object.entries(state.checkRuns).some(
    ([key, runs]) =>
      key.startsWith(prefix) && (state.workflowRuns[key] === runId || runs.some((r) => r.runId === runId)),
  );
}

/** The Actions jobs of a workflow run: those naming it, and a commit's unnamed ones when it is their default. */
function jobsOfRun(state: FakeState, repo: string, runId: number): FakeCheckRun[] {
  const prefix = `${repoKey(repo)}@`;
  return Object.entries(state.checkRuns).flatMap(([key, runs]) =>
    key.startsWith(prefix)
      ? runs.filter(
          (r) => (r.appSlug ?? 'github-actions') === 'github-actions' && (r.runId ?? state.workflowRuns[key]) === runId,
        )
      : [],
  );
}

/** A route's path template as a regular expression capturing its parameters. */
export function compileRoute(route: Route): { method: string; pattern: RegExp; names: string[] } {
  const [method, template] = route.operation.split(' ') as [string, string];
  const names: string[] = [];
  const source = template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{(\w+)\\?\}/g, (_m, name: string) => {
    names.push(name);
    return '([^/]+)';
  });
  return { method, pattern: new RegExp(`^${source}$`), names };
}
