// Issue 35 item 2: the mention runner, wired to the code hosts. It comments as fixloop's own identity
// (the repository's host port), or — on GitHub, for the agents that ignore bots — as the person whose
// token is FIXLOOP_MENTION_TOKEN, through a client of its own that nothing else uses.
import type { Runner } from '../app/ports.js';
import type { HostRegistry } from '../app/hosts.js';
import type { MentionRunnerConfig } from '../config/runner-config.js';
import { createGitHub } from '../github/client.js';
import { createMentionRunner } from '../runners/mention.js';
import { createWorkflowCalls } from '../github/workflows.js';
import type { Config } from '../config/config.js';
import { ConfigError } from '../config/errors.js';
import type { Logger } from '../app/ports.js';
import { githubAuthOf } from './github-auth.js';

export function mentionRunnerFrom(
  r: MentionRunnerConfig,
  github: { apiUrl: string },
  registry: Pick<HostRegistry, 'hostOfRepository'>,
): Runner {
  const asPerson = r.userToken
    ? createGitHub({ apiUrl: github.apiUrl, auth: { kind: 'token', token: r.userToken } })
    : null;
  return createMentionRunner({
    trigger: r.trigger,
    changeRequestOf: (repository) => registry.hostOfRepository(repository).words.changeRequest,
    async post(repository, pullRequest, body) {
      const host = registry.hostOfRepository(repository);
      const port = asPerson && host.id === 'github' ? asPerson : host.port();
      if (!port) throw new Error(`fixloop has no ${host.words.name} credentials to comment with`);
      await port.createIssueComment(repository, pullRequest, body);
    },
  });
}

/**
 * Issue 35: the gate's approver of the agent's held workflow runs, when `runner.approveWorkflows` is
 * set; on fixloop's own GitHub credentials (an App needs `actions: write`). GitLab holds no push's
 * pipelines for approval, so its repositories have nothing to approve.
 */
export function runApproverFrom(
  r: MentionRunnerConfig,
  config: Pick<Config, 'github'>,
  registry: Pick<HostRegistry, 'hostOfRepository'>,
  logger: Logger,
): ((repository: string, headSha: string) => Promise<number>) | undefined {
  if (!r.approveWorkflows) return undefined;
  const auth = githubAuthOf(config.github);
  if (auth === null)
    throw ConfigError.at(
      'environment',
      ['runner', 'approveWorkflows'],
      "approves workflow runs with fixloop's own GitHub credentials: set GITHUB_TOKEN, or APP_ID with PRIVATE_KEY (an App needs actions: write)",
    );
  const calls = createWorkflowCalls({ apiUrl: config.github.apiUrl, auth, log: logger });
  return async (repository, headSha) =>
    registry.hostOfRepository(repository).id === 'github' ? calls.approvePendingRuns(repository, headSha) : 0;
}
