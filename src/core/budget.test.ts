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

  // Written out rather than derived, so the table cannot share a mistake with the rule: row = max,
  // column = attempts used 0..6, A = allow, R = refuse budget_spent.
  const BEFORE: ReadonlyArray<[max: number, verdicts: string]> = [
    [1, 'ARRRRRR'],
    [2, 'AARRRRR'],
    [3, 'AAARRRR'],
    [4, 'AAAARRR'],
    [5, 'AAAAARR'],
  ];
  for (const [max, verdicts] of BEFORE) {
    for (const [used, v] of [...verdicts].entries()) {
      const expected = v === 'A' ? { kind: 'allow' } : { kind: 'refuse', reason: 'budget_spent' };
      test(`C1: ${used} used of ${max} → ${v === 'A' ? 'allow' : 'refuse budget_spent'}`, () => {
        assert.deepEqual(budgetBeforeClaim(used, max), expected);
      });
    }
  }
});

describe('C3: budget after the claim (count re-read)', () => {
  // Written out: [budget, first count, verdicts from that count on], D = dispatch, O = over_budget.
  const AFTER: ReadonlyArray<[max: number, from: number, verdicts: string]> = [
    [0, 0, 'DOO'],
    [1, 0, 'DDOO'],
    [2, 1, 'DDOO'],
    [3, 2, 'DDOO'],
    [4, 3, 'DDOO'],
    [5, 4, 'DDOO'],
  ];
  for (const [max, from, verdicts] of AFTER) {
    for (const [i, v] of [...verdicts].entries()) {
      const counted = from + i;
      test(`C3: ${counted} counted after the claim, budget ${max} → ${v === 'O' ? 'over_budget (row kept, not dispatched)' : 'dispatch'}`, () => {
        assert.deepEqual(budgetAfterClaim(counted, max), v === 'O' ? { kind: 'over_budget' } : { kind: 'dispatch' });
      });
    }
  }

  test('C3: two claims on a budget of 2 with 1 used, both allowed before: the one whose re-read counts 3 does not dispatch (the verdicts only; the claims racing from separate processes: src/ledger/claim-race.test.ts, the re-read overtaken: test/scenarios/claim-race)', () => {
    assert.deepEqual(budgetBeforeClaim(1, 2), { kind: 'allow' });
    assert.deepEqual(budgetAfterClaim(2, 2), { kind: 'dispatch' });
    assert.deepEqual(budgetAfterClaim(3, 2), { kind: 'over_budget' });
  });
});
