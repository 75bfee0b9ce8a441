// Where a Task's change lives on the web and how it is written, whatever its host (issue 34,
// decision 0076): each host writes a change with its words' `referenceMark` and keeps its page at
// its words' `changePath` under its web address (both in the host's folder, reached through the host
// registry). One copy, for the dashboard, the notice sinks and anything else that links a person to
// the change. Pure. SPEC G1, M4, P4, Q1 (issues 19, 31, 34).
import { referenceOf, type HostWords } from './host-words.js';

/** A change as a person reads it (`acme/app#7`) and its page. */
export interface ChangeLink {
  label: string;
  url: string;
}

/** What links a repository's changes: its host's id, words and web address. */
export interface LinkingHost {
  /** The host's id (a Work's `provider`). */
  id: string;
  words: Pick<HostWords, 'name' | 'referenceMark' | 'changePath'>;
  /** The host's web address, e.g. https://forge.example.com; a trailing slash is dropped. */
  webUrl: string;
}

/** Where each repository's changes are written and linked: by the host of the repository. */
export interface ChangeLinks {
  /** The repository's host (the registry's `hostOfRepository`). */
  hostOf(repository: string): LinkingHost;
}

/** Change `n` of `repository` as `host` writes it, and its page under the host's web address. */
export function changeLinkOf(host: LinkingHost, repository: string, n: number): ChangeLink {
  return {
    label: referenceOf(host.words, repository, n),
    url: `${host.webUrl.replace(/\/+$/, '')}/${host.words.changePath(repository, n)}`,
  };
}

/** Change `n` of `repository`, written and linked by the repository's host. */
export function changeRef(links: ChangeLinks, repository: string, n: number): ChangeLink {
  return changeLinkOf(links.hostOf(repository), repository, n);
}
