// Acme Forge's half of the provider port (a fake third code host, test-only): every call the
// use-cases make, over Acme's REST API with fixloop's token. A change request maps onto the port's
// pull request, a build step onto a check run (its log read by the host itself: readJobLog), a
// remark onto a comment. What Acme has no notion of answers as the port documents for its absence.
import type {
  CheckRunInfo,
  CommitStatusInfo,
  IssueCommentInfo,
  ProviderPort,
  PullRequestInfo,
} from '../../../../src/app/provider-port.js';
import { ProviderError } from '../../../../src/app/provider-port.js';
import type { AcmeBuild, AcmeChange, AcmeRemark, AcmeStatus } from './fake-api.js';

export function createAcmeClient(o: { url: string; token: string; login: string }): ProviderPort {
  async function call<T>(method: string, repository: string, path: string, body?: unknown): Promise<T> {
    const res = await fetch(`${o.url}/api/v1/repos/${encodeURIComponent(repository)}/${path}`, {
      method,
      headers: {
        authorization: `Bearer ${o.token}`,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    if (!res.ok)
      throw new ProviderError(res.status, `Acme Forge answered ${res.status} for ${path}`, res.status >= 500);
    return (text ? JSON.parse(text) : null) as T;
  }
  const remark = (r: AcmeRemark): IssueCommentInfo => ({
    id: r.id,
    body: r.body,
    author: r.author,
    authorType: r.author === o.login ? 'Bot' : 'User',
    updatedAt: r.updatedAt,
  });
  const unsupported = (what: string) => async (): Promise<never> => {
    throw new ProviderError(404, `Acme Forge has no ${what}`, false);
  };

  return {
    async getPullRequest(repository, number): Promise<PullRequestInfo> {
      const c = await call<AcmeChange>('GET', repository, `changes/${number}`);
      return {
        repository: c.repository,
        number: c.number,
        state: c.state,
        merged: false,
        headSha: c.head,
        headRef: c.branch,
        headRepository: c.repository,
        baseRef: 'main',
        author: c.author,
        draft: false,
        labels: c.labels,
        mergeableState: null,
        updatedAt: new Date(0).toISOString(),
      };
    },
    async listCheckRuns(repository, ref): Promise<CheckRunInfo[]> {
      const builds = await call<Omit<AcmeBuild, 'log'>[]>('GET', repository, `commits/${ref}/builds`);
      return builds.map((b) => ({
        id: b.id,
        name: b.step,
        status: 'completed',
        conclusion: b.outcome === 'passed' ? 'success' : b.outcome === 'failed' ? 'failure' : 'cancelled',
        startedAt: b.finishedAt,
        completedAt: b.finishedAt,
        detailsUrl: null,
        appSlug: null,
        outputTitle: null,
        outputSummary: null,
      }));
    },
    async listStatuses(repository, ref): Promise<CommitStatusInfo[]> {
      const list = await call<AcmeStatus[]>('GET', repository, `commits/${ref}/statuses`);
      return list.map((s) => ({
        context: s.context,
        state: s.state as CommitStatusInfo['state'],
        description: s.description,
        targetUrl: s.targetUrl,
        updatedAt: s.updatedAt,
      }));
    },
    requiredChecks: async () => null, // Acme has no branch protection: every build step of the head counts
    jobLogUrl: unsupported('signed log URLs'),
    async readJobLog(repository, jobId, { lines }) {
      const { log } = await call<{ log: string }>('GET', repository, `builds/${jobId}/log`);
      const all = log.replace(/\n$/, '').split('\n');
      return { text: all.slice(-lines).join('\n'), truncated: all.length > lines };
    },
    workflowRunOfJob: unsupported('workflow runs'),
    rerunFailedJobs: unsupported('re-runs'),
    async createCommitStatus(repository, sha, status) {
      await call('POST', repository, `commits/${sha}/statuses`, status);
    },
    async addLabels(repository, number, labels) {
      await call('POST', repository, `changes/${number}/labels`, { labels });
    },
    async removeLabel(repository, number, label) {
      await call('DELETE', repository, `changes/${number}/labels/${encodeURIComponent(label)}`);
    },
    listIssueComments: async (repository, number) =>
      (await call<AcmeRemark[]>('GET', repository, `changes/${number}/remarks`)).map(remark),
    createIssueComment: async (repository, number, body) =>
      remark(await call<AcmeRemark>('POST', repository, `changes/${number}/remarks`, { body })),
    updateIssueComment: async (repository, number, id, body) =>
      remark(await call<AcmeRemark>('PATCH', repository, `changes/${number}/remarks/${id}`, { body })),
    listReviews: async () => [],
    compareCommits: async () => ({ files: [], truncated: false }),
    selfLogin: async () => o.login,
  };
}
