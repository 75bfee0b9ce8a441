// The credential a workspace clones a GitLab project with and the agent pushes with (SPEC L2, issue
// 19). The agent can read it from its environment, so it reaches no further than the one project: a
// project access token minted for that project with GitLab's documented
// `POST /api/v4/projects/:id/access_tokens` — scope `write_repository` (clone and push over HTTP,
// nothing of the API), role Developer (30), expiring as soon as GitLab allows. One is kept per project
// and handed to every run until an hour before it expires; then the next run mints a new one.
//
// Minting needs GITLAB_TOKEN to be a Maintainer's token on the project (a project or group access
// token with the Maintainer role, or a Maintainer's personal token), and an instance that allows
// project access tokens. When GitLab refuses (400, 403, 404), the run fails — unless the operator set
// GITLAB_WORKSPACE_TOKEN=configured, which hands the agent GITLAB_TOKEN itself (it then reaches
// everything that token reaches: docs/gitlab.md says so).
//
// GitLab accepts a project access token as the password of any user name, so the workspace's
// `Authorization: basic` header (runners/workspace.ts, always in the environment, never argv) works
// unchanged.
import type { ScopedTokens } from '../github/scoped-token.js';
import type { Logger } from '../app/ports.js';
import type { GitLabConfig } from '../config/config.js';

/** What a minted token may do, at which role, and how long it is kept. */
export const WORKSPACE_TOKEN_SCOPES = ['write_repository'] as const;
export const WORKSPACE_TOKEN_ACCESS_LEVEL = 30; // Developer: may push to unprotected branches
/** A kept token is handed out until this long before it expires. */
export const REUSE_MARGIN_MS = 60 * 60_000;
/** A minted token has at least this long to live (so at least 11 h of reuse after the margin). */
export const MIN_LIFETIME_MS = 12 * 60 * 60_000;
const DAY_MS = 24 * 60 * 60_000;
const MAX_MESSAGE_CHARS = 300;

export interface GitLabWorkspaceTokenOptions {
  /** GITLAB_URL without /api/v4. */
  url: string;
  /** GITLAB_TOKEN: the token that mints (a Maintainer's). */
  token: string;
  /** GITLAB_WORKSPACE_TOKEN: `project` (default) or `configured` (GITLAB_TOKEN where minting is refused). */
  mode?: GitLabConfig['workspaceToken'];
  fetch?: typeof fetch;
  /** Milliseconds since the epoch; default Date.now. */
  now?: () => number;
  /** The minting request's time limit; default 30 s. */
  timeoutMs?: number;
  /** Where a fallback to GITLAB_TOKEN is said; never with a token in it. */
  logger?: Pick<Logger, 'warn'>;
}

/** Why no token could be had for the project; its message never holds a token. */
export class GitLabWorkspaceTokenError extends Error {
  override readonly name = 'GitLabWorkspaceTokenError';
  constructor(
    message: string,
    readonly status: number | null,
  ) {
    super(message);
  }
}

interface Kept {
  token: string;
  /** When GitLab stops accepting it: the start (00:00 UTC) of its `expires_at` date. */
  expiresAtMs: number;
}

/** The workspace's token source for GitLab projects; null when GITLAB_TOKEN is not set. */
export function gitlabWorkspaceTokensFrom(
  gitlab: GitLabConfig,
  extra: Omit<GitLabWorkspaceTokenOptions, 'url' | 'token' | 'mode'> = {},
): ScopedTokens | null {
  if (gitlab.token === null) return null;
  return createGitLabWorkspaceTokens({ url: gitlab.url, token: gitlab.token, mode: gitlab.workspaceToken, ...extra });
}

export function createGitLabWorkspaceTokens(opts: GitLabWorkspaceTokenOptions): ScopedTokens {
  const api = `${opts.url.replace(/\/+$/, '')}/api/v4`;
  const doFetch = opts.fetch ?? fetch;
  const now = opts.now ?? Date.now;
  const timeoutMs = opts.timeoutMs ?? 30_000;
  const mode = opts.mode ?? 'project';
  const kept = new Map<string, Kept>();
  // One minting request per project at a time: two runs starting together share it.
  const minting = new Map<string, Promise<Kept>>();

  async function mint(project: string): Promise<Kept> {
    const at = now();
    const expiresAt = expiryDate(at);
    let res: Response;
    try {
      res = await doFetch(`${api}/projects/${encodeURIComponent(project)}/access_tokens`, {
        method: 'POST',
        headers: { 'PRIVATE-TOKEN': opts.token, 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({
          name: 'fixloop-run',
          scopes: [...WORKSPACE_TOKEN_SCOPES],
          access_level: WORKSPACE_TOKEN_ACCESS_LEVEL,
          expires_at: expiresAt,
        }),
        redirect: 'error',
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (err) {
      throw new GitLabWorkspaceTokenError(
        `${project}: minting a project access token failed: ${(err as Error).message}`,
        null,
      );
    }
    const body = (await res.json().catch(() => null)) as Record<string, unknown> | null;
    if (res.status !== 201 && res.status !== 200) {
      throw new GitLabWorkspaceTokenError(
        `${project}: GitLab refused to mint a project access token (${res.status}${describe(body, opts.token)})`,
        res.status,
      );
    }
    const token = body?.token;
    if (typeof token !== 'string' || !/^[\x21-\x7e]+$/.test(token)) {
      throw new GitLabWorkspaceTokenError(
        `${project}: GitLab answered ${res.status} without a usable token`,
        res.status,
      );
    }
    const answered =
      typeof body?.expires_at === 'string' ? Date.parse(`${body.expires_at.slice(0, 10)}T00:00:00Z`) : NaN;
    return { token, expiresAtMs: Number.isFinite(answered) ? answered : Date.parse(`${expiresAt}T00:00:00Z`) };
  }

  async function minted(project: string): Promise<string> {
    const have = kept.get(project);
    if (have && have.expiresAtMs - now() > REUSE_MARGIN_MS) return have.token;
    let pending = minting.get(project);
    if (pending === undefined) {
      pending = mint(project).finally(() => minting.delete(project));
      minting.set(project, pending);
    }
    const fresh = await pending;
    kept.set(project, fresh);
    return fresh.token;
  }

  return {
    async forRepository(repository) {
      const project = projectPath(repository).toLowerCase();
      try {
        return await minted(project);
      } catch (err) {
        const refused =
          err instanceof GitLabWorkspaceTokenError && err.status !== null && [400, 403, 404].includes(err.status);
        if (refused && mode === 'configured') {
          opts.logger?.warn(
            { project, status: (err as GitLabWorkspaceTokenError).status },
            'GitLab refused a project access token; the workspace uses GITLAB_TOKEN itself (GITLAB_WORKSPACE_TOKEN=configured)',
          );
          return opts.token;
        }
        if (refused)
          throw new GitLabWorkspaceTokenError(
            `${(err as Error).message}. GITLAB_TOKEN must be a Maintainer's on the project to mint one; or set GITLAB_WORKSPACE_TOKEN=configured to hand the agent GITLAB_TOKEN itself (docs/gitlab.md)`,
            (err as GitLabWorkspaceTokenError).status,
          );
        throw err;
      }
    },
  };
}

/** `group/sub/project`, checked: no empty, `.` or `..` segment, nothing outside GitLab's path characters. */
function projectPath(repository: string): string {
  const segments = repository.split('/');
  if (
    segments.length < 2 ||
    segments.some((s) => s === '' || s === '.' || s === '..' || !/^[A-Za-z0-9_.-]+$/.test(s))
  ) {
    throw new GitLabWorkspaceTokenError(`invalid GitLab project path ${JSON.stringify(repository)}`, null);
  }
  return repository;
}

/**
 * The `expires_at` date (YYYY-MM-DD, UTC) to ask for: tomorrow, GitLab's earliest, unless tomorrow
 * begins within MIN_LIFETIME_MS — then the day after. GitLab stops accepting a token when its date
 * begins.
 */
export function expiryDate(nowMs: number): string {
  const startOfToday = Math.floor(nowMs / DAY_MS) * DAY_MS;
  let expiry = startOfToday + DAY_MS;
  if (expiry - nowMs < MIN_LIFETIME_MS) expiry += DAY_MS;
  return new Date(expiry).toISOString().slice(0, 10);
}

/** GitLab's `message` or `error`, bounded, one line, and never the minting token. */
function describe(body: Record<string, unknown> | null, secret: string): string {
  const m = body?.message ?? body?.error;
  if (m === undefined || m === null) return '';
  const text = (typeof m === 'string' ? m : JSON.stringify(m))
    .replaceAll(secret, '[token]')
    .replace(/\s+/g, ' ')
    .slice(0, MAX_MESSAGE_CHARS);
  return `: ${text}`;
}
