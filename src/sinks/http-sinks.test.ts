// The HTTP notice sinks (G1, P4): what one try comes to — 2xx, an error status with Retry-After, a
// redirect, a timeout, no connection — and the URL rule, against a real loopback server.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { createSlackSink, createWebhookSink } from './http-sinks.js';
import type { Notice } from '../core/types.js';
import { closeServer, listenLoopback } from '../../test/support/loopback.js';
import { GITHUB_LINKS } from '../wiring/change-links.js';

const notice: Notice = {
  id: 3,
  taskId: 1,
  reason: 'budget_spent',
  headSha: null,
  attemptsUsed: 2,
  repository: 'acme/shop',
  pullRequest: 5,
  message: 'stopped',
  createdAt: '2026-12-01T10:00:00.000Z',
};
const never = new AbortController().signal;

describe('http sinks (G1, P4)', () => {
  let server: Server;
  let base = '';
  before(async () => {
    server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        if (req.url === '/ok') res.writeHead(204).end();
        else if (req.url === '/busy') res.writeHead(429, { 'retry-after': '7' }).end('slow down');
        else if (req.url === '/moved') res.writeHead(302, { location: 'https://elsewhere.example.com/' }).end();
        else if (req.url === '/hang') setTimeout(() => res.writeHead(200).end(), 500);
        else res.writeHead(404).end('no_service');
      });
    });
    base = await listenLoopback(server);
  });
  after(() => closeServer(server));

  const sink = (path: string, timeoutMs = 2000) =>
    createSlackSink({ name: 'slack', url: `${base}${path}`, links: GITHUB_LINKS, timeoutMs });

  test('a 2xx answer is delivered', async () => {
    assert.deepEqual(await sink('/ok').send(notice, 'k', never), { kind: 'delivered' });
  });

  test("an error status fails the try with the sink's words and its Retry-After", async () => {
    assert.deepEqual(await sink('/busy').send(notice, 'k', never), {
      kind: 'failed',
      error: 'HTTP 429: slow down',
      retryAfterMs: 7000,
    });
    assert.deepEqual(await sink('/nope').send(notice, 'k', never), {
      kind: 'failed',
      error: 'HTTP 404: no_service',
      retryAfterMs: null,
    });
  });

  test('a redirect is a failed try, never followed', async () => {
    const r = await sink('/moved').send(notice, 'k', never);
    assert.equal(r.kind, 'failed');
  });

  test('no answer within the time limit fails the try', async () => {
    assert.deepEqual(await sink('/hang', 50).send(notice, 'k', never), {
      kind: 'failed',
      error: 'no answer within 50 ms',
      retryAfterMs: null,
    });
  });

  test('no connection fails the try', async () => {
    const closed = createServer();
    const url = await listenLoopback(closed);
    await closeServer(closed);
    const r = await createSlackSink({ name: 's', url, links: GITHUB_LINKS, timeoutMs: 1000 }).send(notice, 'k', never);
    assert.equal(r.kind, 'failed');
    assert.match((r as { error: string }).error, /^could not reach the sink/);
  });

  test('refuses plain http off loopback and a webhook without a secret', () => {
    const opts = { name: 'x', links: GITHUB_LINKS, timeoutMs: 1000 };
    assert.throws(() => createSlackSink({ ...opts, url: 'http://hooks.example.com/' }), /must be https/);
    assert.throws(() => createWebhookSink({ ...opts, url: 'https://hooks.example.com/', secret: '' }), /secret/);
  });
});
