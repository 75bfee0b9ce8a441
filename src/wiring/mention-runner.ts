// Issue 35 item 2: the mention runner, wired to the code hosts. It comments as fixloop's own identity
// (the repository's host port), or — on GitHub, for the agents that ignore bots — as the person whose
// token is FIXLOOP_MENTION_TOKEN, through a client of its own that nothing else uses.
import type { Runner } from '../app/ports.js';
import type { HostRegistry } from '../app/hosts.js';
import type { MentionRunnerConfig } from '../config/runner-config.js';
import { createGitHub } from '../github/client.js';
import { createMentionRunner } from '../runners/mention.js';

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
