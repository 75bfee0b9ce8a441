// The GitHub client for commands that need GitHub but not the server's whole configuration
// (`fixloop pr checks`, SPEC J1, E4, M1): the same variables as loadConfig (GITHUB_TOKEN, or APP_ID
// with PRIVATE_KEY / PRIVATE_KEY_PATH; GITHUB_API_URL, else GHE_HOST, else api.github.com), read and
// checked at once; Octokit itself is loaded only on the first call, so `--help` and argument errors
// stay fast. Missing or bad credentials are a ConfigError (exit code 2).
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import type { ProviderPort } from '../app/provider-port.js';
import { ConfigError } from '../config/errors.js';
import { judgeCredentialUrls } from '../config/insecure-hosts.js';
import { envSchema } from '../config/env-schema.js';
import type { CreateGitHubOptions } from './client.js';

export type GitHubEnvOptions = Pick<CreateGitHubOptions, 'apiUrl' | 'auth'>;

const githubEnv = z.object({
  GITHUB_TOKEN: z.string().optional(),
  APP_ID: envSchema.shape.APP_ID,
  PRIVATE_KEY: z.string().optional(),
  PRIVATE_KEY_PATH: z.string().optional(),
  GITHUB_API_URL: envSchema.shape.GITHUB_API_URL,
  GHE_HOST: envSchema.shape.GHE_HOST,
  GHE_PROTOCOL: envSchema.shape.GHE_PROTOCOL,
  FIXLOOP_ALLOW_INSECURE_HOSTS: envSchema.shape.FIXLOOP_ALLOW_INSECURE_HOSTS,
});

/** The client options the environment describes; a ConfigError naming the variable when it cannot. */
function readGitHubEnv(env: NodeJS.ProcessEnv): GitHubEnvOptions {
  const picked: Record<string, string> = {};
  for (const name of Object.keys(githubEnv.shape)) {
    const value = env[name]?.trim();
    if (value !== undefined && value !== '') picked[name] = value;
  }
  const parsed = githubEnv.safeParse(picked);
  if (!parsed.success) throw new ConfigError('environment', parsed.error);
  const vars = parsed.data;

  const apiUrl = (
    vars.GITHUB_API_URL ??
    (vars.GHE_HOST === undefined ? 'https://api.github.com' : `${vars.GHE_PROTOCOL}://${vars.GHE_HOST}/api/v3`)
  ).replace(/\/+$/, '');
  // Issue 31: the token goes to this URL: https or loopback, unless a lab opts out (as loadConfig).
  const setting = vars.GITHUB_API_URL !== undefined ? 'GITHUB_API_URL' : 'GHE_PROTOCOL';
  const verdict = judgeCredentialUrls([{ setting, url: apiUrl }], vars.FIXLOOP_ALLOW_INSECURE_HOSTS);
  if (verdict.kind === 'refuse') throw ConfigError.at('environment', [setting], verdict.message);
  if (vars.GITHUB_TOKEN !== undefined) return { apiUrl, auth: { kind: 'token', token: vars.GITHUB_TOKEN } };
  if (vars.APP_ID === undefined) {
    throw ConfigError.at(
      'environment',
      ['GITHUB_TOKEN'],
      'GitHub credentials are required: set GITHUB_TOKEN, or APP_ID with PRIVATE_KEY or PRIVATE_KEY_PATH',
    );
  }
  if (vars.PRIVATE_KEY !== undefined && vars.PRIVATE_KEY_PATH !== undefined) {
    throw ConfigError.at('environment', ['PRIVATE_KEY_PATH'], 'set PRIVATE_KEY or PRIVATE_KEY_PATH, not both');
  }
  return {
    apiUrl,
    auth: { kind: 'app', appId: vars.APP_ID, privateKey: readPrivateKey(vars.PRIVATE_KEY, vars.PRIVATE_KEY_PATH) },
  };
}

/** A ProviderPort over the client the environment describes; Octokit is loaded on the first call. */
export function createGitHubFromEnv(env: NodeJS.ProcessEnv = process.env): ProviderPort {
  const options = readGitHubEnv(env);
  let client: Promise<ProviderPort> | null = null;
  const gh = (): Promise<ProviderPort> => (client ??= import('./client.js').then((m) => m.createGitHub(options)));
  return {
    getPullRequest: async (...a) => (await gh()).getPullRequest(...a),
    listCheckRuns: async (...a) => (await gh()).listCheckRuns(...a),
    listStatuses: async (...a) => (await gh()).listStatuses(...a),
    requiredChecks: async (...a) => (await gh()).requiredChecks(...a),
    jobLogUrl: async (...a) => (await gh()).jobLogUrl(...a),
    workflowRunOfJob: async (...a) => (await gh()).workflowRunOfJob(...a),
    rerunFailedJobs: async (...a) => (await gh()).rerunFailedJobs(...a),
    enqueuePullRequest: async (...a) => {
      const client = await gh();
      if (!client.enqueuePullRequest) throw new Error('this GitHub client cannot enqueue a pull request');
      return client.enqueuePullRequest(...a);
    },
    createCommitStatus: async (...a) => (await gh()).createCommitStatus(...a),
    updateBranch: async (...a) => (await gh()).updateBranch!(...a),
    addLabels: async (...a) => (await gh()).addLabels(...a),
    removeLabel: async (...a) => (await gh()).removeLabel(...a),
    listIssueComments: async (...a) => (await gh()).listIssueComments(...a),
    createIssueComment: async (...a) => (await gh()).createIssueComment(...a),
    updateIssueComment: async (...a) => (await gh()).updateIssueComment(...a),
    listReviews: async (...a) => (await gh()).listReviews(...a),
    compareCommits: async (...a) => (await gh()).compareCommits(...a),
    selfLogin: async () => (await gh()).selfLogin(),
  };
}

/** As loadConfig reads it: a file, or PEM text with literal `\n`s, or base64 of the PEM. */
function readPrivateKey(inline: string | undefined, path: string | undefined): string {
  if (path !== undefined) {
    try {
      return readFileSync(path, 'utf8');
    } catch (err) {
      throw ConfigError.at('environment', ['PRIVATE_KEY_PATH'], `cannot be read: ${(err as Error).message}`);
    }
  }
  if (inline === undefined)
    throw ConfigError.at('environment', ['PRIVATE_KEY'], 'is required with APP_ID (or PRIVATE_KEY_PATH)');
  const text = inline.includes('-----BEGIN') ? inline : Buffer.from(inline, 'base64').toString('utf8');
  if (!text.includes('-----BEGIN'))
    throw ConfigError.at('environment', ['PRIVATE_KEY'], 'is not a PEM key (nor base64 of one)');
  return text.replace(/\\n/g, '\n');
}
