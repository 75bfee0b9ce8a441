// The path policy (SPEC K4) every repository gets: the base globs of core/path-policy.ts with every
// registered code host's own CI files (its `ciFiles`), so a fix that edits a workflow or a pipeline
// file goes to a person whichever host the repository is on.
import type { Host } from '../app/hosts.js';
import { BASE_PATH_POLICY, withCiFiles, type PathPolicy } from '../core/path-policy.js';
import { GITHUB_CI_FILES } from '../github/host.js';
import { GITLAB_CI_FILES } from '../gitlab/host.js';

/** The policy with the CI files of `hosts`, in their order. */
export function pathPolicyOf(hosts: readonly Pick<Host, 'ciFiles'>[]): PathPolicy {
  return withCiFiles(
    BASE_PATH_POLICY,
    hosts.flatMap((h) => h.ciFiles ?? []),
  );
}

/** The policy of the built-in hosts, GitHub's and GitLab's CI files first. */
export const DEFAULT_PATH_POLICY: PathPolicy = pathPolicyOf([
  { ciFiles: GITHUB_CI_FILES },
  { ciFiles: GITLAB_CI_FILES },
]);
