// Issue 31 (decision 0047): a token is sent only over https or to this machine, so every provider URL
// that carries one is judged at load (core of the rule: insecure-hosts.ts).
import { ConfigError } from './errors.js';
import { judgeCredentialUrls, type CredentialUrl } from './insecure-hosts.js';
import type { EnvConfig } from './env-schema.js';
import type { GitHubConfig } from './github-config.js';
import type { RunnerConfig } from './runner-config.js';

/**
 * Issue 31: every provider URL a token is sent to is https or loopback — GitHub's API (GITHUB_API_URL,
 * else GHE_PROTOCOL://GHE_HOST), GITLAB_URL, and a workspace's clone URLs — unless the lab opt-out is
 * set, which is warned about at every start (decision 0047).
 */
export function checkCredentialUrls(
  vars: EnvConfig,
  github: GitHubConfig,
  runner: RunnerConfig | null,
  configFile: string | null,
  warnings: string[],
): void {
  const githubSetting = vars.GITHUB_API_URL !== undefined ? 'GITHUB_API_URL' : 'GHE_PROTOCOL';
  const urls: CredentialUrl[] = [
    { setting: githubSetting, url: github.apiUrl },
    { setting: 'GITLAB_URL', url: vars.GITLAB_URL },
  ];
  if (runner?.kind === 'command' && runner.workspace) {
    urls.push({ setting: 'runner.workspace.cloneUrl', url: runner.workspace.cloneUrl.replaceAll('{repository}', 'r') });
    urls.push({
      setting: 'runner.workspace.gitlabCloneUrl',
      url: runner.workspace.gitlabCloneUrl.replaceAll('{repository}', 'r'),
    });
  }
  const verdict = judgeCredentialUrls(urls, vars.FIXLOOP_ALLOW_INSECURE_HOSTS);
  if (verdict.kind === 'refuse') {
    const inFile = verdict.setting.startsWith('runner.');
    throw ConfigError.at(
      inFile ? (configFile ?? 'environment') : 'environment',
      inFile ? verdict.setting.split('.') : [verdict.setting],
      verdict.message,
    );
  }
  if (verdict.kind === 'allowed') warnings.push(verdict.warning);
}
