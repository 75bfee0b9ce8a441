// The outbox worker (G1, P4) against fakes of its own ports: a sink that hangs holds up only its own
// rows, a failure is settled on the core's schedule from the fake clock and randomness, the last try
// gives up, and shutdown gives a try in the air back uncounted.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createOutboxWorker } from './outbox-worker.js';
import type { OutboxClaim, OutboxResult, OutboxStore } from './ledger-port.js';
import type { NoticeSink, SendResult } from './notice-sink-port.js';
import type { Notice } from '../core/types.js';

const T0 = new Date('2026-12-01T10:00:00.000Z');
const notice = (id: number): Notice => ({
  id,
  taskId: id,
  reason: 'budget_spent',
  headSha: null,
  attemptsUsed: 1,
  repository: 'acme/shop',
  pullRequest: id,
  message: 'stopped',
  createdAt: T0.toISOString(),
});

/** One row per (notice, sink), claimed once until settled or released. */
function fakeStore(rows: Array<{ id: number; sink: string; attempts?: number }>) {
  const settled: Array<{ id: number; result: OutboxResult }> = [];
  const released: number[] = [];
  const held = new Set<number>();
  const store: Pick<OutboxStore, 'claimOutbox' | 'settleOutbox' | 'releaseOutbox'> = {
    async claimOutbox(sink, limit, lease) {
      const due = rows.filter((r) => r.sink === sink && !held.has(r.id) && !settled.some((s) => s.id === r.id));
      return due.slice(0, limit).map((r): OutboxClaim => {
        held.add(r.id);
        return {
          lease,
          notice: notice(r.id),
          delivery: {
            id: r.id,
            noticeId: r.id,
            taskId: r.id,
            repository: 'acme/shop',
            pullRequest: r.id,
            sink,
            state: 'pending',
            attempts: r.attempts ?? 0,
            nextAt: T0.toISOString(),
            lastError: null,
            createdAt: T0.toISOString(),
            updatedAt: T0.toISOString(),
            deliveredAt: null,
          },
        };
      });
    },
    async settleOutbox(id, _lease, result) {
      settled.push({ id, result });
      held.delete(id);
      return true;
    },
    async releaseOutbox(id) {
      released.push(id);
      held.delete(id);
    },
  };
  return { store, settled, released };
}

function sink(name: string, send: (signal: AbortSignal) => Promise<SendResult>): NoticeSink & { keys: string[] } {
  const keys: string[] = [];
  return {
    name,
    kind: 'webhook',
    keys,
    send: (_n, key, signal) => {
      keys.push(key);
      return send(signal);
    },
  };
}

const silent = { debug() {}, info() {}, warn() {}, error() {} };
const deps = {
  schedule: { maxAttempts: 3, initialMs: 1000, maxMs: 60_000 },
  clock: { now: () => T0 },
  // 0x80 0 0 0 0 0: a jitter fraction of exactly one half.
  random: { token: () => Buffer.from([128, 0, 0, 0, 0, 0]).toString('base64url') },
  logger: silent,
  everyMs: 1_000_000,
  leaseMs: 30_000,
};

describe('outbox worker (G1, P4)', () => {
  test('a hanging sink holds up only its own rows; shutdown gives its try back uncounted', async () => {
    const { store, settled, released } = fakeStore([
      { id: 1, sink: 'hangs' },
      { id: 2, sink: 'fine' },
      { id: 3, sink: 'fine' },
    ]);
    const hangs = sink('hangs', (signal) => new Promise((_r, reject) => signal.addEventListener('abort', reject)));
    const fine = sink('fine', async () => ({ kind: 'delivered' }));
    const w = createOutboxWorker({ ...deps, outbox: store, sinks: [hangs, fine] });
    const pass = w.tick();
    await new Promise((r) => setTimeout(r, 20));
    assert.deepEqual(
      settled.map((s) => [s.id, s.result.kind]),
      [
        [2, 'delivered'],
        [3, 'delivered'],
      ],
    );
    assert.deepEqual(fine.keys, ['notice-2-fine', 'notice-3-fine']);
    await w.stop();
    await pass;
    assert.deepEqual(released, [1], 'the hanging try is given back, not counted');
  });

  test('a failed try is retried at now + the jittered backoff, with the error kept', async () => {
    const { store, settled } = fakeStore([{ id: 1, sink: 's', attempts: 1 }]);
    const s = sink('s', async () => ({ kind: 'failed', error: 'HTTP 502', retryAfterMs: null }));
    await createOutboxWorker({ ...deps, outbox: store, sinks: [s] }).tick();
    // Second try failed: base 2000 ms, half of it plus half of the upper half = 1500 ms.
    assert.deepEqual(settled, [
      { id: 1, result: { kind: 'retry', at: new Date(T0.getTime() + 1500).toISOString(), error: 'HTTP 502' } },
    ]);
  });

  test('the last configured try gives up: failed, with its error', async () => {
    const { store, settled } = fakeStore([{ id: 1, sink: 's', attempts: 2 }]);
    const s = sink('s', async () => ({ kind: 'failed', error: 'HTTP 500', retryAfterMs: null }));
    await createOutboxWorker({ ...deps, outbox: store, sinks: [s] }).tick();
    assert.deepEqual(settled, [{ id: 1, result: { kind: 'failed', error: 'HTTP 500' } }]);
  });

  test('a sink that throws is a failed try, not a crash of the worker', async () => {
    const { store, settled } = fakeStore([{ id: 1, sink: 's' }]);
    const s = sink('s', async () => {
      throw new Error('boom');
    });
    await createOutboxWorker({ ...deps, outbox: store, sinks: [s] }).tick();
    assert.equal(settled[0]?.result.kind, 'retry');
    assert.match((settled[0]!.result as { error: string }).error, /boom/);
  });
});
