// The evaluation queue gathers: events stored within the gather window are evaluated as one batch
// (one Task read, one commit of their decision rows), a full batch goes at once, and every event is
// marked evaluated once its batch is done.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createEvaluationQueue } from './evaluation-queue.js';
import type { Evaluator, StoredLoopEvent } from './evaluate.js';
import type { DecisionWriter } from './decision-writer.js';
import type { Ledger, Logger } from './ports.js';

const silent: Logger = { debug() {}, info() {}, warn() {}, error() {} };

function setup(gatherMs: number) {
  const batches: number[][] = [];
  const evaluated: number[] = [];
  const evaluator = {
    async evaluateBatch(items: readonly StoredLoopEvent[]) {
      batches.push(items.map((i) => i.eventId!));
      return items.map(() => ({ kind: 'recorded' as const, taskId: 1 }));
    },
  } as unknown as Evaluator;
  const decisions: DecisionWriter = { write() {}, evaluated: (id) => void evaluated.push(id), drain: async () => {} };
  const queue = createEvaluationQueue({
    evaluator,
    ledger: {} as Ledger,
    logger: silent,
    decisions,
    concurrency: 1,
    gatherMs,
  });
  const event = (id: number): StoredLoopEvent => ({
    eventId: id,
    deliveryId: `d-${id}`,
    event: { kind: 'github.comment' } as unknown as StoredLoopEvent['event'],
  });
  return { batches, evaluated, queue, event };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('events pushed within the gather window are evaluated as one batch', async () => {
  const { batches, evaluated, queue, event } = setup(150);
  queue.push([event(1)]);
  await sleep(5);
  queue.push([event(2), event(3)]);
  await sleep(5);
  queue.push([event(4)]);
  assert.deepEqual(batches, [], 'nothing evaluated before the window closes');
  await queue.idle();
  assert.deepEqual(batches, [[1, 2, 3, 4]]);
  assert.deepEqual(evaluated, [1, 2, 3, 4]);
});

test('a full batch does not wait for the window', async () => {
  const { batches, queue, event } = setup(400);
  queue.push(Array.from({ length: 64 }, (_, i) => event(i + 1)));
  await sleep(20);
  assert.equal(batches.length, 1, 'evaluated long before the window would close');
  assert.equal(batches[0]!.length, 64);
  queue.push([event(65)]);
  await sleep(20);
  assert.equal(batches.length, 1, 'a lone event waits for company');
  await queue.idle();
  assert.deepEqual(batches[1], [65]);
});

test('without a window each turn is evaluated as it comes', async () => {
  const { batches, queue, event } = setup(0);
  queue.push([event(1)]);
  await queue.idle();
  queue.push([event(2)]);
  await queue.idle();
  assert.deepEqual(batches, [[1], [2]]);
});
