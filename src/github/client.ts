// The GitHub adapter: implements the GitHubPort over Octokit with App or token auth, GitHub
// Enterprise base URLs, conditional requests (ETag) for the reads the poll repeats, and the jobs-logs
// redirect read without following it, so no credential ever reaches the signed log host.
// SPEC B4, E1–E4, J1–J2, K3–K5, K8, M5.
import { randomUUID } from 'node:crypto';
import { GitHubError, type GitHubPort, type IssueCommentInfo } from '../app/github-port.js';
import { EtagCache } from './etag-cache.js';
import { toGitHubError } from './errors.js';
import { createClientRouter, type GitHubAuth } from './installations.js';
import { silentGitHubLog, type GitHubClient, type GitHubLog, type GitHubRequestObserver } from './octokit.js';
import {
  toCheckRun,
  toCommitStatus,
  toComparison,
  toIssueComment,
  toPullRequest,
  toReview,
  type CheckRunJson,
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
  /** Conditional-request cache entries kept (default 500). */
  etagCacheSize?: number;
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

export function createGitHub(opts: CreateGitHubOptions): GitHubPort {
  const log = opts.log ?? silentGitHubLog;
  const router = createClientRouter(opts.auth, {
    baseUrl: opts.apiUrl.replace(/\/+$/, ''),
    throttleId: `fixloop-${randomUUID()}`,
    rateLimitRetries: opts.throttle?.onRateLimitRetries ?? 2,
    maxRateLimitWaitSeconds: opts.throttle?.maxWaitSeconds ?? 60,
    retries: opts.retry?.retries ?? 3,
    backoffUnitMs: opts.retry?.backoffUnitMs ?? 1000,
    spaceWrites: opts.throttle?.spaceWrites ?? true,
    log,
    ...(opts.observe ? { observer: opts.observe } : {}),
  });
  const etags = new EtagCache<Page<unknown>>(opts.etagCacheSize ?? 500);
  let self: Promise<string | null> | null = null;

  /** Runs one call on the repository's client, mapping what GitHub refuses to GitHubError. */
  async function onRepo<T>(
    repository: string,
    what: string,
    call: (gh: GitHubClient, owner: string, repo: string) => Promise<T>,
  ): Promise<T> {
    const [owner, repo] = splitRepository(repository);
    try {
      return await call(await router.forRepository(owner, repo), owner, repo);
    } catch (err) {
      throw toGitHubError(err, `${what} ${owner}/${repo}`);
    }
  }

  /** A GET sent with If-None-Match when an earlier answer is cached; a 304 returns that answer. */
  async function conditional<T>(
    key: string,
    send: (headers: Record<string, string>) => Promise<{ data: T; headers: { etag?: string; link?: string } }>,
  ): Promise<Page<T>> {
    const cached = etags.get(key) as { etag: string; value: Page<T> } | undefined;
    try {
      const res = await send(cached === undefined ? {} : { 'if-none-match': cached.etag });
      const page: Page<T> = { data: res.data, link: res.headers.link ?? null };
      if (res.headers.etag !== undefined) etags.set(key, { etag: res.headers.etag, value: page });
      return page;
    } catch (err) {
      if (cached !== undefined && (err as { status?: unknown }).status === 304) return cached.value;
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
        const { data } = await conditional(key, (headers) =>
          gh.rest.pulls.get({ owner, repo, pull_number: number, headers }),
        );
        return toPullRequest(data);
      }),

    listCheckRuns: (repository, ref) =>
      onRepo(repository, 'GET check runs', async (gh, owner, repo) => {
        const pages = await allPages(`check-runs ${owner}/${repo}@${ref}`, (page, key) =>
          conditional(key, (headers) =>
            gh.rest.checks.listForRef({ owner, repo, ref, per_page: PER_PAGE, page, headers }),
          ),
        );
        return pages.flatMap((page) => page.check_runs.map((run) => toCheckRun(run as CheckRunJson)));
      }),

    listStatuses: (repository, ref) =>
      onRepo(repository, 'GET combined status', async (gh, owner, repo) => {
        // The combined status already holds the latest status per context.
        const pages = await allPages(`status ${owner}/${repo}@${ref}`, (page, key) =>
          conditional(key, (headers) =>
            gh.rest.repos.getCombinedStatusForRef({ owner, repo, ref, per_page: PER_PAGE, page, headers }),
          ),
        );
        return pages.flatMap((page) => page.statuses.map((status) => toCommitStatus(status as CommitStatusJson)));
      }),

    requiredChecks: (repository, branch) =>
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
          throw new GitHubError(
            502,
            `GET job logs ${owner}/${repo} job ${jobId}: expected a redirect, got ${status}`,
            false,
          );
        }
        return location;
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
        const comments = await gh.paginate(gh.rest.issues.listComments, {
          owner,
          repo,
          issue_number: number,
          per_page: PER_PAGE,
        });
        return comments.map(toIssueComment);
      }),

    createIssueComment: (repository, number, body): Promise<IssueCommentInfo> =>
      onRepo(repository, 'POST issue comment', async (gh, owner, repo) => {
        const { data } = await gh.rest.issues.createComment({ owner, repo, issue_number: number, body });
        return toIssueComment(data);
      }),

    updateIssueComment: (repository, commentId, body) =>
      onRepo(repository, 'PATCH issue comment', async (gh, owner, repo) => {
        const { data } = await gh.rest.issues.updateComment({ owner, repo, comment_id: commentId, body });
        return toIssueComment(data);
      }),

    listReviews: (repository, number) =>
      onRepo(repository, 'GET reviews', async (gh, owner, repo) => {
        const reviews = await gh.paginate(gh.rest.pulls.listReviews, {
          owner,
          repo,
          pull_number: number,
          per_page: PER_PAGE,
        });
        return reviews.map(toReview);
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
    throw toGitHubError(err, app !== null ? 'GET /app' : 'GET /user');
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
