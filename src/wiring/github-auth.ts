// fixloop's own GitHub credentials as the calls outside the provider port take them (the actions
// runner's dispatches, the mention runner's approvals): a token, else the App; null without either.
import type { Config } from '../config/config.js';
import type { GitHubAuth } from '../github/installations.js';

export function githubAuthOf(g: Pick<Config['github'], 'token' | 'appId' | 'privateKey'>): GitHubAuth | null {
  if (g.token) return { kind: 'token', token: g.token };
  if (g.appId && g.privateKey) return { kind: 'app', appId: g.appId, privateKey: g.privateKey };
  return null;
}
