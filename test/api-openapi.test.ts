// Issue 34 item 3, decision 0058: the API document is generated from the route declarations, so the
// document served is valid OpenAPI 3.1 (checked against the official schema); each declared request
// schema is what the server enforces (an invalid body or query per declared route is a 400 whose
// message is that very schema's verdict); and each declared answer schema is what the server writes
// (real answers of a real server parse to themselves and match the generated document, closed). The
// route list is API_ROUTES itself, so a newly declared route is covered without touching this file.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import { Validator } from '@seriousme/openapi-schema-validator';
import Ajv2020 from 'ajv/dist/2020.js';
import { startHarness, API_TOKEN, REPO, SECRET, type Harness } from './support/harness.js';
import { checkRunPayload, delivery, post } from './support/deliveries.js';
import { API_ROUTES, ROUTES, type RouteDeclaration } from '../src/http/api-routes.js';
import { openApiDocument } from '../src/http/openapi.js';

/** A value no declared field takes: not a boolean, number, enum member or pattern, and longer than any cap. */
const BAD_BODY_VALUE = '!'.repeat(20_001);
/** The same for a query string: short enough for a URL, longer than every query field's cap (200). */
const BAD_QUERY_VALUE = '!'.repeat(201);

const inPath = (route: RouteDeclaration) => [...route.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);

describe('the generated API document and the schemas behind it', () => {
  let h: Harness;
  let served: Record<string, any>;
  let taskId: number;
  let run: { runId: number; runToken: string };

  before(async () => {
    h = await startHarness('sqlite');
    const created = await h.api('POST', '/api/tasks', { repository: 'acme/shop', pullRequest: 340, branch: 'agent/x' });
    assert.equal(created.status, 201);
    taskId = created.body.id;
    // A failing check resumes the agent: a live run with its own token, for PATCH /api/runs/{id} and /api/run/*.
    const sha = 'cd'.repeat(20);
    await post(
      h.url,
      delivery('check_run', checkRunPayload({ repo: REPO, sha, id: 3401, pr: { number: 340, headSha: sha } })),
      SECRET,
    );
    await h.app.settle();
    const start = h.runner.starts.find((s) => s.taskId === taskId);
    assert.ok(start, 'the agent was resumed');
    run = { runId: start.runId, runToken: start.runToken };
    const res = await h.api('GET', '/api/openapi.json');
    assert.equal(res.status, 200);
    served = res.body;
  });
  after(() => h.close());

  test('the served document is valid OpenAPI 3.1 by the official schema, and is the generated one', async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(served));
    assert.equal(validator.version, '3.1');
    assert.ok(result.valid, JSON.stringify(result.errors, null, 2));
    assert.deepEqual(served, JSON.parse(JSON.stringify(openApiDocument)));
    // The validator does reject a broken document, so the pass above means something.
    const broken = structuredClone(served);
    broken.paths['/api/tasks'].post.responses = 'none';
    assert.equal((await new Validator().validate(broken)).valid, false);
  });

  test('every route that reads a body or a query validates it, so the 400 test below covers it (webhooks carry the host payload)', () => {
    for (const route of ROUTES) {
      if (route.tag === 'webhooks') continue;
      if (route.body || route.query)
        assert.ok(API_ROUTES.includes(route), `${route.method} ${route.path} declares what it answers when invalid`);
    }
    assert.ok(API_ROUTES.length >= 19);
  });

  // The answers as the server writes them: each declared answer schema (zod) parses a real answer of
  // a real server to exactly itself (a field it does not declare would be stripped, and fail the
  // comparison), and the document's generated JSON Schema of that answer, closed, accepts it too.
  const answered: Array<[method: string, template: string, query: string, token?: 'run']> = [
    ['GET', '/api/tasks', ''],
    ['GET', '/api/tasks', '?limit=1'],
    ['GET', '/api/tasks/{id}', ''],
    ['GET', '/api/board', ''],
    ['GET', '/api/runs', '?limit=5'],
    ['GET', '/api/runs/{id}', ''],
    ['GET', '/api/deliveries', '?limit=20'],
    ['GET', '/api/stop', ''],
    ['GET', '/api/run/state', '', 'run'],
  ];
  for (const [method, template, query, token] of answered) {
    test(`${method} ${template}${query}: a real answer is its declared schema's, and the document's`, async () => {
      const id = String(template.startsWith('/api/runs/') ? run.runId : taskId);
      const path = () => `${template.replace('{id}', id)}${query}`;
      const res = await fetch(`${h.url}${path()}`, {
        method,
        headers: { authorization: `Bearer ${token === 'run' ? run.runToken : API_TOKEN}` },
      });
      assert.equal(res.status, 200);
      const body = await res.json();
      const route = ROUTES.find((r) => r.method === method.toLowerCase() && r.path === template);
      const declared = route?.responses['200'];
      assert.ok(typeof declared === 'object' && declared.body, `${method} ${template} declares its answer`);
      assert.deepEqual(declared.body.parse(body), body, `${method} ${path()}: every field is declared`);
      const validate = compileClosed(
        served,
        served.paths[template][method.toLowerCase()].responses['200'].content['application/json'].schema,
      );
      assert.ok(validate(body), JSON.stringify(validate.errors, null, 2));
    });
  }

  for (const route of API_ROUTES) {
    const what = route.body ? 'body' : 'query';
    test(`${route.method.toUpperCase()} ${route.path}: an invalid ${what} is 400 from its declared schema`, async () => {
      const pathValues: Record<string, string> = {
        id: String(route.path.startsWith('/api/runs/') ? run.runId : taskId),
        owner: 'acme',
        repo: 'shop',
        number: '340',
      };
      const path = route.path.replace(/\{(\w+)\}/g, (_m, name: string) => pathValues[name]!);
      const token = route.path.startsWith('/api/run/') ? run.runToken : API_TOKEN;
      const schema = route.body?.schema ?? route.query!;
      const fields = Object.keys(z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }).properties ?? {});
      const bad = Object.fromEntries(
        fields.filter((k) => !inPath(route).includes(k)).map((k) => [k, route.body ? BAD_BODY_VALUE : BAD_QUERY_VALUE]),
      );
      const url = route.body ? path : `${path}?${new URLSearchParams(bad)}`;
      const res = await fetch(`${h.url}${url}`, {
        method: route.method.toUpperCase(),
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        ...(route.body ? { body: JSON.stringify(bad) } : {}),
      });
      const answer = (await res.json()) as { error: string; message: string };
      assert.equal(res.status, 400, JSON.stringify(answer));
      assert.equal(answer.error, route.invalid);
      // The handler's verdict is the declared schema's own, word for word (path values read with the query).
      const input = route.body ? bad : { ...pick(pathValues, inPath(route)), ...bad };
      const verdict = schema.safeParse(input);
      assert.equal(verdict.success, false);
      assert.equal(answer.message, z.prettifyError(verdict.error!));
    });
  }
});

/** A schema of the served document, every object in it closed, so a field it does not describe fails. */
function compileClosed(doc: Record<string, any>, schema: unknown) {
  const close = (x: unknown) =>
    JSON.parse(JSON.stringify(x).replaceAll('"#/components/schemas/', '"#/$defs/'), (_k, v) =>
      v && typeof v === 'object' && !Array.isArray(v) && v.properties && v.additionalProperties === undefined
        ? { ...v, additionalProperties: false }
        : v,
    );
  const ajv = new Ajv2020.default({ strict: true, allowUnionTypes: true, allErrors: true });
  ajv.addFormat('date-time', (s: string) => !Number.isNaN(Date.parse(s)));
  return ajv.compile({ $defs: close(doc.components.schemas), allOf: [close(schema)] });
}

function pick(values: Record<string, string>, keys: readonly string[]): Record<string, string> {
  return Object.fromEntries(keys.map((k) => [k, values[k]!]));
}
