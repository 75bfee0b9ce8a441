// What fixloop assumes of a code host where none is at hand (issue 34, decision 0076): the default
// host, and the apps whose check runs are CI jobs with a readable log. The use-cases and the
// provider port read these as data, so no file under src/core/ or src/app/ names a host; each
// host's own folder holds everything else that is its own.

/**
 * The default host: the registry's first (src/wiring/hosts.ts) and the host of a Work that names
 * no `provider` (src/config/schema.ts). Said where no host is known: a ProviderError raised
 * without its host, and a request that finds no host access configured at all.
 */
export const DEFAULT_HOST: { readonly id: string; readonly name: string } = { id: 'github', name: 'GitHub' };

/**
 * The apps whose check runs are CI jobs with a readable log, the run's id being the job's: GitHub
 * Actions' (`github-actions`), and GitLab's pipeline jobs as its adapter writes them
 * (`gitlab-ci`, src/gitlab/to-port.ts).
 */
export const CI_JOB_APPS: readonly string[] = ['github-actions', 'gitlab-ci'];
