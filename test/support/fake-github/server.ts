// A fake GitHub for tests: a real node:http REST server (optionally under a GitHub Enterprise
// prefix such as /api/v3) plus a second, HTTPS "blob" host serving job logs behind signed URLs, as
// GitHub's jobs-logs redirect does. It records every request with its headers on both hosts, injects
// faults (5xx, rate limits), honours If-None-Match, paginates with Link headers, validates its JSON
// answers against GitHub's OpenAPI schemas, and can send signed webhooks. SPEC E1–E4, J1–J2, K5, K8.
import { createHmac, randomBytes, createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import {
  createServer as createHttpServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { appKeyPair, identify, type Caller } from './credentials.js';
import * as gh from './payloads.js';
import { compileRoute, ROUTES, type Answer, type Route } from './routes.js';
import { completeWorkflowRun, dispatchedRuns, holdRunForApproval, type FakeDispatchedRun } from './actions-runs.js';
import {
  branchKey,
  createState,
  ensureRepo,
  isoNow,
  nextId,
  pullKey,
  refKey,
  compareKey,
  type FakeCheckRun,
  type FakeComment,
  type FakeCompare,
  type FakeCompareFile,
  type FakePull,
  type FakeReview,
  type FakeRole,
  type FakeState,
  type FakeStatus,
} from './state.js';
import { loadResponseValidator, type ResponseValidator, type Violation } from './validate.js';
import { sendWebhook, type SentWebhook, type WebhookOptions } from './webhook.js';
import { answerGraphQL } from './graphql.js';

const TLS_DIR = new URL('./tls/', import.meta.url);
/** PEM of the blob host's self-signed certificate (test-only): trust it to read logs over https. */
export const FAKE_BLOB_CA = readFileSync(new URL('cert.pem', TLS_DIR), 'utf8');

export interface RecordedRequest {
  host: 'api' | 'blob';
  method: string;
  /** Path and query as received (including any /api/v3 prefix). */
  path: string;
  headers: IncomingHttpHeaders;
  body: unknown;
  /** The status answered (set once answered). */
  status: number | null;
  /** The operation matched, e.g. "GET /user"; null for the blob host or an unknown route. */
  operation: string | null;
  at: number;
}

export interface FakeGitHubOptions {
  /** Serve the REST API under this path, as GitHub Enterprise does ("/api/v3"); default none. */
  prefix?: string;
  /** Validate JSON answers against GitHub's OpenAPI schemas (default true). */
  validate?: boolean;
  /** Each API answer waits this long first: a simulated round trip to GitHub (default 0). */
  latencyMs?: number;
  /**
   * Count the rate limit as GitHub does (a 304 free, GraphQL by its point cost) in the
   * x-ratelimit-* headers, from `limit` per window per resource; default: a fixed 4999 remaining.
   */
  rateLimit?: { limit: number };
  /** The login signed in to the fake's web pages (V3: the owner of an App created on a personal account); default octocat. */
  webUser?: string;
}

/** What the requests so far cost against the rate limit, counted as GitHub counts (N3). */
export interface FakeSpend {
  /** REST requests answered with anything but 304. */
  rest: number;
  /** GraphQL points (each query's documented score). */
  graphql: number;
  /** GraphQL queries answered. */
  graphqlQueries: number;
}

export interface RateLimitOptions {
  /** Default 403 for the primary limit, 429 for the secondary one. */
  status?: 403 | 429;
  /** primary: "API rate limit exceeded"; secondary: "You have exceeded a secondary rate limit". */
  kind?: 'primary' | 'secondary';
}

export interface FakeGitHub {
  /** REST base URL to give the client (includes the prefix). */
  readonly url: string;
  /** https://127.0.0.1:PORT of the blob host. */
  readonly blobOrigin: string;
  /** The blob host's certificate (PEM), to trust in tests that read logs. */
  readonly blobCa: string;
  readonly state: FakeState;
  /** Every request on both hosts, in arrival order. */
  readonly requests: RecordedRequest[];
  /** Answers that did not match GitHub's schema. */
  readonly violations: Violation[];
  /** The rate limit spent since start (or resetSpend), as GitHub counts it. */
  readonly spend: FakeSpend;
  resetSpend(): void;

  addPull(repo: string, number: number, pull: FakePull): FakePull;
  setHead(repo: string, number: number, sha: string): void;
  /** Branch `branch` points at `sha`: `commits/{branch}/…` reads that commit (null forgets the branch). */
  setBranch(repo: string, branch: string, sha: string | null): void;
  addCheckRun(repo: string, sha: string, run: Omit<FakeCheckRun, 'id'> & { id?: number }): FakeCheckRun;
  addStatus(repo: string, sha: string, status: FakeStatus): FakeStatus;
  /** null removes protection (404); 'forbidden' answers 403. */
  setRequiredChecks(repo: string, branch: string, contexts: string[] | null | 'forbidden'): void;
  setLog(jobId: number, text: string | Buffer): void;
  addComment(repo: string, number: number, comment: Omit<FakeComment, 'id'> & { id?: number }): FakeComment;
  addReview(repo: string, number: number, review: Omit<FakeReview, 'id'> & { id?: number }): FakeReview;
  /** What GET compare/{base}...{head} answers (files beyond 300 are cut, as GitHub does); unset pairs answer 404. */
  setCompare(
    repo: string,
    base: string,
    head: string,
    files: FakeCompareFile[],
    opts?: Omit<FakeCompare, 'files'>,
  ): FakeCompare;
  /**
   * 'forbidden': rerun-failed-jobs in `repo` answers 403, as for a token without actions: write; null
   * allows it again. Accepted re-runs are recorded in `state.reruns`.
   */
  setRerunPolicy(repo: string, policy: 'forbidden' | null): void;
  /** Issue 35: the workflow runs dispatches made (POST actions/workflows/{id}/dispatches), by id, with their inputs. */
  workflowDispatches(): FakeDispatchedRun[];
  /** A dispatched workflow run goes in progress (null) or completes with `conclusion`. */
  completeWorkflowRun(id: number, conclusion: 'success' | 'failure' | 'cancelled' | 'timed_out' | null): void;
  /** Issue 35: a push's workflow run held for approval (`action_required`), as GitHub holds a Copilot push's. */
  holdRunForApproval(repo: string, headSha: string, name: string): FakeDispatchedRun;
  /** The workflow runs of a commit's push (held, approved, …). */
  pushRunsOf(headSha: string): FakeDispatchedRun[];
  /** `login`'s role on `repo` (GET collaborators/{username}/permission); null: no collaborator (404). */
  setCollaborator(repo: string, login: string, role: FakeRole | null): void;
  /** `login` adds `label` to the pull request (as a person does on GitHub): the label, and its `labeled` event. */
  labelBy(repo: string, number: number, label: string, login: string): void;
  /** A personal token for `login` (generated unless given). */
  addUserToken(login: string, token?: string): string;
  /** Registers the GitHub App; returns what fixloop is configured with. */
  createApp(opts?: { id?: number; slug?: string }): { appId: string; privateKey: string; slug: string };
  /**
   * V3: what GitHub's "new App" page does once a person confirms a manifest: the App exists (it is now
   * the fake's App) and the returned one-hour code converts once (POST /app-manifests/{code}/conversions).
   * The page itself answers POST /settings/apps/new and /organizations/{org}/settings/apps/new too.
   */
  createAppFromManifest(manifest: Record<string, unknown>, opts?: { organization?: string; owner?: string }): string;
  /** Installs the App on an owner; returns the installation id. */
  addInstallation(owner: string, id?: number): number;
  /**
   * An installation token on `owner` (the App installed there if it is not), valid for a day, to be
   * used as a plain token — what Actions' GITHUB_TOKEN is: GET /user answers it 403, and what it
   * writes is authored by `<app slug>[bot]`.
   */
  addInstallationToken(owner: string, token?: string): string;

  /** The next requests whose path matches answer these statuses, one each, before any real handling. */
  failNext(path: RegExp, statuses: number[]): void;
  /** The next request whose path matches is rate limited: retry-after, x-ratelimit-remaining 0, reset `seconds` ahead. */
  rateLimitNext(path: RegExp, seconds: number, opts?: RateLimitOptions): void;

  requestsTo(path: RegExp, host?: 'api' | 'blob'): RecordedRequest[];
  clearRequests(): void;
  /** Throws listing every schema violation seen so far. */
  assertNoViolations(): void;
  sendWebhook(
    url: string,
    event: string,
    payload: unknown,
    secret: string,
    opts?: WebhookOptions,
  ): Promise<SentWebhook>;
  close(): Promise<void>;
}

interface Fault {
  path: RegExp;
  answers: Array<{ status: number; headers: Record<string, string>; body: unknown }>;
}

const COMPILED = ROUTES.map((route) => ({ route, ...compileRoute(route) }));

export async function startFakeGitHub(opts: FakeGitHubOptions = {}): Promise<FakeGitHub> {
  const prefix = (opts.prefix ?? '').replace(/\/+$/, '');
  const state = createState();
  const requests: RecordedRequest[] = [];
  const violations: Violation[] = [];
  const faults: Fault[] = [];
  const spend: FakeSpend = { rest: 0, graphql: 0, graphqlQueries: 0 };
  const graphqlPath = prefix === '/api/v3' ? '/api/graphql' : `${prefix}/graphql`;
  const limitHeaders = (resource: 'core' | 'graphql'): Record<string, string> => {
    if (opts.rateLimit === undefined) return rateHeaders(state);
    const used = resource === 'core' ? spend.rest : spend.graphql;
    return {
      ...rateHeaders(state),
      'x-ratelimit-limit': String(opts.rateLimit.limit),
      'x-ratelimit-remaining': String(Math.max(0, opts.rateLimit.limit - used)),
      'x-ratelimit-used': String(used),
      'x-ratelimit-resource': resource,
    };
  };
  const validator: ResponseValidator | null = opts.validate === false ? null : loadResponseValidator();
  const blobSecret = randomBytes(16).toString('hex');
  /** Who is signed in to the fake's web pages (the "new App" page). */
  const webUser = opts.webUser ?? 'octocat';
  let apiOrigin = '';
  let blobOrigin = '';

  const urls = (): gh.Urls => ({ api: `${apiOrigin}${prefix}`, web: apiOrigin });
  const signLog = (jobId: number, expires: number): string =>
    createHmac('sha256', blobSecret).update(`${jobId}:${expires}`).digest('hex');
  const blobUrl = (jobId: number): string => {
    const expires = Math.floor(state.now().getTime() / 1000) + 60;
    return `${blobOrigin}/logs/${jobId}/job-logs.txt?se=${expires}&sp=r&sig=${signLog(jobId, expires)}`;
  };

  function record(host: 'api' | 'blob', req: IncomingMessage, body: unknown): RecordedRequest {
    const entry: RecordedRequest = {
      host,
      method: req.method ?? 'GET',
      path: req.url ?? '/',
      headers: { ...req.headers },
      body,
      status: null,
      operation: null,
      at: Date.now(),
    };
    requests.push(entry);
    return entry;
  }

  function takeFault(path: string): Fault['answers'][number] | null {
    const fault = faults.find((f) => f.path.test(path));
    if (fault === undefined) return null;
    const answer = fault.answers.shift()!;
    if (fault.answers.length === 0) faults.splice(faults.indexOf(fault), 1);
    return answer;
  }

  function send(
    res: ServerResponse,
    entry: RecordedRequest,
    status: number,
    headers: Record<string, string>,
    body: string | Buffer | null,
  ): void {
    entry.status = status;
    if (entry.host === 'api' && status !== 304 && entry.operation !== 'POST /graphql') spend.rest++;
    res.writeHead(status, headers);
    res.end(body ?? undefined);
  }

  function sendJson(
    req: IncomingMessage,
    res: ServerResponse,
    entry: RecordedRequest,
    status: number,
    headers: Record<string, string>,
    body: unknown,
  ): void {
    const text = JSON.stringify(body);
    if (validator !== null && entry.operation !== null) {
      const violation = validator.check(entry.operation, status, body);
      if (violation !== null) violations.push(violation);
    }
    const all: Record<string, string> = {
      'content-type': 'application/json; charset=utf-8',
      ...limitHeaders('core'),
      ...headers,
    };
    if ((req.method === 'GET' || req.method === 'HEAD') && status === 200) {
      const etag = `W/"${createHash('sha1').update(text).digest('hex')}"`;
      all.etag = etag;
      if (req.headers['if-none-match'] === etag) {
        delete all['content-type'];
        send(res, entry, 304, all, null);
        return;
      }
    }
    send(res, entry, status, all, text);
  }

  function answerApi(req: IncomingMessage, res: ServerResponse, entry: RecordedRequest, url: URL): void {
    const fault = takeFault(url.pathname);
    if (fault !== null) {
      send(
        res,
        entry,
        fault.status,
        { 'content-type': 'application/json; charset=utf-8', ...fault.headers },
        JSON.stringify(fault.body),
      );
      return;
    }
    if (url.pathname === graphqlPath && req.method === 'POST') return answerGraphQLRequest(req, res, entry);
    const newAppPage = /^\/(?:organizations\/([^/]+)\/)?settings\/apps\/new$/.exec(url.pathname);
    if (newAppPage !== null && req.method === 'POST') return answerNewAppPage(res, entry, url, newAppPage[1] ?? null);
    if (!url.pathname.startsWith(`${prefix}/`)) return sendJson(req, res, entry, 404, {}, gh.error('Not Found', 404));
    const path = url.pathname.slice(prefix.length);
    let matched: { route: Route; params: Record<string, string> } | null = null;
    for (const candidate of COMPILED) {
      const m = candidate.method === req.method ? candidate.pattern.exec(path) : null;
      if (m === null) continue;
      matched = {
        route: candidate.route,
        params: Object.fromEntries(candidate.names.map((name, i) => [name, decodeURIComponent(m[i + 1]!)])),
      };
      break;
    }
    if (matched === null) return sendJson(req, res, entry, 404, {}, gh.error('Not Found', 404));
    entry.operation = matched.route.operation;

    const caller = identify(state, header(req.headers.authorization));
    const refusal = refuse(matched.route, caller, matched.params);
    if (refusal !== null) return sendJson(req, res, entry, refusal.status, {}, refusal.body);

    const answer = matched.route.handle({
      params: matched.params,
      query: url.searchParams,
      body: entry.body,
      caller: caller!,
      state,
      urls: urls(),
      blobUrl,
    });
    if ('list' in answer) return sendPage(req, res, entry, url, answer);
    if (answer.body === undefined)
      return send(res, entry, answer.status, { ...rateHeaders(state), ...answer.headers }, null);
    sendJson(req, res, entry, answer.status, answer.headers ?? {}, answer.body);
  }

  /**
   * V3: GitHub's "new App" page receiving a manifest (form field `manifest`) from a browser signed in
   * as `webUser`: the App is created at once (as if the person confirmed it), and the browser is sent
   * to the manifest's redirect_url with a one-hour code and the state it came with.
   */
  function answerNewAppPage(res: ServerResponse, entry: RecordedRequest, url: URL, organization: string | null): void {
    entry.operation = null;
    const form = new URLSearchParams(typeof entry.body === 'string' ? entry.body : '');
    let manifest: Record<string, unknown>;
    try {
      manifest = JSON.parse(form.get('manifest') ?? '') as Record<string, unknown>;
    } catch {
      return send(
        res,
        entry,
        422,
        { 'content-type': 'text/plain' },
        'Invalid GitHub App configuration: manifest is not JSON',
      );
    }
    const stateParam = url.searchParams.get('state');
    state.manifests.push({
      manifest,
      organization: organization === null ? null : decodeURIComponent(organization),
      state: stateParam,
    });
    const redirect = typeof manifest.redirect_url === 'string' ? manifest.redirect_url : '';
    const hook = manifest.hook_attributes as { url?: unknown } | undefined;
    if (typeof manifest.url !== 'string' || typeof hook?.url !== 'string' || !/^https?:\/\//.test(redirect))
      return send(res, entry, 422, { 'content-type': 'text/plain' }, 'Invalid GitHub App configuration');
    const code = createAppFromManifest(
      manifest,
      organization === null ? {} : { organization: decodeURIComponent(organization) },
    );
    const back = new URL(redirect);
    back.searchParams.set('code', code);
    if (stateParam !== null) back.searchParams.set('state', stateParam);
    send(res, entry, 302, { location: back.toString() }, null);
  }

  function createAppFromManifest(
    manifest: Record<string, unknown>,
    o: { organization?: string; owner?: string } = {},
  ): string {
    const name = typeof manifest.name === 'string' && manifest.name !== '' ? manifest.name : 'fixloop';
    const slug = name
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, '');
    const keys = appKeyPair();
    const id = nextId(state);
    state.app = { id, slug, publicKey: keys.publicKey };
    const code = randomBytes(10).toString('hex');
    state.manifestCodes[code] = {
      id,
      slug,
      name,
      owner: o.organization
        ? { login: o.organization, type: 'Organization' }
        : { login: o.owner ?? webUser, type: 'User' },
      pem: keys.privateKey,
      webhookSecret: randomBytes(20).toString('hex'),
      clientId: `Iv23${randomBytes(8).toString('hex')}`,
      clientSecret: randomBytes(20).toString('hex'),
    };
    return code;
  }

  /** N3: the poll's bulk reads (graphql.ts); priced by GitHub's formula, never checked against REST schemas. */
  function answerGraphQLRequest(req: IncomingMessage, res: ServerResponse, entry: RecordedRequest): void {
    entry.operation = 'POST /graphql';
    const caller = identify(state, header(req.headers.authorization));
    const json = { 'content-type': 'application/json; charset=utf-8' };
    if (caller === null || caller.kind === 'app') {
      send(
        res,
        entry,
        401,
        json,
        JSON.stringify({ message: 'Bad credentials', documentation_url: 'https://docs.github.com/graphql' }),
      );
      return;
    }
    const limit = opts.rateLimit?.limit ?? 5000;
    const answer = answerGraphQL(
      entry.body,
      state,
      { account: caller.kind === 'installation' ? caller.account : null },
      {
        remaining: limit - spend.graphql,
        resetAt: new Date(Math.ceil(state.now().getTime() / 1000 + 3600) * 1000)
          .toISOString()
          .replace(/\.\d{3}Z$/, 'Z'),
      },
    );
    spend.graphql += answer.cost;
    if (answer.cost > 0) spend.graphqlQueries++;
    send(res, entry, answer.status, { ...json, ...limitHeaders('graphql') }, JSON.stringify(answer.body));
  }

  function refuse(
    route: Route,
    caller: Caller | null,
    params: Record<string, string>,
  ): { status: number; body: unknown } | null {
    if (route.access === 'public') return null;
    if (route.access === 'app') {
      return caller?.kind === 'app'
        ? null
        : { status: 401, body: gh.error('A JSON web token could not be decoded', 401) };
    }
    if (caller === null || caller.kind === 'app')
      return { status: 401, body: gh.error(caller === null ? 'Requires authentication' : 'Bad credentials', 401) };
    if (route.access === 'repo' && caller.kind === 'installation' && caller.account !== params.owner?.toLowerCase()) {
      return { status: 404, body: gh.error('Not Found', 404) };
    }
    return null;
  }

  function sendPage(
    req: IncomingMessage,
    res: ServerResponse,
    entry: RecordedRequest,
    url: URL,
    answer: Extract<Answer, { list: unknown[] }>,
  ): void {
    const perPage = clamp(Number(url.searchParams.get('per_page') ?? 30), 1, 100);
    const page = Math.max(1, Math.floor(Number(url.searchParams.get('page') ?? 1)) || 1);
    const items = answer.list.slice((page - 1) * perPage, page * perPage);
    const last = Math.max(1, Math.ceil(answer.list.length / perPage));
    const body = answer.wrap === undefined ? items : answer.wrap(items, answer.list.length);
    const pageUrl = (n: number): string => {
      const u = new URL(url.toString());
      u.searchParams.set('page', String(n));
      return u.toString();
    };
    const links: string[] = [];
    if (page < last) links.push(`<${pageUrl(page + 1)}>; rel="next"`, `<${pageUrl(last)}>; rel="last"`);
    if (page > 1) links.push(`<${pageUrl(1)}>; rel="first"`, `<${pageUrl(page - 1)}>; rel="prev"`);
    sendJson(req, res, entry, 200, links.length > 0 ? { link: links.join(', ') } : {}, body);
  }

  function answerBlob(req: IncomingMessage, res: ServerResponse, entry: RecordedRequest, url: URL): void {
    const fault = takeFault(url.pathname);
    if (fault !== null) return send(res, entry, fault.status, fault.headers, JSON.stringify(fault.body));
    const m = /^\/logs\/(\d+)\/job-logs\.txt$/.exec(url.pathname);
    const jobId = Number(m?.[1]);
    const expires = Number(url.searchParams.get('se'));
    const log = state.logs[jobId];
    if (m === null || req.method !== 'GET' || log === undefined)
      return send(res, entry, 404, { 'content-type': 'text/plain' }, 'BlobNotFound');
    if (url.searchParams.get('sig') !== signLog(jobId, expires) || expires * 1000 < state.now().getTime()) {
      return send(res, entry, 403, { 'content-type': 'text/plain' }, 'AuthenticationFailed');
    }
    send(
      res,
      entry,
      200,
      { 'content-type': 'text/plain; charset=utf-8', 'content-length': String(Buffer.byteLength(log)) },
      log,
    );
  }

  const handler = (host: 'api' | 'blob') => (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let body: unknown = raw === '' ? null : raw;
      if (raw !== '' && /json/.test(header(req.headers['content-type']) ?? '')) {
        try {
          body = JSON.parse(raw);
        } catch {
          /* recorded as text */
        }
      }
      const entry = record(host, req, body);
      const url = new URL(req.url ?? '/', host === 'api' ? apiOrigin : blobOrigin);
      const answer = () => {
        try {
          (host === 'api' ? answerApi : answerBlob)(req, res, entry, url);
        } catch (err) {
          send(
            res,
            entry,
            500,
            { 'content-type': 'text/plain' },
            `fake GitHub bug: ${(err as Error).stack ?? String(err)}`,
          );
        }
      };
      if (host === 'api' && (opts.latencyMs ?? 0) > 0) setTimeout(answer, opts.latencyMs);
      else answer();
    });
  };

  const api = createHttpServer(handler('api'));
  const blob = createHttpsServer(
    { key: readFileSync(new URL('key.pem', TLS_DIR)), cert: FAKE_BLOB_CA },
    handler('blob'),
  );
  apiOrigin = `http://127.0.0.1:${await listen(api)}`;
  blobOrigin = `https://127.0.0.1:${await listen(blob)}`;

  return {
    url: `${apiOrigin}${prefix}`,
    blobOrigin,
    blobCa: FAKE_BLOB_CA,
    state,
    requests,
    violations,
    spend,
    resetSpend() {
      spend.rest = 0;
      spend.graphql = 0;
      spend.graphqlQueries = 0;
    },

    addPull(repo, number, pull) {
      ensureRepo(state, repo);
      const record: FakePull = { updatedAt: isoNow(state), ...pull };
      state.pulls[pullKey(repo, number)] = record;
      return record;
    },
    setHead(repo, number, sha) {
      const pull = state.pulls[pullKey(repo, number)];
      if (pull === undefined) throw new Error(`no pull request ${pullKey(repo, number)} in the fake`);
      pull.headSha = sha;
      pull.updatedAt = isoNow(state);
    },
    setBranch(repo, branch, sha) {
      ensureRepo(state, repo);
      if (sha === null) delete state.branches[branchKey(repo, branch)];
      else state.branches[branchKey(repo, branch)] = sha;
    },
    addCheckRun(repo, sha, run) {
      ensureRepo(state, repo);
      const record: FakeCheckRun = { ...run, id: run.id ?? nextId(state) };
      (state.checkRuns[refKey(repo, sha)] ??= []).push(record);
      return record;
    },
    addStatus(repo, sha, status) {
      ensureRepo(state, repo);
      const now = isoNow(state);
      const record: FakeStatus = { createdAt: now, updatedAt: now, ...status, id: status.id ?? nextId(state) };
      (state.statuses[refKey(repo, sha)] ??= []).push(record);
      return record;
    },
    setRequiredChecks(repo, branch, contexts) {
      ensureRepo(state, repo);
      const key = branchKey(repo, branch);
      if (contexts === null) delete state.protection[key];
      else
        state.protection[key] =
          contexts === 'forbidden'
            ? 'forbidden'
            : { contexts, checks: contexts.map((context) => ({ context, app_id: null })) };
    },
    setLog(jobId, text) {
      state.logs[jobId] = typeof text === 'string' ? text : text.toString('utf8');
    },
    addComment(repo, number, comment) {
      ensureRepo(state, repo);
      const now = isoNow(state);
      const record: FakeComment = { createdAt: now, updatedAt: now, ...comment, id: comment.id ?? nextId(state) };
      (state.comments[pullKey(repo, number)] ??= []).push(record);
      return record;
    },
    addReview(repo, number, review) {
      ensureRepo(state, repo);
      const record: FakeReview = { submittedAt: isoNow(state), ...review, id: review.id ?? nextId(state) };
      (state.reviews[pullKey(repo, number)] ??= []).push(record);
      return record;
    },
    setCompare(repo, base, head, files, opts = {}) {
      ensureRepo(state, repo);
      const record: FakeCompare = { ...opts, files };
      state.compares[compareKey(repo, base, head)] = record;
      return record;
    },
    workflowDispatches() {
      return Object.values(dispatchedRuns(state)).filter((r) => r.event === undefined);
    },
    holdRunForApproval(repo, headSha, name) {
      return holdRunForApproval(state, repo, headSha, name);
    },
    pushRunsOf(headSha) {
      return Object.values(dispatchedRuns(state)).filter((r) => r.headSha === headSha);
    },
    completeWorkflowRun(id, conclusion) {
      completeWorkflowRun(state, id, conclusion);
    },
    setRerunPolicy(repo, policy) {
      ensureRepo(state, repo);
      if (policy === null) delete state.rerunPolicy[repo.toLowerCase()];
      else state.rerunPolicy[repo.toLowerCase()] = policy;
    },
    setCollaborator(repo, login, role) {
      const key = ensureRepo(state, repo).fullName.toLowerCase();
      const people = (state.collaborators[key] ??= {});
      if (role === null) delete people[login.toLowerCase()];
      else people[login.toLowerCase()] = role;
    },
    labelBy(repo, number, label, login) {
      const key = pullKey(repo, number);
      const pull = state.pulls[key];
      if (pull === undefined) throw new Error(`no pull request ${key}`);
      const labels = (pull.labels ??= []);
      if (!labels.some((l) => l.toLowerCase() === label.toLowerCase())) labels.push(label);
      pull.updatedAt = isoNow(state);
      (state.labelEvents[key] ??= []).push({ id: nextId(state), label, actor: login, createdAt: isoNow(state) });
    },
    addUserToken(login, token = `ghp_${randomBytes(18).toString('base64url')}`) {
      state.userTokens[token] = login;
      return token;
    },
    createApp({ id = 4242, slug = 'fixloop-test' } = {}) {
      const keys = appKeyPair();
      state.app = { id, slug, publicKey: keys.publicKey };
      return { appId: String(id), privateKey: keys.privateKey, slug };
    },
    createAppFromManifest,
    addInstallation(owner, id = nextId(state)) {
      state.installations[owner.toLowerCase()] = id;
      return id;
    },
    addInstallationToken(owner, token = `ghs_${randomBytes(18).toString('base64url')}`) {
      const account = owner.toLowerCase();
      const installationId = (state.installations[account] ??= nextId(state));
      const expiresAt = new Date(state.now().getTime() + 24 * 3600_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
      state.installationTokens[token] = { installationId, account, expiresAt };
      return token;
    },

    failNext(path, statuses) {
      faults.push({
        path,
        answers: statuses.map((status) => ({
          status,
          headers: {},
          body: gh.error(status >= 500 ? 'Server Error' : 'Error', status),
        })),
      });
    },
    rateLimitNext(path, seconds, { kind = 'primary', status = kind === 'primary' ? 403 : 429 } = {}) {
      const reset = Math.ceil(state.now().getTime() / 1000 + seconds);
      const message =
        kind === 'primary'
          ? 'API rate limit exceeded for installation.'
          : 'You have exceeded a secondary rate limit. Please wait a few minutes before you try again.';
      const headers = {
        'retry-after': String(seconds),
        'x-ratelimit-limit': '5000',
        'x-ratelimit-remaining': '0',
        'x-ratelimit-used': '5000',
        'x-ratelimit-reset': String(reset),
      };
      faults.push({ path, answers: [{ status, headers, body: gh.error(message, status) }] });
    },

    requestsTo(path, host) {
      return requests.filter((r) => path.test(r.path) && (host === undefined || r.host === host));
    },
    clearRequests() {
      requests.length = 0;
    },
    assertNoViolations() {
      if (violations.length > 0) {
        throw new Error(
          `fake GitHub answered outside GitHub's schema:\n${violations.map((v) => `${v.key}\n  ${v.errors.join('\n  ')}`).join('\n')}`,
        );
      }
    },
    sendWebhook: (url, event, payload, secret, webhookOpts) => sendWebhook(url, event, payload, secret, webhookOpts),
    async close() {
      await Promise.all([api, blob].map((server) => closeServer(server)));
    },
  };
}

function rateHeaders(state: FakeState): Record<string, string> {
  return {
    'x-ratelimit-limit': '5000',
    'x-ratelimit-remaining': '4999',
    'x-ratelimit-used': '1',
    'x-ratelimit-reset': String(Math.ceil(state.now().getTime() / 1000) + 3600),
    'x-github-request-id': randomBytes(8).toString('hex').toUpperCase(),
  };
}

function header(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function clamp(n: number, min: number, max: number): number {
  return Number.isFinite(n) ? Math.min(max, Math.max(min, Math.floor(n))) : min;
}

function listen(server: Server): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
  });
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
