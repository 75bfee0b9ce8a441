// Where a Task's change lives on the web and how it is written: a GitHub pull request
// (`owner/repo#7`, <github web>/owner/repo/pull/7) or a GitLab merge request (`group/project!7`,
// <GITLAB_URL>/group/project/-/merge_requests/7), chosen by the repository's provider. One copy, for
// the dashboard, the notice sinks and anything else that links a person to the change. Pure.
// SPEC G1, M4, P4, Q1 (issues 19, 31).

/** Where a Task's pull request or merge request lives, and how it is written (issue 19). */
export interface ChangeLinks {
  /** The GitHub web host, e.g. https://github.com or a GitHub Enterprise Server's. */
  githubUrl: string;
  /** GITLAB_URL, e.g. https://gitlab.com. */
  gitlabUrl: string;
  /** The repository's provider (wiring/provider-of-repository.ts). */
  providerOf(repository: string): 'github' | 'gitlab';
}

/** Every repository GitHub's, on github.com: the default where no configuration is at hand. */
export const GITHUB_LINKS: ChangeLinks = {
  githubUrl: 'https://github.com',
  gitlabUrl: 'https://gitlab.com',
  providerOf: () => 'github',
};

/** `owner/repo#7` and its pull request's page, or `group/project!7` and its merge request's. */
export function changeRef(links: ChangeLinks, repository: string, n: number): { label: string; url: string } {
  const base = (url: string) => url.replace(/\/+$/, '');
  return links.providerOf(repository) === 'gitlab'
    ? { label: `${repository}!${n}`, url: `${base(links.gitlabUrl)}/${repository}/-/merge_requests/${n}` }
    : { label: `${repository}#${n}`, url: `${base(links.githubUrl)}/${repository}/pull/${n}` };
}
