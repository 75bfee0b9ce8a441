// The spend corpus's pull-request lifecycles: a matrix storm, a flaky test, A-B-A, an unchanged
// failure, a test edited to green, a stale head, review rounds, a run with no outcome.
import type { FakeCompareFile } from '../test/support/fake-github/state.js';
import {
  ok,
  fail,
  ci,
  NOTHING,
  priceLine,
  oneLine,
  added,
  type Job,
  type AgentAction,
  type Lifecycle,
} from './spend-lifecycle.js';

// ---------------------------------------------------------------- the lifecycles
const MATRIX = (failing: (shard: number) => boolean): Job[] =>
  Array.from({ length: 12 }, (_, shard) => {
    const name = `test (node ${18 + (shard % 3)}, shard ${shard})`;
    return failing(shard)
      ? fail(name, `FAIL src/price.test.ts (shard ${shard})\n  price > rounds the total: expected 10.004 to be 10`)
      : ok(name);
  });

export const matrixStorm: Lifecycle = {
  id: 'matrix-storm',
  title: 'matrix storm (12 jobs), redelivered',
  pr: 101,
  oracle: 1,
  informed: 1,
  informedWhy: 'one red head: every other delivery is the same commit, already answered',
  fixes: 1,
  firstHead: 'A',
  world: [
    ci(
      'A',
      MATRIX((s) => s % 4 === 0),
      { progress: true, redeliver: true },
    ),
  ],
  agent: {
    A: [
      {
        kind: 'push',
        to: 'B',
        verdict: 'fix',
        files: [
          oneLine('src/price.ts', 12, '  return total;', '  return Math.round(total * 100) / 100;'),
          added('src/price.test.ts', 30, [
            "test('rounds to cents', () => {",
            '  expect(price([10.004])).toBe(10);',
            '});',
          ]),
        ],
        then: [
          ci(
            'B',
            MATRIX(() => false),
            { progress: true, redeliver: true },
          ),
        ],
      },
    ],
  },
  fixloop: '1 attempt for the whole storm (C2)',
};

/** A flake with no sign of the machine in it: the database container was slow to come up. */
const flake = (ms: number) =>
  `FAIL test/db.integration.test.ts > orders > saves an order\nError: connect ECONNREFUSED 127.0.0.1:5432 (database not ready after ${ms}ms)`;
export const flaky: Lifecycle = {
  id: 'flaky',
  title: 'flaky test, red then green on a re-run, twice',
  pr: 102,
  oracle: 0,
  informed: 1,
  informedWhy: 'the first red shows no sign of a flake, so it is tried; on B the check is known flaky: a re-run',
  fixes: 0,
  firstHead: 'A',
  world: [
    ci('A', [ok('lint'), fail('integration', flake(30000))]),
    ci('A', [ok('integration')], { rerun: true }), // a person re-runs the failed job: green
    { kind: 'push', to: 'B' }, // the agent's original run pushes a follow-up commit
    ci('B', [ok('lint'), fail('integration', flake(30012))]),
  ],
  reruns: { B: [[ok('integration')]] },
  agent: { A: [NOTHING], B: [NOTHING] },
  fixloop: 'resumes once on A (nothing says flake yet); on B re-runs the failed job (T2), which passes',
};

const ABA_FAIL_X =
  'FAIL src/cart.test.ts > cart > tax\nAssertionError: expected 21.6 to be 21.59 (cart rounding breaks the tax sum)';
const ABA_FAIL_Y =
  'FAIL src/price.test.ts > price\nTypeError: expected "10.00" to be a number (price returns a string)';
const X = (at: number) => priceLine('total', 'round(total)', at);
const Y = (at: number) => priceLine('total', 'total.toFixed(2)', at);
/** The agent alternates between X (round) and Y (toFixed): each push undoes the last; six pushes, then a person steps in. */
const abaPush = (from: string, to: string, i: number): AgentAction => {
  const toX = i % 2 === 0;
  const at = 12 + 6 * i; // the line lands elsewhere each time: only the hunk header differs
  return {
    kind: 'push',
    to,
    verdict: 'attempt',
    files: [
      i === 0
        ? X(at)
        : toX
          ? priceLine('total.toFixed(2)', 'round(total)', at)
          : priceLine('round(total)', 'total.toFixed(2)', at),
    ],
    sinceBase: [toX ? X(at) : Y(at)],
    then: [ci(to, [ok('lint'), fail('test', toX ? ABA_FAIL_X : ABA_FAIL_Y)])],
  };
};
const ABA_HEADS = ['A', 'B', 'C', 'D', 'E', 'F', 'G'];
export const fixTheFix: Lifecycle = {
  id: 'fix-the-fix',
  title: 'fix-the-fix oscillation (A-B-A)',
  pr: 103,
  oracle: 0,
  informed: 3,
  informedWhy: "every failure and every diff is new until the third run's push brings back the first diff",
  fixes: 0,
  firstHead: 'A',
  world: [
    ci('A', [
      ok('lint'),
      fail(
        'test',
        'FAIL src/price.test.ts > price\nAssertionError: expected 10.004 to be 10 (price total is not rounded)',
      ),
    ]),
  ],
  agent: Object.fromEntries(ABA_HEADS.slice(0, -1).map((h, i) => [h, [abaPush(h, ABA_HEADS[i + 1]!, i)]])),
  fixloop: 'stops on thrash (K3) when the third push brings back the first one’s diff',
};

/** The same failure each time; only run-to-run noise (durations, temp paths) differs. */
const sameFailure = (ms: number, tmp: string) =>
  `FAIL src/cart.test.ts > cart > totals the cart\nAssertionError: expected 1999 to be 2000\n at /tmp/vitest-${tmp}/cart.test.ts:14:31\nDuration ${ms}ms`;
const UNCHANGED_EDITS: FakeCompareFile[] = [
  oneLine(
    'src/cart.ts',
    8,
    '  return items.reduce((s, i) => s + i.price, 0);',
    '  return items.reduce((s, i) => s + i.price * i.qty, 0);',
  ),
  oneLine('src/cart.ts', 3, 'const TAX = 0.2;', 'const TAX = 0.19;'),
  oneLine('src/money.ts', 21, '  return Math.floor(n);', '  return Math.round(n);'),
  added('src/cart.ts', 7, ['  if (items.length === 0) return 0;']),
];
const UNCHANGED_HEADS = ['A', 'B', 'C', 'D', 'E'];
export const unchanged: Lifecycle = {
  id: 'unchanged-failure',
  title: 'unchanged failure after each push',
  pr: 104,
  oracle: 0,
  informed: 1,
  informedWhy: 'the first red must be tried; B then fails exactly as A did, so the fix changed nothing',
  fixes: 0,
  firstHead: 'A',
  world: [ci('A', [ok('lint'), fail('test', sameFailure(812, '3f9a1c'))])],
  agent: Object.fromEntries(
    UNCHANGED_HEADS.slice(0, -1).map((h, i) => {
      const to = UNCHANGED_HEADS[i + 1]!;
      const push: AgentAction = {
        kind: 'push',
        to,
        verdict: 'attempt',
        files: [UNCHANGED_EDITS[i]!],
        sinceBase: UNCHANGED_EDITS.slice(0, i + 1),
        then: [ci(to, [ok('lint'), fail('test', sameFailure(790 + 7 * i, `b${i}e2d7`))])],
      };
      return [h, [push]];
    }),
  ),
  fixloop: 'stops on unchanged_failure (C5) at the first red after the first push',
};

export const editsTest: Lifecycle = {
  id: 'edits-test',
  title: 'agent edits the test to get green',
  pr: 105,
  oracle: 0,
  informed: 1,
  informedWhy: 'the first red must be tried; what its push changes (the test) is known before any second run',
  fixes: 0,
  firstHead: 'A',
  world: [
    ci('A', [
      ok('lint'),
      fail('test', 'FAIL src/cart.test.ts > cart > totals the cart\nAssertionError: expected 2000 to be 1999'),
    ]),
  ],
  agent: {
    A: [
      {
        kind: 'push',
        to: 'B',
        verdict: 'false_fix',
        files: [
          {
            path: 'src/cart.test.ts',
            patch:
              "@@ -14,3 +14,3 @@ describe('cart', () => {\n   it('totals the cart', () => {\n-    expect(total(cart)).toBe(1999);\n+    expect(total(cart)).toBe(2000);\n   });",
          },
        ],
        then: [ci('B', [ok('lint'), ok('test')])],
      },
    ],
  },
  fixloop: 'the push is a forbidden change (K4): stops and hands off; the green is not counted as a fix',
};

export const staleHead: Lifecycle = {
  id: 'stale-head',
  title: 'stale red from a slow job on an old head',
  pr: 106,
  oracle: 1,
  informed: 1,
  informedWhy: "A's red arrives after B is the head: only B's red is the branch's",
  fixes: 1,
  firstHead: 'A',
  world: [
    ci('A', [ok('lint'), ok('unit')]),
    { kind: 'push', to: 'B' }, // the agent's original run pushes a follow-up commit
    ci(
      'A',
      [fail('e2e', 'FAIL e2e/checkout.spec.ts > checkout\nTimeoutError: locator("#pay") not visible after 30000ms')],
      { workflow: 'E2E' },
    ), // slow: lands after B
    ci('B', [
      ok('lint'),
      fail(
        'unit',
        "FAIL src/orders.test.ts > orders > ships\nTypeError: Cannot read properties of undefined (reading 'id')",
      ),
    ]),
  ],
  agent: {
    B: [
      {
        kind: 'push',
        to: 'C',
        verdict: 'fix',
        files: [oneLine('src/orders.ts', 41, '  const id = order.id;', '  const id = order?.id ?? null;')],
        then: [ci('C', [ok('lint'), ok('unit')]), ci('C', [ok('e2e')], { workflow: 'E2E' })],
      },
    ],
  },
  fixloop: 'the red for A arrives after B is the head: refused as superseded (B5); one run for B',
};

export const reviewRounds: Lifecycle = {
  id: 'review-rounds',
  title: 'two reviewer change requests',
  pr: 107,
  oracle: 2,
  informed: 2,
  informedWhy: "each change request is new, a person's words the agent must answer",
  fixes: 2,
  firstHead: 'A',
  world: [
    ci('A', [ok('lint'), ok('test')]),
    {
      kind: 'review',
      head: 'A',
      state: 'changes_requested',
      body: 'Please handle the empty cart: total() throws on [].',
    },
  ],
  agent: {
    A: [
      {
        kind: 'push',
        to: 'B',
        verdict: 'fix',
        files: [
          added('src/cart.ts', 7, ['  if (items.length === 0) return 0;']),
          added('src/cart.test.ts', 40, ["it('totals an empty cart', () => {", '  expect(total([])).toBe(0);', '});']),
        ],
        then: [
          ci('B', [ok('lint'), ok('test')]),
          {
            kind: 'review',
            head: 'B',
            state: 'changes_requested',
            body: 'Also a cart of free items: it should not apply the minimum fee.',
          },
        ],
      },
    ],
    B: [
      {
        kind: 'push',
        to: 'C',
        verdict: 'fix',
        files: [added('src/cart.ts', 9, ['  if (items.every((i) => i.price === 0)) return 0;'])],
        then: [ci('C', [ok('lint'), ok('test')]), { kind: 'review', head: 'C', state: 'approved', body: 'Thanks!' }],
      },
    ],
  },
  fixloop: 'each change request resumes once (F1), from the same budget',
};

export const noOutcome: Lifecycle = {
  id: 'no-outcome',
  title: 'first run ends without an outcome',
  pr: 108,
  oracle: 2,
  informed: 2,
  informedWhy: 'a run that dies says nothing about the failure; the retry is owed',
  fixes: 1,
  firstHead: 'A',
  world: [
    ci('A', [
      ok('lint'),
      fail(
        'test',
        "FAIL src/order.test.ts > order > totals\nTypeError: Cannot read properties of undefined (reading 'lines')",
      ),
    ]),
  ],
  agent: {
    A: [
      { kind: 'crash' },
      {
        kind: 'push',
        to: 'B',
        verdict: 'fix',
        files: [oneLine('src/order.ts', 41, '  return order.cart.lines;', '  return order.cart?.lines ?? [];')],
        then: [ci('B', [ok('lint'), ok('test')])],
      },
    ],
  },
  fixloop: 'the attempt becomes retryable (I3) and is retried once, within the budget',
};
