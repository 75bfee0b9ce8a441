// The fake GitHub itself, spoken to with plain fetch: pagination by Link headers, ETags, faults,
// auth, the signed blob host, request recording, violation reporting, GHE prefix, signed webhooks.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { get } from 'node:https';
import { verify } from '@octokit/webhooks-methods';
import { startFakeGitHub, type FakeGitHub } from './server.js';

const SHA = 'a'.repeat(40);

describe('fake GitHub', () => {
  let fake: FakeGitHub;
  let auth: { authorization: string };

  before(async () => {
    fake = await startFakeGitHub();
    auth = { authorization: `token ${fake.addUserToken('tester')}` };
    fake.addPull('acme/shop', 7, { headSha: SHA });
    for (let i = 0; i < 5; i++) fake.addCheckRun('acme/shop', SHA, { name: `job ${i}`, conclusion: 'success' });
  });
  after(() => fake.close());

  test('pages with per_page and Link headers (next/last, then first/prev)', async () => {
    const first = await fetch(`${fake.url}/repos/acme/shop/commits/${SHA}/check-runs?per_page=2`, { headers: auth });
    const body = (await first.json()) as { total_count: number; check_runs: Array<{ name: string }> };
    assert.equal(body.total_count, 5);
    assert.deepEqual(
      body.check_runs.map((r) => r.name),
      ['job 0', 'job 1'],
    );
    const link = first.headers.get('link') ?? '';
    assert.match(link, /<[^>]+[?&]page=2[^>]*>; rel="next"/);
    assert.match(link, /<[^>]+[?&]page=3[^>]*>; rel="last"/);
    const last = await fetch(/<([^>]+)>; rel="last"/.exec(link)![1]!, { headers: auth });
    const lastBody = (await last.json()) as { check_runs: Array<{ name: string }> };
    assert.deepEqual(
      lastBody.check_runs.map((r) => r.name),
      ['job 4'],
    );
    assert.match(last.headers.get('link') ?? '', /rel="prev"/);
    assert.doesNotMatch(last.headers.get('link') ?? '', /rel="next"/);
  });

  test('answers 304 to a matching If-None-Match, with the same ETag and no body', async () => {
    const url = `${fake.url}/repos/acme/shop/pulls/7`;
    const first = await fetch(url, { headers: auth });
    const etag = first.headers.get('etag')!;
    assert.match(etag, /^W\/"/);
    const second = await fetch(url, { headers: { ...auth, 'if-none-match': etag } });
    assert.equal(second.status, 304);
    assert.equal(second.headers.get('etag'), etag);
    assert.equal(await second.text(), '');
    fake.setHead('acme/shop', 7, 'b'.repeat(40));
    assert.equal((await fetch(url, { headers: { ...auth, 'if-none-match': etag } })).status, 200);
  });

  test('failNext answers the given statuses in order, then serves normally', async () => {
    fake.failNext(/\/pulls\/7$/, [502, 503]);
    const statuses = [];
    for (let i = 0; i < 3; i++)
      statuses.push((await fetch(`${fake.url}/repos/acme/shop/pulls/7`, { headers: auth })).status);
    assert.deepEqual(statuses, [502, 503, 200]);
  });

  test('rateLimitNext answers with retry-after, x-ratelimit-remaining 0 and a reset ahead', async () => {
    fake.rateLimitNext(/\/pulls\/7$/, 2, { kind: 'secondary' });
    const res = await fetch(`${fake.url}/repos/acme/shop/pulls/7`, { headers: auth });
    assert.equal(res.status, 429);
    assert.equal(res.headers.get('retry-after'), '2');
    assert.equal(res.headers.get('x-ratelimit-remaining'), '0');
    assert.ok(Number(res.headers.get('x-ratelimit-reset')) >= Date.now() / 1000 + 1);
    assert.match(((await res.json()) as { message: string }).message, /secondary rate limit/);
  });

  test('no credentials → 401; the App routes need a JWT; an installation token only reaches its owner', async () => {
    assert.equal((await fetch(`${fake.url}/repos/acme/shop/pulls/7`)).status, 401);
    assert.equal((await fetch(`${fake.url}/app`, { headers: auth })).status, 401);
    fake.state.installationTokens.ghs_fixed = {
      installationId: 1,
      account: 'globex',
      expiresAt: '2999-01-01T00:00:00Z',
    };
    assert.equal(
      (await fetch(`${fake.url}/repos/acme/shop/pulls/7`, { headers: { authorization: 'token ghs_fixed' } })).status,
      404,
    );
    fake.state.installationTokens.ghs_old = { installationId: 1, account: 'acme', expiresAt: '2000-01-01T00:00:00Z' };
    assert.equal(
      (await fetch(`${fake.url}/repos/acme/shop/pulls/7`, { headers: { authorization: 'token ghs_old' } })).status,
      401,
      'expired',
    );
  });

  test('the jobs-logs endpoint redirects (302) to the https blob host, which checks the signature', async () => {
    fake.setLog(99, 'the log\n');
    const res = await fetch(`${fake.url}/repos/acme/shop/actions/jobs/99/logs`, { headers: auth, redirect: 'manual' });
    assert.equal(res.status, 302);
    const location = res.headers.get('location')!;
    assert.ok(location.startsWith('https://127.0.0.1:'));
    assert.deepEqual(await httpsGet(location, fake.blobCa), { status: 200, text: 'the log\n' });
    assert.equal((await httpsGet(location.replace(/sig=[0-9a-f]+/, 'sig=00'), fake.blobCa)).status, 403);
    const blob = fake.requestsTo(/^\/logs\/99\//, 'blob');
    assert.equal(blob.length, 2);
    assert.equal(blob[0]!.headers.authorization, undefined);
  });

  test('records every request with method, path, headers, parsed body and status', async () => {
    fake.clearRequests();
    await fetch(`${fake.url}/repos/acme/shop/issues/7/labels`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ labels: ['x'] }),
    });
    const [r] = fake.requests;
    assert.equal(r?.host, 'api');
    assert.equal(r?.method, 'POST');
    assert.equal(r?.path, '/repos/acme/shop/issues/7/labels');
    assert.equal(r?.headers.authorization, auth.authorization);
    assert.deepEqual(r?.body, { labels: ['x'] });
    assert.equal(r?.status, 200);
    assert.equal(r?.operation, 'POST /repos/{owner}/{repo}/issues/{issue_number}/labels');
  });

  test('a branch set with setBranch names its head commit in commits/{ref}/…; any other ref is a sha', async () => {
    const main = 'b'.repeat(40);
    fake.addCheckRun('acme/shop', main, { name: 'base test', conclusion: 'failure' });
    const read = async (ref: string) => {
      const res = await fetch(`${fake.url}/repos/acme/shop/commits/${ref}/check-runs`, { headers: auth });
      return ((await res.json()) as { check_runs: Array<{ name: string; head_sha: string }> }).check_runs;
    };
    assert.deepEqual(await read('main'), []);
    fake.setBranch('acme/shop', 'main', main);
    assert.deepEqual(
      (await read('main')).map((r) => [r.name, r.head_sha]),
      [['base test', main]],
    );
    assert.equal((await read(SHA)).length, 5);
    fake.setBranch('acme/shop', 'main', null);
    assert.deepEqual(await read('main'), []);
  });

  test("an answer outside GitHub's schema is recorded as a violation and assertNoViolations throws", async () => {
    fake.state.pulls['acme/shop#66'] = { headSha: 66 as unknown as string };
    await fetch(`${fake.url}/repos/acme/shop/pulls/66`, { headers: auth });
    assert.equal(fake.violations.length, 1);
    assert.match(fake.violations[0]!.errors.join('\n'), /\/head\/sha must be string/);
    assert.throws(() => fake.assertNoViolations(), /outside GitHub's schema/);
    fake.violations.length = 0;
  });
});

describe('fake GitHub Enterprise prefix', () => {
  test('serves the REST API only under /api/v3', async () => {
    const fake = await startFakeGitHub({ prefix: '/api/v3' });
    try {
      const headers = { authorization: `token ${fake.addUserToken('u')}` };
      assert.equal((await fetch(`${fake.url}/user`, { headers })).status, 200);
      assert.equal((await fetch(`${fake.url.replace('/api/v3', '')}/user`, { headers })).status, 404);
    } finally {
      await fake.close();
    }
  });
});

describe('fake GitHub as a webhook sender', () => {
  test("POSTs the signed bytes with GitHub's headers", async () => {
    const received: Array<{ headers: Record<string, unknown>; body: string }> = [];
    const receiver = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString('utf8')));
      req.on('end', () => {
        received.push({ headers: req.headers, body });
        res.writeHead(202).end('queued');
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const fake = await startFakeGitHub({ validate: false });
    try {
      const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/api/github/webhooks`;
      const sent = await fake.sendWebhook(url, 'check_run', { action: 'completed', check_run: { id: 1 } }, 'shh');
      assert.equal(sent.status, 202);
      assert.equal(sent.body, 'queued');
      const [delivery] = received;
      assert.equal(delivery?.headers['x-github-event'], 'check_run');
      assert.equal(delivery?.headers['x-github-delivery'], sent.deliveryId);
      assert.equal(await verify('shh', delivery!.body, String(delivery?.headers['x-hub-signature-256'])), true);
      assert.deepEqual(JSON.parse(delivery!.body), { action: 'completed', check_run: { id: 1 } });
    } finally {
      await fake.close();
      receiver.close();
    }
  });
});

function httpsGet(url: string, ca: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    get(url, { ca }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    }).on('error', reject);
  });
}
