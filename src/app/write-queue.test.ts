// SPEC N3: the poll's writes wait on a queue of their own — one at a time, the newest per Task,
// dropped once the Task's poll lease has run out — so a tick never waits on them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createWriteQueue } from './write-queue.js';

const silent = { debug() {}, info() {}, warn() {}, error() {} };
const clockAt = (iso: string) => {
  let t = Date.parse(iso);
  return { now: () => new Date(t), advance: (ms: number) => (t += ms) };
};

test('N3: jobs run one at a time, in order, and a newer job for the same Task replaces the waiting one', async () => {
  const clock = clockAt('2026-12-01T10:00:00Z');
  const q = createWriteQueue({ clock, logger: silent });
  const ran: string[] = [];
  let inFlight = 0;
  let most = 0;
  const job = (name: string) => async () => {
    inFlight++;
    most = Math.max(most, inFlight);
    await new Promise((r) => setTimeout(r, 5));
    ran.push(name);
    inFlight--;
  };
  const until = '2026-12-01T10:01:00Z';
  q.enqueue(1, until, job('1a'));
  q.enqueue(2, until, job('2'));
  q.enqueue(3, until, job('3a'));
  q.enqueue(3, until, job('3b')); // replaces 3a, still waiting
  assert.equal(q.waiting, 2, 'job 1 already started; 2 and 3b wait');
  await q.drain();
  assert.deepEqual(ran, ['1a', '2', '3b']);
  assert.equal(most, 1, 'never two writes at once');
});

test('N3: a job still waiting when its lease has run out is dropped, and a failing job does not stop the queue', async () => {
  const clock = clockAt('2026-12-01T10:00:00Z');
  const q = createWriteQueue({ clock, logger: silent });
  const ran: string[] = [];
  q.enqueue(1, '2026-12-01T10:00:30Z', async () => {
    clock.advance(60_000); // the first write took a minute (GitHub's pacing)
    throw new Error('422');
  });
  q.enqueue(2, '2026-12-01T10:00:30Z', async () => void ran.push('late'));
  q.enqueue(3, '2026-12-01T10:05:00Z', async () => void ran.push('in time'));
  await q.drain();
  assert.deepEqual(ran, ['in time']);
});

test('N3: a job queued while the last one runs is still run', async () => {
  const clock = clockAt('2026-12-01T10:00:00Z');
  const q = createWriteQueue({ clock, logger: silent });
  const ran: number[] = [];
  q.enqueue(1, '2026-12-01T10:01:00Z', async () => {
    ran.push(1);
    q.enqueue(2, '2026-12-01T10:01:00Z', async () => void ran.push(2));
  });
  await q.drain();
  assert.deepEqual(ran, [1, 2]);
});
