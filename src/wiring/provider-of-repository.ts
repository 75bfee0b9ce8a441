// Which built-in host holds a repository (issue 19), for what is still wired per built-in host: the
// agent workspace's clone URL and token (issue 34 has not reached it), and the built-in hosts' change
// links where no host registry is at hand (change-links.ts). A Work names its host; a repository no
// Work names is GitHub's.
import type { Work } from '../core/types.js';

/** The built-in host of each repository the Works name (lower-cased); a repository no Work names is GitHub's. */
export function providerOfRepository(works: readonly Work[]): (repository: string) => 'github' | 'gitlab' {
  const gitlab = new Set(
    works.filter((w) => w.provider === 'gitlab').flatMap((w) => w.repositories.map((r) => r.name.toLowerCase())),
  );
  return (repository) => (gitlab.has(repository.toLowerCase()) ? 'gitlab' : 'github');
}
