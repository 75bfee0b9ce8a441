// The GitLab adapter: implements the ProviderPort over gitbeaker's typed endpoints (decision 0035)
// for one instance and one access token, a merge request standing for a pull request, its pipeline's
// jobs for check runs (to-port.ts writes the mapping down). Requests go through fixloop's own
// requester (retries bounded, Retry-After honoured, the token only in a header); a job's trace is
// streamed by a bare request so memory stays bounded (job-trace.ts). Every GET is conditional: the
// answer is kept with its ETag (in the ledger on the server, etag-store.ts in memory otherwise) and a
// 304 reuses it. Every refusal becomes a ProviderError with provider 'gitlab'.
// SPEC B4, E1–E4, F1–F2, J1–J2, K3–K5, K8, M4, N3, Q1.
import {
  Branches,
  Commits,
  IssueNotes,
  Issues,
  Jobs,
  MergeRequestDiscussions,
  MergeRequestNotes,
  MergeRequests,
  Pipelines,
  ProjectMembers,
  Projects,
  Repositories,
  Users,
} from '@gitbeaker/rest';
import type { Logger } from '../app/ports.js';
import { ProviderError, type IssueCommentInfo, type ProviderPort } from '../app/provider-port.js';
import { boundText } from '../core/bounded-text.js';
import { isOwnStatusContext } from '../core/commit-status.js';
import { GitLabHttpError, statusOf, toProviderError } from './errors.js';
import { memoryGitLabEtagStore, type GitLabEtagStore } from './etag-store.js';
import { readJobTrace } from './job-trace.js';
import { GITLAB_WORDS } from './words.js';
import { ejectionOfWords, TRAIN_NOTE } from './merge-train.js';
import { botRoundOf, type DiscussionJson } from './bot-round.js';
import { untrustedLine } from '../core/untrusted-text.js';
import { fixloopRequester, type RateLimitSeen, type RetryPolicy } from './requester.js';
import {
  associationOf,
  activeMember,
  gitlabStatusState,
  isRedJob,
  newestPipelines,
  statusDescription,
  toCheckRun,
  toCommitStatus,
  toComparison,
  toIssueComment,
  toPullRequest,
  toReviews,
  type CommitStatusJson,
  type CompareJson,
  type JobJson,
  type MergeRequestJson,
  type NoteJson,
  type PipelineJson,
  type ReviewerJson,
} from './to-port.js';

export interface GitLabOptions {
  /** The instance, e.g. https://gitlab.com (no /api/v4). */
  url: string;
  /** A project or group access token with the `api` scope. */
  token: string;
  log?: Logger;
  /** 429s waited out and 5xx retried (defaults: 2 waits of at most 60 s; 3 retries, n² × 1000 ms). */
  retry?: Partial<RetryPolicy>;
  /** Deadline of one API call, all its pages included (default 60 s). */
  timeoutMs?: number;
  /** Bounds of a job trace read (defaults: core/log-tail.ts — 256 KiB kept, 32 MiB read, 60 s). */
  trace?: { keepBytes?: number; maxBytes?: number; timeoutMs?: number };
  /** How long a login's standing on a project is reused (default 60 s; 0 reads every time). */
  associationTtlSeconds?: number;
  /**
   * A red job's evidence (its check run's output, C5/C6): the last `lines` of its trace (default 200;
   * 0 reads none), for at most `reads` newly red jobs per listing (default 5), each within `timeoutMs`
   * (default 10 s). A finished job's trace does not change: each is read once and kept.
   */
  evidence?: { lines?: number; reads?: number; timeoutMs?: number };
  /**
   * Where conditional GETs' answers are kept (the server: the ledger, shared with the GitHub adapter,
   * every key starting `gitlab:`). Default: in this process's memory, at most `etagCacheSize` (500).
   */
  etags?: GitLabEtagStore;
  etagCacheSize?: number;
}

const PER_PAGE = 100;
/** Pages read at most for one list (10,000 entries): a bound, not an expectation. */
const MAX_PAGES = 100;
/** Discussions read at most for a bot's round (decision 0077): 5 pages of 100 threads. */
const DISCUSSION_PAGES = 5;
/** Pipelines of one sha read at most (newest first); more is a loop, not CI. */
const MAX_PIPELINES = 20;
/** A fork's path, looked up by project id, is reused this long. */
const PROJECT_PATH_TTL_MS = 5 * 60_000;
/** Red jobs' evidence kept (by job id), and the most of one kept (A1: bounded wherever kept). */
const EVIDENCE_KEPT = 500;
const EVIDENCE_MAX_CHARS = 16 * 1024;

const silentLog: Logger = {
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
};

export function createGitLab(opts: GitLabOptions): ProviderPort {
  const log = opts.log ?? silentLog;
  const host = opts.url.replace(/\/+$/, '');
  const apiBase = `${host}/api/v4`;
  const policy: RetryPolicy = {
    rateLimitRetries: opts.retry?.rateLimitRetries ?? 2,
    maxWaitSeconds: opts.retry?.maxWaitSeconds ?? 60,
    retries: opts.retry?.retries ?? 3,
    backoffUnitMs: opts.retry?.backoffUnitMs ?? 1000,
  };
  let rateLimit: RateLimitSeen | null = null;
  const etags = opts.etags ?? memoryGitLabEtagStore(opts.etagCacheSize ?? 500);
  const requesterFn = fixloopRequester(policy, log, (seen) => (rateLimit = seen), etags);
  // rateLimits {}: GitLab says when to slow down (429, Retry-After); no client-side guess of its limits.
  const base = { host, token: opts.token, requesterFn, queryTimeout: opts.timeoutMs ?? 60_000, rateLimits: {} };
  const api = {
    branches: new Branches(base),
    commits: new Commits(base),
    issues: new Issues(base),
    issueNotes: new IssueNotes(base),
    jobs: new Jobs(base),
    discussions: new MergeRequestDiscussions(base),
    notes: new MergeRequestNotes(base),
    mergeRequests: new MergeRequests(base),
    pipelines: new Pipelines(base),
    members: new ProjectMembers(base),
    projects: new Projects(base),
    repositories: new Repositories(base),
    users: new Users(base),
  };
  const pages = { perPage: PER_PAGE, maxPages: MAX_PAGES } as const;
  const associationTtlMs = (opts.associationTtlSeconds ?? 60) * 1000;

  /** Runs one call on the project, mapping what GitLab refuses to ProviderError. */
  async function onProject<T>(repository: string, what: string, call: (project: string) => Promise<T>): Promise<T> {
    const project = projectPath(repository);
    try {
      return await call(project);
    } catch (err) {
      throw toProviderError(err, `${what} ${project}`);
    }
  }

  /** Reads shared while in flight: listCheckRuns and listStatuses of one head ask for the same pipelines. */
  const inFlight = new Map<string, Promise<unknown>>();
  function shared<T>(key: string, read: () => Promise<T>): Promise<T> {
    const running = inFlight.get(key) as Promise<T> | undefined;
    if (running !== undefined) return running;
    const answer = read().finally(() => inFlight.delete(key));
    inFlight.set(key, answer);
    return answer;
  }

  const pipelinesOf = (project: string, sha: string): Promise<PipelineJson[]> =>
    shared(`pipelines ${project}@${sha}`, async () => {
      const list = await api.pipelines.all(project, {
        sha,
        orderBy: 'id',
        sort: 'desc',
        perPage: MAX_PIPELINES,
        maxPages: 1,
      });
      return list as unknown as PipelineJson[];
    });

  /**
   * Issue 36 (decision 0075): a ref that is a branch's name (a base branch, read for T1) is read at
   * the branch's head commit, since GitLab lists pipelines by `sha` only for a commit; null for a sha.
   */
  const branchHead = async (project: string, ref: string): Promise<string | null> => {
    if (/^[0-9a-f]{40}(?:[0-9a-f]{24})?$/i.test(ref)) return null;
    const branch = (await api.branches.show(project, ref)) as unknown as { commit?: { id?: string } | null };
    const sha = branch.commit?.id;
    if (typeof sha !== 'string' || sha === '') throw new GitLabHttpError(404, `branch ${ref} names no commit`);
    return sha;
  };

  // include_retried=false: a retried job's earlier attempts are left out, so its latest attempt stands.
  const jobsOf = (project: string, pipelineId: number): Promise<JobJson[]> =>
    shared(`jobs ${project}#${pipelineId}`, async () => {
      const list = await api.jobs.all(project, { pipelineId, includeRetried: false, ...pages });
      return list as unknown as JobJson[];
    });

  const forkPaths = new Map<number, { at: number; path: Promise<string | null> }>();
  /** A source project's path (a fork's), null when the token cannot read it (deleted, private). */
  function sourceProjectPath(id: number): Promise<string | null> {
    const kept = forkPaths.get(id);
    if (kept !== undefined && Date.now() - kept.at < PROJECT_PATH_TTL_MS) return kept.path;
    const path = api.projects.show(id).then(
      (p) => String((p as { path_with_namespace: string }).path_with_namespace).toLowerCase(),
      (err: unknown) => {
        const status = statusOf(err);
        if (status === 403 || status === 404) return null;
        throw err;
      },
    );
    forkPaths.set(id, { at: Date.now(), path });
    path.catch(() => forkPaths.delete(id));
    return path;
  }

  const evidenceLines = opts.evidence?.lines ?? 200;
  const evidenceReads = opts.evidence?.reads ?? 5;
  const evidenceKept = new Map<string, string>(); // `${project}#${jobId}` → the trace's tail, oldest first out
  /**
   * The trace tails of red jobs: kept ones, and up to `evidenceReads` read now. One that cannot be read
   * is absent (its output empty: degraded evidence, T5) and is tried again on the next listing.
   */
  async function evidenceOf(project: string, red: readonly JobJson[]): Promise<Map<number, string>> {
    const out = new Map<number, string>();
    if (evidenceLines === 0) return out;
    const unread: JobJson[] = [];
    for (const j of red) {
      const text = evidenceKept.get(`${project}#${j.id}`);
      if (text !== undefined) out.set(j.id, text);
      else unread.push(j);
    }
    await Promise.all(
      unread.slice(0, evidenceReads).map(async (j) => {
        try {
          const tail = await readJobTrace(traceUrl(project, j.id), {
            token: opts.token,
            lines: evidenceLines,
            ...opts.trace,
            timeoutMs: opts.evidence?.timeoutMs ?? 10_000,
          });
          const text = boundText(tail.text, EVIDENCE_MAX_CHARS);
          evidenceKept.set(`${project}#${j.id}`, text);
          if (evidenceKept.size > EVIDENCE_KEPT) evidenceKept.delete(evidenceKept.keys().next().value!);
          out.set(j.id, text);
        } catch (err) {
          log.debug({ project, jobId: j.id, err: String(err) }, 'gitlab: a red job trace could not be read');
        }
      }),
    );
    return out;
  }
  const traceUrl = (project: string, jobId: number) =>
    `${apiBase}/projects/${encodeURIComponent(project)}/jobs/${jobId}/trace`;

  const standing = new Map<string, { at: number; answer: Promise<string | null> }>();
  let self: Promise<string | null> | null = null;

  const port: ProviderPort = {
    getPullRequest: (repository, number) =>
      onProject(repository, 'GET merge request', async (project) => {
        const mr = (await api.mergeRequests.show(project, number)) as unknown as MergeRequestJson;
        // A fork's merge request: its head lives in the source project, found by id.
        const head =
          mr.source_project_id === mr.target_project_id ? project : await sourceProjectPath(mr.source_project_id);
        return toPullRequest(project, mr, head);
      }),

    listCheckRuns: (repository, ref) =>
      onProject(repository, 'GET pipeline jobs', async (project) => {
        const head = await branchHead(project, ref);
        const chosen = newestPipelines(await pipelinesOf(project, head ?? ref));
        const jobs = (await Promise.all(chosen.map((p) => jobsOf(project, p.id)))).flat();
        const evidence = await evidenceOf(project, jobs.filter(isRedJob));
        // A branch's jobs say the commit they ran on (the base notice names it; issue 36).
        return jobs.map((j) => ({ ...toCheckRun(j, evidence.get(j.id) ?? null), ...(head ? { headSha: head } : {}) }));
      }),

    listStatuses: (repository, branchOrSha) =>
      onProject(repository, 'GET commit statuses', async (project) => {
        const ref = (await branchHead(project, branchOrSha)) ?? branchOrSha;
        // The list holds every pipeline job of the sha too (a job is a commit status there, same id):
        // those are check runs already, so only the rest — statuses external services posted — are kept.
        const [statuses, pipelines] = await Promise.all([
          api.commits.allStatuses(project, ref, { all: false, ...pages }) as unknown as Promise<CommitStatusJson[]>,
          pipelinesOf(project, ref),
        ]);
        const jobs = await Promise.all(pipelines.map((p) => jobsOf(project, p.id)));
        const jobIds = new Set(jobs.flat().map((j) => j.id));
        return statuses
          .filter((s) => !jobIds.has(s.id))
          .map(toCommitStatus)
          .filter((s) => !isOwnStatusContext(s.context)); // fixloop's own says what the loop does (P3)
      }),

    // GitLab's "pipelines must succeed" is a project-wide setting over the whole pipeline, not a list
    // of named checks: there is no per-branch list to read, so config (or every check) decides.
    requiredChecks: async () => null,

    jobLogUrl: async (repository, jobId) => {
      throw new ProviderError(
        501,
        `${projectPath(repository)} job ${jobId}: GitLab serves the job trace itself (readJobLog), there is no log URL`,
        false,
        'gitlab',
        GITLAB_WORDS.name,
      );
    },

    readJobLog: async (repository, jobId, o) => {
      const project = projectPath(repository);
      if (!Number.isSafeInteger(jobId) || jobId < 1) throw new TypeError(`not a job id: ${jobId}`);
      const tail = await readJobTrace(traceUrl(project, jobId), { token: opts.token, lines: o.lines, ...opts.trace });
      return { text: tail.text, truncated: tail.truncated };
    },

    workflowRunOfJob: (repository, jobId) =>
      onProject(repository, 'GET job', async (project) => {
        const job = (await api.jobs.show(project, jobId)) as unknown as JobJson;
        if (!job.pipeline) throw new GitLabHttpError(404, `job ${jobId} names no pipeline`);
        return job.pipeline.id;
      }),

    rerunFailedJobs: (repository, pipelineId) =>
      onProject(repository, 'POST pipeline retry', async (project) => {
        // Retries the pipeline's failed and cancelled jobs. A POST: sent once, never retried on a 5xx,
        // as GitLab may have started the jobs (decision 0030).
        await api.pipelines.retry(project, pipelineId);
      }),

    updateBranch: (repository, number, expectedHeadSha) =>
      onProject(repository, 'PUT merge request rebase', async (project) => {
        // GitLab's rebase names no head: the merge request is read first, and a head that moved since
        // is refused here as GitHub refuses it (422), so a rebase never lands on a push it did not see.
        const mr = (await api.mergeRequests.show(project, number)) as unknown as MergeRequestJson;
        if (mr.sha && mr.sha.toLowerCase() !== expectedHeadSha.toLowerCase())
          throw new GitLabHttpError(422, `the head is ${mr.sha}, not ${expectedHeadSha}`);
        await api.mergeRequests.rebase(project, number);
      }),

    createCommitStatus: (repository, sha, status) =>
      onProject(repository, 'POST commit status', async (project) => {
        try {
          await api.commits.editStatus(project, sha, gitlabStatusState(status.state), {
            name: status.context,
            description: statusDescription(status.description),
            ...(status.targetUrl ? { targetUrl: status.targetUrl } : {}),
          });
        } catch (err) {
          // GitLab refuses to "move" a status to the state it already has (400 "Cannot transition
          // status via :run from :running"): the status says what was asked, which is all M4 wants.
          if (err instanceof GitLabHttpError && err.status === 400 && /cannot transition status/i.test(err.message))
            return;
          throw err;
        }
      }),

    addLabels: (repository, number, labels) =>
      onProject(repository, 'PUT merge request labels', async (project) => {
        if (labels.length === 0) return;
        await api.mergeRequests.edit(project, number, { addLabels: labels.join(',') });
      }),

    removeLabel: (repository, number, label) =>
      onProject(repository, 'PUT merge request labels', async (project) => {
        // Removing a label the merge request does not carry changes nothing and is no error.
        await api.mergeRequests.edit(project, number, { removeLabels: label });
      }),

    listIssueComments: (repository, number) =>
      onProject(repository, 'GET merge request notes', async (project) => {
        const notes = (await api.notes.all(project, number, {
          sort: 'asc',
          orderBy: 'created_at',
          ...pages,
        })) as unknown as NoteJson[];
        // System notes ("added 1 commit", "changed the description") are GitLab's, not anyone's comment.
        return notes.filter((n) => !n.system).map(toIssueComment);
      }),

    createIssueComment: (repository, number, body): Promise<IssueCommentInfo> =>
      onProject(repository, 'POST merge request note', async (project) => {
        const note = (await api.notes.create(project, number, body)) as unknown as NoteJson;
        return toIssueComment(note);
      }),

    updateIssueComment: (repository, number, commentId, body) =>
      onProject(repository, 'PUT merge request note', async (project) => {
        const note = (await api.notes.edit(project, number, commentId, { body })) as unknown as NoteJson;
        return toIssueComment(note);
      }),

    listReviews: (repository, number) =>
      onProject(repository, 'GET merge request reviewers', async (project) => {
        const reviewers = (await api.mergeRequests.showReviewers(project, number)) as unknown as ReviewerJson[];
        const verdicts = reviewers.filter((r) => r.state === 'requested_changes' || r.state === 'approved');
        if (verdicts.length === 0) return [];
        // The body of a request for changes is the reviewer's latest note (to-port.ts, toReviews).
        const notes = (await api.notes.all(project, number, {
          sort: 'asc',
          orderBy: 'created_at',
          ...pages,
        })) as unknown as NoteJson[];
        return toReviews(verdicts, notes);
      }),

    // Issue 36 item 6 (decision 0077): a bot's round is what it says in the merge request's discussions
    // now (bot-round.ts); a review's id on GitLab is its reviewer's user id (classify.ts).
    reviewComments: (repository, number, reviewId) =>
      onProject(repository, 'GET merge request discussions', async (project) => {
        const read = (await api.discussions.all(project, number, {
          perPage: PER_PAGE,
          maxPages: DISCUSSION_PAGES,
          showExpanded: true,
        })) as unknown as { data: DiscussionJson[]; paginationInfo: { next: number | null } };
        // A list cut at the bound is not compared: two rounds alike in their first 500 threads may differ after.
        if (read.paginationInfo.next !== null)
          throw new ProviderError(
            413,
            `GET merge request discussions ${project}!${number}: more than ${DISCUSSION_PAGES * PER_PAGE} threads, not read to the end`,
            false,
            'gitlab',
            GITLAB_WORDS.name,
          );
        return botRoundOf(read.data, reviewId);
      }),

    compareCommits: (repository, base, head) =>
      onProject(repository, 'GET compare', async (project) => {
        // straight=false: from the merge base of the two, as GitHub's three-dot comparison.
        const data = await api.repositories.compare(project, base, head, { straight: false });
        return toComparison(data as unknown as CompareJson);
      }),

    authorAssociation: async (repository, login) => {
      const project = projectPath(repository);
      const key = `${project}\u0000${login.toLowerCase()}`;
      const kept = standing.get(key);
      if (kept !== undefined && Date.now() - kept.at < associationTtlMs) return kept.answer;
      const answer = readAssociation(project, login);
      standing.set(key, { at: Date.now(), answer });
      // Unknown (null) is not kept: the next event asks again.
      void answer.then((a) => (a === null ? standing.delete(key) : undefined));
      return answer;
    },

    // Decision 0075: why the merge train let the merge request go, from its latest train system note.
    queueDrop: (repository, number) =>
      onProject(repository, 'GET merge request notes', async (project) => {
        const notes = (await api.notes.all(project, number, {
          sort: 'desc',
          orderBy: 'created_at',
          perPage: PER_PAGE,
          maxPages: 1,
        })) as unknown as NoteJson[];
        const latest = notes.find((n) => n.system && TRAIN_NOTE.test(n.body ?? ''));
        const drop = ejectionOfWords(latest?.body ?? null);
        return drop && { reason: drop.reason, said: untrustedLine(drop.said) };
      }),

    // Issue 36 item 4 (decision 0075): a red base's issue on the project, closed after a last note.
    createIssue: (repository, title, body) =>
      onProject(repository, 'POST issue', async (project) => {
        const issue = (await api.issues.create(project, title, { description: body })) as unknown as { iid: number };
        return { number: issue.iid };
      }),

    closeIssue: (repository, number, comment) =>
      onProject(repository, 'PUT issue', async (project) => {
        await api.issueNotes.create(project, number, comment);
        await api.issues.edit(project, number, { stateEvent: 'close' });
      }),

    rateLimits: () =>
      rateLimit === null
        ? []
        : [
            {
              resource: 'gitlab',
              remaining: rateLimit.remaining,
              limit: rateLimit.limit,
              resetAt: new Date(rateLimit.reset * 1000).toISOString(),
            },
          ],

    selfLogin: () => {
      self ??= api.users.showCurrentUser().then(
        (u) => (u as { username?: string }).username ?? null,
        (err: unknown) => {
          log.warn(
            { err: String(toProviderError(err, 'GET /user')) },
            'gitlab: the token user (GET /user) could not be read',
          );
          self = null; // not remembered: the next call asks again
          return null;
        },
      );
      return self;
    },
  };

  /** F1/F2: the login's access level on the project (groups' included), in GitHub's words. */
  async function readAssociation(project: string, login: string): Promise<string | null> {
    try {
      const users = (await api.users.all({ username: login })) as unknown as Array<{ id: number; username: string }>;
      const user = users.find((u) => u.username.toLowerCase() === login.toLowerCase());
      if (user === undefined) return 'NONE';
      try {
        const member = (await api.members.show(project, user.id, { includeInherited: true })) as {
          access_level?: unknown;
          state?: unknown;
          membership_state?: unknown;
        };
        // A blocked account, or a membership still awaiting approval, grants nothing (decision 0042).
        if (!activeMember(member)) return 'NONE';
        return associationOf(Number(member.access_level ?? 0));
      } catch (err) {
        if (statusOf(err) === 404) return 'NONE'; // not a member
        throw err;
      }
    } catch (err) {
      log.warn(
        { project, login, err: String(toProviderError(err, 'GET member')) },
        'gitlab: a member access level could not be read',
      );
      return null;
    }
  }

  return port;
}

/** 'Group/Sub/Project' → 'group/sub/project' (gitbeaker URL-encodes it as the project id). */
function projectPath(repository: string): string {
  if (!/^[A-Za-z0-9_.-]+(?:\/[A-Za-z0-9_.-]+)+$/.test(repository) || repository.includes('..'))
    throw new TypeError(`not a GitLab project path: ${JSON.stringify(repository)}`);
  return repository.toLowerCase();
}
