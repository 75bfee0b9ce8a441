// The fake GitHub's GraphQL endpoint (POST /graphql; /api/graphql beside an /api/v3 prefix): the
// small part of GitHub's public schema the poll's bulk reads use (repository → pullRequest(number)
// → head commit → statusCheckRollup → contexts), answered from the same plain state as REST. It
// parses the query (operations, variables, aliases, inline fragments), refuses fields the schema
// does not have and connections without `first`/`last` as GitHub does, answers a missing pull
// request with null and a NOT_FOUND error, and prices each query by GitHub's documented formula:
// the requests each connection needs (its parents' page sizes multiplied), summed, divided by 100,
// rounded, at least 1. SPEC N3.
import type { FakeCheckRun, FakeState, FakeStatus } from './state.js';
import { pullKey, refKey } from './state.js';
import { latestStatuses } from './routes.js';

// ---- parsing ----------------------------------------------------------------------------------------

type Value = { kind: 'var'; name: string } | { kind: 'lit'; value: unknown };

export interface Selection {
  kind: 'field' | 'fragment';
  /** field: the field's name; fragment: the type condition. */
  name: string;
  alias: string;
  args: Record<string, Value>;
  selections: Selection[];
  line: number;
}

class ParseError extends Error {}

function tokenize(source: string): Array<{ t: string; line: number }> {
  const out: Array<{ t: string; line: number }> = [];
  const re = /\s+|,|#[^\n]*|(\.\.\.|[{}():$!=[\]@]|"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?|[_A-Za-z][_0-9A-Za-z]*)/gy;
  let line = 1;
  let m: RegExpExecArray | null;
  while (re.lastIndex < source.length && (m = re.exec(source)) !== null) {
    if (m[1] !== undefined) out.push({ t: m[1], line });
    line += (m[0].match(/\n/g) ?? []).length;
  }
  if (re.lastIndex < source.length)
    throw new ParseError(`Parse error on "${source.slice(re.lastIndex, re.lastIndex + 10)}"`);
  return out;
}

export function parseQuery(source: string): {
  variables: string[];
  selections: Selection[];
  operation: 'query' | 'mutation';
} {
  const tokens = tokenize(source);
  let i = 0;
  const peek = () => tokens[i]?.t;
  const take = (want?: string) => {
    const tok = tokens[i++];
    if (tok === undefined || (want !== undefined && tok.t !== want))
      throw new ParseError(`Parse error on "${tok?.t ?? 'end of input'}" (expected ${want ?? 'a token'})`);
    return tok;
  };
  const value = (): Value => {
    const tok = take();
    if (tok.t === '$') return { kind: 'var', name: take().t };
    if (tok.t.startsWith('"')) return { kind: 'lit', value: JSON.parse(tok.t) };
    if (/^-?\d/.test(tok.t)) return { kind: 'lit', value: Number(tok.t) };
    if (tok.t === 'true' || tok.t === 'false') return { kind: 'lit', value: tok.t === 'true' };
    if (tok.t === 'null') return { kind: 'lit', value: null };
    return { kind: 'lit', value: tok.t }; // an enum value
  };
  const selectionSet = (): Selection[] => {
    take('{');
    const out: Selection[] = [];
    while (peek() !== '}') {
      const line = tokens[i]?.line ?? 0;
      if (peek() === '...') {
        take('...');
        take('on');
        const type = take().t;
        out.push({ kind: 'fragment', name: type, alias: type, args: {}, selections: selectionSet(), line });
        continue;
      }
      let alias = take().t;
      let name = alias;
      if (peek() === ':') {
        take(':');
        name = take().t;
      }
      const args: Record<string, Value> = {};
      if (peek() === '(') {
        take('(');
        while (peek() !== ')') {
          const arg = take().t;
          take(':');
          args[arg] = value();
        }
        take(')');
      }
      out.push({ kind: 'field', name, alias, args, selections: peek() === '{' ? selectionSet() : [], line });
    }
    take('}');
    return out;
  };
  const variables: string[] = [];
  let operation: 'query' | 'mutation' = 'query';
  if (peek() === 'query' || peek() === 'mutation') {
    operation = take().t as 'query' | 'mutation';
    if (peek() !== '(' && peek() !== '{') take(); // the operation's name
    if (peek() === '(') {
      take('(');
      while (peek() !== ')') {
        take('$');
        variables.push(take().t);
        take(':');
        while (peek() !== ')' && peek() !== '$') take(); // the type (String!, [Int!]!, …)
      }
      take(')');
    }
  }
  const selections = selectionSet();
  if (i !== tokens.length) throw new ParseError(`Parse error on "${peek()}"`);
  return { variables, selections, operation };
}

// ---- cost ---------------------------------------------------------------------------------------------

/** GitHub's rate-limit score of a query: connections' requests, parents' page sizes multiplied, / 100. */
export function queryCost(selections: Selection[], vars: Record<string, unknown>): number {
  let requests = 0;
  const walk = (sels: Selection[], multiplier: number) => {
    for (const s of sels) {
      const page = pageSize(s, vars);
      if (page !== null) {
        requests += multiplier;
        walk(s.selections, multiplier * page);
      } else walk(s.selections, multiplier);
    }
  };
  walk(selections, 1);
  return Math.max(1, Math.round(requests / 100));
}

function argValue(v: Value | undefined, vars: Record<string, unknown>): unknown {
  if (v === undefined) return undefined;
  return v.kind === 'var' ? vars[v.name] : v.value;
}

function pageSize(s: Selection, vars: Record<string, unknown>): number | null {
  if (s.kind !== 'field' || !CONNECTIONS.has(s.name)) return null;
  const n = argValue(s.args.first, vars) ?? argValue(s.args.last, vars);
  return typeof n === 'number' ? n : null;
}

// ---- the schema's part the fake knows -----------------------------------------------------------------

const CONNECTIONS = new Set(['labels', 'commits', 'contexts']);

interface Obj {
  __typename: string;
  [field: string]: unknown;
}

type Resolver = (parent: Obj, args: Record<string, unknown>) => unknown;

interface Context {
  state: FakeState;
  /** Lower-case owner an installation token may act on; null for a user's token. */
  account: string | null;
  cost: number;
  remaining: number;
  resetAt: string;
}

function connection<T>(items: T[], args: Record<string, unknown>, typename: string): Obj {
  const first = args.first as number | undefined;
  const last = args.last as number | undefined;
  const page = first !== undefined ? items.slice(0, first) : items.slice(Math.max(0, items.length - (last ?? 0)));
  return {
    __typename: typename,
    totalCount: items.length,
    nodes: page,
    pageInfo: {
      __typename: 'PageInfo',
      hasNextPage: first !== undefined && items.length > first,
      hasPreviousPage: last !== undefined && items.length > last,
    },
  };
}

const FAILED_CHECK = new Set(['failure', 'timed_out', 'action_required', 'startup_failure', 'cancelled', 'stale']);

/** The head commit's rollup of its latest check runs and statuses, as GitHub's StatusState. */
export function rollupState(runs: FakeCheckRun[], statuses: FakeStatus[]): string | null {
  if (runs.length === 0 && statuses.length === 0) return null;
  const states = [
    ...runs.map((r) =>
      (r.status ?? 'completed') !== 'completed'
        ? 'PENDING'
        : FAILED_CHECK.has(r.conclusion ?? '')
          ? 'FAILURE'
          : 'SUCCESS',
    ),
    ...statuses.map((s) => s.state.toUpperCase()),
  ];
  if (states.includes('FAILURE')) return 'FAILURE';
  if (states.includes('ERROR')) return 'ERROR';
  if (states.includes('PENDING')) return 'PENDING';
  return 'SUCCESS';
}

function latestRuns(runs: FakeCheckRun[]): FakeCheckRun[] {
  const byName = new Map(runs.map((run) => [run.name, run]));
  return runs.filter((run) => byName.get(run.name) === run);
}

function commitOf(ctx: Context, repo: string, sha: string): Obj {
  const runs = latestRuns(ctx.state.checkRuns[refKey(repo, sha)] ?? []);
  const statuses = latestStatuses(ctx.state.statuses[refKey(repo, sha)] ?? []);
  const contexts: Obj[] = [
    ...runs.map((r): Obj => ({
      __typename: 'CheckRun',
      databaseId: r.id,
      name: r.name,
      status: (r.status ?? 'completed').toUpperCase(),
      conclusion: (r.status ?? 'completed') === 'completed' && r.conclusion ? r.conclusion.toUpperCase() : null,
      startedAt: r.startedAt ?? null,
      completedAt: r.completedAt ?? null,
      detailsUrl: r.detailsUrl ?? null,
      title: r.outputTitle ?? null,
      summary: r.outputSummary ?? null,
      checkSuite: { __typename: 'CheckSuite', app: { __typename: 'App', slug: r.appSlug ?? 'github-actions' } },
    })),
    ...statuses.map((s): Obj => ({
      __typename: 'StatusContext',
      context: s.context,
      state: s.state.toUpperCase(),
      description: s.description ?? null,
      targetUrl: s.targetUrl ?? null,
      createdAt: s.updatedAt ?? s.createdAt ?? null,
    })),
  ];
  const state = rollupState(runs, statuses);
  return {
    __typename: 'Commit',
    oid: sha,
    statusCheckRollup:
      state === null
        ? null
        : {
            __typename: 'StatusCheckRollup',
            state,
            contexts: (_p: Obj, args: Record<string, unknown>) =>
              connection(contexts, args, 'StatusCheckRollupContextConnection'),
          },
  };
}

/** A pull request's node id, opaque as GitHub's (`PR_…`), and the pull request it names. */
function pullNodeId(repo: string, number: number): string {
  return `PR_${Buffer.from(`${repo.toLowerCase()}#${number}`).toString('base64url')}`;
}
function pullOfNodeId(id: unknown): { repo: string; number: number } | null {
  if (typeof id !== 'string' || !id.startsWith('PR_')) return null;
  const m = /^(.+)#(\d+)$/.exec(Buffer.from(id.slice(3), 'base64url').toString());
  return m ? { repo: m[1]!, number: Number(m[2]) } : null;
}

function pullRequestOf(ctx: Context, repo: string, number: number): Obj | null {
  const pull = ctx.state.pulls[pullKey(repo, number)];
  if (pull === undefined) return null;
  const head = commitOf(ctx, repo, pull.headSha);
  const headRepo =
    pull.headRepo === undefined ? (ctx.state.repos[repo.toLowerCase()]?.fullName ?? repo) : pull.headRepo;
  const merged = pull.merged ?? false;
  return {
    __typename: 'PullRequest',
    number,
    // As REST's payload (payloads.ts): the pull request's title.
    title: pull.title ?? `Pull request ${number}`,
    state: merged ? 'MERGED' : (pull.state ?? 'open').toUpperCase(),
    merged,
    id: pullNodeId(repo, number),
    headRefOid: pull.headSha,
    headRefName: pull.headRef ?? `agent/pr-${number}`,
    baseRefName: pull.baseRef ?? ctx.state.repos[repo.toLowerCase()]?.defaultBranch ?? 'main',
    isDraft: pull.draft ?? false,
    mergeStateStatus: (pull.mergeableState ?? 'clean').toUpperCase(),
    updatedAt: pull.updatedAt ?? '2024-01-01T00:00:00Z',
    author: { __typename: 'User', login: pull.author ?? 'octocat' },
    headRepository: headRepo === null ? null : { __typename: 'Repository', nameWithOwner: headRepo },
    labels: (_p: Obj, args: Record<string, unknown>) =>
      connection(
        (pull.labels ?? []).map((name): Obj => ({ __typename: 'Label', name })),
        args,
        'LabelConnection',
      ),
    commits: (_p: Obj, args: Record<string, unknown>) =>
      connection([{ __typename: 'PullRequestCommit', commit: head }], args, 'PullRequestCommitConnection'),
  };
}

/** Fields each type has (a field missing here is refused, as GitHub refuses a field its schema lacks). */
const FIELDS: Record<string, readonly string[]> = {
  Query: ['repository', 'rateLimit'],
  // Issue 36: putting a pull request back in the merge queue.
  Mutation: ['enqueuePullRequest'],
  EnqueuePullRequestPayload: ['mergeQueueEntry', 'clientMutationId'],
  MergeQueueEntry: ['position', 'state'],
  RateLimit: ['cost', 'remaining', 'resetAt', 'limit', 'used', 'nodeCount'],
  Repository: ['pullRequest', 'nameWithOwner'],
  PullRequest: [
    'id',
    'number',
    'title',
    'state',
    'merged',
    'headRefOid',
    'headRefName',
    'baseRefName',
    'isDraft',
    'mergeStateStatus',
    'updatedAt',
    'author',
    'headRepository',
    'labels',
    'commits',
  ],
  User: ['login'],
  Label: ['name'],
  PullRequestCommit: ['commit'],
  Commit: ['oid', 'statusCheckRollup'],
  StatusCheckRollup: ['state', 'contexts'],
  CheckRun: [
    'databaseId',
    'name',
    'status',
    'conclusion',
    'startedAt',
    'completedAt',
    'detailsUrl',
    'title',
    'summary',
    'checkSuite',
  ],
  CheckSuite: ['app'],
  App: ['slug'],
  StatusContext: ['context', 'state', 'description', 'targetUrl', 'createdAt'],
  PageInfo: ['hasNextPage', 'hasPreviousPage'],
  LabelConnection: ['nodes', 'totalCount', 'pageInfo'],
  PullRequestCommitConnection: ['nodes', 'totalCount', 'pageInfo'],
  StatusCheckRollupContextConnection: ['nodes', 'totalCount', 'pageInfo'],
};

/** The type a field's value has, for checking selections before anything is resolved. */
const FIELD_TYPES: Record<string, Record<string, string | string[]>> = {
  Query: { repository: 'Repository', rateLimit: 'RateLimit' },
  Mutation: { enqueuePullRequest: 'EnqueuePullRequestPayload' },
  EnqueuePullRequestPayload: { mergeQueueEntry: 'MergeQueueEntry' },
  Repository: { pullRequest: 'PullRequest' },
  PullRequest: {
    author: 'User',
    headRepository: 'Repository',
    labels: 'LabelConnection',
    commits: 'PullRequestCommitConnection',
  },
  LabelConnection: { nodes: 'Label', pageInfo: 'PageInfo' },
  PullRequestCommitConnection: { nodes: 'PullRequestCommit', pageInfo: 'PageInfo' },
  PullRequestCommit: { commit: 'Commit' },
  Commit: { statusCheckRollup: 'StatusCheckRollup' },
  StatusCheckRollup: { contexts: 'StatusCheckRollupContextConnection' },
  StatusCheckRollupContextConnection: { nodes: ['CheckRun', 'StatusContext'], pageInfo: 'PageInfo' },
  CheckRun: { checkSuite: 'CheckSuite' },
  CheckSuite: { app: 'App' },
};

interface GraphQLError {
  message: string;
  type?: string;
  path?: Array<string | number>;
  locations?: Array<{ line: number; column: number }>;
  extensions?: Record<string, unknown>;
}

function validate(
  selections: Selection[],
  types: string[],
  path: string[],
  errors: GraphQLError[],
  vars: Record<string, unknown>,
) {
  for (const s of selections) {
    if (s.kind === 'fragment') {
      if (!types.includes(s.name))
        errors.push({ message: `Fragment on ${s.name} can't be spread inside ${types.join(' | ')}`, path });
      else validate(s.selections, [s.name], path, errors, vars);
      continue;
    }
    if (s.name === '__typename') continue;
    const on = types.find((t) => FIELDS[t]?.includes(s.name));
    if (on === undefined) {
      errors.push({
        message: `Field '${s.name}' doesn't exist on type '${types[0]}'`,
        path: [...path, s.alias],
        locations: [{ line: s.line, column: 1 }],
        extensions: { code: 'undefinedField', typeName: types[0], fieldName: s.name },
      });
      continue;
    }
    if (CONNECTIONS.has(s.name) && pageSize(s, vars) === null)
      errors.push({
        message: `You must provide a \`first\` or \`last\` value to properly paginate the \`${s.name}\` connection.`,
        path: [...path, s.alias],
        extensions: { code: 'missingRequiredArguments' },
      });
    const child = FIELD_TYPES[on]?.[s.name];
    if (child !== undefined)
      validate(s.selections, Array.isArray(child) ? child : [child], [...path, s.alias], errors, vars);
  }
}

function resolve(value: unknown, selections: Selection[], vars: Record<string, unknown>): unknown {
  if (value === null || value === undefined) return null;
  if (Array.isArray(value)) return value.map((v) => resolve(v, selections, vars));
  const obj = value as Obj;
  const out: Record<string, unknown> = {};
  for (const s of selections) {
    if (s.kind === 'fragment') {
      if (obj.__typename === s.name) Object.assign(out, resolve(obj, s.selections, vars));
      continue;
    }
    const args = Object.fromEntries(Object.entries(s.args).map(([k, v]) => [k, argValue(v, vars)]));
    let field = obj[s.name];
    if (typeof field === 'function') field = (field as Resolver)(obj, args);
    out[s.alias] = s.selections.length > 0 ? resolve(field, s.selections, vars) : (field ?? null);
  }
  return out;
}

/** Answers one GraphQL request body: { status, body, cost } (cost 0 when the query was refused). */
export function answerGraphQL(
  body: unknown,
  state: FakeState,
  caller: { account: string | null },
  limits: { remaining: number; resetAt: string },
): { status: number; body: unknown; cost: number } {
  const { query, variables } = (body ?? {}) as { query?: unknown; variables?: Record<string, unknown> };
  if (typeof query !== 'string') return { status: 400, body: { message: 'Problems parsing JSON' }, cost: 0 };
  const vars = variables ?? {};
  let parsed: ReturnType<typeof parseQuery>;
  try {
    parsed = parseQuery(query);
  } catch (err) {
    return { status: 200, body: { errors: [{ message: (err as Error).message }] }, cost: 0 };
  }
  const errors: GraphQLError[] = [];
  validate(parsed.selections, [parsed.operation === 'mutation' ? 'Mutation' : 'Query'], [], errors, vars);
  for (const v of parsed.variables)
    if (!(v in vars)) errors.push({ message: `Variable $${v} of type String! was provided invalid value` });
  if (errors.length > 0) return { status: 200, body: { errors }, cost: 0 };

  const cost = queryCost(parsed.selections, vars);
  const ctx: Context = {
    state,
    account: caller.account,
    cost,
    remaining: limits.remaining - cost,
    resetAt: limits.resetAt,
  };
  const notFound: GraphQLError[] = [];
  if (parsed.operation === 'mutation') return mutate(parsed.selections, vars, state, caller);
  const root: Obj = {
    __typename: 'Query',
    rateLimit: {
      __typename: 'RateLimit',
      cost,
      remaining: ctx.remaining,
      resetAt: ctx.resetAt,
      limit: 5000,
      used: 5000 - ctx.remaining,
      nodeCount: 0,
    },
    repository: (_p: Obj, args: Record<string, unknown>) => {
      const full = `${String(args.owner)}/${String(args.name)}`;
      const repo = state.repos[full.toLowerCase()];
      if (repo === undefined || (ctx.account !== null && ctx.account !== String(args.owner).toLowerCase())) {
        notFound.push({ type: 'NOT_FOUND', message: `Could not resolve to a Repository with the name '${full}'.` });
        return null;
      }
      return {
        __typename: 'Repository',
        nameWithOwner: repo.fullName,
        pullRequest: (_q: Obj, a: Record<string, unknown>) => {
          const pr = pullRequestOf(ctx, repo.fullName, Number(a.number));
          if (pr === null)
            notFound.push({
              type: 'NOT_FOUND',
              message: `Could not resolve to a PullRequest with the number of ${Number(a.number)}.`,
            });
          return pr;
        },
      };
    },
  };
  // Aliases resolved one by one so each NOT_FOUND carries its path.
  const data: Record<string, unknown> = {};
  for (const s of parsed.selections) {
    const before = notFound.length;
    Object.assign(data, resolve(root, [s], vars));
    for (const e of notFound.slice(before)) e.path = [s.alias];
  }
  return { status: 200, body: notFound.length > 0 ? { data, errors: notFound } : { data }, cost };
}

/**
 * Issue 36: `enqueuePullRequest(input: {pullRequestId, expectedHeadOid})` puts a pull request back in
 * the merge queue: recorded in the state. A head other than the expected one is refused, as GitHub
 * refuses it; an unknown id is NOT_FOUND.
 */
function mutate(
  selections: Selection[],
  vars: Record<string, unknown>,
  state: FakeState,
  caller: { account: string | null },
): { status: number; body: unknown; cost: number } {
  const errors: GraphQLError[] = [];
  const root: Obj = {
    __typename: 'Mutation',
    enqueuePullRequest: (_p: Obj, args: Record<string, unknown>) => {
      const input = (args.input ?? {}) as { pullRequestId?: unknown; expectedHeadOid?: unknown };
      const named = pullOfNodeId(input.pullRequestId);
      const pull = named && state.pulls[pullKey(named.repo, named.number)];
      if (!named || !pull || (caller.account !== null && !named.repo.startsWith(`${caller.account}/`))) {
        errors.push({
          type: 'NOT_FOUND',
          message: `Could not resolve to a node with the global id of '${String(input.pullRequestId)}'`,
        });
        return null;
      }
      const expected = typeof input.expectedHeadOid === 'string' ? input.expectedHeadOid : null;
      if (expected !== null && expected !== pull.headSha) {
        errors.push({ type: 'UNPROCESSABLE', message: 'Head sha was modified since the expected head oid' });
        return null;
      }
      (state.enqueued ??= []).push({ repository: named.repo, number: named.number, expectedHeadOid: expected });
      const position = state.enqueued.length;
      return {
        __typename: 'EnqueuePullRequestPayload',
        clientMutationId: null,
        mergeQueueEntry: { __typename: 'MergeQueueEntry', position, state: 'QUEUED' },
      };
    },
  };
  const data: Record<string, unknown> = {};
  for (const s of selections) Object.assign(data, resolve(root, [s], vars));
  return { status: 200, body: errors.length > 0 ? { data, errors } : { data }, cost: 1 };
}
