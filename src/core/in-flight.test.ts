// SPEC K7: one attempt in flight per pull request.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { ATTEMPT_STATES, type AttemptState } from './attempt-state.js';
import { inFlightVerdict, isInFlight } from './in-flight.js';

describe('K7: one attempt in flight per pull request', () => {
  const IN_FLIGHT: Record<AttemptState, boolean> = {
    queued: true,
    running: true,
    awaiting_progress: true,
    acknowledged: false,
    retryable: false,
  };
  for (const state of ATTEMPT_STATES) {
    test(`K7: an earlier attempt ${state} → ${IN_FLIGHT[state] ? 'refuse attempt_in_flight' : 'allow'}`, () => {
      assert.equal(isInFlight(state), IN_FLIGHT[state]);
      assert.equal(inFlightVerdict([{ id: 1, state }]).kind, IN_FLIGHT[state] ? 'refuse' : 'allow');
    });
  }

  test('K7: no attempt yet → allow', () => assert.deepEqual(inFlightVerdict([]), { kind: 'allow' }));

  test('K7: only finished attempts → allow', () => {
    assert.deepEqual(
      inFlightVerdict([
        { id: 1, state: 'acknowledged' },
        { id: 2, state: 'retryable' },
      ]),
      { kind: 'allow' },
    );
  });

  test('K7: the refusal names the attempts in flight', () => {
    assert.deepEqual(
      inFlightVerdict([
        { id: 3, state: 'retryable' },
        { id: 5, state: 'awaiting_progress' },
        { id: 4, state: 'queued' },
      ]),
      {
        kind: 'refuse',
        reason: 'attempt_in_flight',
        detail: 'already in flight for this pull request: attempt 5 (awaiting_progress), 4 (queued)',
        attemptIds: [4, 5],
      },
    );
  });
});
