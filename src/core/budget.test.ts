// SPEC C1, C3, K1: the per-Task attempt budget.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import {
  parseMaxAttempts,
  budgetBeforeClaim,
  budgetAfterClaim,
  DEFAULT_MAX_ATTEMPTS,
  MAX_ATTEMPTS_LIMIT,
} from './budget.js';

describe('C1: TASK_CI_AUTO_RESUME_MAX_ATTEMPTS parsing', () => {
  test('C1: the default is 2 and the limit is 5', () => {
    assert.equal(DEFAULT_MAX_ATTEMPTS, 2);
    assert.equal(MAX_ATTEMPTS_LIMIT, 5);
  });

  const UNSET: ReadonlyArray<string | undefined | null> = [undefined, null, ''];
  for (const raw of UNSET) {
    test(`C1: unset (${JSON.stringify(raw) ?? 'undefined'}) is the default 2 with no warning`, () => {
      assert.deepEqual(parseMaxAttempts(raw), { max: 2, warning: null });
    });
  }

  const OK: ReadonlyArray<[string | number, number]> = [
    ['0', 0],
    ['1', 1],
    ['2', 2],
    ['3', 3],
    ['4', 4],
    ['5', 5],
    [' 3 ', 3],
    ['\t4\n', 4],
    ['05', 5],
    [0, 0],
    [3, 3],
    [5, 5],
  ];
  for (const [raw, max] of OK) {
    test(`C1: ${JSON.stringify(raw)} is accepted as ${max} with no warning`, () => {
      assert.deepEqual(parseMaxAttempts(raw), { max, warning: null });
    });
  }

  const BAD: ReadonlyArray<string | number> = [
    '6',
    '-1',
    'two',
    '2.5',
    '1e1',
    '+1',
    '0x2',
    '3 4',
    '   ',
    'Infinity',
    'NaN',
    6,
    -1,
    2.5,
    Number.NaN,
  ];
  for (const raw of BAD) {
    test(`C1: ${JSON.stringify(raw)} is unparseable or out of range: falls back to 2 with a warning`, () => {
      const r = parseMaxAttempts(raw);
      assert.equal(r.max, 2);
      assert.equal(typeof r.warning, 'string');
      assert.match(r.warning!, /TASK_CI_AUTO_RESUME_MAX_ATTEMPTS/);
      assert.match(r.warning!, /using 2/);
    });
  }
});

describe('C1/K1: budget before the claim', () => {
  test('C1: max 0 switches the loop off, whatever was used', () => {
    for (const used of [0, 1, 5]) assert.deepEqual(budgetBeforeClaim(used, 0), { kind: 'refuse', reason: 'loop_off' });
  });

  for (let max = 1; max <= 5; max++) {
    for (let used = 0; used <= 6; used++) {
      const expected = used < max ? { kind: 'allow' } : { kind: 'refuse', reason: 'budget_spent' };
      test(`C1: ${used} used of ${max} → ${used < max ? 'allow' : 'refuse budget_spent'}`, () => {
        assert.deepEqual(budgetBeforeClaim(used, max), expected);
      });
    }
  }
});

describe('C3: budget after the claim (count re-read)', () => {
  for (let max = 0; max <= 5; max++) {
    for (let counted = Math.max(0, max - 1); counted <= max + 2; counted++) {
      const over = counted > max;
      test(`C3: ${counted} counted after the claim, budget ${max} → ${over ? 'over_budget (row kept, not dispatched)' : 'dispatch'}`, () => {
        assert.deepEqual(budgetAfterClaim(counted, max), over ? { kind: 'over_budget' } : { kind: 'dispatch' });
      });
    }
  }

  test('C3: two racing claims on a budget of 2 with 1 used: the one that counts 3 does not dispatch', () => {
    assert.deepEqual(budgetBeforeClaim(1, 2), { kind: 'allow' });
    assert.deepEqual(budgetAfterClaim(2, 2), { kind: 'dispatch' });
    assert.deepEqual(budgetAfterClaim(3, 2), { kind: 'over_budget' });
  });
});
