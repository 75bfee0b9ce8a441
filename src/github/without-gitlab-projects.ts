// GitHub's API is never asked about a gitlab Work's project (SPEC Q1, decision 0032): a GitHub
// repository of the same name (a mirror) is another repository. A decorator of the GitHub port,
// applied once where the port is built (main.ts).
import { GitHubError, type GitHubPort } from '../app/github-port.js';
import type { Work } from '../core/types.js';

/**
 * Q1 (decision 0032): GitHub's API is never asked about a gitlab Work's project, since a GitHub
 * repository of the same name (a mirror) is another repository. Until GitLab has its own port, a call
 * naming one fails as not found, which every caller already treats as an unreadable repository.
 */
export function withoutGitlabProjects(github: GitHubPort | null, works: readonly Work[]): GitHubPort | null {
  const gitlab = new Set(
    works.filter((w) => w.provider === 'gitlab').flatMap((w) => w.repositories.map((r) => r.name.toLowerCase())),
  );
  if (github === null || gitlab.size === 0) return github;
  const g = github;
  const only =
    <A extends unknown[], R>(call: (repository: string, ...rest: A) => Promise<R>) =>
    (repository: string, ...rest: A): Promise<R> =>
      gitlab.has(repository.toLowerCase())
        ? Promise.reject(new GitHubError(404, `${repository} is a GitLab project (decision 0032)`, false))
        : call(repository, ...rest);
  const { glancePullRequests: glance, readPullRequests: read, rateLimits } = g;
  return {
    getPullRequest: only((r, n: number) => g.getPullRequest(r, n)),
    listCheckRuns: only((r, ref: string) => g.listCheckRuns(r, ref)),
    listStatuses: only((r, ref: string) => g.listStatuses(r, ref)),
    requiredChecks: only((r, b: string) => g.requiredChecks(r, b)),
    jobLogUrl: only((r, id: number) => g.jobLogUrl(r, id)),
    workflowRunOfJob: only((r, id: number) => g.workflowRunOfJob(r, id)),
    rerunFailedJobs: only((r, id: number) => g.rerunFailedJobs(r, id)),
    createCommitStatus: only((r, sha: string, st: Parameters<GitHubPort['createCommitStatus']>[2]) =>
      g.createCommitStatus(r, sha, st),
    ),
    addLabels: only((r, n: number, labels: string[]) => g.addLabels(r, n, labels)),
    removeLabel: only((r, n: number, label: string) => g.removeLabel(r, n, label)),
    listIssueComments: only((r, n: number) => g.listIssueComments(r, n)),
    createIssueComment: only((r, n: number, body: string) => g.createIssueComment(r, n, body)),
    updateIssueComment: only((r, id: number, body: string) => g.updateIssueComment(r, id, body)),
    listReviews: only((r, n: number) => g.listReviews(r, n)),
    compareCommits: only((r, base: string, head: string) => g.compareCommits(r, base, head)),
    ...(glance ? { glancePullRequests: only((r, ns: number[]) => glance.call(g, r, ns)) } : {}),
    ...(read ? { readPullRequests: only((r, ns: number[]) => read.call(g, r, ns)) } : {}),
    ...(rateLimits ? { rateLimits: () => rateLimits.call(g) } : {}),
    selfLogin: () => g.selfLogin(),
  };
}
