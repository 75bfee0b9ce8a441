// SPEC C2, A3, N1: a twelve-job matrix storm with redeliveries collapses into one attempt, one
// resumed run, and one agent start — in one process, and across two replicas on PostgreSQL.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DATABASE_KINDS, createTestDatabase } from '../support/databases.js';
import { startHarness, REPO, SECRET, API_TOKEN } from '../support/harness.js';
import { post } from '../support/deliveries.js';
import { matrixStorm, stormDecided } from '../support/storm.js';
import { commandAgentEnv, startServerProcess, until } from '../support/server-process.js';

const SHA = 'c0ffee'.padEnd(40, '1');
const AGENT = fileURLToPath(new URL('../support/agent-counter.mjs', import.meta.url));

for (const kind of DATABASE_KINDS) {
  describe(`matrix storm (${kind})`, () => {
    test('C2: 76 concurrent deliveries of one red push → exactly 1 attempt, 1 resumed run, 1 agent start', async () => {
      const h = await startHarness(kind);
      try {
        const { body: task } = await h.api('POST', '/api/tasks', {
          repository: 'acme/shop',
          pullRequest: 12,
          branch: 'agent/fix',
        });
        const storm = matrixStorm(REPO, 12, SHA);
        assert.equal(storm.length, 76);
        const answers = await Promise.all(storm.map((d) => post(h.url, d, SECRET)));
        assert.ok(
          answers.every((a) => a.status === 200 || a.status === 202),
          JSON.stringify(answers.filter((a) => a.status >= 300)),
        );
        await h.app.settle();
        const view = (await h.api('GET', `/api/tasks/${task.id}`)).body;
        assert.equal(view.attempts.length, 1);
        assert.equal(view.attempts[0].coordinate, SHA);
        assert.equal(view.runs.filter((r: any) => r.action === 'resume').length, 1);
        assert.equal(h.runner.starts.length, 1);
        assert.equal(view.ciState, 'red');
        assert.equal(view.ciHeadSha, SHA);
        // A3/A4: 12 queued + 12 in_progress dropped, per delivery; the rest stored once, then duplicates.
        const log = (await h.api('GET', '/api/deliveries?limit=1000')).body.decisions;
        const count = (o: string) => log.filter((d: any) => d.outcome === o && d.deliveryId).length;
        assert.equal(count('dropped'), 48);
        assert.equal(count('stored'), 14);
        assert.equal(count('duplicate'), 14);
      } finally {
        await h.close();
      }
    });
  });
}

describe('matrix storm across two replicas (postgres)', () => {
  test('N1/C2: two server processes sharing PostgreSQL, deliveries split between them → the agent starts once', async () => {
    const db = await createTestDatabase('postgres');
    const dir = mkdtempSync(join(tmpdir(), 'fixloop-storm-'));
    const counter = join(dir, 'starts.jsonl');
    const env = commandAgentEnv({
      dir,
      databaseUrl: db.url,
      agentFile: AGENT,
      envAllow: ['COUNTER_FILE'],
      extra: { COUNTER_FILE: counter },
    });
    const [a, b] = await Promise.all([startServerProcess(env, 'free'), startServerProcess(env, 'free')]);
    try {
      const auth = { authorization: `Bearer ${API_TOKEN}`, 'content-type': 'application/json' };
      const created = await fetch(`${a.url}/api/tasks`, {
        method: 'POST',
        headers: auth,
        body: JSON.stringify({ repository: 'acme/shop', pullRequest: 12, branch: 'agent/fix' }),
      });
      assert.equal(created.status, 201);
      const task = (await created.json()) as { id: number };
      const storm = matrixStorm(REPO, 12, SHA, 7);
      const answers = await Promise.all(storm.map((d, i) => post(i % 2 === 0 ? a.url : b.url, d, SECRET)));
      assert.ok(answers.every((x) => x.status === 200 || x.status === 202));
      // Wait for the agent to have run, then for both replicas to have decided on every delivery of the
      // storm: only then does "one attempt, one resume" mean that no second one can still come.
      await until(
        'the resume to complete and the agent to have run',
        async () => {
          const v = await (await fetch(`${b.url}/api/tasks/${task.id}`, { headers: auth })).json();
          return v.runs.some((r: any) => r.action === 'resume' && r.state === 'completed') && existsSync(counter);
        },
        30_000,
      );
      await stormDecided(
        b.url,
        auth,
        storm.map((d) => d.id),
      );
      const view = await (await fetch(`${b.url}/api/tasks/${task.id}`, { headers: auth })).json();
      assert.equal(view.attempts.length, 1);
      assert.equal(view.runs.filter((r: any) => r.action === 'resume').length, 1);
      const starts = readFileSync(counter, 'utf8').trim().split('\n');
      assert.equal(starts.length, 1, 'the agent started exactly once');
      // L1: the agent's environment is minimal: none of the service's secrets reach it.
      const seen: string[] = JSON.parse(starts[0]!).env;
      for (const secret of ['WEBHOOK_SECRET', 'DATABASE_URL', 'FIXLOOP_API_TOKEN', 'FIXLOOP_CONFIG'])
        assert.ok(!seen.includes(secret), `${secret} leaked`);
      for (const given of [
        'FIXLOOP_TASK_ID',
        'FIXLOOP_RUN_ID',
        'FIXLOOP_PROMPT_FILE',
        'FIXLOOP_API_URL',
        'FIXLOOP_RUN_TOKEN',
        'COUNTER_FILE',
      ])
        assert.ok(seen.includes(given), `${given} missing`);
    } finally {
      await Promise.all([a.stop(), b.stop()]);
      await db.drop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
