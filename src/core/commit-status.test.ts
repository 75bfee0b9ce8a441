import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  COMMIT_STATUS_DESCRIPTION_MAX,
  commitStatusKey,
  commitStatusOf,
  isOwnStatusContext,
  type CommitStatusFacts,
} from './commit-status.js';
import { LOOP_STATES } from './loop-state.js';
import { STOP_REASONS } from './reasons.js';

const facts = (over: Partial<CommitStatusFacts>): CommitStatusFacts => ({
  loopState: 'idle',
  attemptsUsed: 0,
  attemptsAllowed: 2,
  stopReason: null,
  skipLabel: false,
  globalStop: false,
  ...over,
});

describe('the fixloop commit status says what the loop is doing (P3)', () => {
  const table: Array<[string, Partial<CommitStatusFacts>, ReturnType<typeof commitStatusOf>]> = [
    ['an untouched pull request gets no status', {}, null],
    [
      'an attempt running',
      { loopState: 'agent_running', attemptsUsed: 1 },
      { state: 'pending', description: 'attempt 1 of 2 running' },
    ],
    [
      'the second attempt running, past a grant',
      { loopState: 'agent_running', attemptsUsed: 3, attemptsAllowed: 3 },
      { state: 'pending', description: 'attempt 3 of 3 running' },
    ],
    [
      'waiting for CI on the fix',
      { loopState: 'awaiting_progress', attemptsUsed: 1 },
      { state: 'pending', description: 'attempt 1 of 2: waiting for CI on the fix' },
    ],
    [
      'the budget spent',
      { loopState: 'needs_person', attemptsUsed: 2, stopReason: 'budget_spent' },
      { state: 'failure', description: 'needs a person: budget spent' },
    ],
    [
      'an unchanged failure',
      { loopState: 'needs_person', attemptsUsed: 1, stopReason: 'unchanged_failure' },
      { state: 'failure', description: 'needs a person: the last fix changed nothing' },
    ],
    [
      'parked',
      { loopState: 'parked', attemptsUsed: 2, stopReason: 'budget_spent' },
      { state: 'failure', description: 'parked: needs a person (2 of 2 attempts used)' },
    ],
    [
      "a person's switch",
      { loopState: 'off', attemptsUsed: 1 },
      { state: 'success', description: 'off: a person turned the loop off' },
    ],
    [
      'the skip label',
      { loopState: 'off', skipLabel: true },
      { state: 'success', description: 'off: the fixloop:skip label is on' },
    ],
    [
      'the global stop wins over everything',
      { loopState: 'agent_running', attemptsUsed: 1, globalStop: true },
      { state: 'success', description: 'off: automation is stopped for every pull request' },
    ],
    [
      'idle after the loop acted',
      { loopState: 'idle', attemptsUsed: 1 },
      { state: 'success', description: 'watching: 1 of 2 automatic attempts used' },
    ],
  ];
  for (const [name, over, expected] of table) {
    test(name, () => assert.deepEqual(commitStatusOf(facts(over)), expected));
  }

  test('every stop reason has a description within GitHub limit, never the bare reason name', () => {
    for (const reason of STOP_REASONS) {
      const s = commitStatusOf(facts({ loopState: 'needs_person', stopReason: reason, attemptsUsed: 1 }));
      assert.ok(s && s.state === 'failure');
      assert.ok(s.description.length <= COMMIT_STATUS_DESCRIPTION_MAX);
      assert.notEqual(s.description, `needs a person: ${reason}`, `${reason} has words of its own`);
    }
  });

  test('every loop state with an attempt used has a status, and only needing a person is a failure', () => {
    for (const loopState of LOOP_STATES) {
      const s = commitStatusOf(facts({ loopState, attemptsUsed: 1, stopReason: 'budget_spent' }));
      assert.ok(s, loopState);
      assert.equal(s.state === 'failure', loopState === 'needs_person' || loopState === 'parked', loopState);
    }
  });

  test('the key changes with the words, so a changed state is written again', () => {
    const a = commitStatusOf(facts({ loopState: 'agent_running', attemptsUsed: 1 }))!;
    const b = commitStatusOf(facts({ loopState: 'agent_running', attemptsUsed: 2 }))!;
    assert.notEqual(commitStatusKey(a), commitStatusKey(b));
  });

  test("fixloop's own context is recognised, CI's are not", () => {
    assert.equal(isOwnStatusContext('fixloop'), true);
    assert.equal(isOwnStatusContext('ci/fixloop'), false);
    assert.equal(isOwnStatusContext('Fixloop'), false);
  });
});
