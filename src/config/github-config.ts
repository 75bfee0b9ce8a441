// GitHub's API and web origin and the credentials fixloop reads it with (SPEC M5): an App (its id and
// private key, as a PEM or base64 of one), or a token; GitHub Enterprise by GHE_HOST or GITHUB_API_URL.
import { readFileSync } from 'node:fs';
import { ConfigError, unreadableFile } from './errors.js';
import type { EnvConfig } from './env-schema.js';

export interface GitHubConfig {
  /** GitHub App id (APP_ID); null when fixloop uses a token or no GitHub access. */
  appId: string | null;
  /** PEM text of the App's private key (PRIVATE_KEY, or the file at PRIVATE_KEY_PATH). */
  privateKey: string | null;
  /** A personal or installation token (GITHUB_TOKEN), the alternative to an App. */
  token: string | null;
  /** REST base URL: https://api.github.com, or GHE_PROTOCOL://GHE_HOST/api/v3. */
  apiUrl: string;
}

export function resolveGitHub(vars: EnvConfig): GitHubConfig {
  const apiUrl = (
    vars.GITHUB_API_URL ??
    (vars.GHE_HOST === undefined ? 'https://api.github.com' : `${vars.GHE_PROTOCOL}://${vars.GHE_HOST}/api/v3`)
  ).replace(/\/+$/, '');
  let privateKey: string | null = null;
  if (vars.PRIVATE_KEY_PATH !== undefined) {
    try {
      privateKey = readFileSync(vars.PRIVATE_KEY_PATH, 'utf8');
    } catch (err) {
      throw ConfigError.at('environment', ['PRIVATE_KEY_PATH'], unreadableFile(vars.PRIVATE_KEY_PATH, err));
    }
  } else if (vars.PRIVATE_KEY !== undefined) {
    privateKey = decodePrivateKey(vars.PRIVATE_KEY);
  }
  return { appId: vars.APP_ID ?? null, privateKey, token: vars.GITHUB_TOKEN ?? null, apiUrl };
}

/** probot accepts the PEM with literal `\n`s (one-line env files) or base64-encoded; so do we. */
function decodePrivateKey(raw: string): string {
  const text = raw.includes('-----BEGIN') ? raw : Buffer.from(raw, 'base64').toString('utf8');
  if (!text.includes('-----BEGIN')) {
    throw ConfigError.at('environment', ['PRIVATE_KEY'], 'is not a PEM key (nor base64 of one)');
  }
  return text.replace(/\\n/g, '\n');
}

/**
 * Where checkouts come from when `runner.workspace.cloneUrl` is not set: GHE_PROTOCOL://GHE_HOST,
 * else the host of GITHUB_API_URL (api.github.com → github.com, api.<x>.ghe.com → <x>.ghe.com), else
 * https://github.com.
 */
export function defaultCloneUrl(vars: Pick<EnvConfig, 'GHE_HOST' | 'GHE_PROTOCOL' | 'GITHUB_API_URL'>): string {
  let origin = 'https://github.com';
  if (vars.GHE_HOST !== undefined) origin = `${vars.GHE_PROTOCOL}://${vars.GHE_HOST}`;
  else if (vars.GITHUB_API_URL !== undefined) {
    const api = new URL(vars.GITHUB_API_URL);
    const host =
      api.hostname === 'api.github.com'
        ? 'github.com'
        : /^api\.[^.]+\.ghe\.com$/i.test(api.hostname)
          ? api.hostname.slice(4)
          : api.hostname;
    origin = `${api.protocol}//${host}${api.port ? `:${api.port}` : ''}`;
  }
  return `${origin}/{repository}.git`;
}
