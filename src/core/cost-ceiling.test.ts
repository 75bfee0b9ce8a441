// SPEC K6: the cost ceiling per Task — CI minutes from check-run durations, and the refusal before the spend.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  ciBillableMinutes,
  ciMinutesCost,
  costVerdict,
  expectedNextCost,
  spendTotal,
  type CostInput,
  type Spend,
} from './cost-ceiling.js';

const run = (startedAt: string | null, completedAt: string | null) => ({ startedAt, completedAt });
const T0 = '2026-12-01T10:00:00Z';

describe('K6: CI minutes from check-run durations, each rounded up as GitHub bills', () => {
  const ROWS: ReadonlyArray<[string, ReturnType<typeof run>[], number]> = [
    ['no runs → 0 minutes', [], 0],
    ['one second → 1 minute', [run(T0, '2026-12-01T10:00:01Z')], 1],
    ['exactly one minute → 1 minute', [run(T0, '2026-12-01T10:01:00Z')], 1],
    ['one minute and one millisecond → 2 minutes', [run(T0, '2026-12-01T10:01:00.001Z')], 2],
    [
      'each run is rounded up on its own: 3 × 10 s → 3 minutes',
      [run(T0, '2026-12-01T10:00:10Z'), run(T0, '2026-12-01T10:00:10Z'), run(T0, '2026-12-01T10:00:10Z')],
      3,
    ],
    ['a zero-length run → 0 minutes', [run(T0, T0)], 0],
    ['a run not finished is not billed yet', [run(T0, null)], 0],
    ['a run not started is not billed', [run(null, null)], 0],
    ['a negative duration (clock skew) → 0 minutes', [run('2026-12-01T10:05:00Z', T0)], 0],
    ['an unreadable time → not billed', [run('garbled', T0)], 0],
    ['times with offsets are instants', [run('2026-12-01T12:00:00+02:00', '2026-12-01T10:02:30Z')], 3],
  ];
  for (const [label, runs, minutes] of ROWS) {
    test(`K6: ${label}`, () => assert.equal(ciBillableMinutes(runs), minutes));
  }

  test('K6: ciMinutesCost is billable minutes times the price of a minute', () => {
    assert.equal(ciMinutesCost([run(T0, '2026-12-01T10:00:30Z'), run(T0, '2026-12-01T10:04:01Z')], 0.008), 0.048);
    assert.equal(ciMinutesCost([], 0.008), 0);
  });

  test('K6: a negative or unreadable price is a programming error', () => {
    assert.throws(() => ciMinutesCost([], -1), RangeError);
    assert.throws(() => ciMinutesCost([], Number.NaN), RangeError);
  });
});

describe('K6: the expected cost of the next attempt', () => {
  test('K6: the mean of the previous attempts (to a millionth)', () => {
    assert.equal(expectedNextCost([1, 2, 4.5], 9), 2.5);
    assert.equal(expectedNextCost([1, 2, 3.5], 9), 2.166667);
  });
  test('K6: the fallback when there is no previous attempt', () => assert.equal(expectedNextCost([], 1.25), 1.25));
  test('K6: costs that are not non-negative numbers are ignored', () =>
    assert.equal(expectedNextCost([2, Number.NaN, -5, Number.POSITIVE_INFINITY, 4], 9), 3));
  test('K6: only unusable costs → the fallback', () => assert.equal(expectedNextCost([Number.NaN, -1], 0.5), 0.5));
});

describe('K6: the ceiling, checked before the spend', () => {
  const s = (model: number, sandbox = 0, ciMinutes = 0): Spend => ({ model, sandbox, ciMinutes });
  const ROWS: ReadonlyArray<[string, CostInput, 'allow' | 'stop']> = [
    ['no ceiling → allow, whatever was spent', { spent: [s(1e6)], expectedNext: 1e6, ceiling: null }, 'allow'],
    ['nothing spent, expected below the ceiling → allow', { spent: [], expectedNext: 2, ceiling: 10 }, 'allow'],
    ['spent + expected below the ceiling → allow', { spent: [s(3, 1, 0.5)], expectedNext: 4, ceiling: 10 }, 'allow'],
    [
      'spent + expected exactly at the ceiling → allow (passing means going over)',
      { spent: [s(3, 1, 1)], expectedNext: 5, ceiling: 10 },
      'allow',
    ],
    [
      'spent below the ceiling but spent + expected over it → stop before the spend',
      { spent: [s(6), s(2, 0.5, 0.5)], expectedNext: 2.01, ceiling: 11 },
      'stop',
    ],
    ['spent alone over the ceiling → stop', { spent: [s(12)], expectedNext: 0, ceiling: 10 }, 'stop'],
    ['model, sandbox and CI minutes all count', { spent: [s(0, 0, 9)], expectedNext: 1.5, ceiling: 10 }, 'stop'],
    [
      '0.1 + 0.2 against a ceiling of 0.3 → allow (no floating-point drift)',
      { spent: [s(0.1)], expectedNext: 0.2, ceiling: 0.3 },
      'allow',
    ],
    ['a ceiling of 0 with any expected cost → stop', { spent: [], expectedNext: 0.01, ceiling: 0 }, 'stop'],
    [
      'a negative reported spend does not buy room → stop (fail closed)',
      { spent: [s(20), s(-15)], expectedNext: 1, ceiling: 10 },
      'stop',
    ],
    [
      'an unreadable reported spend → stop (fail closed)',
      { spent: [s(Number.NaN)], expectedNext: 1, ceiling: 10 },
      'stop',
    ],
    ['an unreadable expected cost → stop (fail closed)', { spent: [], expectedNext: Number.NaN, ceiling: 10 }, 'stop'],
  ];
  for (const [label, input, want] of ROWS) {
    test(`K6: ${label}`, () => {
      const v = costVerdict(input);
      assert.equal(v.kind, want);
      if (v.kind === 'stop') assert.equal(v.reason, 'cost_ceiling');
    });
  }

  test('K6: the stop says what was spent, what was expected and the ceiling', () => {
    assert.deepEqual(costVerdict({ spent: [s(6), s(2, 0.5, 0.5)], expectedNext: 3, ceiling: 11 }), {
      kind: 'stop',
      reason: 'cost_ceiling',
      detail: "spent 9 plus the next attempt's expected 3 would pass the ceiling of 11",
    });
  });

  test('K6: a negative or unreadable ceiling is a programming error', () => {
    assert.throws(() => costVerdict({ spent: [], expectedNext: 0, ceiling: -1 }), RangeError);
    assert.throws(() => costVerdict({ spent: [], expectedNext: 0, ceiling: Number.NaN }), RangeError);
  });

  test('K6: spendTotal adds the three parts, NaN when one is unusable', () => {
    assert.equal(spendTotal(s(0.1, 0.2, 0.3)), 0.6);
    assert.ok(Number.isNaN(spendTotal(s(1, -1))));
  });

  test('K6: the verdict is allow exactly when spent + expected ≤ ceiling (in cents)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.nat(500), fc.nat(500), fc.nat(500)), { maxLength: 6 }),
        fc.nat(500),
        fc.nat(5000),
        (parts, next, ceiling) => {
          const spent = parts.map(([m, b, c]) => s(m / 100, b / 100, c / 100));
          const cents = parts.reduce((sum, [m, b, c]) => sum + m + b + c, 0) + next;
          assert.equal(
            costVerdict({ spent, expectedNext: next / 100, ceiling: ceiling / 100 }).kind,
            cents <= ceiling ? 'allow' : 'stop',
          );
        },
      ),
    );
  });
});
