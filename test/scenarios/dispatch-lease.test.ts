// Crash safety across replicas (issue 2 §9; SPEC C3, H2; decision 0014): a replica's start-up marks a
// dispatch `dispatch_unknown` only when the process that began it is gone. A dispatch whose runner
// is still preparing the agent (a workspace checkout can take minutes) renews its lease, so a
// replica that starts meanwhile leaves it alone and it is dispatched, once; a dispatch nobody
// renews is taken, as one whose process died.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness, RecordingRunner, REPO, SECRET } from '../support/harness.js';
import { checkRunPayload, delivery, post } from '../support/deliveries.js';
import type { RunSpec, RunnerCallbacks } from '../../src/app/ports.js';
import { until } from '../support/server-process.js';

/** A runner whose start takes as long as the test says: the time a workspace takes to prepare. */
class SlowRunner extends RecordingRunner {
  private release!: () => void;
  readonly released = new Promise<void>((r) => (this.release = r));
  override async start(spec: RunSpec, cb: RunnerCallbacks): Promise<void> {
    await super.start(spec, cb);
    await this.released;
  }
  finishPreparing(): void {
    this.release();
  }
}

const GRACE_MS = 1_000;

async function replicaStartsDuringDispatch(leaseRenewMs: number) {
  const runner = new SlowRunner();
  const first = await startHarness('postgres', { runner, adapters: { leaseRenewMs } });
  let second: Awaited<ReturnType<typeof startHarness>> | null = null;
  try {
    const task = (
      await first.api('POST', '/api/tasks', { repository: 'acme/shop', pullRequest: 5, branch: 'agent/fix' })
    ).body;
    const sha = 'abad1dea'.padEnd(40, '0');
    const red = delivery(
      'check_run',
      checkRunPayload({
        repo: REPO,
        sha,
        id: 93,
        name: 'test',
        pr: { number: 5, headSha: sha },
        output: 'expected 1, got 2',
      }),
    );
    assert.equal((await post(first.url, red, SECRET)).status, 202);
    await until('the runner to be starting the agent', async () => runner.starts.length === 1, 10_000, 25);
    // Longer than the grace, so the dispatch's first write is stale by the time the replica looks.
    await new Promise((r) => setTimeout(r, GRACE_MS * 2));
    second = await startHarness('postgres', { db: first.db, adapters: { reconcileGraceMs: GRACE_MS } });
    const during = (await second.api('GET', `/api/tasks/${task.id}`)).body.attempts[0].status;
    runner.finishPreparing();
    const after = await until(
      'the dispatch to finish',
      async () => {
        const a = (await first.api('GET', `/api/tasks/${task.id}`)).body.attempts[0];
        return a.status !== 'dispatching' && a;
      },
      10_000,
      25,
    );
    await first.app.settle();
    const decisions = (await first.api('GET', `/api/deliveries?taskId=${task.id}&limit=100`)).body.decisions;
    return { during, after, decisions, starts: runner.starts.length };
  } finally {
    runner.finishPreparing();
    await second?.close();
    await first.close();
  }
}

describe('a replica starts while another is still dispatching (postgres)', () => {
  test('the dispatch renews its lease: the replica leaves it, and it is dispatched once', async () => {
    const { during, after, decisions, starts } = await replicaStartsDuringDispatch(100);
    assert.equal(during, 'dispatching', 'the starting replica left the live dispatch alone');
    assert.equal(after.status, 'dispatched');
    assert.equal(starts, 1);
    assert.equal(decisions.filter((d: any) => d.reason === 'dispatch_unknown').length, 0);
    assert.equal(decisions.filter((d: any) => d.outcome === 'dispatched').length, 1);
  });

  test('a dispatch whose lease nobody renews is taken as one whose process died: dispatch_unknown, visibly', async () => {
    const { during, after, decisions } = await replicaStartsDuringDispatch(60_000);
    assert.equal(during, 'dispatch_unknown');
    assert.equal(after.status, 'dispatch_unknown', 'the late start does not turn it back into dispatched');
    assert.equal(decisions.filter((d: any) => d.reason === 'dispatch_unknown').length, 1);
    assert.equal(decisions.filter((d: any) => d.outcome === 'dispatched').length, 0);
  });
});
