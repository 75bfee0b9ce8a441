// The poll's bulk reads as GraphQL (SPEC N3, E1; decision 0031): one query asks for many pull
// requests of a repository by number (aliases `pr<number>`), so a tick's GitHub cost follows what
// changed, not how many Tasks are open. The glance costs about a point per 100 pull requests (one
// connection each: the head commit); the reading adds labels and the head's check rollup contexts
// (about three points per 100). Fields are named as GitHub's public schema names them.
import type {
  CheckRunInfo,
  CommitStatusInfo,
  PullRequestGlance,
  PullRequestInfo,
  PullRequestReading,
} from '../app/provider-port.js';
import { isOwnStatusContext } from '../core/commit-status.js';
import { untrustedLine, untrustedLineOrNull, untrustedTextOrNull } from '../core/untrusted-text.js';

/** Contexts read per head in one query; a head with more is read by REST instead. */
const CONTEXTS = 100;
const LABELS = 100;

const GLANCE_FIELDS = `number state merged headRefOid updatedAt
      commits(last: 1) { nodes { commit { oid statusCheckRollup { state } } } }`;

const READING_FIELDS = `number title state merged headRefOid headRefName baseRefName isDraft mergeStateStatus updatedAt
      author { login }
      headRepository { nameWithOwner }
      labels(first: ${LABELS}) { nodes { name } }
      commits(last: 1) { nodes { commit { oid statusCheckRollup { state
        contexts(first: ${CONTEXTS}) {
          pageInfo { hasNextPage }
          nodes {
            __typename
            ... on CheckRun { databaseId name status conclusion startedAt completedAt detailsUrl title summary
              checkSuite { app { slug } } }
            ... on StatusContext { context state description targetUrl createdAt }
          }
        } } } } }`;

function query(numbers: readonly number[], fields: string): string {
  const wanted = [...new Set(numbers)].filter((n) => Number.isSafeInteger(n) && n > 0);
  const aliases = wanted.map((n) => `    pr${n}: pullRequest(number: ${n}) {\n      ${fields}\n    }`).join('\n');
  return `query($owner: String!, $name: String!) {
  rateLimit { cost remaining resetAt }
  repository(owner: $owner, name: $name) {
${aliases}
  }
}`;
}

export const glanceQuery = (numbers: readonly number[]): string => query(numbers, GLANCE_FIELDS);
export const readingQuery = (numbers: readonly number[]): string => query(numbers, READING_FIELDS);

interface ContextNode {
  __typename: string;
  databaseId?: number | null;
  name?: string;
  status?: string;
  conclusion?: string | null;
  startedAt?: string | null;
  completedAt?: string | null;
  detailsUrl?: string | null;
  title?: string | null;
  summary?: string | null;
  checkSuite?: { app: { slug: string } | null } | null;
  context?: string;
  state?: string;
  description?: string | null;
  targetUrl?: string | null;
  createdAt?: string;
}

interface PullRequestNode {
  number: number;
  state: string;
  merged: boolean;
  headRefOid: string;
  updatedAt: string;
  headRefName?: string;
  baseRefName?: string;
  isDraft?: boolean;
  mergeStateStatus?: string | null;
  author?: { login: string } | null;
  title?: string | null;
  headRepository?: { nameWithOwner: string } | null;
  labels?: { nodes: Array<{ name: string } | null> | null } | null;
  commits: {
    nodes: Array<{
      commit: {
        oid: string;
        statusCheckRollup: {
          state: string;
          contexts?: { pageInfo: { hasNextPage: boolean }; nodes: Array<ContextNode | null> | null };
        } | null;
      };
    } | null> | null;
  };
}

export interface PollQueryAnswer {
  repository: Record<string, PullRequestNode | null> | null;
}

function nodesOf(answer: PollQueryAnswer): PullRequestNode[] {
  return Object.values(answer.repository ?? {}).filter((n): n is PullRequestNode => n !== null && n !== undefined);
}

function headOf(node: PullRequestNode) {
  return node.commits.nodes?.[0]?.commit ?? null;
}

export function toGlances(answer: PollQueryAnswer): Map<number, PullRequestGlance> {
  const out = new Map<number, PullRequestGlance>();
  for (const node of nodesOf(answer)) {
    out.set(node.number, {
      number: node.number,
      state: node.state === 'OPEN' ? 'open' : 'closed',
      merged: node.merged,
      headSha: node.headRefOid,
      updatedAt: node.updatedAt,
      rollup: headOf(node)?.statusCheckRollup?.state ?? null,
    });
  }
  return out;
}

const STATUS_STATES = ['error', 'failure', 'pending', 'success'] as const;

function toRun(n: ContextNode): CheckRunInfo {
  return {
    id: n.databaseId ?? 0,
    // Names, refs, logins and bodies cleaned as the REST answers are (to-port.ts; issue 31).
    name: untrustedLine(n.name ?? ''),
    status: (n.status ?? 'queued').toLowerCase(),
    conclusion: n.conclusion ? n.conclusion.toLowerCase() : null,
    startedAt: n.startedAt ?? null,
    completedAt: n.completedAt ?? null,
    detailsUrl: n.detailsUrl ?? null,
    appSlug: n.checkSuite?.app?.slug ?? null,
    outputTitle: untrustedLineOrNull(n.title ?? null),
    outputSummary: untrustedTextOrNull(n.summary ?? null),
  };
}

function toStatus(n: ContextNode): CommitStatusInfo {
  // EXPECTED (a required status not reported yet) and anything unknown are still pending (B4).
  const state = (n.state ?? '').toLowerCase();
  return {
    context: untrustedLine(n.context ?? ''),
    state: (STATUS_STATES as readonly string[]).includes(state) ? (state as CommitStatusInfo['state']) : 'pending',
    description: untrustedLineOrNull(n.description ?? null),
    targetUrl: n.targetUrl ?? null,
    updatedAt: n.createdAt ?? null,
  };
}

/**
 * The readings of the answer's pull requests. One whose head is not the commit read (a push in
 * between) or whose contexts did not fit in one page is left out: the poll reads it by REST.
 */
export function toReadings(answer: PollQueryAnswer, repository: string): Map<number, PullRequestReading> {
  const out = new Map<number, PullRequestReading>();
  for (const node of nodesOf(answer)) {
    const head = headOf(node);
    const contexts = head?.statusCheckRollup?.contexts;
    if (head === null || head.oid !== node.headRefOid || contexts?.pageInfo.hasNextPage) continue;
    const nodes = (contexts?.nodes ?? []).filter((c): c is ContextNode => c !== null);
    const pr: PullRequestInfo = {
      repository,
      number: node.number,
      state: node.state === 'OPEN' ? 'open' : 'closed',
      merged: node.merged,
      headSha: node.headRefOid,
      headRef: untrustedLine(node.headRefName ?? ''),
      headRepository: node.headRepository ? node.headRepository.nameWithOwner.toLowerCase() : null,
      baseRef: untrustedLine(node.baseRefName ?? ''),
      author: untrustedLineOrNull(node.author?.login ?? null),
      title: untrustedLineOrNull(node.title ?? null),
      draft: node.isDraft ?? false,
      labels: (node.labels?.nodes ?? []).flatMap((l) => (l === null ? [] : [untrustedLine(l.name)])),
      mergeableState: node.mergeStateStatus ? node.mergeStateStatus.toLowerCase() : null,
      updatedAt: node.updatedAt,
    };
    out.set(node.number, {
      pr,
      runs: nodes.filter((c) => c.__typename === 'CheckRun').map(toRun),
      // fixloop's own `fixloop` status says what the loop does, not what CI found (M4), as by REST.
      statuses: nodes
        .filter((c) => c.__typename === 'StatusContext')
        .map(toStatus)
        .filter((s) => !isOwnStatusContext(s.context)),
    });
  }
  return out;
}
