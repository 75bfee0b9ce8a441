// The code hosts this process serves, built once (issue 34, decision 0060): GitHub and GitLab from
// the config, then any host the caller registers (tests: a third, fake one). The registry routes
// webhooks, classifies deliveries, and gives the use-cases one provider port that sends each call
// to the host of its repository.
import type { Config } from '../config/config.js';
import type { Logger } from '../app/ports.js';
import type { ProviderPort } from '../app/provider-port.js';
import { createHostRegistry, type Host, type HostRegistry } from '../app/hosts.js';
import { routeByHost } from '../app/providers.js';
import type { GitHubRequestObserver } from '../github/octokit.js';
import { githubHost } from '../github/host.js';
import { gitlabHost } from '../gitlab/host.js';
import { githubFromConfig, gitlabFromConfig } from '../wiring.js';

export interface HostAdapters {
  /** GitHub's port (tests: a client pointed at the fake); default from config; null = none. */
  github?: ProviderPort | null | undefined;
  /** GitLab's port (tests: a client pointed at the fake GitLab); default from config; null = none. */
  gitlab?: ProviderPort | null | undefined;
  /** Hosts beyond GitHub and GitLab, registered after them. */
  hosts?: readonly Host[] | undefined;
}

export function hostsFromConfig(
  config: Config,
  adapters: HostAdapters,
  deps: {
    logger: Logger;
    observeGitHub?: GitHubRequestObserver;
    etags?: Parameters<typeof githubFromConfig>[3] & Parameters<typeof gitlabFromConfig>[2];
  },
): { registry: HostRegistry; port: ProviderPort | null } {
  const registry = createHostRegistry(
    [
      githubHost({
        secrets: config.webhookSecrets,
        setupUrl: `${config.publicUrl}/setup`,
        port:
          adapters.github !== undefined
            ? adapters.github
            : githubFromConfig(config, deps.logger, deps.observeGitHub, deps.etags),
        webUrl: config.notices.webUrl,
      }),
      gitlabHost({
        secrets: config.gitlabWebhookSecrets,
        signingTokens: config.gitlabWebhookSigningTokens,
        port: adapters.gitlab !== undefined ? adapters.gitlab : gitlabFromConfig(config, deps.logger, deps.etags),
        webUrl: config.gitlab.url,
      }),
      ...(adapters.hosts ?? []),
    ],
    config.works,
  );
  const port = routeByHost(
    registry.hosts.map((h) => ({ id: h.id, name: h.words.name, port: h.port() })),
    config.works,
  );
  return { registry, port };
}
