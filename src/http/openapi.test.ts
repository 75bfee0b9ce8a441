// The OpenAPI document against the code it describes: every route of the Hono app is documented and
// nothing documented is missing (drift), the document holds together (valid JSON Schema 2020-12,
// every $ref resolves, path parameters declared), the server serves it, and real answers of the API
// and of the webhook handler match the documented schemas, closed, so a new field is caught too.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import Ajv2020 from 'ajv/dist/2020.js';
import { sign } from '@octokit/webhooks-methods';
import { createApi } from './api.js';
import { createWebhookHandler } from '../github/webhook.js';
import {
  openApiDocument,
  type OperationObject,
  type ParameterObject,
  type RefObject,
  type ResponseObject,
  type SchemaObject,
} from './openapi.js';
import type { Logger } from '../app/ports.js';
import type { Decision, Ledger } from '../app/ledger-port.js';
import type { IngestAnswer, Ingestor } from '../app/ingest.js';
import type { Attempt, Notice, Rejection, Run, Task, Work } from '../core/types.js';
import { taskFixture } from '../../test/support/fixtures.js';
import { listenLoopback } from '../../test/support/loopback.js';

const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;
const WEBHOOK = '/api/github/webhooks';
const GITLAB_WEBHOOK = '/api/gitlab/webhooks';

const silent: Logger = { debug() {}, info() {}, warn() {}, error() {} };

/** The document as served: plain JSON. */
const doc = JSON.parse(JSON.stringify(openApiDocument)) as Record<string, any>;

function documentedOperations(): Array<{ method: string; path: string; op: OperationObject }> {
  const out: Array<{ method: string; path: string; op: OperationObject }> = [];
  for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, unknown>>)) {
    for (const m of METHODS) if (item[m]) out.push({ method: m.toUpperCase(), path, op: item[m] as OperationObject });
  }
  return out;
}

function resolvePointer(ref: string): unknown {
  assert.ok(ref.startsWith('#/'), `only in-document refs are expected: ${ref}`);
  let node: unknown = doc;
  for (const raw of ref.slice(2).split('/')) {
    const part = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (node === null || typeof node !== 'object' || !(part in node)) return undefined;
    node = (node as Record<string, unknown>)[part];
  }
  return node;
}

function deref<T>(x: T | RefObject): T {
  return x && typeof x === 'object' && '$ref' in x ? (resolvePointer((x as RefObject).$ref) as T) : (x as T);
}

function walk(node: unknown, visit: (obj: Record<string, unknown>, at: string) => void, at = '#'): void {
  if (Array.isArray(node)) node.forEach((v, i) => walk(v, visit, `${at}/${i}`));
  else if (node && typeof node === 'object') {
    visit(node as Record<string, unknown>, at);
    for (const [k, v] of Object.entries(node)) walk(v, visit, `${at}/${k}`);
  }
}

// --- JSON Schema: the component schemas as $defs, so a schema anywhere can be compiled with them ---

function rewriteRefs<T>(x: T): T {
  return JSON.parse(JSON.stringify(x).replaceAll('"#/components/schemas/', '"#/$defs/')) as T;
}

/** Close every object schema that lists its properties, so an undocumented field fails validation. */
function closed<T>(x: T): T {
  const copy = JSON.parse(JSON.stringify(x)) as T;
  walk(copy, (o) => {
    if (o.properties && typeof o.properties === 'object' && o.additionalProperties === undefined)
      o.additionalProperties = false;
  });
  return copy;
}

// ajv is CommonJS: under NodeNext the default import is its module object, whose `default` is the class.
const Ajv = Ajv2020.default;

function newAjv() {
  const ajv = new Ajv({ strict: true, allowUnionTypes: true, allErrors: true });
  ajv.addFormat(
    'date-time',
    (s: string) =>
      /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(s) && !Number.isNaN(Date.parse(s)),
  );
  return ajv;
}

function compile(schema: SchemaObject, opts: { closed?: boolean } = {}) {
  const defs = rewriteRefs(doc.components.schemas as Record<string, SchemaObject>);
  const root = {
    $defs: opts.closed ? closed(defs) : defs,
    allOf: [rewriteRefs(opts.closed ? closed(schema) : schema)],
  };
  return newAjv().compile(root);
}

function assertValid(schema: SchemaObject, value: unknown, what: string): void {
  const validate = compile(schema, { closed: true });
  assert.ok(
    validate(value),
    `${what} does not match its documented schema: ${JSON.stringify(validate.errors, null, 2)}\n${JSON.stringify(value)}`,
  );
}

// --- (a) drift -----------------------------------------------------------------------------------

describe('OpenAPI document vs the Hono app', () => {
  const app = createApi({ ledger: {} as never, logger: silent, works: [], apiToken: 't', ready: async () => true });
  const appRoutes = new Set(
    app.routes.filter((r) => r.method !== 'ALL').map((r) => `${r.method} ${r.path.replace(/:(\w+)/g, '{$1}')}`),
  );
  const documented = new Set(documentedOperations().map((o) => `${o.method} ${o.path}`));

  it('documents every route the app serves', () => {
    assert.ok(appRoutes.size >= 14, `expected the app's routes, got ${[...appRoutes].join(', ')}`);
    const missing = [...appRoutes].filter((r) => !documented.has(r));
    assert.deepEqual(missing, [], 'routes served but not documented');
  });

  it('documents nothing the app does not serve, except the webhook served in front of it', () => {
    const webhooks = [`POST ${WEBHOOK}`, `POST ${GITLAB_WEBHOOK}`];
    const extra = [...documented].filter((r) => !appRoutes.has(r) && !webhooks.includes(r));
    assert.deepEqual(extra, [], 'routes documented but not served');
    for (const w of webhooks) assert.ok(documented.has(w), `${w} is documented`);
  });

  it('requires the bearer token everywhere but the probes and the webhook; the run report also takes a run token', () => {
    assert.deepEqual(doc.security, [{ bearer: [] }]);
    for (const { method, path, op } of documentedOperations()) {
      const open = ['/healthz', '/readyz', '/ping', WEBHOOK, GITLAB_WEBHOOK].includes(path);
      if (open) assert.deepEqual(op.security, [], `${method} ${path} is open`);
      // Issue 35: a workflow has no token yet; the OIDC token in the body is what authenticates it.
      else if (method === 'POST' && path === '/api/run/oidc-token')
        assert.deepEqual(op.security, [], `${method} ${path} is authenticated by the workflow's OIDC token`);
      else if (method === 'PATCH' && path === '/api/runs/{id}')
        assert.deepEqual(op.security, [{ bearer: [] }, { runToken: [] }]);
      else if (path.startsWith('/api/run/'))
        assert.deepEqual(op.security, [{ runToken: [] }], `${method} ${path} takes only a run token`);
      else assert.equal(op.security, undefined, `${method} ${path} inherits the global bearer requirement`);
      if (!open) assert.ok('401' in op.responses, `${method} ${path} documents 401`);
    }
  });
});

// --- (b) structure -------------------------------------------------------------------------------

describe('OpenAPI document structure', () => {
  it('is an OpenAPI 3.1 document with info, paths and components', () => {
    assert.match(doc.openapi, /^3\.1\.\d+$/);
    assert.equal(typeof doc.info.title, 'string');
    assert.equal(typeof doc.info.version, 'string');
    assert.ok(Object.keys(doc.paths).every((p) => p.startsWith('/')));
    for (const name of ['Task', 'Run', 'Attempt', 'Notice', 'Decision', 'Problem'])
      assert.ok(doc.components.schemas[name], `schema ${name}`);
  });

  it('resolves every $ref within the document', () => {
    const refs: string[] = [];
    walk(doc, (o, at) => {
      if (typeof o.$ref === 'string') {
        refs.push(o.$ref);
        assert.notEqual(resolvePointer(o.$ref), undefined, `${at}: $ref ${o.$ref} does not resolve`);
      }
    });
    assert.ok(refs.length > 20);
  });

  it('compiles every component schema as JSON Schema 2020-12 (strict)', () => {
    for (const [name, schema] of Object.entries(doc.components.schemas as Record<string, SchemaObject>)) {
      assert.doesNotThrow(() => compile(schema), `components.schemas.${name}`);
    }
  });

  it('compiles every inline schema of parameters, bodies, responses and headers', () => {
    let n = 0;
    walk(doc.paths, (o, at) => {
      if (o.schema && typeof o.schema === 'object') {
        n++;
        assert.doesNotThrow(() => compile(o.schema as SchemaObject), at);
      }
    });
    walk(doc.components.responses, (o, at) => {
      if (o.schema && typeof o.schema === 'object') assert.doesNotThrow(() => compile(o.schema as SchemaObject), at);
    });
    assert.ok(n > 20);
  });

  it('gives every operation a unique operationId, a one-sentence description and responses', () => {
    const ids = new Set<string>();
    for (const { method, path, op } of documentedOperations()) {
      assert.ok(op.operationId && !ids.has(op.operationId), `${method} ${path}: operationId`);
      ids.add(op.operationId);
      assert.match(op.description, /^[A-Z].*\.$/, `${method} ${path}: description`);
      assert.ok(Object.keys(op.responses).length > 0);
      for (const [status, r] of Object.entries(op.responses)) {
        assert.match(status, /^[1-5]\d\d$|^default$/);
        assert.equal(typeof deref<ResponseObject>(r).description, 'string', `${method} ${path} ${status}`);
      }
    }
  });

  it('declares each path template parameter as a required path parameter, and no other', () => {
    for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
      const inTemplate = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();
      for (const m of METHODS) {
        if (!item[m]) continue;
        const params = [...(item.parameters ?? []), ...(item[m].parameters ?? [])].map(
          (p: ParameterObject | RefObject) => deref<ParameterObject>(p),
        );
        const inPath = params.filter((p) => p.in === 'path');
        assert.deepEqual(inPath.map((p) => p.name).sort(), inTemplate, `${m} ${path}`);
        assert.ok(
          inPath.every((p) => p.required === true),
          `${m} ${path}: path params are required`,
        );
        const keys = params.map((p) => `${p.in}:${p.name.toLowerCase()}`);
        assert.equal(new Set(keys).size, keys.length, `${m} ${path}: duplicate parameter`);
      }
    }
  });

  it('names only defined security schemes', () => {
    const schemes = Object.keys(doc.components.securitySchemes);
    const reqs = [...doc.security, ...documentedOperations().flatMap((o) => o.op.security ?? [])] as Record<
      string,
      unknown
    >[];
    for (const r of reqs)
      for (const name of Object.keys(r)) assert.ok(schemes.includes(name), `security scheme ${name}`);
  });
});

// --- (c) the served document ----------------------------------------------------------------------

describe('GET /api/openapi.json', () => {
  const app = createApi({ ledger: {} as never, logger: silent, works: [], apiToken: 't', ready: async () => true });

  it('serves the document to a holder of the API token', async () => {
    const res = await app.request('/api/openapi.json', { headers: { authorization: 'Bearer t' } });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /application\/json/);
    assert.deepEqual(await res.json(), doc);
  });

  it('shows the failing base branches in the Inbox answer, both its shapes (issue 36)', () => {
    const answer = doc.paths['/api/inbox'].get.responses['200'].content['application/json'].schema;
    const shapes = (answer.oneOf ?? answer.anyOf) as Array<{ properties: Record<string, unknown>; required: string[] }>;
    assert.equal(shapes.length, 2);
    for (const shape of shapes) {
      assert.ok(shape.required.includes('baseReds'), JSON.stringify(shape.required));
      assert.match(JSON.stringify(shape.properties.baseReds), /#\/components\/schemas\/BaseRed/);
    }
    const red = doc.components.schemas.BaseRed;
    for (const field of ['repository', 'baseRef', 'checks', 'baseSha', 'issueNumber', 'pullRequests'])
      assert.ok(field in red.properties, field);
  });

  it('refuses it without the token, as documented', async () => {
    const res = await app.request('/api/openapi.json');
    assert.equal(res.status, 401);
    assertValid(doc.components.schemas.Problem, await res.json(), '401');
  });
});

// --- (d) real answers match the documented schemas -------------------------------------------------

const AT = '2024-05-01T12:00:00.000Z';
const task: Task = taskFixture({
  id: 1,
  work: 'w',
  repository: 'acme/data',
  branch: 'fix/x',
  ciHeadSha: 'a'.repeat(40),
  ciHeadSeenAt: AT,
  noticeAt: AT,
  resumeRef: 'session-1',
  createdAt: AT,
  polledAt: AT,
});
const run: Run = {
  id: 3,
  taskId: 1,
  action: 'resume',
  autoResume: true,
  state: 'running',
  agentSeenAt: null,
  interruptedAt: null,
  attemptId: 2,
  createdAt: AT,
};
const attempt: Attempt = {
  id: 2,
  taskId: 1,
  coordinate: 'a'.repeat(40),
  source: 'gate',
  headSha: 'a'.repeat(40),
  fingerprint: 'fp',
  status: 'dispatched',
  state: 'running',
  outcome: null,
  outcomeReason: null,
  rejectionId: 4,
  runId: 3,
  interruptions: 0,
  createdAt: AT,
};
const rejection: Rejection = {
  id: 4,
  taskId: 1,
  source: 'gate',
  headSha: null,
  checkName: 'test',
  body: 'x'.repeat(5000),
  author: null,
  createdAt: AT,
};
const notice: Notice = {
  id: 5,
  taskId: 1,
  reason: 'budget_spent',
  headSha: null,
  attemptsUsed: 3,
  repository: 'acme/data',
  pullRequest: 7,
  message: 'stopped',
  createdAt: AT,
};
const decision: Decision = {
  id: 6,
  at: AT,
  deliveryId: 'd-1',
  eventName: 'check_run',
  identity: 'check:x',
  eventId: 1,
  taskId: 1,
  attemptId: null,
  outcome: 'refused',
  reason: 'stop_flag',
  detail: null,
};
const works: Work[] = [
  {
    name: 'w',
    account: 'acme',
    repositories: [
      { name: 'acme/data', role: 'data' },
      { name: 'acme/site', role: 'website' },
    ],
  },
];

function stubLedger(opts: { stopUnreadable?: boolean } = {}): Ledger {
  const l: Partial<Ledger> = {
    now: () => AT,
    getTask: async (id) => (id === 1 ? task : null),
    listTasks: async () => [task],
    listAttempts: async () => [attempt],
    listRuns: async () => [run],
    pageRuns: async () => [run],
    listRejections: async () => [rejection],
    getNotice: async () => notice,
    createTask: async (t) => (t.pullRequest === 7 ? { kind: 'exists', task } : { task: { ...task, id: 1 }, run }),
    setTaskState: async (id, state) => (id === 1 ? { ...task, state } : null),
    getRun: async (id) => (id === 3 ? { ...run, tokenHash: null } : null),
    getRunLog: async () => 'the log',
    setRunState: async (_id, _from, to) => ({ ...run, state: to }),
    listNotices: async () => [notice],
    listOutbox: async () => [
      {
        id: 9,
        noticeId: 5,
        taskId: 1,
        repository: 'acme/data',
        pullRequest: 7,
        sink: 'slack',
        state: 'failed',
        attempts: 10,
        nextAt: AT,
        lastError: 'HTTP 500: down',
        createdAt: AT,
        updatedAt: AT,
        deliveredAt: null,
      },
    ],
    listDecisions: async () => [decision],
    // Issue 36: a red base the Inbox lists above the notices.
    openBaseReds: async () => [
      {
        id: 2,
        repository: 'acme/data',
        baseRef: 'main',
        round: 1,
        checks: ['test'],
        baseSha: 'a'.repeat(40),
        message: 'main of acme/data is failing `test`',
        issueNumber: null,
        openedAt: AT,
        closedAt: null,
        pullRequests: [7, 8],
      },
    ],
    readStopFlag: async () => {
      if (opts.stopUnreadable) throw new Error('down');
      return true;
    },
    writeStopFlag: async () => {},
    recordDecisions: async () => {},
    grantApproveOne: async () => ({ kind: 'granted' }),
    setMaxGrants: async () => ({ before: null }),
    setLoopOff: async () => true,
    setParked: async () => true,
    boardPage: async () => ({
      rows: [
        {
          id: 1,
          repository: 'acme/data',
          pullRequest: 7,
          branch: 'b',
          state: 'open',
          ciState: 'red',
          attemptsUsed: 1,
          extraAttempts: 0,
          maxGrants: null,
          spend: 0.5,
          loopState: 'needs_person',
          lastFailure: 'test: FAIL a',
          triage: null,
          createdAt: '2026-12-01T10:00:00.000Z',
        },
      ],
      nextBefore: null,
    }),
    inboxPage: async () => ({
      rows: [
        {
          id: 5,
          taskId: 1,
          repository: 'acme/data',
          pullRequest: 7,
          reason: 'budget_spent',
          headSha: null,
          attemptsUsed: 2,
          message: 'stopped',
          createdAt: AT,
          parked: false,
        },
      ],
      nextAfter: 5,
    }),
  };
  return l as Ledger;
}

function operationFor(method: string, actualPath: string): { path: string; op: OperationObject } {
  for (const o of documentedOperations()) {
    const re = new RegExp(`^${o.path.replace(/\{\w+\}/g, '[^/]+')}$`);
    if (o.method === method && re.test(actualPath)) return o;
  }
  assert.fail(`no documented operation for ${method} ${actualPath}`);
}

function documentedSchema(method: string, path: string, status: number, contentType: string): SchemaObject {
  const { op } = operationFor(method, path);
  const response = op.responses[String(status)];
  assert.ok(response, `${method} ${path} answered ${status}, which is not documented`);
  const content = deref<ResponseObject>(response).content ?? {};
  const media = Object.keys(content).find((k) => contentType.startsWith(k));
  assert.ok(media, `${method} ${path} ${status}: content type ${contentType} not documented`);
  return content[media]!.schema;
}

describe('API answers match the document', () => {
  const cases: Array<[string, string, unknown, number, { token?: string | null; ledger?: Ledger; ready?: boolean }?]> =
    [
      ['GET', '/healthz', undefined, 200, { token: null }],
      ['GET', '/readyz', undefined, 200, { token: null }],
      ['GET', '/readyz', undefined, 503, { token: null, ready: false }],
      ['GET', '/ping', undefined, 200, { token: null }],
      ['POST', '/api/tasks', { repository: 'acme/data', pullRequest: 8, branch: 'b' }, 201],
      ['POST', '/api/tasks', { repository: 'acme/data', pullRequest: 7, branch: 'b' }, 409],
      ['POST', '/api/tasks', { repository: 'acme/site', pullRequest: 8, branch: 'b' }, 422],
      ['POST', '/api/tasks', { repository: 'nope' }, 400],
      ['GET', '/api/tasks', undefined, 200],
      ['GET', '/api/tasks?state=open', undefined, 200],
      ['GET', '/api/tasks?state=bogus', undefined, 400],
      ['GET', '/api/tasks?limit=1', undefined, 200],
      ['GET', '/api/tasks?limit=0', undefined, 400],
      ['GET', '/api/runs', undefined, 200],
      ['GET', '/api/runs?taskId=1&state=running&limit=5', undefined, 200],
      ['GET', '/api/runs?state=bogus', undefined, 400],
      ['GET', '/api/tasks/1', undefined, 200],
      ['GET', '/api/tasks/99', undefined, 404],
      ['GET', '/api/tasks/1', undefined, 401, { token: null }],
      ['PATCH', '/api/tasks/1', { state: 'done' }, 200],
      ['PATCH', '/api/tasks/1', { state: 'gone' }, 400],
      ['GET', '/api/runs/3', undefined, 200],
      ['GET', '/api/runs/4', undefined, 404],
      ['PATCH', '/api/runs/3', { state: 'completed' }, 200],
      ['PATCH', '/api/runs/3', { state: 'completed' }, 403, { token: 'not-this-runs-token' }],
      ['GET', '/api/inbox', undefined, 200],
      ['GET', '/api/inbox?limit=5&after=1', undefined, 200],
      ['GET', '/api/inbox?limit=0', undefined, 400],
      ['GET', '/api/board', undefined, 200],
      ['GET', '/api/board?state=open&loop=needs_person&repository=acme/data&q=7&limit=10&before=9', undefined, 200],
      ['GET', '/api/board?loop=asleep', undefined, 400],
      ['GET', '/api/board', undefined, 401, { token: null }],
      ['POST', '/api/tasks/1/approve-one', undefined, 200],
      ['POST', '/api/tasks/99/approve-one', undefined, 404],
      ['PUT', '/api/tasks/1/loop', { on: false }, 200],
      ['POST', '/api/tasks/1/resume', { message: 'look at the flaky test' }, 503],
      ['POST', '/api/tasks/1/resume', { message: ' ' }, 400],
      ['PUT', '/api/tasks/1/loop', { on: 'no' }, 400],
      ['PUT', '/api/tasks/1/parked', { parked: true }, 200],
      ['PUT', '/api/tasks/99/parked', { parked: true }, 404],
      ['POST', '/api/runs/3/cancel', undefined, 200],
      ['POST', '/api/runs/4/cancel', undefined, 404],
      ['GET', '/api/outbox', undefined, 200],
      ['GET', '/api/outbox?state=failed&limit=5', undefined, 200],
      ['GET', '/api/outbox?state=delivered', undefined, 400],
      ['GET', '/api/outbox', undefined, 401, { token: null }],
      ['GET', '/api/deliveries?taskId=1&delivery=d-1&limit=10&before=100', undefined, 200],
      ['GET', '/api/deliveries?limit=0', undefined, 400],
      ['GET', '/api/stop', undefined, 200],
      ['GET', '/api/stop', undefined, 503, { ledger: stubLedger({ stopUnreadable: true }) }],
      ['PUT', '/api/stop', { stopped: false }, 200],
      ['PUT', '/api/stop', { stopped: 'no' }, 400],
    ];
  for (const [method, url, body, status, opts = {}] of cases) {
    it(`${method} ${url} → ${status}`, async () => {
      const ready = opts.ready ?? true;
      const app = createApi({
        ledger: opts.ledger ?? stubLedger(),
        logger: silent,
        works,
        apiToken: 't',
        ready: async () => ready,
      });
      const headers: Record<string, string> = {};
      const token = opts.token === undefined ? 't' : opts.token;
      if (token !== null) headers.authorization = `Bearer ${token}`;
      if (body !== undefined) headers['content-type'] = 'application/json';
      const res = await app.request(url, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      assert.equal(res.status, status, await res.clone().text());
      const type = res.headers.get('content-type') ?? '';
      const path = url.split('?')[0]!;
      const schema = documentedSchema(method, path, status, type);
      assertValid(
        schema,
        type.startsWith('application/json') ? await res.json() : await res.text(),
        `${method} ${url} ${status}`,
      );
    });
  }
});

describe('webhook answers match the document', () => {
  const secret = 'hook-secret';
  let answer: IngestAnswer | Error = { status: 202, outcome: 'stored', identity: 'check:x', eventId: 1 };
  const ingestor: Ingestor = {
    ingest: async () => {
      if (answer instanceof Error) throw answer;
      return answer;
    },
    flush: async () => {},
  };
  const handler = createWebhookHandler({ secrets: [secret], maxBytes: 1024, ingestor, logger: silent });
  let server: Server;
  let base = '';
  before(async () => {
    server = createServer((req, res) => void handler(req, res));
    base = await listenLoopback(server);
  });
  after(() => new Promise<void>((r) => server.close(() => r())));

  async function deliver(body: string, headers: Record<string, string> = {}): Promise<Response> {
    const signature = await sign(secret, body);
    return fetch(`${base}${WEBHOOK}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-github-event': 'check_run',
        'x-github-delivery': 'd-1',
        'x-hub-signature-256': signature,
        ...headers,
      },
      body,
    });
  }

  const cases: Array<[string, () => Promise<Response>, number]> = [
    [
      'stored',
      () => ((answer = { status: 202, outcome: 'stored', identity: 'check:x', eventId: 1 }), deliver('{}')),
      202,
    ],
    ['duplicate', () => ((answer = { status: 200, outcome: 'duplicate', identity: 'check:x' }), deliver('{}')), 200],
    [
      'ignored',
      () => ((answer = { status: 200, outcome: 'ignored', identity: null, reason: 'unknown_event' }), deliver('{}')),
      200,
    ],
    [
      'rejected',
      () => ((answer = { status: 400, outcome: 'rejected', reason: 'malformed_json', detail: 'bad' }), deliver('{')),
      400,
    ],
    ['missing event header', () => deliver('{}', { 'x-github-event': '' }), 400],
    ['bad signature', () => deliver('{}', { 'x-hub-signature-256': `sha256=${'0'.repeat(64)}` }), 401],
    ['too large', () => deliver(JSON.stringify({ pad: 'x'.repeat(2000) })), 413],
    ['not stored', () => ((answer = new Error('db down')), deliver('{}')), 503],
  ];
  for (const [name, send, status] of cases) {
    it(`${name} → ${status}`, async () => {
      const res = await send();
      assert.equal(res.status, status);
      const schema = documentedSchema('POST', WEBHOOK, status, res.headers.get('content-type') ?? '');
      assertValid(schema, await res.json(), `webhook ${name}`);
    });
  }
});
