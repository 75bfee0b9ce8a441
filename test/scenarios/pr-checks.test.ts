// SPEC J1, J2: `pr checks` against the fake GitHub — the log is read from the 302's signed https URL
// without credentials, cut at 32 MiB with a marker, cleaned of ANSI and timestamps; at most five logs;
// a log that cannot be read is an error on its entry only. Same answer from the API and the CLI.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { startFakeGitHub, type FakeGitHub } from '../support/fake-github/server.js';
import { createGitHub } from '../../src/github/client.js';
import { prChecks } from '../../src/app/pr-checks.js';
import { fetchLogTail } from '../../src/github/job-log.js';
import { run } from '../../src/cli/main.js';
import type { ProviderPort } from '../../src/app/provider-port.js';

const REPO = 'acme/shop';
const SHA = 'ab'.repeat(20);

describe('pr checks against the fake GitHub (J1, J2)', () => {
  let fake: FakeGitHub;
  let github: ProviderPort;
  let token: string;
  const jobs: number[] = [];

  before(async () => {
    fake = await startFakeGitHub();
    token = fake.addUserToken('reader');
    github = createGitHub({
      apiUrl: fake.url,
      auth: { kind: 'token', token },
      throttle: { spaceWrites: false },
      retry: { backoffUnitMs: 1 },
    });
    fake.addPull(REPO, 5, { headSha: SHA, headRef: 'agent/fix' });
    fake.addCheckRun(REPO, SHA, { name: 'lint', status: 'completed', conclusion: 'success' });
    for (let i = 0; i < 7; i++) {
      const r = fake.addCheckRun(REPO, SHA, { name: `test shard ${i}`, status: 'completed', conclusion: 'failure' });
      jobs.push(r.id);
      fake.setLog(
        r.id,
        `2026-11-30T02:11:36.1234567Z \u001b[31mFAIL\u001b[0m shard ${i}\n2026-11-30T02:11:36.2234567Z expected ${i} to equal ${i + 1}\n`,
      );
    }
    fake.addStatus(REPO, SHA, { context: 'ci/legacy', state: 'error', description: 'legacy CI broke' });
    // Shard 0 ran vitest: its log is real vitest output (J3 fixture), behind GitHub's timestamps.
    const vitest = readFileSync(new URL('../fixtures/tool-output/vitest.txt', import.meta.url), 'utf8');
    fake.setLog(
      jobs[0]!,
      vitest
        .split('\n')
        .map((l) => `2026-11-30T02:11:36.1234567Z ${l}`)
        .join('\n'),
    );
    // Shard 1: its log redirect points at plain http — never followed.
    fake.state.logRedirects[jobs[1]!] = 'http://127.0.0.1:9/logs/plain.txt';
    // Shard 2: a 40 MiB log — cut at 32 MiB with a marker.
    fake.setLog(jobs[2]!, Buffer.concat([Buffer.alloc(40 * 1024 * 1024, 'x\n'), Buffer.from('the real end\n')]));
  });
  after(async () => {
    fake.assertNoViolations();
    await fake.close();
  });

  test('J1/J2: one entry per check run and status, failing by B3, five logs at most, errors on their entry only', async () => {
    fake.clearRequests();
    const out = await prChecks(
      { host: github, fetchLog: (url, o) => fetchLogTail(url, { ...o, ca: fake.blobCa }) },
      { repository: REPO, number: 5, failingOnly: false, logLines: 20 },
    );
    assert.equal(out.headSha, SHA);
    assert.equal(out.entries.length, 9);
    const byName = new Map(out.entries.map((e) => [e.name, e as any]));
    assert.equal(byName.get('lint')!.failing, false);
    assert.equal(byName.get('ci/legacy')!.failing, true);
    const withLogs = out.entries.filter((e: any) => e.log || e.logError);
    assert.equal(withLogs.length, 5, 'the first five failing Actions jobs');
    assert.deepEqual(
      byName.get('test shard 3')!.log!.lines,
      ['FAIL shard 3', 'expected 3 to equal 4'],
      'ANSI and timestamps stripped',
    );
    // J3: the failure report names the local command that reruns exactly the failing tests.
    const report = byName.get('test shard 0')!.localCommand;
    assert.equal(report.tool, 'vitest');
    assert.ok(byName.get('test shard 0')!.log.lines.length <= 20, '--log-lines bounds what is shown');
    assert.ok(report.failures.length >= 1);
    assert.equal(report.command[0], 'npx');
    assert.equal(byName.get('test shard 3')!.localCommand, undefined, 'no runner recognised: no command invented');
    assert.match(byName.get('test shard 1')!.logError!, /https/i, 'a plain-http redirect is refused');
    const cut = byName.get('test shard 2')!.log!;
    assert.equal(cut.truncated, true);
    assert.match(cut.lines.at(-1)!, /cut after 33554432 bytes/);
    assert.ok(!cut.lines.includes('the real end'));
    assert.equal(byName.get('test shard 5')!.log, undefined);
    // No credentials reach the signed blob host.
    const blob = fake.requestsTo(/./, 'blob');
    assert.ok(blob.length >= 3);
    for (const r of blob) {
      assert.equal(r.headers.authorization, undefined);
      assert.equal(r.headers.cookie, undefined);
    }
  });

  test('J1: the CLI prints the same entries as JSON; --failing keeps only failing ones; exit codes 2 and 1', async () => {
    let stdout = '';
    let stderr = '';
    const io = {
      stdout: { write: (s: string) => ((stdout += s), true) },
      stderr: { write: (s: string) => ((stderr += s), true) },
      env: { GITHUB_TOKEN: token, GITHUB_API_URL: fake.url, NODE_EXTRA_CA_CERTS: '' },
    };
    assert.equal(await run(['pr', 'checks', 'acme/shop#5', '--failing', '--log-lines', '0'], io as never), 0, stderr);
    const out = JSON.parse(stdout);
    assert.equal(out.entries.length, 8);
    assert.ok(out.entries.every((e: any) => e.failing));
    const before = fake.requests.length;
    assert.equal(await run(['pr', 'checks', 'acme/shop#zero'], io as never), 2);
    assert.equal(await run(['pr', 'checks', 'acme/shop#0'], io as never), 2);
    assert.equal(fake.requests.length, before, 'a malformed argument makes no request');
    assert.equal(await run(['pr', 'checks', 'acme/shop#404'], io as never), 1, 'GitHub refuses');
  });
});
