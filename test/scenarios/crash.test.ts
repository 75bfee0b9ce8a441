// Crash safety (issue 2 §9; SPEC C3, C4, H2): the process is killed with SIGKILL between the claim
// and the dispatch, then restarted. The agent starts at most once and the attempt's fate is visible.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DATABASE_KINDS, createTestDatabase } from '../support/databases.js';
import { API_TOKEN, REPO, SECRET } from '../support/harness.js';
import { checkRunPayload, delivery, post } from '../support/deliveries.js';
import { commandAgentEnv, decisionsOf, startServerProcess, taskWithRedPush, until } from '../support/server-process.js';
import { processReconcilePasses } from '../support/reconcile-passes.js';
import { stormDecided } from '../support/storm.js';
import { tempDir } from '../support/temp-dir.js';

const AGENT = fileURLToPath(new URL('../support/agent-counter.mjs', import.meta.url));
const auth = { authorization: `Bearer ${API_TOKEN}`, 'content-type': 'application/json' };

async function scenario(kind: 'sqlite' | 'postgres', point: 'after_claim' | 'before_start') {
  const db = await createTestDatabase(kind);
  const dir = tempDir('fixloop-crash-');
  const counter = join(dir, 'starts.jsonl');
  const env = commandAgentEnv({
    dir,
    databaseUrl: db.url,
    agentFile: AGENT,
    envAllow: ['COUNTER_FILE'],
    extra: { COUNTER_FILE: counter, FIXLOOP_RECONCILE_GRACE_MS: '0' },
  });
  const first = await startServerProcess({ ...env, FIXLOOP_FAULT: `${point}:kill` }, 'free');
  let second: Awaited<ReturnType<typeof startServerProcess>> | null = null;
  try {
    const created = await fetch(`${first.url}/api/tasks`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ repository: 'acme/shop', pullRequest: 3, branch: 'agent/fix' }),
    });
    const task = (await created.json()) as { id: number };
    const sha = 'deadbeef'.padEnd(40, '0');
    const red = delivery(
      'check_run',
      checkRunPayload({
        repo: REPO,
        sha,
        id: 77,
        name: 'test',
        pr: { number: 3, headSha: sha },
        output: 'expected true, got false',
      }),
    );
    // Acknowledged only after commit: the 2xx comes before the evaluation that kills the process.
    assert.equal((await post(first.url, red, SECRET)).status, 202);
    const exitCode = await first.exited;
    assert.notEqual(exitCode, 0, 'the first process died');
    assert.equal(first.child.signalCode, 'SIGKILL');
    assert.equal(existsSync(counter), false, 'the agent never started before the crash');

    second = await startServerProcess(env, first.port);
    // A redelivery after the restart must not start a second run either.
    const again = await post(second.url, red, SECRET);
    assert.equal(again.body.outcome, 'duplicate');
    const restarted = second;
    const taskView = async () =>
      (await (await fetch(`${restarted.url}/api/tasks/${task.id}`, { headers: auth })).json()) as any;
    const startsNow = () =>
      existsSync(counter) ? readFileSync(counter, 'utf8').trim().split('\n').filter(Boolean) : [];
    const settled = await until('the restarted process to settle the attempt', async () => {
      const v = await taskView();
      return !['claimed', 'dispatching'].includes(v.attempts[0]?.status) && v;
    });
    if (settled.attempts[0].status === 'dispatched')
      await until('the agent to start', async () => startsNow().length > 0);
    // Before saying nothing starts the agent again, wait until nothing is left to decide: start-up
    // reconciliation ran before readiness; every delivery has its decision (the start-up sweep
    // evaluates what was only stored); the run of the attempt, if any, has ended. The periodic pass
    // is not due within the test (every 30 s), and nothing else dispatches.
    await stormDecided(restarted.url, auth, [red.id]);
    const view = await until('the run of the attempt to end, if it has one', async () => {
      const v = await taskView();
      return v.runs.every((r: any) => !['queued', 'running'].includes(r.state)) && v;
    });
    assert.equal(view.attempts.length, 1);
    const starts = startsNow();
    assert.ok(starts.length <= 1, 'the agent started at most once');
    return {
      view,
      starts,
      decisions: (
        (await (
          await fetch(`${second.url}/api/deliveries?taskId=${task.id}&limit=100`, { headers: auth })
        ).json()) as any
      ).decisions,
    };
  } finally {
    if (first.child.exitCode === null && first.child.signalCode === null) await first.stop('SIGKILL');
    if (second) await second.stop();
    await db.drop();
  }
}

for (const kind of DATABASE_KINDS) {
  describe(`crash between claim and dispatch (${kind})`, () => {
    test('killed after the claim: on restart the claimed attempt is dispatched exactly once', async () => {
      const { view, starts } = await scenario(kind, 'after_claim');
      assert.equal(view.attempts[0].status, 'dispatched');
      assert.equal(starts.length, 1);
      assert.equal(view.runs.filter((r: any) => r.action === 'resume').length, 1);
      // H2: the gate rejection written with the claim survived the crash.
      assert.equal(view.rejections.length, 1);
    });

    test('killed while dispatching: never sent again, the attempt is marked dispatch_unknown', async () => {
      const { view, starts, decisions } = await scenario(kind, 'before_start');
      assert.equal(starts.length, 0);
      assert.equal(view.attempts[0].status, 'dispatch_unknown');
      assert.ok(decisions.some((d: any) => d.reason === 'dispatch_unknown'));
    });
  });
}

/**
 * Two replicas on one PostgreSQL database; the one that takes the red push dies by SIGKILL at `point`;
 * the sibling, never restarted, settles what it left (periodic pass every 200 ms, grace 1 s).
 * Returns the sibling's view of the attempt once it left `claimed`/`dispatching`, its decisions, and
 * the agent's starts.
 */
async function siblingSettles(point: 'after_claim' | 'before_start', pullRequest: number) {
  const db = await createTestDatabase('postgres');
  const dir = tempDir('fixloop-crash-sibling-');
  const counter = join(dir, 'starts.jsonl');
  const env = commandAgentEnv({
    dir,
    databaseUrl: db.url,
    agentFile: AGENT,
    envAllow: ['COUNTER_FILE'],
    extra: {
      COUNTER_FILE: counter,
      FIXLOOP_RECONCILE_GRACE_MS: '1000',
      FIXLOOP_ADOPT_EVERY_MS: '200',
      LOG_LEVEL: 'debug', // its passes, as they end (processReconcilePasses)
    },
  });
  const sibling = await startServerProcess(env, 'free');
  let dying: Awaited<ReturnType<typeof startServerProcess>> | null = null;
  const starts = () =>
    existsSync(counter) ? readFileSync(counter, 'utf8').trim().split('\n').filter(Boolean).length : 0;
  try {
    const replica = (dying = await startServerProcess({ ...env, FIXLOOP_FAULT: `${point}:kill` }, 'free'));
    const { taskId } = await taskWithRedPush(replica.url, {
      pullRequest,
      sha: `dead${pullRequest}`,
      checkId: 70 + pullRequest,
    });
    await until(
      'the replica to die at its fault point',
      async () => replica.child.signalCode !== null || replica.child.exitCode !== null,
    );
    assert.equal(replica.child.signalCode, 'SIGKILL');
    const view = await until('the sibling to settle the attempt', async () => {
      const v = (await (await fetch(`${sibling.url}/api/tasks/${taskId}`, { headers: auth })).json()) as any;
      return !['claimed', 'dispatching'].includes(v.attempts[0]?.status) && v;
    });
    if (view.attempts[0].status === 'dispatched') await until('the agent to start', async () => starts() > 0);
    // Two whole passes of the sibling go by after it settled the attempt: nothing starts the agent (again).
    const passes = processReconcilePasses(sibling);
    await passes.oneAfterNow('a whole pass of the sibling after it settled the attempt');
    await passes.oneAfterNow('a second whole pass of the sibling');
    return { view, decisions: await decisionsOf(sibling.url, taskId), starts: starts() };
  } finally {
    if (dying && dying.child.exitCode === null && dying.child.signalCode === null) await dying.stop('SIGKILL');
    await sibling.stop();
    await db.drop();
  }
}

describe('a replica dies between claim and start, its sibling keeps running (postgres)', () => {
  test('killed mid-dispatch: the sibling, never restarted, marks the attempt dispatch_unknown once its lease lapses; the agent never starts', async () => {
    const { view, decisions, starts } = await siblingSettles('before_start', 6);
    assert.equal(view.attempts[0].status, 'dispatch_unknown');
    assert.equal(starts, 0, 'never sent: the agent did not start');
    assert.equal(decisions.filter((d: any) => d.reason === 'dispatch_unknown').length, 1);
  });

  test('killed right after the claim: the sibling, never restarted, dispatches the claimed attempt, once', async () => {
    const { view, starts } = await siblingSettles('after_claim', 8);
    assert.equal(view.attempts.length, 1);
    assert.equal(view.attempts[0].status, 'dispatched');
    assert.equal(starts, 1, 'the agent started once');
  });
});
