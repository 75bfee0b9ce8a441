// Issue 35 item 2: the mention runner, wired to the code hosts. It comments as fixloop's own identity
// (the repository's host port), or — for the agents that ignore bots — as a person: on GitHub the one
// whose token is FIXLOOP_MENTION_TOKEN, on GitLab the one whose token is FIXLOOP_GITLAB_MENTION_TOKEN,
// each through a client of its own that nothing else uses. On GitHub it follows Copilot's work events
// with fixloop's own credentials (decision 0074).
import type { Runner } from '../app/ports.js';
import type { ProviderPort } from '../app/provider-port.js';
import type { HostRegistry } from '../app/hosts.js';
import type { MentionRunnerConfig } from '../config/runner-config.js';
import { createGitHub } from '../github/client.js';
import { createCopilotWorkReader } from '../github/copilot-work.js';
import { createGitLab } from '../gitlab/client.js';
import { createMentionRunner } from '../runners/mention.js';
import { createWorkflowCalls } from '../github/workflows.js';
import type { Config } from '../config/config.js';
import { ConfigError } from '../config/errors.js';
import type { Logger } from '../app/ports.js';
import { githubAuthOf } from './github-auth.js';

export function mentionRunnerFrom(
  r: MentionRunnerConfig,
  config: { github: Pick<Config['github'], 'apiUrl' | 'token' | 'appId' | 'privateKey'>; gitlab?: Config['gitlab'] },
  registry: Pick<HostRegistry, 'hostOfRepository'>,
  logger?: Pick<Logger, 'warn'>,
): Runner {
  const asPerson: Record<string, ProviderPort | null> = {
    github: r.userToken
      ? createGitHub({ apiUrl: config.github.apiUrl, auth: { kind: 'token', token: r.userToken } })
      : null,
    gitlab:
      r.gitlabUserToken && config.gitlab ? createGitLab({ url: config.gitlab.url, token: r.gitlabUserToken }) : null,
  };
  const auth = githubAuthOf(config.github);
  // Copilot's finish is recorded on GitHub only; read with fixloop's own credentials where it has them.
  const copilotWork =
    r.agent === 'copilot' && auth !== null ? createCopilotWorkReader({ apiUrl: config.github.apiUrl, auth }) : null;
  return createMentionRunner({
    trigger: r.trigger,
    agentName: MENTION_AGENT_NAMES[r.agent],
    followMs: r.pollSeconds * 1000,
    ...(logger ? { logger } : {}),
    changeRequestOf: (repository) => registry.hostOfRepository(repository).words.changeRequest,
    async post(repository, pullRequest, body) {
      const host = registry.hostOfRepository(repository);
      const person = r.as === 'user' ? asPerson[host.id] : null;
      if (r.as === 'user' && !person)
        throw new Error(
          `the mention is posted as a person, and no person's ${host.words.name} token is configured (${host.id === 'gitlab' ? 'FIXLOOP_GITLAB_MENTION_TOKEN_FILE' : 'FIXLOOP_MENTION_TOKEN_FILE'})`,
        );
      const port = person ?? host.port();
      if (!port) throw new Error(`fixloop has no ${host.words.name} credentials to comment with`);
      const created = await port.createIssueComment(repository, pullRequest, body);
      return { at: created.updatedAt };
    },
    ...(copilotWork
      ? {
          workEvents: (repository: string, pullRequest: number) =>
            registry.hostOfRepository(repository).id === 'github' ? copilotWork.events(repository, pullRequest) : null,
        }
      : {}),
  });
}

/** How people read each agent's name in a run's log. */
const MENTION_AGENT_NAMES: Record<MentionRunnerConfig['agent'], string> = {
  copilot: 'Copilot',
  claude: 'Claude',
  codex: 'Codex',
  duo: 'GitLab Duo',
};

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
