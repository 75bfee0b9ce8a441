// The `/api/run/*` routes (SPEC M3 over the API, I2, K6, J1): the run token as bearer, the agent's
// ops of src/app/agent-ops.ts behind them (over in-memory fakes of our own ports), refusals as
// `{ error: <AgentOpsError code>, message }` with AGENT_OPS_ERROR_STATUS, strict inputs (no task,
// run or pull request from the caller), and every answer valid against its documented schema, closed.
import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';
import Ajv2020 from 'ajv/dist/2020.js';
import { createAgentWorld, type AgentWorld } from '../../test/support/agent-fakes.js';
import { createResolveRun } from '../app/agent-ops.js';
import { ProviderError, type ProviderPort } from '../app/provider-port.js';
import type { Logger } from '../app/ports.js';
import { AgentOpsError, type ResolveRun } from '../app/agent-ops-port.js';
import { createApi } from './api.js';
import { openApiDocument, type ResponseObject, type SchemaObject } from './openapi.js';

const API_TOKEN = 'api-token';
const doc = JSON.parse(JSON.stringify(openApiDocument)) as Record<string, any>;

// --- the documented schema of an answer, closed so an undocumented field fails -----------------

const Ajv = Ajv2020.default;
function closed<T>(x: T): T {
  const copy = JSON.parse(JSON.stringify(x).replaceAll('"#/components/schemas/', '"#/$defs/')) as T;
  const walk = (n: unknown): void => {
    if (Array.isArray(n)) n.forEach(walk);
    else if (n && typeof n === 'object') {
      const o = n as Record<string, unknown>;
      if (o.properties && o.additionalProperties === undefined) o.additionalProperties = false;
      Object.values(o).forEach(walk);
    }
  };
  walk(copy);
  return copy;
}
const validators = new Map<string, ReturnType<InstanceType<typeof Ajv>['compile']>>();
function assertDocumented(method: string, path: string, status: number, body: unknown): void {
  const op = doc.paths[path]?.[method.toLowerCase()];
  assert.ok(op, `${method} ${path} is documented`);
  let response = op.responses[String(status)] as ResponseObject | { $ref: string } | undefined;
  assert.ok(response, `${method} ${path} answered ${status}, which is not documented`);
  if ('$ref' in response) response = doc.components.responses[response.$ref.split('/').pop()!] as ResponseObject;
  const schema = (response as ResponseObject).content?.['application/json']?.schema as SchemaObject;
  assert.ok(schema, `${method} ${path} ${status} documents a JSON body`);
  const key = `${method} ${path} ${status}`;
  let validate = validators.get(key);
  if (!validate) {
    const ajv = new Ajv({ strict: true, allowUnionTypes: true, allErrors: true });
    ajv.addFormat('date-time', (s: string) => !Number.isNaN(Date.parse(s)));
    validate = ajv.compile({ $defs: closed(doc.components.schemas), allOf: [closed(schema)] });
    validators.set(key, validate);
  }
  assert.ok(
    validate(body),
    `${method} ${path} ${status}: ${JSON.stringify(validate.errors, null, 2)}\n${JSON.stringify(body)}`,
  );
}

// --- the app under test ---------------------------------------------------------------------

const errors: unknown[] = [];
const logger: Logger = { debug() {}, info() {}, warn() {}, error: (o) => void errors.push(o) };

function github(): Pick<ProviderPort, 'getPullRequest' | 'listCheckRuns' | 'listStatuses' | 'jobLogUrl'> {
  return {
    async getPullRequest(repository, number) {
      if (number === 404) throw new ProviderError(404, 'Not Found', false);
      return {
        repository,
        number,
        state: 'open',
        merged: false,
        headSha: 'e'.repeat(40),
        headRef: 'agent/fix',
        headRepository: repository,
        baseRef: 'main',
        author: null,
        draft: false,
        labels: [],
        mergeableState: null,
        updatedAt: '2026-11-30T08:00:00Z',
      };
    },
    async listCheckRuns() {
      return [
        {
          id: 11,
          name: 'test',
          status: 'completed',
          conclusion: 'failure',
          startedAt: null,
          completedAt: null,
          detailsUrl: null,
          appSlug: 'github-actions',
          outputTitle: null,
          outputSummary: null,
        },
      ];
    },
    async listStatuses() {
      return [{ context: 'ci/legacy', state: 'success', description: null, targetUrl: null, updatedAt: null }];
    },
    async jobLogUrl(_repo, jobId) {
      return `https://blob.example/${jobId}`;
    },
  };
}

describe('/api/run/*', () => {
  let w: AgentWorld;
  let taskId: number;
  let runId: number;
  let attemptId: number;
  let resolveRun: ResolveRun;

  beforeEach(() => {
    errors.length = 0;
    w = createAgentWorld();
    taskId = w.addTask({ pullRequest: 7 }).id;
    const r = w.addRun(taskId, { token: 'run-a', attempt: { state: 'running' } });
    runId = r.run.id;
    attemptId = r.attempt!.id;
    resolveRun = createResolveRun({
      agent: w.agent,
      ledger: w.ledger,
      host: github(),
      fetchLog: async () => ({ text: 'FAIL x', truncated: false }),
      clock: { now: () => new Date('2026-12-01T00:00:00Z') },
      maxAttempts: 2,
    });
  });

  function app(over: { resolveRun?: ResolveRun | null; apiToken?: string | null } = {}) {
    const resolve = over.resolveRun === undefined ? resolveRun : over.resolveRun;
    return createApi({
      ledger: w.ledger,
      logger,
      works: [],
      apiToken: over.apiToken === undefined ? API_TOKEN : over.apiToken,
      ready: async () => true,
      ...(resolve ? { resolveRun: resolve } : {}),
    });
  }

  async function call(
    method: string,
    url: string,
    opts: { token?: string | null; body?: unknown; raw?: string; app?: ReturnType<typeof app> } = {},
  ) {
    const headers: Record<string, string> = {};
    const token = opts.token === undefined ? 'run-a' : opts.token;
    if (token !== null) headers.authorization = `Bearer ${token}`;
    const payload = opts.raw ?? (opts.body === undefined ? undefined : JSON.stringify(opts.body));
    if (payload !== undefined) headers['content-type'] = 'application/json';
    const res = await (opts.app ?? app()).request(url, {
      method,
      headers,
      ...(payload !== undefined ? { body: payload } : {}),
    });
    const body = (await res.json()) as any;
    assertDocumented(method, url.split('?')[0]!, res.status, body);
    return { status: res.status, body, headers: res.headers };
  }

  it("POST /api/run/outcome records the run's one outcome; a second is 409 outcome_already_reported", async () => {
    const first = await call('POST', '/api/run/outcome', {
      body: { outcome: 'action_taken', reason: 'pushed the fix' },
    });
    assert.equal(first.status, 200);
    assert.deepEqual(first.body, { attemptId, state: 'awaiting_progress', outcome: 'action_taken' });
    const second = await call('POST', '/api/run/outcome', { body: { outcome: 'non_actionable' } });
    assert.equal(second.status, 409);
    assert.equal(second.body.error, 'outcome_already_reported');
    assert.equal(w.lives.get(attemptId)!.outcome, 'action_taken');
  });

  it('POST /api/run/outcome refuses a caller-chosen task, run or attempt, a bad outcome and a body that is not JSON (400 invalid)', async () => {
    for (const body of [
      { outcome: 'action_taken', taskId: 1 },
      { outcome: 'action_taken', attemptId: 3 },
      { outcome: 'done' },
      {},
      { outcome: 'blocked', reason: 'x'.repeat(501) },
      [1],
    ]) {
      const r = await call('POST', '/api/run/outcome', { body });
      assert.equal(r.status, 400, JSON.stringify(body));
      assert.equal(r.body.error, 'invalid');
    }
    assert.equal((await call('POST', '/api/run/outcome', { raw: '{' })).body.error, 'invalid');
    const blocked = await call('POST', '/api/run/outcome', { body: { outcome: 'blocked' } });
    assert.equal(blocked.status, 400);
    assert.match(blocked.body.message, /blocked needs a reason/);
    assert.equal(w.lives.get(attemptId)!.outcome, null);
  });

  it("the Task's opening run has no attempt: 409 no_attempt", async () => {
    w.addRun(taskId, { token: 'run-start', attempt: null });
    const r = await call('POST', '/api/run/outcome', { token: 'run-start', body: { outcome: 'action_taken' } });
    assert.equal(r.status, 409);
    assert.equal(r.body.error, 'no_attempt');
  });

  it("POST /api/run/spend adds up and answers the Task's totals; no amount, a negative one or an extra field is 400", async () => {
    assert.deepEqual((await call('POST', '/api/run/spend', { body: { model: 1.5, note: 'pass one' } })).body, {
      totalSpend: 1.5,
      model: 1.5,
      sandbox: 0,
      ciMinutes: 0,
    });
    const r = await call('POST', '/api/run/spend', { body: { sandbox: 0.5 } });
    assert.equal(r.status, 200);
    assert.equal(r.body.totalSpend, 2);
    for (const body of [{}, { note: 'n' }, { model: -1 }, { model: '1' }, { model: 1, taskId: 9 }]) {
      const bad = await call('POST', '/api/run/spend', { body });
      assert.equal(bad.status, 400, JSON.stringify(body));
      assert.equal(bad.body.error, 'invalid');
    }
    assert.equal(w.spends.length, 2);
  });

  it("GET /api/run/checks reads the run's own pull request; a bad or extra query parameter is 400", async () => {
    const r = await call('GET', '/api/run/checks?failing=true&logLines=5');
    assert.equal(r.status, 200);
    assert.equal(r.body.number, 7);
    assert.deepEqual(
      r.body.entries.map((e: any) => e.name),
      ['test'],
    );
    assert.deepEqual(r.body.entries[0].log.lines, ['FAIL x']);
    assert.equal((await call('GET', '/api/run/checks')).body.entries.length, 2, 'all entries by default');
    for (const q of ['logLines=5000', 'logLines=-1', 'failing=yes', 'number=8', 'taskId=1']) {
      const bad = await call('GET', `/api/run/checks?${q}`);
      assert.equal(bad.status, 400, q);
      assert.equal(bad.body.error, 'invalid');
    }
  });

  it('GET /api/run/checks: GitHub refusing, or no GitHub at all, is 503 unavailable', async () => {
    const t404 = w.addTask({ pullRequest: 404 });
    w.addRun(t404.id, { token: 'run-404', attempt: { state: 'running' } });
    const r = await call('GET', '/api/run/checks', { token: 'run-404' });
    assert.equal(r.status, 503);
    assert.match(r.body.message, /GitHub answered 404/);
    const noGitHub = app({
      resolveRun: createResolveRun({
        agent: w.agent,
        ledger: w.ledger,
        host: null,
        fetchLog: async () => ({ text: '', truncated: false }),
        clock: { now: () => new Date() },
      }),
    });
    const r2 = await call('GET', '/api/run/checks', { app: noGitHub });
    assert.equal(r2.status, 503);
    assert.equal(r2.body.error, 'unavailable');
  });

  it("GET /api/run/state is the loop state of the run's own Task", async () => {
    await call('POST', '/api/run/outcome', { body: { outcome: 'non_actionable' } });
    const r = await call('GET', '/api/run/state');
    assert.equal(r.status, 200);
    assert.equal(r.body.id, taskId);
    assert.deepEqual(
      r.body.attempts.map((a: any) => [a.id, a.state, a.outcome]),
      [[attemptId, 'acknowledged', 'non_actionable']],
    );
    assert.deepEqual(r.body.run, { id: runId, state: 'running', attemptId });
    assert.deepEqual(r.body.budget, { max: 2, used: 1, left: 1 });
  });

  it("another run's token sees only its own run", async () => {
    const other = w.addTask({ pullRequest: 8 });
    w.addRun(other.id, { token: 'run-b', attempt: { state: 'running' } });
    assert.equal((await call('GET', '/api/run/state', { token: 'run-b' })).body.id, other.id);
    assert.equal((await call('GET', '/api/run/checks', { token: 'run-b' })).body.number, 8);
    await call('POST', '/api/run/outcome', { token: 'run-b', body: { outcome: 'non_actionable' } });
    assert.equal(w.lives.get(attemptId)!.outcome, null);
  });

  it('a run that ended: 403 run_ended on every route', async () => {
    w.endRun(runId, 'failed');
    for (const [method, url, body] of [
      ['GET', '/api/run/checks', undefined],
      ['POST', '/api/run/outcome', { outcome: 'action_taken' }],
      ['POST', '/api/run/spend', { model: 1 }],
      ['GET', '/api/run/state', undefined],
    ] as const) {
      const r = await call(method, url, { body });
      assert.equal(r.status, 403, url);
      assert.equal(r.body.error, 'run_ended');
      assert.match(r.body.message, new RegExp(`run ${runId} of Task ${taskId} already ended \\(failed\\)`));
    }
  });

  it('no token, an unknown token or the API token: 401 unauthorized; the API token gets a hint', async () => {
    for (const token of [null, 'nobody']) {
      const r = await call('GET', '/api/run/state', { token });
      assert.equal(r.status, 401);
      assert.equal(r.body.error, 'unauthorized');
    }
    const apiToken = await call('POST', '/api/run/outcome', { token: API_TOKEN, body: { outcome: 'action_taken' } });
    assert.equal(apiToken.status, 401);
    assert.match(apiToken.body.message, /FIXLOOP_RUN_TOKEN, not the API token/);
    assert.match(
      (await call('GET', '/api/run/state', { token: 'nobody' })).headers.get('www-authenticate') ?? '',
      /^Bearer/,
    );
    assert.match(
      (await call('GET', '/api/run/state', { token: null })).body.message,
      /FIXLOOP_RUN_TOKEN/,
      'a tokenless call is told which token',
    );
    assert.equal(
      (await call('GET', '/api/run/state', { token: null, app: app({ resolveRun: null }) })).status,
      401,
      'the token is checked first',
    );
    // An install without an API token still needs the run token here.
    assert.equal((await call('GET', '/api/run/state', { token: null, app: app({ apiToken: null }) })).status, 401);
    assert.equal((await call('GET', '/api/run/state', { app: app({ apiToken: null }) })).status, 200);
    assert.equal(w.lives.get(attemptId)!.outcome, null);
  });

  it('a run token opens only the run routes, not the rest of the API', async () => {
    const res = await app().request('/api/tasks', { headers: { authorization: 'Bearer run-a' } });
    assert.equal(res.status, 401);
  });

  it('without a resolver the routes answer 503; a resolver failing unexpectedly is 503 and logged', async () => {
    const none = await call('GET', '/api/run/state', { app: app({ resolveRun: null }) });
    assert.equal(none.status, 503);
    assert.equal(none.body.error, 'unavailable');
    const broken = app({ resolveRun: async () => Promise.reject(new Error('database is down')) });
    const r = await call('POST', '/api/run/spend', { app: broken, body: { model: 1 } });
    assert.equal(r.status, 503);
    assert.doesNotMatch(r.body.message, /database is down/, 'the cause stays in the log');
    assert.equal(errors.length, 1);
    const refusing = app({
      resolveRun: async () => Promise.reject(new AgentOpsError('unauthorized', 'unknown run token')),
    });
    assert.equal((await call('GET', '/api/run/state', { app: refusing })).status, 401);
  });
});
