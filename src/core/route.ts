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

/**
 * Q1 (decisions 0032, 0060, 0076): a delivery is for a Work of its own host. A delivery from a host
 * other than the default whose repository no Work of that host lists is ignored at the edge, so it
 * never reaches a Work of the same name on another host; a delivery from the default host (a Work
 * with no `provider`) for a repository another host's Work lists is ignored likewise. Any other
 * delivery from the default host goes on to the gate, which routes it as before (A5). True when the
 * delivery is to be ignored; the reason recorded is the receiving host's own (`Host.noWorkReason`).
 */
export function hostMismatch(
  works: readonly Work[],
  repository: string,
  /** The id of the host that delivered it (decision 0060). */
  provider: string,
  /** The id of the default host: a Work naming no host is its. */
  defaultHost: string,
): boolean {
  const name = repository.toLowerCase();
  const holder = works.find((w) => w.repositories.some((r) => r.name.toLowerCase() === name));
  const held = holder?.provider ?? defaultHost;
  if (provider !== defaultHost) return !(holder && held === provider);
  return holder !== undefined && held !== defaultHost;
}

/** The config key a Work's repositories go under (src/config/schema.ts), named in refusals. */
export const WORK_REPOSITORIES_KEY = 'works[].repositories';

/**
 * A route refusal in a person's words, naming the config key to change (issue 32): the same text on
 * the decision row of an ignored delivery and in the API's answer to a Task registration.
 */
export function routeRefusalWords(route: Extract<Route, { kind: 'refuse' }>, repository: string): string {
  if (route.reason === 'not_data_repo')
    return `${repository} is listed in the Work "${route.work?.name ?? '?'}" but not with role: data; only a Work's data repository has Tasks (${WORK_REPOSITORIES_KEY}[].role)`;
  return `${repository} is in no configured Work: add it under ${WORK_REPOSITORIES_KEY} (with role: data, in a Work whose account owns it) in the config file, then restart fixloop`;
}
