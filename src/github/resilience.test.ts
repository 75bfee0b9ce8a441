// SPEC E4: 5xx answers are retried with backoff and rate limits are waited out as GitHub says —
// never hammered — against the fake GitHub's injected faults. These tests wait in real time (the
// Octokit plugins own the timers); the waits are one or two seconds.
import { afterEach, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ProviderError, type ProviderPort } from '../app/provider-port.js';
import { startFakeGitHub, type FakeGitHub } from '../../test/support/fake-github/server.js';
import { createGitHub, type CreateGitHubOptions } from './client.js';

const REPO = 'acme/shop';
const PULL = /\/repos\/acme\/shop\/pulls\/7$/;

describe('GitHub adapter: retries and rate limits (E4)', () => {
  let fake: FakeGitHub;
  let client: (extra?: Partial<CreateGitHubOptions>) => ProviderPort;

  beforeEach(async () => {
    fake = await startFakeGitHub();
    const token = fake.addUserToken('fixloop-user');
    fake.addPull(REPO, 7, { headSha: 'a'.repeat(40) });
    client = (extra = {}) =>
      createGitHub({ apiUrl: fake.url, auth: { kind: 'token', token }, retry: { backoffUnitMs: 20 }, ...extra });
  });
  afterEach(async () => {
    fake.assertNoViolations();
    await fake.close();
  });

  test('E4: GitHub answering 502 twice, then 200, succeeds after retries with exactly 3 requests', async () => {
    fake.failNext(PULL, [502, 502]);
    const started = Date.now();
    const pr = await client().getPullRequest(REPO, 7);
    assert.equal(pr.number, 7);
    assert.deepEqual(
      fake.requestsTo(PULL).map((r) => r.status),
      [502, 502, 200],
    );
    // Backoff n² × unit: 1 × 20 ms, then 4 × 20 ms.
    assert.ok(Date.now() - started >= 95, `backed off (${Date.now() - started} ms)`);
  });

  test('E4: 5xx beyond the retries is a retryable ProviderError after 1 + 3 requests', async () => {
    fake.failNext(PULL, [503, 503, 503, 503, 503]);
    await assert.rejects(client().getPullRequest(REPO, 7), (err: unknown) => {
      assert.ok(err instanceof ProviderError);
      assert.equal(err.status, 503);
      assert.equal(err.retryable, true);
      return true;
    });
    assert.equal(fake.requestsTo(PULL).length, 4);
  });

  test('E4: a 4xx is not retried', async () => {
    fake.failNext(PULL, [422]);
    await assert.rejects(
      client().getPullRequest(REPO, 7),
      (err: unknown) => err instanceof ProviderError && err.status === 422 && !err.retryable,
    );
    assert.equal(fake.requestsTo(PULL).length, 1);
  });

  test('E4: a primary rate limit (403, x-ratelimit-remaining 0, reset 1–2 s ahead) is waited out: 2 requests', async () => {
    fake.rateLimitNext(PULL, 1, { kind: 'primary', status: 403 });
    const started = Date.now();
    assert.equal((await client().getPullRequest(REPO, 7)).number, 7);
    const [limited, retried] = fake.requestsTo(PULL);
    assert.equal(fake.requestsTo(PULL).length, 2);
    assert.equal(limited?.status, 403);
    assert.equal(retried?.status, 200);
    const reset = 1000;
    assert.ok(retried!.at - limited!.at >= reset, `waited ${retried!.at - limited!.at} ms`);
    assert.ok(Date.now() - started >= reset);
  });

  test('E4: a secondary rate limit (429, retry-after: 1) is waited out: 2 requests', async () => {
    fake.rateLimitNext(PULL, 1, { kind: 'secondary', status: 429 });
    const started = Date.now();
    assert.equal((await client().getPullRequest(REPO, 7)).number, 7);
    const [limited, retried] = fake.requestsTo(PULL);
    assert.equal(fake.requestsTo(PULL).length, 2);
    assert.equal(limited?.status, 429);
    assert.equal(limited?.headers['x-ratelimit-remaining'], undefined, 'the header is on the answer, not the request');
    assert.ok(retried!.at - limited!.at >= 1000, `waited ${retried!.at - limited!.at} ms`);
    assert.ok(Date.now() - started >= 1000);
  });

  test('E4: rate limited past the allowed retries is a retryable ProviderError, each retry after the wait', async () => {
    fake.rateLimitNext(PULL, 1, { kind: 'secondary', status: 403 });
    fake.rateLimitNext(PULL, 1, { kind: 'secondary', status: 403 });
    await assert.rejects(client({ throttle: { onRateLimitRetries: 1 } }).getPullRequest(REPO, 7), (err: unknown) => {
      assert.ok(err instanceof ProviderError);
      assert.equal(err.status, 403);
      assert.equal(err.retryable, true);
      return true;
    });
    const attempts = fake.requestsTo(PULL);
    assert.equal(attempts.length, 2, 'one retry, no more (the retry plugin does not add its own)');
    assert.ok(attempts[1]!.at - attempts[0]!.at >= 1000);
  });

  test('E4: a wait longer than maxWaitSeconds is not sat out: retryable ProviderError after 1 request', async () => {
    fake.rateLimitNext(PULL, 3600, { kind: 'primary', status: 429 });
    // Not sitting it out is the behaviour, so a bound stays, but a generous one (load runs a test late,
    // never early): well short of the 60 s it may wait, and checked against a timer set before the call.
    let longestPassed = false;
    const sentinel = setTimeout(() => (longestPassed = true), 5_000);
    await assert.rejects(
      client({ throttle: { maxWaitSeconds: 60 } }).getPullRequest(REPO, 7),
      (err: unknown) => err instanceof ProviderError && err.status === 429 && err.retryable,
    );
    clearTimeout(sentinel);
    assert.equal(fake.requestsTo(PULL).length, 1);
    assert.equal(longestPassed, false, 'an hour is not sat out');
  });

  test('E4: writes are spaced as GitHub asks (≥ 1 s apart) unless switched off', async () => {
    const github = client();
    await github.addLabels(REPO, 7, ['a']);
    await github.addLabels(REPO, 7, ['b']);
    const writes = fake.requestsTo(/\/issues\/7\/labels$/);
    assert.equal(writes.length, 2);
    assert.ok(writes[1]!.at - writes[0]!.at >= 950, `spaced ${writes[1]!.at - writes[0]!.at} ms`);
  });
});
