// SPEC N3, E4: Octokit's request log at scale — a 304 (the kept answer stands) and an expected 404
// (branch not protected, label already gone) are debug lines; any other failure still warns.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startFakeGitHub } from '../../test/support/fake-github/server.js';
import { createGitHub } from './client.js';
import { requestLogLevel } from './octokit.js';

test('N3: the request log line decides its level: 304 and expected 404s debug, the rest warn', () => {
  const rows: Array<[string, 'debug' | 'warn']> = [
    ['GET /repos/acme/shop/pulls/7 - 304 with id 1A2B in 3ms', 'debug'],
    ['GET /repos/acme/shop/branches/main/protection/required_status_checks - 404 with id 1A2B in 3ms', 'debug'],
    ['GET /repos/acme/shop/branches/release%2F1.0/protection/required_status_checks - 404 with id X in 3ms', 'debug'],
    ['DELETE /repos/acme/shop/issues/7/labels/fixloop%3Aapprove-one - 404 with id X in 3ms', 'debug'],
    ['GET /repos/acme/shop/installation - 404 with id X in 3ms', 'debug'],
    ['GET /repos/acme/shop/collaborators/org-member/permission - 404 with id X in 3ms', 'debug'],
    ['GET /repos/acme/shop/collaborators/alice/permission - 403 with id X in 3ms', 'warn'],
    ['GET /repos/acme/shop/pulls/7 - 404 with id X in 3ms', 'warn'],
    ['GET /repos/acme/shop/branches/main/protection/required_status_checks - 403 with id X in 3ms', 'warn'],
    ['POST /repos/acme/shop/issues/7/comments - 422 with id X in 3ms', 'warn'],
    ['GET /repos/acme/shop/pulls/7 - 502 with id X in 3ms', 'warn'],
    ['Error in throttling-plugin limit handler', 'warn'],
  ];
  for (const [line, level] of rows) assert.equal(requestLogLevel(line), level, line);
});

test('N3: a poll-shaped read of GitHub logs its 304s and the unprotected branch at debug, and warns of a missing pull request', async () => {
  const fake = await startFakeGitHub();
  const lines: Array<{ level: 'debug' | 'warn'; msg: string }> = [];
  const log = {
    debug: (_o: object, msg?: string) => void lines.push({ level: 'debug', msg: msg ?? '' }),
    warn: (_o: object, msg?: string) => void lines.push({ level: 'warn', msg: msg ?? '' }),
  };
  try {
    const token = fake.addUserToken('fixloop-user');
    const github = createGitHub({ apiUrl: fake.url, auth: { kind: 'token', token }, log, retry: { retries: 0 } });
    fake.addPull('acme/shop', 7, { headSha: 'a'.repeat(40) });
    await github.getPullRequest('acme/shop', 7);
    await github.getPullRequest('acme/shop', 7); // answered 304
    assert.equal(await github.requiredChecks('acme/shop', 'main'), null); // 404: not protected
    await assert.rejects(github.getPullRequest('acme/shop', 404));
    assert.deepEqual(
      fake.requests.map((r) => r.status),
      [200, 304, 404, 404],
    );
    const warned = lines.filter((l) => l.level === 'warn').map((l) => l.msg);
    assert.equal(warned.length, 1, warned.join('\n'));
    assert.match(warned[0]!, /\/pulls\/404 - 404/);
    assert.ok(lines.some((l) => l.level === 'debug' && / - 304 with id /.test(l.msg)));
    assert.ok(lines.some((l) => l.level === 'debug' && /protection\/required_status_checks - 404/.test(l.msg)));
  } finally {
    await fake.close();
  }
});

test('N3: the poll’s bulk GraphQL queries are not paced as writes (one a second), and do not hold a write back', async () => {
  const fake = await startFakeGitHub();
  try {
    const token = fake.addUserToken('fixloop-user');
    // Write spacing on, as in production.
    const github = createGitHub({ apiUrl: fake.url, auth: { kind: 'token', token }, bulkReads: true });
    for (const n of [1, 2, 3]) fake.addPull('acme/shop', n, { headSha: String(n).repeat(40) });
    for (let i = 0; i < 4; i++) assert.equal((await github.glancePullRequests!('acme/shop', [1, 2, 3])).size, 3);
    await github.addLabels('acme/shop', 1, ['x']);
    // Paced as writes, every request would come at least a second after the one before it (a timer is
    // never early): the gaps as the fake received them, not the run's total, which load stretches.
    const queries = fake.requestsTo(/graphql$/).map((r) => r.at);
    assert.equal(queries.length, 4);
    const gaps = queries.slice(1).map((at, i) => at - queries[i]!);
    assert.ok(Math.min(...gaps) < 1000, `queries ${gaps.join(', ')} ms apart: paced as writes`);
    const [write] = fake.requestsTo(/\/labels$/);
    assert.ok(write, 'the write was sent');
    assert.ok(
      write.at - queries.at(-1)! < 1000,
      `the write waited ${write.at - queries.at(-1)!} ms behind the queries`,
    );
  } finally {
    await fake.close();
  }
});
