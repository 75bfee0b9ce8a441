// The http runner (SPEC L1): a signed POST, typed failures, and no clear-text URL off the host.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { RunSpec } from '../app/ports.js';
import { createHttpRunner } from './http.js';
import { RunnerError } from './errors.js';
import { listenLoopback } from '../../test/support/loopback.js';

const SECRET = 'runner-secret';
const spec: RunSpec = {
  taskId: 7,
  runId: 11,
  attemptId: 3,
  repository: 'acme/widgets',
  pullRequest: 42,
  branch: 'fix/ci',
  headSha: 'b'.repeat(40),
  resumeRef: null,
  prompt: 'Fix it ✓ "quoted"',
  runToken: 'run-token',
  apiUrl: 'https://fixloop.example',
};
const noCallbacks = {
  onOutput: () => assert.fail('http runner must not forward output'),
  onExit: () => assert.fail('http runner must not report an exit'),
};

type Handler = (req: IncomingMessage, body: Buffer, res: ServerResponse) => void;
const servers: Array<ReturnType<typeof createServer>> = [];
after(() => {
  for (const s of servers) {
    s.closeAllConnections();
    s.close();
  }
});

async function serve(handler: Handler): Promise<string> {
  const server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => handler(req, Buffer.concat(parts), res));
  });
  servers.push(server);
  return `${await listenLoopback(server)}/runs`;
}

test('POSTs the run as JSON, signed over the exact body', async () => {
  let seen: { headers: IncomingMessage['headers']; body: Buffer; method?: string } | undefined;
  const url = await serve((req, body, res) => {
    seen = { headers: req.headers, body, method: req.method };
    res.writeHead(202).end();
  });
  await createHttpRunner({ url, secret: SECRET }).start(spec, noCallbacks);

  assert.ok(seen);
  assert.equal(seen.method, 'POST');
  assert.equal(seen.headers['content-type'], 'application/json');
  assert.equal(seen.headers['x-fixloop-run-id'], '11');
  const expected = Buffer.from(`sha256=${createHmac('sha256', SECRET).update(seen.body).digest('hex')}`);
  const got = Buffer.from(String(seen.headers['x-fixloop-signature-256']));
  assert.ok(got.length === expected.length && timingSafeEqual(got, expected), 'signature matches the body');
  assert.deepEqual(JSON.parse(seen.body.toString('utf8')), {
    taskId: 7,
    runId: 11,
    attemptId: 3,
    repository: 'acme/widgets',
    pullRequest: 42,
    branch: 'fix/ci',
    headSha: 'b'.repeat(40),
    resumeRef: null,
    prompt: 'Fix it ✓ "quoted"',
    apiUrl: 'https://fixloop.example',
    runToken: 'run-token',
  });
});

test('a 500 rejects with http_status', async () => {
  const url = await serve((_req, _body, res) => res.writeHead(500).end('boom'));
  await assert.rejects(
    createHttpRunner({ url, secret: SECRET }).start(spec, noCallbacks),
    (err: unknown) => err instanceof RunnerError && err.code === 'http_status' && err.status === 500,
  );
});

test('a redirect is not followed: http_status', async () => {
  const url = await serve((_req, _body, res) => res.writeHead(307, { location: 'https://elsewhere.example/' }).end());
  await assert.rejects(
    createHttpRunner({ url, secret: SECRET }).start(spec, noCallbacks),
    (err: unknown) => err instanceof RunnerError && err.code === 'http_status' && err.status === 307,
  );
});

test('no answer in time rejects with timeout', async () => {
  const url = await serve(() => {}); // never answers
  await assert.rejects(
    createHttpRunner({ url, secret: SECRET, timeoutMs: 100 }).start(spec, noCallbacks),
    (err: unknown) => err instanceof RunnerError && err.code === 'timeout',
  );
});

test('an unreachable platform rejects with http_error', async () => {
  const failing: typeof fetch = async () => {
    throw new TypeError('fetch failed');
  };
  await assert.rejects(
    createHttpRunner({ url: 'https://agents.example/runs', secret: SECRET, fetch: failing }).start(spec, noCallbacks),
    (err: unknown) => err instanceof RunnerError && err.code === 'http_error',
  );
});

test('plain http is refused at construction unless the host is loopback', () => {
  assert.throws(() => createHttpRunner({ url: 'http://agents.example/runs', secret: SECRET }), /must be https/);
  assert.throws(() => createHttpRunner({ url: 'http://10.0.0.5/runs', secret: SECRET }), /must be https/);
  assert.throws(() => createHttpRunner({ url: 'ftp://agents.example/runs', secret: SECRET }), /must be https/);
  assert.throws(() => createHttpRunner({ url: 'not a url', secret: SECRET }), /invalid url/);
  for (const url of [
    'https://agents.example/runs',
    'http://127.0.0.1:8080/x',
    'http://localhost/x',
    'http://[::1]:9/x',
  ]) {
    assert.equal(createHttpRunner({ url, secret: SECRET }).kind, 'http');
  }
});

test('an empty secret is refused at construction', () => {
  assert.throws(() => createHttpRunner({ url: 'https://agents.example/runs', secret: '' }), /secret/);
});
