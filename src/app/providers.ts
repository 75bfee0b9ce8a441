// Q1 (decisions 0034, 0060): one provider port over every code host. Every call names its
// repository, and a repository belongs to one Work, which names its host: calls for a gitlab Work's
// project go to GitLab's port, a registered third host's to its own, every other repository to the
// default host's (GitHub). A host that is not configured answers as a repository it cannot read
// (404), which every caller already handles; GitHub is never asked about a GitLab project, whose
// GitHub namesake (a mirror) is another repository.
import type { Work } from '../core/types.js';
import { ProviderError, type ProviderPort } from './provider-port.js';

/** One host's half of the port, as the registry holds it (app/hosts.ts). */
export interface RoutedHost {
  id: string;
  /** The host's name in a refusal ("no GitLab access is configured"). */
  name: string;
  port: ProviderPort | null;
}

/**
 * One port that sends each call to the repository's host; the first host is the default of a
 * repository no Work names. Null when no host is configured.
 */
export function routeByHost(hosts: readonly RoutedHost[], works: readonly Work[]): ProviderPort | null {
  const fallback = hosts[0];
  if (!fallback) return null;
  const idOf = new Map(
    works.flatMap((w) => w.repositories.map((r) => [r.name.toLowerCase(), w.provider ?? fallback.id] as const)),
  );
  const hostOf = (repository: string): RoutedHost => {
    const id = idOf.get(repository.toLowerCase()) ?? fallback.id;
    return hosts.find((h) => h.id === id) ?? { id, name: id, port: null };
  };
  // With every Work on the default host, its port is used as it is.
  if (works.every((w) => (w.provider ?? fallback.id) === fallback.id)) return fallback.port;
  const configured = hosts.map((h) => h.port).filter((p): p is ProviderPort => p !== null);
  if (configured.length === 0) return null;

  const portFor = (repository: string): ProviderPort => {
    const host = hostOf(repository);
    if (host.port === null)
      throw new ProviderError(404, `${repository}: no ${host.name} access is configured`, false, host.id, host.name);
    return host.port;
  };

  const to =
    <A extends unknown[], R>(call: (port: ProviderPort, repository: string, ...rest: A) => Promise<R>) =>
    async (repository: string, ...rest: A): Promise<R> =>
      call(portFor(repository), repository, ...rest);

  const routed: ProviderPort = {
    getPullRequest: to((p, r, n: number) => p.getPullRequest(r, n)),
    listCheckRuns: to((p, r, ref: string) => p.listCheckRuns(r, ref)),
    listStatuses: to((p, r, ref: string) => p.listStatuses(r, ref)),
    requiredChecks: to((p, r, b: string) => p.requiredChecks(r, b)),
    jobLogUrl: to((p, r, id: number) => p.jobLogUrl(r, id)),
    workflowRunOfJob: to((p, r, id: number) => p.workflowRunOfJob(r, id)),
    rerunFailedJobs: to((p, r, id: number) => p.rerunFailedJobs(r, id)),
    // Issue 36: a host without a merge queue cannot put a pull request back in one.
    enqueuePullRequest: to(async (p, r, n: number, head: string) => {
      if (!p.enqueuePullRequest)
        throw new ProviderError(501, `${r}: the host has no merge queue fixloop can use`, false);
      return p.enqueuePullRequest(r, n, head);
    }),
    createCommitStatus: to((p, r, sha: string, st: Parameters<ProviderPort['createCommitStatus']>[2]) =>
      p.createCommitStatus(r, sha, st),
    ),
    addLabels: to((p, r, n: number, labels: string[]) => p.addLabels(r, n, labels)),
    removeLabel: to((p, r, n: number, label: string) => p.removeLabel(r, n, label)),
    listIssueComments: to((p, r, n: number) => p.listIssueComments(r, n)),
    createIssueComment: to((p, r, n: number, body: string) => p.createIssueComment(r, n, body)),
    updateIssueComment: to((p, r, n: number, id: number, body: string) => p.updateIssueComment(r, n, id, body)),
    listReviews: to((p, r, n: number) => p.listReviews(r, n)),
    compareCommits: to((p, r, base: string, head: string) => p.compareCommits(r, base, head)),
    // Optional capabilities: a host without one answers as the port documents for its absence.
    updateBranch: to(async (p, r, n: number, sha: string) => {
      if (!p.updateBranch) throw new ProviderError(501, `${r}: the host offers no branch update`, false);
      return p.updateBranch(r, n, sha);
    }),
    readJobLog: to(async (p, r, id: number, o: { lines: number }) => (p.readJobLog ? p.readJobLog(r, id, o) : null)),
    authorAssociation: to(async (p, r, login: string) => (p.authorAssociation ? p.authorAssociation(r, login) : null)),
    labelActor: to(async (p, r, n: number, label: string) => {
      if (!p.labelActor) throw new ProviderError(501, `${r}: the host reports no label events`, false);
      return p.labelActor(r, n, label);
    }),
    // Issue 36: a host without inline review comments has the review's body alone.
    reviewComments: to(async (p, r, n: number, id: number) => (p.reviewComments ? p.reviewComments(r, n, id) : [])),
    // F1/F2 (decision 0042): GitHub's repository permission; a host without one cannot say (throws).
    repositoryPermission: to(async (p, r, login: string) => {
      if (!p.repositoryPermission)
        throw new ProviderError(501, `${r}: the host reports no repository permission`, false);
      return p.repositoryPermission(r, login);
    }),
    // N3's bulk reads are GitHub's GraphQL; a host without them (GitLab) gets an empty answer, and
    // the poll reads one by one.
    glancePullRequests: async (r, ns) => {
      const p = hostOf(r).port;
      return p?.glancePullRequests ? p.glancePullRequests(r, ns) : new Map();
    },
    readPullRequests: async (r, ns) => {
      const p = hostOf(r).port;
      return p?.readPullRequests ? p.readPullRequests(r, ns) : new Map();
    },
    // Decision 0075: a host with no record of why its queue let a pull request go says nothing.
    queueDrop: to(async (p, r, n: number) => (p.queueDrop ? p.queueDrop(r, n) : null)),
    // Issue 36 item 4: an issue for a red base, on a host that files issues.
    createIssue: to(async (p, r, title: string, body: string) => {
      if (!p.createIssue) throw new ProviderError(501, `${r}: the host files no issues`, false);
      return p.createIssue(r, title, body);
    }),
    closeIssue: to(async (p, r, n: number, comment: string) => {
      if (!p.closeIssue) throw new ProviderError(501, `${r}: the host files no issues`, false);
      return p.closeIssue(r, n, comment);
    }),
    rateLimits: () => configured.flatMap((p) => p.rateLimits?.() ?? []),
    // The identity that never rings a doorbell (F2), on the repository's host.
    selfLogin: async (r) => {
      const port = r === undefined ? configured[0] : hostOf(r).port;
      return port ? port.selfLogin(r) : null;
    },
  };
  return routed;
}
