// The evaluation queue (decision 0005): stored events are evaluated one at a time in arrival order,
// each marked evaluated only once its evaluation finished (C4: one the ledger could not complete
// stays pending), and the start-up sweep evaluates what a crash left pending.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createEvaluationQueue } from './evaluation-queue.js';
import type { EvaluationResult, StoredLoopEvent } from './evaluate.js';
import type { DecisionWriter } from './decision-writer.js';
import type { Logger } from './ports.js';
import type { StoredEvent } from './ledger-port.js';
import { checkRunPayload } from '../../test/support/deliveries.js';
import { builtInHosts } from '../../test/support/host-registry.js';

const silent: Logger = { debug() {}, info() {}, warn() {}, error() {} };

function setup(opts: { result?: (id: number) => EvaluationResult | 'throw'; pending?: StoredEvent[] } = {}) {
  const order: number[] = [];
  const evaluated: number[] = [];
  let inside = 0;
  let most = 0;
  let drained = 0;
  const evaluator = {
    async evaluate(item: StoredLoopEvent): Promise<EvaluationResult> {
      inside++;
      most = Math.max(most, inside);
      await new Promise((r) => setTimeout(r, 2));
      inside--;
      order.push(item.eventId!);
      const r = opts.result?.(item.eventId!) ?? { kind: 'recorded', taskId: 1 };
      if (r === 'throw') throw new Error('boom');
      return r;
    },
  };
  const decisions: DecisionWriter = {
    write() {},
    evaluated: (id) => void evaluated.push(id),
    drain: async () => void drained++,
    carry: (commit) => commit([], []),
    hold: () => () => {},
  };
  let pending = [...(opts.pending ?? [])];
  const ledger = {
    async pendingEvents(limit: number, afterId: number) {
      return pending.filter((p) => p.id > afterId).slice(0, limit);
    },
  };
  const queue = createEvaluationQueue({
    evaluator,
    ledger,
    logger: silent,
    decisions,
    classify: builtInHosts().classify,
  });
  const event = (id: number): StoredLoopEvent => ({
    eventId: id,
    deliveryId: `d-${id}`,
    event: { kind: 'comment' } as unknown as StoredLoopEvent['event'],
  });
  return {
    order,
    evaluated,
    queue,
    event,
    most: () => most,
    drained: () => drained,
    settle: (ids: number[]) => (pending = pending.filter((p) => !ids.includes(p.id))),
  };
}

test('events are evaluated one at a time, in the order they were stored, across pushes', async () => {
  const { order, queue, event, most } = setup();
  queue.push([event(1), event(2)]);
  queue.push([event(3)]);
  await new Promise((r) => setTimeout(r, 1));
  queue.push([event(4)]);
  await queue.idle();
  assert.deepEqual(order, [1, 2, 3, 4]);
  assert.equal(most(), 1, 'never two evaluations at once');
});

test('each event is marked evaluated after its evaluation, and idle waits for the decision rows', async () => {
  const { evaluated, queue, event, drained } = setup();
  queue.push([event(1), event(2)]);
  assert.equal(queue.size(), 2);
  assert.deepEqual(evaluated, [], 'nothing is marked before it was evaluated');
  await queue.idle();
  assert.deepEqual(evaluated, [1, 2]);
  assert.equal(queue.size(), 0);
  assert.ok(drained() > 0, 'the decision writer was drained before idle resolved');
});

test('C4: an evaluation the ledger could not complete, or one that threw, stays pending and the queue goes on', async () => {
  const { order, evaluated, queue, event } = setup({
    result: (id) =>
      id === 2
        ? { kind: 'refused', reason: 'ledger_unavailable', taskId: null }
        : id === 3
          ? 'throw'
          : { kind: 'recorded', taskId: 1 },
  });
  queue.push([event(1), event(2), event(3), event(4)]);
  await queue.idle();
  assert.deepEqual(order, [1, 2, 3, 4]);
  assert.deepEqual(evaluated, [1, 4], 'events 2 and 3 are left for the next sweep');
});

test('the sweep evaluates what a crash left pending, in id order; one that no longer classifies stays pending', async () => {
  const red = (id: number) =>
    JSON.stringify(
      checkRunPayload({
        repo: { owner: 'acme', name: 'shop', id: 4242 },
        sha: 'a'.repeat(40),
        id,
        name: `shard ${id}`,
        pr: { number: 7, headSha: 'a'.repeat(40) },
        output: 'FAIL',
        completedAt: '2026-01-05T10:00:00Z',
      }),
    );
  const stored = (id: number, eventName: string, payload: string): StoredEvent => ({
    id,
    identity: `i-${id}`,
    kind: 'ci.result',
    eventName,
    deliveryId: `d-${id}`,
    payload,
  });
  const { order, evaluated, queue } = setup({
    pending: [stored(5, 'check_run', red(5)), stored(6, 'check_run', 'not json'), stored(7, 'check_run', red(7))],
  });
  assert.equal(await queue.sweep(), 3, 'every pending event was looked at');
  assert.deepEqual(order, [5, 7]);
  assert.deepEqual(evaluated, [5, 7], 'the unclassifiable one is logged and left pending');
});
