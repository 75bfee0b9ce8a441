// The credential a workspace clones with and the agent pushes with (SPEC L2). The agent can read it
// from its environment, so it must reach no further than the one repository: as a GitHub App, an
// installation token requested for that repository only, with `contents: write` only
// (POST /app/installations/{id}/access_tokens with `repositories` and `permissions`), fresh for each
// run; with GITHUB_TOKEN, that token as it is — which is why it should be a fine-grained token limited
// to the Works' repositories (docs/configuration.md).
import { createAppAuth } from '@octokit/auth-app';
import { retry } from '@octokit/plugin-retry';
import { Octokit } from '@octokit/rest';
import type { GitHubAuth } from './installations.js';

/** A source of per-repository tokens, as `runnerFromConfig`'s `github` dependency. */
export interface ScopedTokens {
  /** A token for `owner/name` only (or the configured GITHUB_TOKEN); rejects when GitHub refuses. */
  forRepository(repository: string): Promise<string>;
}

export interface ScopedTokenOptions {
  /** REST base URL, as in config.github.apiUrl. */
  apiUrl: string;
  auth: GitHubAuth;
  /** What the App token may do; default `{ contents: 'write' }` (clone and push, nothing else). */
  permissions?: Readonly<Record<string, 'read' | 'write'>>;
  /** Retries of a 5xx or network failure (default 2). */
  retries?: number;
}

const DEFAULT_SCOPED_PERMISSIONS = { contents: 'write' } as const;

const REPOSITORY = /^([A-Za-z0-9_.-]+)\/([A-Za-z0-9_.-]+)$/;
const RetryingOctokit = Octokit.plugin(retry);

export function createScopedTokens(opts: ScopedTokenOptions): ScopedTokens {
  const { auth } = opts;
  if (auth.kind === 'token') {
    return {
      forRepository: async (repository) => {
        split(repository);
        return auth.token;
      },
    };
  }

  const permissions = { ...(opts.permissions ?? DEFAULT_SCOPED_PERMISSIONS) };
  const octokit = new RetryingOctokit({
    baseUrl: opts.apiUrl.replace(/\/+$/, ''),
    userAgent: 'fixloop',
    authStrategy: createAppAuth,
    auth: { appId: auth.appId, privateKey: auth.privateKey },
    retry: { retries: opts.retries ?? 2, doNotRetry: [400, 401, 403, 404, 410, 422, 429, 451] },
    log: { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} },
  });
  // An App has one installation per account: looked up once per owner. A failed lookup is not kept
  // (the App may be installed later).
  const byOwner = new Map<string, Promise<number>>();
  const installationFor = (owner: string, repo: string): Promise<number> => {
    if (auth.installationId !== undefined) return Promise.resolve(auth.installationId);
    const key = owner.toLowerCase();
    let found = byOwner.get(key);
    if (found === undefined) {
      found = octokit.rest.apps.getRepoInstallation({ owner, repo }).then((res) => res.data.id);
      byOwner.set(key, found);
      found.catch(() => byOwner.delete(key));
    }
    return found;
  };

  return {
    async forRepository(repository) {
      const [owner, repo] = split(repository);
      const installationId = await installationFor(owner, repo);
      // `refresh`: a new token per run, so it has its full hour ahead of it (a cached one may not).
      const result = (await octokit.auth({
        type: 'installation',
        installationId,
        repositoryNames: [repo],
        permissions,
        refresh: true,
      })) as { token: string };
      return result.token;
    },
  };
}

function split(repository: string): [string, string] {
  const m = REPOSITORY.exec(repository);
  if (m === null || m[1] === '.' || m[1] === '..' || m[2] === '.' || m[2] === '..') {
    throw new Error(`invalid repository ${JSON.stringify(repository)}: expected owner/name`);
  }
  return [m[1]!, m[2]!];
}
