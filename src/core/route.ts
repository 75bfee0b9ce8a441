// Route a repository to the Work that holds it, from fixloop's own configuration (SPEC A5, A6).
// Nothing in a webhook body chooses an account: only the repository name is looked up.
import type { Work } from './types.js';

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
