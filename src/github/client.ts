// The GitHub adapter: implements the ProviderPort over Octokit with App or token auth, GitHub
// Enterprise base URLs, conditional requests (ETag, kept where the caller says: the ledger for the
// server) for the reads the poll repeats, the poll's bulk GraphQL reads (graphql-poll.ts), and the jobs-logs
// redirect read without following it, so no credential ever reaches the signed log host.
// SPEC B4, E1–E4, J1–J2, K3–K5, K8, M5.
import { randomUUID } from 'node:crypto';
import { ProviderError, type ProviderPort, type IssueCommentInfo } from '../app/provider-port.js';
import { isOwnStatusContext } from '../core/commit-status.js';
import type { RepositoryPermission } from '../core/standing.js';
import { memoryEtagStore, type ConditionalStore } from './etag-cache.js';
import { glanceQuery, readingQuery, toGlances, toReadings, type PollQueryAnswer } from './graphql-poll.js';
import { toProviderError } from './errors.js';
import { createClientRouter, type GitHubAuth } from './installations.js';
import { silentGitHubLog, type GitHubClient, type GitHubLog, type GitHubRequestObserver } from './octokit.js';
import {
  toCheckRun,
  toCommitStatus,
  toComparison,
  toIssueComment,
  toPullRequest,
  toReview,
  toRepositoryPermission,
  type CheckRunJson,
  type CollaboratorPermissionJson,
  type CommitComparisonJson,
  type CommitStatusJson,
} from './to-port.js';

export type { GitHubAuth } from './installations.js';
export type { GitHubLog, GitHubRequestObserver } from './octokit.js';

export interface CreateGitHubOptions {
  /** REST base URL: https://api.github.com, or https://HOST/api/v3 for GitHub Enterprise. */
  apiUrl: string;
  auth: GitHubAuth;
  /**
   * Rate limits: retries after waiting what GitHub says (default 2), the longest wait sat out
   * (default 60 s), and whether writes are spaced as GitHub asks (default true; false in tests only).
   */
  throttle?: { onRateLimitRetries?: number; maxWaitSeconds?: number; spaceWrites?: boolean };
  /** 5xx and network failures: retries (default 3), the n-th after n² × backoffUnitMs (default 1000). */
  retry?: { retries?: number; backoffUnitMs?: number };
  /** Conditional-request cache entries kept in memory (default 500) when no `etags` store is given. */
  etagCacheSize?: number;
  /** Where conditional requests' answers are kept (the server: the ledger, for every open Task). */
  etags?: ConditionalStore;
  /**
   * How long a branch's required checks (its protection's answer, 404 included) are reused before
   * being read again (default 600 s; 0 reads every time). Decision 0031.
   */
  protectionTtlSeconds?: number;
  /**
   * N3: offer the poll's bulk GraphQL reads (glancePullRequests, readPullRequests); default false —
   * a client on its own (`fixloop pr checks`) reads one pull request at a time. The server turns
   * them on (`poll.bulkReads`).
   */
  bulkReads?: boolean;
  /**
   * F1/F2: how long a login's permission on a repository is reused before being read again (default
   * 60 s; 0 reads every time). A failed read is never kept. Decision 0042.
   */
  permissionTtlSeconds?: number;
  log?: GitHubLog;
  /** Told of every response GitHub sends (the metrics' request counter and rate-limit gauge). */
  observe?: GitHubRequestObserver;
}

const PER_PAGE = 100;
/** Pages read at most for one list (10,000 entries): a bound, not an expectation. */
const MAX_PAGES = 100;

interface Page<T> {
  data: T;
  link: string | null;
}

export function createGitHub(opts: CreateGitHubOptions): ProviderPort {
  const log = opts.log ?? silentGitHubLog;
  /** The last rate limit each resource's answers carried (x-ratelimit-*). */
  const limits = new Map<string, { remaining: number; limit: number; reset: number }>();
  const observe: GitHubRequestObserver = {
    response(status, seen) {
      if (seen !== null && seen.limit !== undefined && seen.reset !== undefined)
        limits.set(seen.resource, { remaining: seen.remaining, limit: seen.limit, reset: seen.reset });
      opts.observe?.response(status, seen);
    },
  };
  const router = createClientRouter(opts.auth, {
    baseUrl: opts.apiUrl.replace(/\/+$/, ''),
    throttleId: `fixloop-${randomUUID()}`,
    rateLimitRetries: opts.throttle?.onRateLimitRetries ?? 2,
    maxRateLimitWaitSeconds: opts.throttle?.maxWaitSeconds ?? 60,
    retries: opts.retry?.retries ?? 3,
    backoffUnitMs: opts.retry?.backoffUnitMs ?? 1000,
    spaceWrites: opts.throttle?.spaceWrites ?? true,
    log,
    observer: observe,
  });
  const etags = opts.etags ?? memoryEtagStore(opts.etagCacheSize ?? 500);
  const protectionTtlMs = (opts.protectionTtlSeconds ?? 600) * 1000;
  /** Required checks by owner/repo:branch, with when they were read (one read per base branch, N3). */
  const protection = new Map<string, { at: number; answer: Promise<string[] | null> }>();

  /** A branch's required checks as last read within protectionTtlMs; a failed read is not kept. */
  function keptProtection(repository: string, branch: string, read: () => Promise<string[] | null>) {
    const key = `${repository.toLowerCase()}:${branch}`;
    const kept = protection.get(key);
    if (kept !== undefined && Date.now() - kept.at < protectionTtlMs) return kept.answer;
    const answer = read();
    protection.set(key, { at: Date.now(), answer });
    answer.catch(() => protection.delete(key));
    return answer;
  }

  /** One of the poll's bulk GraphQL reads; a partial answer (some pull requests not found) is still an answer. */
  async function pollQuery(gh: GitHubClient, query: string, owner: string, repo: string): Promise<PollQueryAnswer> {
    try {
      return await gh.graphql<PollQueryAnswer>(query, { owner, name: repo });
    } catch (err) {
      const partial = (err as { data?: PollQueryAnswer }).data;
      if (partial?.repository) return partial;
      throw err;
    }
  }
  const permissionTtlMs = (opts.permissionTtlSeconds ?? 60) * 1000;
  /** Permissions by owner/repo and login, with when they were read (one read per person a minute). */
  const permissions = new Map<string, { at: number; answer: Promise<RepositoryPermission> }>();
  let self: Promise<string | null> | null = null;

  /** Runs one call on the repository's client, mapping what GitHub refuses to ProviderError. */
  async function onRepo<T>(
    repository: string,
    what: string,
    call: (gh: GitHubClient, owner: string, repo: string) => Promise<T>,
    lane: 'default' | 'bulk-read' = 'default',
  ): Promise<T> {
    const [owner, repo] = splitRepository(repository);
    try {
      const gh = await (lane === 'default' ? router.forRepository(owner, repo) : router.forBulkReads(owner, repo));
      return await call(gh, owner, repo);
    } catch (err) {
      throw toProviderError(err, `${what} ${owner}/${repo}`);
    }
  }

  /**
   * A GET sent with If-None-Match when an earlier answer is kept; a 304 returns that answer. What is
   * kept is the answer as `map` makes it (the port's records, not GitHub's whole JSON). The store
   * failing only costs the request: it is read as a miss, and a write to it is skipped.
   */
  async function conditional<T, V>(
    key: string,
    send: (headers: Record<string, string>) => Promise<{ data: T; headers: { etag?: string; link?: string } }>,
    map: (data: T) => V,
  ): Promise<Page<V>> {
    const kept = await etags.getEtag(key).catch(() => null);
    let cached: Page<V> | null = null;
    if (kept !== null) {
      try {
        cached = JSON.parse(kept.value) as Page<V>;
      } catch {
        cached = null;
      }
    }
    try {
      const res = await send(cached === null ? {} : { 'if-none-match': kept!.etag });
      const page: Page<V> = { data: map(res.data), link: res.headers.link ?? null };
      if (res.headers.etag !== undefined)
        await etags.putEtag(key, res.headers.etag, JSON.stringify(page)).catch(() => undefined);
      return page;
    } catch (err) {
      if (cached !== null && (err as { status?: unknown }).status === 304) {
        // Still in use: written again once an hour, so pruning by age never drops a live answer.
        if (Date.now() - Date.parse(kept!.storedAt) > 3_600_000)
          await etags.putEtag(key, kept!.etag, kept!.value).catch(() => undefined);
        return cached;
      }
      throw err;
    }
  }

  /** Every page of a conditional list read, following the Link header's rel="next". */
  async function allPages<T>(keyBase: string, read: (page: number, key: string) => Promise<Page<T>>): Promise<T[]> {
    const pages: T[] = [];
    for (let page = 1; page <= MAX_PAGES; page++) {
      const answer = await read(page, `${keyBase} page=${page}`);
      pages.push(answer.data);
      if (answer.link === null || !/rel="next"/.test(answer.link)) break;
    }
    return pages;
  }

  return {
    getPullRequest: (repository, number) =>
      onRepo(repository, 'GET pull request', async (gh, owner, repo) => {
        const key = `pull ${owner}/${repo}#${number}`;
        const { data } = await conditional(
          key,
          (headers) => gh.rest.pulls.get({ owner, repo, pull_number: number, headers }),
          toPullRequest,
        );
        return data;
      }),

    listCheckRuns: (repository, ref) =>
      onRepo(repository, 'GET check runs', async (gh, owner, repo) => {
        const pages = await allPages(`check-runs ${owner}/${repo}@${ref}`, (page, key) =>
          conditional(
            key,
            (headers) => gh.rest.checks.listForRef({ owner, repo, ref, per_page: PER_PAGE, page, headers }),
            (data) => data.check_runs.map((run) => toCheckRun(run as CheckRunJson)),
          ),
        );
        return pages.flat();
      }),

    listStatuses: (repository, ref) =>
      onRepo(repository, 'GET combined status', async (gh, owner, repo) => {
        // The combined status already holds the latest status per context.
        const pages = await allPages(`status ${owner}/${repo}@${ref}`, (page, key) =>
          conditional(
            key,
            (headers) => gh.rest.repos.getCombinedStatusForRef({ owner, repo, ref, per_page: PER_PAGE, page, headers }),
            (data) => data.statuses.map((status) => toCommitStatus(status as CommitStatusJson)),
          ),
        );
        // fixloop's own `fixloop` status says what the loop does, not what CI found (P3).
        return pages.flat().filter((status) => !isOwnStatusContext(status.context));
      }),

    createCommitStatus: (repository, sha, status) =>
      onRepo(repository, 'POST commit status', async (gh, owner, repo) => {
        await gh.rest.repos.createCommitStatus({
          owner,
          repo,
          sha,
          state: status.state,
          description: status.description,
          context: status.context,
          ...(status.targetUrl ? { target_url: status.targetUrl } : {}),
        });
      }),

    requiredChecks: (repository, branch) =>
      // N3: read once per base branch and kept with its answer, "not protected" included (decision 0031).
      keptProtection(repository, branch, () =>
        onRepo(repository, 'GET required status checks', async (gh, owner, repo) => {
          try {
            const { data } = await gh.rest.repos.getStatusChecksProtection({ owner, repo, branch });
            const contexts = [...(data.contexts ?? []), ...(data.checks ?? []).map((check) => check.context)];
            return [...new Set(contexts)];
          } catch (err) {
            // Not protected (404), or these credentials may not read protection (403): config decides.
            const status = (err as { status?: unknown }).status;
            if (status === 403 || status === 404) return null;
            throw err;
          }
        }),
      ),

    glancePullRequests: !opts.bulkReads
      ? undefined
      : (repository, numbers) =>
          onRepo(
            repository,
            'POST graphql (pull requests)',
            async (gh, owner, repo) => toGlances(await pollQuery(gh, glanceQuery(numbers), owner, repo)),
            'bulk-read',
          ),

    readPullRequests: !opts.bulkReads
      ? undefined
      : (repository, numbers) =>
          onRepo(
            repository,
            'POST graphql (pull requests and checks)',
            async (gh, owner, repo) =>
              toReadings(await pollQuery(gh, readingQuery(numbers), owner, repo), repository.toLowerCase()),
            'bulk-read',
          ),

    rateLimits: () =>
      [...limits].map(([resource, l]) => ({
        resource,
        remaining: l.remaining,
        limit: l.limit,
        resetAt: new Date(l.reset * 1000).toISOString(),
      })),

    jobLogUrl: (repository, jobId) =>
      onRepo(repository, 'GET job logs', async (gh, owner, repo) => {
        // Not followed: fetch would follow the 302 itself; the caller reads the signed URL without credentials (J2).
        const res = await gh.request('GET /repos/{owner}/{repo}/actions/jobs/{job_id}/logs', {
          owner,
          repo,
          job_id: jobId,
          request: { redirect: 'manual' },
        });
        const status = res.status as number;
        const location = res.headers.location;
        if (status < 300 || status >= 400 || typeof location !== 'string' || location === '') {
          throw new ProviderError(
            502,
            `GET job logs ${owner}/${repo} job ${jobId}: expected a redirect, got ${status}`,
            false,
          );
        }
        return location;
      }),

    workflowRunOfJob: (repository, jobId) =>
      onRepo(repository, 'GET job', async (gh, owner, repo) => {
        // The jobs API names the run (`run_id`), and answers 404 for a check run that is no Actions job.
        const { data } = await gh.rest.actions.getJobForWorkflowRun({ owner, repo, job_id: jobId });
        return Number(data.run_id);
      }),

    rerunFailedJobs: (repository, runId) =>
      onRepo(repository, 'POST rerun-failed-jobs', async (gh, owner, repo) => {
        // Sent once, never retried on a 5xx or a lost answer: GitHub may have started the re-run, and a
        // second request would re-run the jobs again once the first finished (decision 0030).
        await gh.rest.actions.reRunWorkflowFailedJobs({ owner, repo, run_id: runId, request: { retries: 0 } });
      }),

    updateBranch: (repository, number, expectedHeadSha) =>
      onRepo(repository, 'PUT update-branch', async (gh, owner, repo) => {
        // 202 "Updating pull request branch."; 422 when the head is no longer the one expected. Sent once:
        // a lost answer may have merged the base in already (the next head says so).
        await gh.rest.pulls.updateBranch({
          owner,
          repo,
          pull_number: number,
          expected_head_sha: expectedHeadSha,
          request: { retries: 0 },
        });
      }),

    enqueuePullRequest: (repository, number, expectedHeadSha) =>
      onRepo(repository, 'POST graphql (enqueue pull request)', async (gh, owner, repo) => {
        // Issue 36: the merge queue takes a pull request by its node id; the expected head makes GitHub
        // refuse it when the branch moved since fixloop judged it green.
        const found = await gh.graphql<{ repository: { pullRequest: { id: string } | null } | null }>(
          'query($owner: String!, $name: String!, $number: Int!) { repository(owner: $owner, name: $name) { pullRequest(number: $number) { id } } }',
          { owner, name: repo, number },
        );
        const id = found.repository?.pullRequest?.id;
        if (!id) throw new ProviderError(404, `pull request ${owner}/${repo}#${number} not found`, false);
        await gh.graphql(
          'mutation($input: EnqueuePullRequestInput!) { enqueuePullRequest(input: $input) { mergeQueueEntry { position } } }',
          { input: { pullRequestId: id, expectedHeadOid: expectedHeadSha } },
        );
      }),

    addLabels: (repository, number, labels) =>
      onRepo(repository, 'POST labels', async (gh, owner, repo) => {
        if (labels.length === 0) return;
        await gh.rest.issues.addLabels({ owner, repo, issue_number: number, labels });
      }),

    removeLabel: (repository, number, label) =>
      onRepo(repository, 'DELETE label', async (gh, owner, repo) => {
        try {
          await gh.rest.issues.removeLabel({ owner, repo, issue_number: number, name: label });
        } catch (err) {
          // Already gone: removing is idempotent.
          if ((err as { status?: unknown }).status !== 404) throw err;
        }
      }),

    listIssueComments: (repository, number) =>
      onRepo(repository, 'GET issue comments', async (gh, owner, repo) => {
        // Conditional (N3): the hand-off reads an acted-on pull request's comments every tick (K8).
        const pages = await allPages(`comments ${owner}/${repo}#${number}`, (page, key) =>
          conditional(
            key,
            (headers) =>
              gh.rest.issues.listComments({ owner, repo, issue_number: number, per_page: PER_PAGE, page, headers }),
            (data) => data.map(toIssueComment),
          ),
        );
        return pages.flat();
      }),

    createIssueComment: (repository, number, body): Promise<IssueCommentInfo> =>
      onRepo(repository, 'POST issue comment', async (gh, owner, repo) => {
        const { data } = await gh.rest.issues.createComment({ owner, repo, issue_number: number, body });
        return toIssueComment(data);
      }),

    createIssue: (repository, title, body) =>
      onRepo(repository, 'POST issue', async (gh, owner, repo) => {
        const { data } = await gh.rest.issues.create({ owner, repo, title, body });
        return { number: data.number };
      }),

    closeIssue: (repository, number, comment) =>
      onRepo(repository, 'PATCH issue', async (gh, owner, repo) => {
        await gh.rest.issues.createComment({ owner, repo, issue_number: number, body: comment });
        await gh.rest.issues.update({ owner, repo, issue_number: number, state: 'closed', state_reason: 'completed' });
      }),

    updateIssueComment: (repository, _number, commentId, body) =>
      onRepo(repository, 'PATCH issue comment', async (gh, owner, repo) => {
        const { data } = await gh.rest.issues.updateComment({ owner, repo, comment_id: commentId, body });
        return toIssueComment(data);
      }),

    listReviews: (repository, number) =>
      onRepo(repository, 'GET reviews', async (gh, owner, repo) => {
        // Conditional (N3): progress (I3) reads them each tick an attempt awaits progress.
        const pages = await allPages(`reviews ${owner}/${repo}#${number}`, (page, key) =>
          conditional(
            key,
            (headers) =>
              gh.rest.pulls.listReviews({ owner, repo, pull_number: number, per_page: PER_PAGE, page, headers }),
            (data) => data.map(toReview),
          ),
        );
        return pages.flat();
      }),

    reviewComments: (repository, number, reviewId) =>
      onRepo(repository, 'GET review comments', async (gh, owner, repo) => {
        // One page of 100 comments tells two rounds apart; a round with more is told by its first hundred.
        const { data } = await gh.rest.pulls.listCommentsForReview({
          owner,
          repo,
          pull_number: number,
          review_id: reviewId,
          per_page: PER_PAGE,
        });
        return data.map((c) => ({ path: c.path, body: c.body }));
      }),

    compareCommits: (repository, base, head) =>
      onRepo(repository, 'GET compare', async (gh, owner, repo) => {
        if (!isRef(base) || !isRef(head))
          throw new TypeError(`not a commit or ref to compare: ${JSON.stringify(base)}...${JSON.stringify(head)}`);
        // No paging parameter: the one answer lists every changed file GitHub shows (at most 300);
        // with one, files appear on the first page only. Commits are not read, so their cap is moot.
        const { data } = await gh.rest.repos.compareCommitsWithBasehead({ owner, repo, basehead: `${base}...${head}` });
        return toComparison(data as CommitComparisonJson);
      }),

    repositoryPermission: (repository, login) => {
      // F1/F2 (decision 0042): read once a minute per person and repository, as the webhooks of a busy
      // review arrive together; an answer that could not be had is asked for again next time.
      const key = `${repository.toLowerCase()}\u0000${login.toLowerCase()}`;
      const kept = permissions.get(key);
      if (kept !== undefined && Date.now() - kept.at < permissionTtlMs) return kept.answer;
      const answer = onRepo(repository, 'GET collaborator permission', async (gh, owner, repo) => {
        try {
          // Not retried (0, which also keeps the plugin from retrying a 403 or a 404): an evaluation
          // waits on this read, and one that fails is asked again (a kept review at once, then each poll).
          const { data } = await gh.rest.repos.getCollaboratorPermissionLevel({
            owner,
            repo,
            username: login,
            request: { retries: 0 },
          });
          return toRepositoryPermission(data as CollaboratorPermissionJson);
        } catch (err) {
          if ((err as { status?: unknown }).status === 404) return 'none'; // not a collaborator
          throw err;
        }
      });
      permissions.set(key, { at: Date.now(), answer });
      answer.catch(() => permissions.delete(key));
      return answer;
    },

    labelActor: (repository, number, label) =>
      onRepo(repository, 'GET issue events', async (gh, owner, repo) => {
        // K5 with F1 (decision 0042): read only while the approve-one label waits, so not kept.
        const pages = await allPages(`events ${owner}/${repo}#${number}`, async (page) => {
          const res = await gh.rest.issues.listEvents({ owner, repo, issue_number: number, per_page: PER_PAGE, page });
          return { data: res.data, link: res.headers.link ?? null };
        });
        const wanted = label.toLowerCase();
        const added = pages
          .flat()
          .filter(
            (e) => e.event === 'labeled' && (e as { label?: { name?: string } }).label?.name?.toLowerCase() === wanted,
          )
          .at(-1);
        if (added === undefined) return null;
        return { login: added.actor?.login ?? null, type: added.actor?.type ?? null };
      }),

    selfLogin: () => {
      self ??= readSelfLogin(router.app, router.token).catch((err: unknown) => {
        self = null; // not remembered: the next call asks again
        throw err;
      });
      return self;
    },
  };
}

async function readSelfLogin(app: GitHubClient | null, token: GitHubClient | null): Promise<string | null> {
  try {
    if (app !== null) {
      const { data } = await app.rest.apps.getAuthenticated();
      return data?.slug === undefined ? null : `${data.slug}[bot]`;
    }
    const { data } = await token!.rest.users.getAuthenticated();
    return data.login;
  } catch (err) {
    // An installation token (e.g. Actions' GITHUB_TOKEN) may not read GET /user: identity unknown.
    if ((err as { status?: unknown }).status === 403) return null;
    throw toProviderError(err, app !== null ? 'GET /app' : 'GET /user');
  }
}

/** A sha or ref that can stand on either side of `base...head`. */
function isRef(ref: string): boolean {
  return /^[A-Za-z0-9][A-Za-z0-9_./-]*$/.test(ref) && !ref.includes('..');
}

/** "Owner/Name" → ["owner", "name"]; anything else is a caller's bug. */
function splitRepository(repository: string): [string, string] {
  const match = /^([A-Za-z0-9_.-]+)\/([A-Za-z0-9_.-]+)$/.exec(repository);
  if (match === null) throw new TypeError(`not an owner/name repository: ${JSON.stringify(repository)}`);
  return [match[1]!.toLowerCase(), match[2]!.toLowerCase()];
}
