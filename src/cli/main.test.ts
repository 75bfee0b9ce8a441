// The fixloop CLI (SPEC M1, A1) run in-process against a tiny HTTP server: replay signs exactly the
// bytes it sends, the API commands send the token and map failures to exit codes 1 and 2.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, beforeEach, describe, it } from 'node:test';
import { verify } from '@octokit/webhooks-methods';
import { run } from './main.js';

interface Seen {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

const dir = mkdtempSync(join(tmpdir(), 'fixloop-cli-'));
let server: Server;
let baseUrl: string;
let seen: Seen[] = [];
let answer = { status: 200, body: '{"ok":true}' };

before(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks) });
      res.writeHead(answer.status, { 'content-type': 'application/json' }).end(answer.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => new Promise<void>((resolve) => server.close(() => resolve())));
after(() => rmSync(dir, { recursive: true, force: true }));
beforeEach(() => {
  seen = [];
  answer = { status: 200, body: '{"ok":true}' };
});

function capture(env: NodeJS.ProcessEnv = {}) {
  const out = { stdout: '', stderr: '' };
  const io = {
    stdout: { write: (s: string) => (out.stdout += s) },
    stderr: { write: (s: string) => (out.stderr += s) },
    env,
  };
  return { out, io };
}

describe('fixloop replay (M1, A1)', () => {
  it('posts a raw payload file byte for byte, signed with the first secret', async () => {
    // Odd spacing, a non-ASCII character and a trailing newline: re-serialising would change them.
    const file = join(dir, 'raw.json');
    writeFileSync(file, '{ "action":"completed",  "check_run": {"name": "tést"} }\n');
    answer = { status: 202, body: '{"stored":1}' };
    const { out, io } = capture({ WEBHOOK_SECRET: 'first, second' });
    const code = await run(['replay', file, '--event', 'check_run', '--delivery', 'd-1', '--url', baseUrl], io);
    assert.equal(code, 0, out.stderr);
    const req = seen[0];
    assert.ok(req);
    assert.equal(req.method, 'POST');
    assert.equal(req.url, '/api/github/webhooks');
    assert.deepEqual(req.body, readFileSync(file));
    assert.equal(req.headers['x-github-event'], 'check_run');
    assert.equal(req.headers['x-github-delivery'], 'd-1');
    assert.equal(req.headers['content-type'], 'application/json');
    assert.equal(req.headers['user-agent'], 'GitHub-Hookshot/fixloop-replay');
    const signature = String(req.headers['x-hub-signature-256']);
    assert.ok(await verify('first', req.body.toString('utf8'), signature));
    assert.match(out.stdout, /^202 /);
    assert.match(out.stdout, /"stored": 1/);
  });

  it('posts JSON.stringify(payload) of a wrapped file, with its event and delivery', async () => {
    const file = join(dir, 'wrapped.json');
    const payload = { action: 'completed', check_suite: { id: 7 } };
    writeFileSync(file, JSON.stringify({ event: 'check_suite', delivery: 'abc', payload }, null, 2));
    const { out, io } = capture({ WEBHOOK_SECRET: 's3cret' });
    assert.equal(await run(['replay', file, '--url', baseUrl], io), 0, out.stderr);
    const req = seen[0];
    assert.ok(req);
    assert.equal(req.body.toString('utf8'), JSON.stringify(payload));
    assert.equal(req.headers['x-github-event'], 'check_suite');
    assert.equal(req.headers['x-github-delivery'], 'abc');
    assert.ok(await verify('s3cret', req.body.toString('utf8'), String(req.headers['x-hub-signature-256'])));
  });

  it('a raw payload without --event is exit 2 and sends nothing', async () => {
    const file = join(dir, 'raw-no-event.json');
    writeFileSync(file, '{"action":"completed"}');
    const { out, io } = capture({ WEBHOOK_SECRET: 's' });
    assert.equal(await run(['replay', file, '--url', baseUrl], io), 2);
    assert.match(out.stderr, /--event/);
    assert.equal(seen.length, 0);
  });

  it('a non-2xx answer from the server is exit 1', async () => {
    const file = join(dir, 'rejected.json');
    writeFileSync(file, '{}');
    answer = { status: 401, body: '{"error":"bad signature"}' };
    const { out, io } = capture({ WEBHOOK_SECRET: 's' });
    assert.equal(await run(['replay', file, '--event', 'ping', '--url', baseUrl], io), 1);
    assert.match(out.stdout, /^401 /);
  });
});

describe('fixloop API commands (M1, M2)', () => {
  it('stop sends PUT /api/stop {stopped:true} with the bearer token', async () => {
    const { out, io } = capture({ FIXLOOP_API_TOKEN: 'tok', FIXLOOP_URL: baseUrl });
    assert.equal(await run(['stop'], io), 0, out.stderr);
    const req = seen[0];
    assert.ok(req);
    assert.equal(req.method, 'PUT');
    assert.equal(req.url, '/api/stop');
    assert.equal(req.headers.authorization, 'Bearer tok');
    assert.deepEqual(JSON.parse(req.body.toString('utf8')), { stopped: true });
    assert.equal(out.stdout, '{\n  "ok": true\n}\n');
  });

  it('start sends {stopped:false}; no token means no Authorization header', async () => {
    const { io } = capture();
    assert.equal(await run(['start', '--url', baseUrl], io), 0);
    assert.deepEqual(JSON.parse(seen[0]?.body.toString('utf8') ?? ''), { stopped: false });
    assert.equal(seen[0]?.headers.authorization, undefined);
  });

  it('resume is start by another name (M1: stop/resume)', async () => {
    const { io } = capture();
    assert.equal(await run(['resume', '--url', baseUrl], io), 0);
    assert.equal(seen[0]?.method, 'PUT');
    assert.equal(seen[0]?.url, '/api/stop');
    assert.deepEqual(JSON.parse(seen[0]?.body.toString('utf8') ?? ''), { stopped: false });
  });

  it('V4: task budget sends PUT /api/tasks/{id}/budget with the cap, or null for "configured"', async () => {
    const { out, io } = capture({ FIXLOOP_API_TOKEN: 'tok', FIXLOOP_URL: baseUrl });
    assert.equal(await run(['task', 'budget', '7', '--max-grants', '5'], io), 0, out.stderr);
    assert.equal(await run(['task', 'budget', '7', '--max-grants', 'configured'], io), 0, out.stderr);
    assert.deepEqual(
      seen.map((r) => [r.method, r.url, JSON.parse(r.body.toString('utf8')), r.headers.authorization]),
      [
        ['PUT', '/api/tasks/7/budget', { maxGrants: 5 }, 'Bearer tok'],
        ['PUT', '/api/tasks/7/budget', { maxGrants: null }, 'Bearer tok'],
      ],
    );
  });

  it('V4: task approve-one posts the grant; past the cap the 409 and its words are exit 1 on stderr', async () => {
    answer = { status: 409, body: '{"error":"grant_cap","message":"No more attempts can be granted: 3 of 3"}' };
    const { out, io } = capture({ FIXLOOP_URL: baseUrl });
    assert.equal(await run(['task', 'approve-one', '12'], io), 1);
    assert.deepEqual([seen[0]?.method, seen[0]?.url], ['POST', '/api/tasks/12/approve-one']);
    assert.match(out.stderr, /fixloop task approve-one: POST \/api\/tasks\/12\/approve-one answered 409/);
    assert.match(out.stderr, /No more attempts can be granted: 3 of 3/);
  });

  it('V4: a bad Task id or cap is exit 2 and sends nothing', async () => {
    const { io } = capture({ FIXLOOP_URL: baseUrl });
    for (const argv of [
      ['task', 'budget', '7', '--max-grants', '21'],
      ['task', 'budget', '7', '--max-grants', '-1'],
      ['task', 'budget', 'x', '--max-grants', '2'],
      ['task', 'budget', '7'],
      ['task', 'approve-one', '0'],
    ])
      assert.equal(await run(argv, io), 2, argv.join(' '));
    assert.equal(seen.length, 0);
  });

  it('tasks against a server answering 500 is exit 1 with the reason on stderr', async () => {
    answer = { status: 500, body: '{"error":"boom"}' };
    const { out, io } = capture();
    assert.equal(await run(['tasks', '--url', baseUrl], io), 1);
    assert.match(seen[0]?.url ?? '', /^\/api\/board\?/, 'the table reads the board (M1: loop state, attempts)');
    assert.match(out.stderr, /500/);
    assert.equal(out.stdout, '');
  });

  it('an unreachable server is exit 1', async () => {
    const { out, io } = capture();
    assert.equal(await run(['inbox', '--url', 'http://127.0.0.1:1'], io), 1);
    assert.match(out.stderr, /cannot reach/);
  });

  it('malformed arguments are exit 2: unknown option, unknown command, bad URL', async () => {
    assert.equal(await run(['tasks', '--nope'], capture().io), 2);
    assert.equal(await run(['frobnicate'], capture().io), 2);
    assert.equal(await run(['deliveries', '--url', 'not a url'], capture().io), 2);
    assert.equal(await run(['--help'], capture().io), 0);
  });
});

describe('fixloop results (M1, V1)', () => {
  it('prints the figures as lines and each list as an aligned table; --period and --repo are passed on', async () => {
    answer = {
      status: 200,
      body: JSON.stringify({
        period: '30d',
        touched: 12,
        greenWithoutPerson: 9,
        byRepository: [
          { repository: 'acme/shop', touched: 10, green: 8, spendPerGreen: 1.5 },
          { repository: 'acme/tools', touched: 2, green: 1, spendPerGreen: 0.25 },
        ],
      }),
    };
    const { out, io } = capture({ FIXLOOP_URL: baseUrl });
    assert.equal(await run(['results', '--period', '30d', '--repo', 'acme/shop'], io), 0, out.stderr);
    assert.equal(seen[0]?.url, '/api/results?period=30d&repository=acme%2Fshop');
    assert.equal(
      out.stdout,
      [
        'period                30d',
        'touched               12',
        'green without person  9',
        '',
        'by repository',
        'REPOSITORY  TOUCHED  GREEN  SPEND PER GREEN',
        'acme/shop   10       8      1.50',
        'acme/tools  2        1      0.25',
        '',
      ].join('\n'),
    );
  });

  it('a server without the route: "not available yet", exit 1; --json prints the answer as it came', async () => {
    answer = { status: 404, body: '{"error":"not_found","message":"no route for GET /api/results"}' };
    const { out, io } = capture({ FIXLOOP_URL: baseUrl });
    assert.equal(await run(['results'], io), 1);
    assert.match(out.stderr, /results are not available on this server yet/);
    answer = { status: 200, body: '{"touched":1}' };
    const json = capture({ FIXLOOP_URL: baseUrl });
    assert.equal(await run(['results', '--json'], json.io), 0);
    assert.equal(json.out.stdout, '{\n  "touched": 1\n}\n');
  });
});

describe('fixloop serve (M5)', () => {
  it('a stranded-run period that is not a positive number is a configuration error (exit 2), before anything opens', async () => {
    const config = join(dir, 'serve.json');
    writeFileSync(
      config,
      JSON.stringify({
        works: [{ name: 'shop', account: 'acme', repositories: [{ name: 'acme/shop', role: 'data' }] }],
      }),
    );
    const databaseUrl = `sqlite:${join(dir, 'never-opened', 'fixloop.sqlite')}`;
    for (const bad of ['soon', '0', '-5']) {
      const { out, io } = capture({
        WEBHOOK_SECRET: 's',
        FIXLOOP_API_TOKEN: 't',
        FIXLOOP_CONFIG: config,
        DATABASE_URL: databaseUrl,
        PORT: '0',
        FIXLOOP_ADOPT_EVERY_MS: bad,
      });
      assert.equal(await run(['serve'], io), 2, bad);
      assert.match(out.stderr, /FIXLOOP_ADOPT_EVERY_MS/);
    }
    assert.equal(existsSync(join(dir, 'never-opened')), false, 'no database was created');
  });
});
