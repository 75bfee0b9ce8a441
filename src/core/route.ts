// Route a repository to the Work that holds it, from fixloop's own configuration (SPEC A5, A6).
// Nothing in a webhook body chooses an account: only the repository name is looked up.
import type { Provider, Work } from './types.js';

export type Route =
  | { kind: 'data'; work: Work; repository: string }
  | { kind: 'refuse'; reason: 'no_work' | 'not_data_repo'; work: Work | null };

export function routeRepository(works: readonly Work[], repository: string): Route {
  const name = repository.toLowerCase();
  for (const work of works) {
    const ref = work.repositories.find((r) => r.name.toLowerCase() === name);
    if (!ref) continue;
    // The account owns the Work; a repository outside the owning account is never matched.
    if (!name.startsWith(`${work.account.toLowerCase()}/`)) continue;
    if (ref.role !== 'data') return { kind: 'refuse', reason: 'not_data_repo', work };
    return { kind: 'data', work, repository: name };
  }
  return { kind: 'refuse', reason: 'no_work', work: null };
}

/**
 * Q1 (decision 0032): a delivery is for a Work of its own provider. A GitLab delivery whose project no
 * gitlab Work lists is ignored at the edge, so it never reaches a GitHub Work of the same name; a
 * GitHub delivery for a repository a gitlab Work lists is ignored likewise. Any other GitHub delivery
 * goes on to the gate, which routes it as before (A5).
 */
export function providerMismatch(
  works: readonly Work[],
  repository: string,
  provider: Provider,
): 'no_gitlab_work' | 'no_github_work' | null {
  const name = repository.toLowerCase();
  const holder = works.find((w) => w.repositories.some((r) => r.name.toLowerCase() === name));
  const held = holder?.provider ?? 'github';
  if (provider === 'gitlab') return holder && held === 'gitlab' ? null : 'no_gitlab_work';
  return holder && held !== 'github' ? 'no_github_work' : null;
}
