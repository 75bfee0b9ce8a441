// Which authenticated client acts on a repository: the one token client, or — as a GitHub App — the
// client of the installation on the repository's owner (found once per owner with
// GET /repos/{owner}/{repo}/installation, unless configured). @octokit/auth-app caches installation
// tokens and renews them before they expire. SPEC E4, M5.
import { createAppAuth } from '@octokit/auth-app';
import { buildOctokit, type GitHubClient, type RequestPolicy } from './octokit.js';

export type GitHubAuth =
  { kind: 'token'; token: string } | { kind: 'app'; appId: string; privateKey: string; installationId?: number };

export interface ClientRouter {
  /** The client for calls on owner/repo. */
  forRepository(owner: string, repo: string): Promise<GitHubClient>;
  /** The client for the poll's bulk GraphQL queries on owner/repo: same credentials, its own pacing (N3). */
  forBulkReads(owner: string, repo: string): Promise<GitHubClient>;
  /** The App-level client (JWT: GET /app…); null when authenticated with a token. */
  readonly app: GitHubClient | null;
  /** The token client; null for an App. */
  readonly token: GitHubClient | null;
}

export function createClientRouter(auth: GitHubAuth, policy: RequestPolicy): ClientRouter {
  if (auth.kind === 'token') {
    const client = buildOctokit(policy, { auth: auth.token });
    let bulk: GitHubClient | null = null;
    return {
      forRepository: async () => client,
      forBulkReads: async () => (bulk ??= buildOctokit(policy, { auth: auth.token }, 'bulk-read')),
      app: null,
      token: client,
    };
  }

  const appAuth = { appId: auth.appId, privateKey: auth.privateKey };
  const app = buildOctokit(policy, { authStrategy: createAppAuth, auth: appAuth });
  const byInstallation = new Map<number, GitHubClient>();
  const bulkByInstallation = new Map<number, GitHubClient>();
  const byOwner = new Map<string, Promise<number>>();

  const installationClient = (installationId: number, lane: 'default' | 'bulk-read' = 'default'): GitHubClient => {
    const clients = lane === 'default' ? byInstallation : bulkByInstallation;
    let client = clients.get(installationId);
    if (client === undefined) {
      client = buildOctokit(policy, { authStrategy: createAppAuth, auth: { ...appAuth, installationId } }, lane);
      clients.set(installationId, client);
    }
    return client;
  };

  const installationFor = (owner: string, repo: string): Promise<number> => {
    const key = owner.toLowerCase();
    let found = byOwner.get(key);
    if (found === undefined) {
      found = app.rest.apps.getRepoInstallation({ owner, repo }).then((res) => res.data.id);
      byOwner.set(key, found);
      // A failed lookup is not remembered: the App may be installed later.
      found.catch(() => byOwner.delete(key));
    }
    return found;
  };

  return {
    app,
    token: null,
    forRepository: async (owner, repo) =>
      installationClient(auth.installationId ?? (await installationFor(owner, repo))),
    forBulkReads: async (owner, repo) =>
      installationClient(auth.installationId ?? (await installationFor(owner, repo)), 'bulk-read'),
  };
}
