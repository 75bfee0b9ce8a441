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

/**
 * Q1 (decision 0032): a GitLab delivery about a project no gitlab Work lists is ignored with this
 * reason. A stored value, documented in docs/configuration.md: never renamed (decision 0076).
 */
export const NO_GITLAB_WORK = 'no_gitlab_work';

/** gitlab.com: where a merge request's page is when GITLAB_URL says nothing else. */
export const GITLAB_WEB_URL = 'https://gitlab.com';

export interface GitLabHostOptions {
  /** GITLAB_WEBHOOK_SECRET's entries; with no signing token either, the route answers 404. */
  secrets: readonly string[];
  /** GITLAB_WEBHOOK_SIGNING_TOKEN's entries. */
  signingTokens: readonly string[];
  /** GitLab's half of the provider port; null when GitLab access is not configured. */
  port: ProviderPort | null;
  /** GITLAB_URL: merge requests are linked under it. */
  webUrl?: string;
}

export function gitlabHost(o: GitLabHostOptions): Host {
  return {
    id: 'gitlab',
    words: GITLAB_WORDS,
    webUrl: o.webUrl ?? GITLAB_WEB_URL,
    noWorkReason: NO_GITLAB_WORK,
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
