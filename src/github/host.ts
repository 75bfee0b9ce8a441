// GitHub as a code host (issue 34, decision 0060): its words, its webhook receiver, how its
// deliveries classify into neutral events, and its half of the provider port, behind the one
// `Host` contract the registry holds (app/hosts.ts).
import type { Host } from '../app/hosts.js';
import { GITHUB_WORDS } from './words.js';
import type { ProviderPort } from '../app/provider-port.js';
import { classifyDelivery } from './classify.js';
import { isHandledEvent } from './payloads.js';
import { createWebhookHandler } from './webhook.js';
import { createWebhookNotSetUp } from './webhook-not-set-up.js';

export { GITHUB_WORDS } from './words.js';

/** Where GitHub delivers (Probot's convention); the App manifest points GitHub here (github/app-manifest.ts). */
export const WEBHOOK_PATH = '/api/github/webhooks';

/** K4: GitHub Actions' workflows and its local actions (core/path-policy.ts). */
export const GITHUB_CI_FILES: readonly string[] = ['.github/workflows/**', '.github/actions/**'];

/**
 * Q1 (decision 0032): a GitHub delivery about a repository another host's Work lists is ignored with
 * this reason. A stored value, documented in docs/configuration.md: never renamed (decision 0076).
 */
export const NO_GITHUB_WORK = 'no_github_work';

/** github.com: where a pull request's page is when no other web address is configured. */
export const GITHUB_WEB_URL = 'https://github.com';

export interface GitHubHostOptions {
  /** WEBHOOK_SECRET's entries; none yet: the receiver answers 503 and points at /setup (decision 0050). */
  secrets: readonly string[];
  /** The /setup page a delivery is pointed at while no secret exists. */
  setupUrl: string;
  /** GitHub's half of the provider port; null when GitHub access is not configured. */
  port: ProviderPort | null;
  /** The web address pull requests are linked at (GHE_HOST's, or github.com: config.notices.webUrl). */
  webUrl?: string;
}

export function githubHost(o: GitHubHostOptions): Host {
  return {
    id: 'github',
    words: GITHUB_WORDS,
    webUrl: o.webUrl ?? GITHUB_WEB_URL,
    noWorkReason: NO_GITHUB_WORK,
    webhook: {
      path: WEBHOOK_PATH,
      receiver: (deps) =>
        o.secrets.length === 0
          ? createWebhookNotSetUp(o.setupUrl)
          : createWebhookHandler({
              secrets: o.secrets,
              maxBytes: deps.maxBytes,
              maxInflightBytes: deps.maxInflightBytes,
              ingestor: deps.ingestor,
              logger: deps.logger,
              ...(deps.observeAck ? { observeAck: deps.observeAck } : {}),
            }),
    },
    ownsEvent: isHandledEvent,
    classify: classifyDelivery,
    port: () => o.port,
    ciFiles: GITHUB_CI_FILES,
  };
}
