// Decision 0074 (issue 35 item 4): the `session` runner with Devin's API v3 against a fake Devin, a
// real loopback server answering in v3's documented SessionResponse shape. `acus_consumed` counts the
// whole session, so a run's spend is its growth from before the message, in US dollars at the
// configured price per ACU; without a price the ACUs are told in the run's log and nothing is counted.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { RunExit, RunnerCallbacks, RunSpec } from '../src/app/ports.js';
import { createSessionRunner } from '../src/runners/session.js';
import { devinV3Vendor } from '../src/runners/session-vendors.js';
import { startFakeDevin } from './support/fake-vendors/devin.js';
import { until } from './support/server-process.js';

const KEY = 'cog_service-user-key';

const spec = (): RunSpec => ({
  taskId: 7,
  runId: 11,
  attemptId: 3,
  repository: 'acme/shop',
  pullRequest: 41,
  branch: 'agent/fix-41',
  headSha: 'a'.repeat(40),
  resumeRef: 'devin-abc123',
  prompt: 'The check `test` failed: FAIL src/cart.test.ts',
  runToken: 'run-token',
  apiUrl: 'https://fixloop.example',
});

function recorder(): RunnerCallbacks & { exits: RunExit[]; output: string[] } {
  const exits: RunExit[] = [];
  const output: string[] = [];
  return {
    exits,
    output,
    onExit: (_runId, r) => void exits.push(r),
    onOutput: (_runId, chunk) => void output.push(chunk),
  };
}

describe("the session runner with Devin's API v3: the run's ACUs (decision 0074)", { timeout: 30_000 }, () => {
  test("a finished session's spend is the ACUs this run used, at the configured price", async () => {
    const devin = await startFakeDevin(KEY);
    // 12.5 ACUs from earlier work on the session; this run's message costs 4 more.
    const session = devin.addSession('devin-abc123', 'blocked', 'working', { acus: 12.5, acusPerMessage: 4 });
    const runner = createSessionRunner({
      vendor: devinV3Vendor('org-acme', 2.25, devin.url),
      apiKey: KEY,
      pollIntervalMs: 10,
    });
    try {
      const cb = recorder();
      await runner.start(spec(), cb);
      assert.deepEqual(session.messages, ['The check `test` failed: FAIL src/cart.test.ts']);
      await until(
        'a poll after the message',
        async () => devin.requests.filter((r) => r.method === 'GET').length >= 2 || null,
        5000,
        5,
      );
      session.status_enum = 'finished';
      const [end] = await until('the run to end', async () => (cb.exits.length ? cb.exits : null), 5000, 5);
      assert.equal(end!.state, 'completed');
      assert.deepEqual(end!.spend, { dollars: 9, note: '4 ACUs at $2.25 per ACU, reported by devin' });
      const paths = devin.requests.map((r) => `${r.method} ${r.path}`);
      assert.equal(paths[0], 'GET /v3/organizations/org-acme/sessions/devin-abc123', 'the count before the message');
      assert.equal(paths[1], 'POST /v3/organizations/org-acme/sessions/devin-abc123/messages');
      assert.equal(devin.requests[0]!.headers.authorization, `Bearer ${KEY}`);
      assert.deepEqual(devin.violations, []);
    } finally {
      await runner.stopAll();
      await devin.close();
    }
  });

  test('without a price, the ACUs are told in the run log and no spend is counted', async () => {
    const devin = await startFakeDevin(KEY);
    const session = devin.addSession('devin-abc123', 'blocked', 'working', { acus: 3, acusPerMessage: 1.5 });
    const runner = createSessionRunner({
      vendor: devinV3Vendor('org-acme', null, devin.url),
      apiKey: KEY,
      pollIntervalMs: 10,
    });
    try {
      const cb = recorder();
      await runner.start(spec(), cb);
      await until(
        'a poll after the message',
        async () => devin.requests.filter((r) => r.method === 'GET').length >= 2 || null,
        5000,
        5,
      );
      session.status_enum = 'finished';
      const [end] = await until('the run to end', async () => (cb.exits.length ? cb.exits : null), 5000, 5);
      assert.equal(end!.spend, undefined);
      assert.match(
        cb.output.join(''),
        /devin reported 1\.5 ACUs used by this run \(not counted as spend: no price per ACU is configured\)/,
      );
    } finally {
      await runner.stopAll();
      await devin.close();
    }
  });

  test("v3's waiting_for_user hands the run to a person", async () => {
    const devin = await startFakeDevin(KEY);
    const session = devin.addSession('devin-abc123', 'finished', 'working');
    const runner = createSessionRunner({
      vendor: devinV3Vendor('org-acme', 2.25, devin.url),
      apiKey: KEY,
      pollIntervalMs: 10,
    });
    try {
      const cb = recorder();
      await runner.start(spec(), cb);
      await until(
        'a poll after the message',
        async () => devin.requests.filter((r) => r.method === 'GET').length >= 2 || null,
        5000,
        5,
      );
      session.status_enum = 'blocked';
      const [end] = await until('the run to end', async () => (cb.exits.length ? cb.exits : null), 5000, 5);
      assert.equal(end!.needsPerson, true);
      assert.match(end!.detail ?? '', /waiting for a person \(waiting_for_user\)/);
      assert.equal(end!.spend?.dollars ?? 0, 0, 'no ACUs used: nothing counted');
    } finally {
      await runner.stopAll();
      await devin.close();
    }
  });
});
