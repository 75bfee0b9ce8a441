// How each repository's change is written and linked (issue 34, decision 0076): by its host, found
// through the host registry; the host's words (`referenceMark`, `changePath`) and web address are its
// folder's own (core/change-link.ts composes them). `builtInChangeLinks` links the two hosts that
// ship with fixloop from their web addresses alone, where no registry is at hand: the notice sinks
// built from the config by themselves, the dashboard's default, tests.
import type { HostRegistry } from '../app/hosts.js';
import type { ChangeLinks, LinkingHost } from '../core/change-link.js';
import type { Work } from '../core/types.js';
import { GITHUB_WEB_URL } from '../github/host.js';
import { GITHUB_WORDS } from '../github/words.js';
import { GITLAB_WEB_URL } from '../gitlab/host.js';
import { GITLAB_WORDS } from '../gitlab/words.js';
import { providerOfRepository } from './provider-of-repository.js';

/** Each repository's change linked by the host the registry finds for it (a third host's too). */
export function changeLinksOf(registry: Pick<HostRegistry, 'hostOfRepository'>): ChangeLinks {
  return { hostOf: (repository) => registry.hostOfRepository(repository) };
}

/** The web addresses of the built-in hosts, and which of them holds each repository. */
export interface BuiltInLinkConfig {
  /** GitHub's web address: github.com, or a GitHub Enterprise Server's (config.notices.webUrl). */
  githubUrl: string;
  /** GITLAB_URL. */
  gitlabUrl: string;
  /** The built-in host of a repository (provider-of-repository.ts). */
  providerOf(repository: string): 'github' | 'gitlab';
}

/** Links over the two built-in hosts, each with its own words, at the web addresses given. */
export function builtInChangeLinks(c: BuiltInLinkConfig): ChangeLinks {
  const github: LinkingHost = { id: 'github', words: GITHUB_WORDS, webUrl: c.githubUrl };
  const gitlab: LinkingHost = { id: 'gitlab', words: GITLAB_WORDS, webUrl: c.gitlabUrl };
  return { hostOf: (repository) => (c.providerOf(repository) === 'gitlab' ? gitlab : github) };
}

/** The built-in hosts' links as the config places them (the Works, GHE_HOST, GITLAB_URL). */
export function configuredChangeLinks(config: {
  notices: { webUrl: string };
  gitlab: { url: string };
  works: readonly Work[];
}): ChangeLinks {
  return builtInChangeLinks({
    githubUrl: config.notices.webUrl,
    gitlabUrl: config.gitlab.url,
    providerOf: providerOfRepository(config.works),
  });
}

/** Every repository GitHub's, on github.com: the default where no configuration is at hand. */
export const GITHUB_LINKS: ChangeLinks = builtInChangeLinks({
  githubUrl: GITHUB_WEB_URL,
  gitlabUrl: GITLAB_WEB_URL,
  providerOf: () => 'github',
});
