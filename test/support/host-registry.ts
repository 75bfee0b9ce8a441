// The host registry of the two built-in hosts, unconfigured (no port, no webhook secret), as the
// composition root builds it (src/wiring/hosts.ts): for tests of what classifies a delivery through
// the registry (ingest, the evaluation queue's sweep) without a server. Pure: no I/O.
import { createHostRegistry, type HostRegistry } from '../../src/app/hosts.js';
import type { ProviderPort } from '../../src/app/provider-port.js';
import { routeByHost } from '../../src/app/providers.js';
import type { Work } from '../../src/core/types.js';
import { GITHUB_WORDS, githubHost } from '../../src/github/host.js';
import { GITLAB_WORDS, gitlabHost } from '../../src/gitlab/host.js';

export function builtInHosts(works: readonly Work[] = []): HostRegistry {
  return createHostRegistry(
    [
      githubHost({ secrets: [], setupUrl: 'http://127.0.0.1/setup', port: null }),
      gitlabHost({ secrets: [], signingTokens: [], port: null }),
    ],
    works,
  );
}

/** The two built-in hosts' ports, routed as the registry routes them (tests of app/providers.ts). */
export function routeByProvider(
  ports: { github: ProviderPort | null; gitlab: ProviderPort | null },
  works: readonly Work[],
): ProviderPort | null {
  return routeByHost(
    [
      { id: 'github', name: GITHUB_WORDS.name, port: ports.github },
      { id: 'gitlab', name: GITLAB_WORDS.name, port: ports.gitlab },
    ],
    works,
  );
}
