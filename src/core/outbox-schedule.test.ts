// The outbox's retry schedule (G1, P4): a table of tries, jitter and Retry-After against the verdict.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { afterFailure, fractionOf, type AfterFailure } from './outbox-schedule.js';

const s = { maxAttempts: 5, initialMs: 1000, maxMs: 8000 };

describe('afterFailure (G1, P4: backoff with jitter, then give up)', () => {
  const table: Array<[string, number, number, number | null, AfterFailure]> = [
    ['first failure, no jitter: half the base', 1, 0, null, { kind: 'retry', delayMs: 500 }],
    ['first failure, most jitter: nearly the base', 1, 0.999, null, { kind: 'retry', delayMs: 1000 }],
    ['second failure doubles', 2, 0, null, { kind: 'retry', delayMs: 1000 }],
    ['third failure doubles again', 3, 0.5, null, { kind: 'retry', delayMs: 3000 }],
    ['fourth failure is capped at maxMs', 4, 1, null, { kind: 'retry', delayMs: 8000 }],
    ['the last try gives up', 5, 0, null, { kind: 'give_up' }],
    ['past the last try gives up too', 9, 0, null, { kind: 'give_up' }],
    ["a sink's Retry-After longer than the backoff wins", 1, 0, 4000, { kind: 'retry', delayMs: 4000 }],
    ['a Retry-After shorter than the backoff does not hurry it', 2, 0, 10, { kind: 'retry', delayMs: 1000 }],
    ['a Retry-After is capped at maxMs', 1, 0, 60_000, { kind: 'retry', delayMs: 8000 }],
    ['jitter out of range is clamped', 1, 7, null, { kind: 'retry', delayMs: 1000 }],
  ];
  for (const [name, attempts, jitter, notBefore, want] of table) {
    test(name, () => assert.deepEqual(afterFailure(s, attempts, jitter, notBefore), want));
  }

  test('one try only: the first failure gives up', () => {
    assert.deepEqual(afterFailure({ ...s, maxAttempts: 1 }, 1, 0), { kind: 'give_up' });
  });

  test('a huge attempt count never overflows past the cap', () => {
    assert.deepEqual(afterFailure({ ...s, maxAttempts: 10_000 }, 5000, 0), { kind: 'retry', delayMs: 4000 });
  });
});

describe('fractionOf', () => {
  test('maps tokens into [0, 1)', () => {
    assert.equal(fractionOf(''), 0);
    assert.equal(fractionOf(Buffer.from([0, 0, 0, 0, 0, 0]).toString('base64url')), 0);
    const top = fractionOf(Buffer.from([255, 255, 255, 255, 255, 255]).toString('base64url'));
    assert.ok(top < 1 && top > 0.999);
    assert.equal(fractionOf(Buffer.from([128, 0, 0, 0, 0, 0]).toString('base64url')), 0.5);
  });
});
