// Q1 (decision 0034): one provider port over both code hosts. Every call names its repository, and a
// repository belongs to one Work, which names its provider: calls for a gitlab Work's project go to
// the GitLab adapter, every other repository to GitHub's. A host that is not configured answers as
// a repository it cannot read (404), which every caller already handles; GitHub is never asked about
// a GitLab project, whose GitHub namesake (a mirror) is another repository.
import type { Work } from '../core/types.js';
import { ProviderError, type ProviderName, type ProviderPort } from './provider-port.js';

export interface ProviderPorts {
  github: ProviderPort | null;
  gitlab: ProviderPort | null;
}

/** The provider of each repository the Works name (lower-cased); a repository no Work names is GitHub's. */
export function providerOfRepository(works: readonly Work[]): (repository: string) => ProviderName {
  const gitlab = new Set(
    works.filter((w) => w.provider === 'gitlab').flatMap((w) => w.repositories.map((r) => r.name.toLowerCase())),
  );
  return (repository) => (gitlab.has(repository.toLowerCase()) ? 'gitlab' : 'github');
}

/** One port that sends each call to the repository's provider; null when neither host is configured. */
export function routeByProvider(ports: ProviderPorts, works: readonly Work[]): ProviderPort | null {
  const { github, gitlab } = ports;
  const providerOf = providerOfRepository(works);
  const anyGitlab = works.some((w) => w.provider === 'gitlab');
  if (!anyGitlab) return github;
  if (github === null && gitlab === null) return null;

  const portFor = (repository: string): ProviderPort => {
    const provider = providerOf(repository);
    const port = provider === 'gitlab' ? gitlab : github;
    if (port === null) {
      const host = provider === 'gitlab' ? 'GitLab' : 'GitHub';
      throw new ProviderError(404, `${repository}: no ${host} access is configured`, false, provider);
    }
    return port;
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
    readJobLog: to(async (p, r, id: number, o: { lines: number }) => (p.readJobLog ? p.readJobLog(r, id, o) : null)),
    authorAssociation: to(async (p, r, login: string) => (p.authorAssociation ? p.authorAssociation(r, login) : null)),
    labelActor: to(async (p, r, n: number, label: string) => {
      if (!p.labelActor) throw new ProviderError(501, `${r}: the host reports no label events`, false);
      return p.labelActor(r, n, label);
    }),
    // F1/F2 (decision 0042): GitHub's repository permission; a host without one cannot say (throws).
    repositoryPermission: to(async (p, r, login: string) => {
      if (!p.repositoryPermission)
        throw new ProviderError(501, `${r}: the host reports no repository permission`, false);
      return p.repositoryPermission(r, login);
    }),
    // N3's bulk reads are GitHub's GraphQL; for a GitLab project the poll reads one by one.
    glancePullRequests: async (r, ns) =>
      providerOf(r) === 'github' && github?.glancePullRequests ? github.glancePullRequests(r, ns) : new Map(),
    readPullRequests: async (r, ns) =>
      providerOf(r) === 'github' && github?.readPullRequests ? github.readPullRequests(r, ns) : new Map(),
    rateLimits: () => [...(github?.rateLimits?.() ?? []), ...(gitlab?.rateLimits?.() ?? [])],
    // The identity that never rings a doorbell (F2), on the repository's host.
    selfLogin: async (r) => {
      const port = r === undefined ? (github ?? gitlab) : providerOf(r) === 'gitlab' ? gitlab : github;
      return port ? port.selfLogin(r) : null;
    },
  };
  return routed;
}
