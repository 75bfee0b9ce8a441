// GitLab as a code host (issue 19, issue 34, decisions 0032, 0060): its words, its webhook receiver
// (the token before the body, signed webhooks), how its deliveries classify into neutral events, and
// its half of the provider port, behind the one `Host` contract the registry holds (app/hosts.ts).
import type { Host } from '../app/hosts.js';
import { GITLAB_WORDS } from './words.js';
import type { ProviderPort } from '../app/provider-port.js';
import { classifyGitlabDelivery } from './classify.js';
import { isGitlabEventName } from './payloads.js';
import { createGitlabWebhookHandler } from './webhook.js';

export { GITLAB_WORDS } from './words.js';

/** Where GitLab delivers (issue 19, decision 0032). */
export const GITLAB_WEBHOOK_PATH = '/api/gitlab/webhooks';

/** K4: GitLab CI's pipeline file and the files it includes by convention (core/path-policy.ts). */
export const GITLAB_CI_FILES: readonly string[] = ['.gitlab-ci.yml', '.gitlab/ci/**'];

export interface GitLabHostOptions {
  /** GITLAB_WEBHOOK_SECRET's entries; with no signing token either, the route answers 404. */
  secrets: readonly string[];
  /** GITLAB_WEBHOOK_SIGNING_TOKEN's entries. */
  signingTokens: readonly string[];
  /** GitLab's half of the provider port; null when GitLab access is not configured. */
  port: ProviderPort | null;
}

export function gitlabHost(o: GitLabHostOptions): Host {
  return {
    id: 'gitlab',
    words: GITLAB_WORDS,
    webhook: {
      path: GITLAB_WEBHOOK_PATH,
      receiver: (deps) =>
        createGitlabWebhookHandler({
          secrets: o.secrets,
          signingTokens: o.signingTokens,
          maxBytes: deps.maxBytes,
          maxInflightBytes: deps.maxInflightBytes,
          ingestor: deps.ingestor,
          logger: deps.logger,
          ...(deps.observeAck ? { observeAck: deps.observeAck } : {}),
        }),
    },
    ownsEvent: isGitlabEventName,
    classify: classifyGitlabDelivery,
    port: () => o.port,
    ciFiles: GITLAB_CI_FILES,
  };
}
