// The spend corpus's triage and matrix lifecycles (issue 17) and the ones added after them: the
// matrix in five orders, half fixed, a lost runner, red on the base, an approval gate, no CI, empty twice.
import type { FakeCompareFile } from '../test/support/fake-github/state.js';
import { ok, fail, ci, NOTHING, oneLine, type Job, type AgentAction, type Lifecycle } from './spend-lifecycle.js';

// ---------------------------------------------------------------- triage and the matrix (issue 17)
/** A fixed permutation of `xs` from `seed` (mulberry32): the same order every run. */
function shuffled<T>(xs: readonly T[], seed: number): T[] {
  let t = seed >>> 0;
  const random = () => {
    t = (t + 0x6d2b79f5) >>> 0;
    let r = Math.imul(t ^ (t >>> 15), 1 | t);
    r = (r + Math.imul(r ^ (r >>> 7), 61 | r)) ^ r;
    return ((r ^ (r >>> 14)) >>> 0) / 4294967296;
  };
  const out = [...xs];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

const shardName = (shard: number) => `test (node ${18 + 2 * (shard % 3)}, shard ${shard + 1}/12)`;
/**
 * One shard's failure as a run prints it. Each run differs only in noise: the temp dir, the clock,
 * the duration. `which` picks one of two failures (the half-fixed matrix has both).
 */
const shardFailure = (shard: number, run: number, which: 'round' | 'currency' = 'round') =>
  [
    which === 'round'
      ? `FAIL src/price.test.ts > price > rounds the total to cents`
      : `FAIL src/format.test.ts > format > prints the currency symbol`,
    which === 'round' ? 'AssertionError: expected 10.004 to be 10' : `AssertionError: expected '10.00' to be '€10.00'`,
    ` ❯ /tmp/vitest-${(0x3f9a1c + 97 * run + 13 * shard).toString(16)}/${which === 'round' ? 'price' : 'format'}.test.ts:14:31`,
    `[2026-11-30T08:${String(10 + run).padStart(2, '0')}:${String(7 + shard).padStart(2, '0')}.${100 + 37 * run}Z] Test Files 1 failed (${shard + 1} of 12)`,
    `Duration ${812 + 41 * run + 7 * shard}ms`,
  ].join('\n');
const matrix = (run: number, failing: (shard: number) => 'round' | 'currency' | null): Job[] =>
  Array.from({ length: 12 }, (_, shard) => {
    const which = failing(shard);
    return which === null ? ok(shardName(shard)) : fail(shardName(shard), shardFailure(shard, run, which));
  });
const MATRIX_EDITS: FakeCompareFile[] = [
  oneLine('src/price.ts', 12, '  return total;', '  return Math.round(total * 100) / 100;'),
  oneLine('src/price.ts', 12, '  return Math.round(total * 100) / 100;', '  return Number(total.toFixed(2));'),
  oneLine('src/money.ts', 21, '  return Math.floor(n);', '  return Math.round(n);'),
];

/** All twelve jobs fail on A; every push fails them again the same way, in another order each time. */
export const matrixUnchanged = (seed: number): Lifecycle => {
  const heads = ['A', 'B', 'C', 'D'];
  const jobs = (run: number) =>
    shuffled(
      matrix(run, () => 'round'),
      seed * 31 + run,
    );
  return {
    id: `matrix-unchanged-${seed}`,
    title: `12-job matrix unchanged twice, order ${seed}`,
    pr: 110 + seed,
    oracle: 0,
    informed: 1,
    informedWhy: 'A must be tried; once all of B is in, every job fails as on A: the fix changed nothing',
    fixes: 0,
    firstHead: 'A',
    world: [ci('A', jobs(0), { bursts: 3 })],
    agent: Object.fromEntries(
      heads.slice(0, -1).map((h, i) => {
        const to = heads[i + 1]!;
        const push: AgentAction = {
          kind: 'push',
          to,
          verdict: 'attempt',
          files: [MATRIX_EDITS[i]!],
          sinceBase: MATRIX_EDITS.slice(0, i + 1),
          then: [ci(to, jobs(i + 1), { bursts: 3 })],
        };
        return [h, [push]];
      }),
    ),
    fixloop: 'one attempt for A; B is judged when its whole matrix is in: unchanged_failure (T6), in every order',
    notice: { reason: /^unchanged_failure$/, what: 'unchanged_failure' },
  };
};

export const matrixHalfFixed: Lifecycle = {
  id: 'matrix-half-fixed',
  title: 'matrix half fixed, then the rest',
  pr: 121,
  oracle: 2,
  informed: 2,
  informedWhy: 'B fixes six of twelve jobs: the fix did something, and the other six are owed a run',
  fixes: 2,
  firstHead: 'A',
  world: [
    ci(
      'A',
      shuffled(
        matrix(0, (s) => (s < 6 ? 'round' : 'currency')),
        7,
      ),
      { bursts: 3 },
    ),
  ],
  agent: {
    A: [
      {
        kind: 'push',
        to: 'B',
        verdict: 'fix',
        files: [MATRIX_EDITS[0]!],
        then: [
          ci(
            'B',
            shuffled(
              matrix(1, (s) => (s < 6 ? null : 'currency')),
              8,
            ),
            { bursts: 3 },
          ),
        ],
      },
    ],
    B: [
      {
        kind: 'push',
        to: 'C',
        verdict: 'fix',
        files: [oneLine('src/format.ts', 4, '  return n.toFixed(2);', '  return `€${n.toFixed(2)}`;')],
        sinceBase: [
          MATRIX_EDITS[0]!,
          oneLine('src/format.ts', 4, '  return n.toFixed(2);', '  return `€${n.toFixed(2)}`;'),
        ],
        then: [
          ci(
            'C',
            shuffled(
              matrix(2, () => null),
              9,
            ),
            { bursts: 3 },
          ),
        ],
      },
    ],
  },
  fixloop: 'B is not unchanged (six jobs pass now): a second attempt, which fixes the rest',
};

const RUNNER_LOST =
  'The self-hosted runner: ci-runner-7 lost communication with the server. Verify the machine is running and has a healthy network connection. Anything in your workflow that terminates the runner process, starves it for CPU/Memory, or blocks its network access can cause this error.';
export const runnerLost: Lifecycle = {
  id: 'runner-lost',
  title: 'runner lost mid-job, green on re-run',
  pr: 122,
  oracle: 0,
  informed: 0,
  informedWhy: 'the output says the runner died, not the code: a re-run of the job answers it, no model run',
  fixes: 0,
  firstHead: 'A',
  world: [ci('A', [ok('lint'), fail('test', RUNNER_LOST)])],
  reruns: { A: [[ok('test')]] },
  agent: { A: [NOTHING] },
  fixloop: 'triage: transient (T2); the failed job is re-run once through the API and passes',
};

const TZ_FAIL =
  "FAIL src/date.test.ts > formats the order date\nAssertionError: expected '30/11/2026' to be '2026-11-30' (tzdata 2026a changed the default locale)";
export const redOnBase: Lifecycle = {
  id: 'red-on-base',
  title: 'failure red on the base branch too',
  pr: 123,
  oracle: 0,
  informed: 0,
  informedWhy: "main's head fails the same check: the pull request did not break it, the agent cannot fix it here",
  fixes: 0,
  firstHead: 'A',
  base: [ok('lint'), fail('test', TZ_FAIL)],
  world: [ci('A', [ok('lint'), fail('test', TZ_FAIL)])],
  agent: { A: [NOTHING] },
  fixloop: 'triage: red on base (T1), no attempt',
};

export const redOnBaseRearmed: Lifecycle = {
  id: 'red-on-base-rearmed',
  title: 'red on base, then main fixed',
  pr: 127,
  oracle: 1,
  informed: 1,
  informedWhy: "nothing while main fails the same check; once main is green, B's own failure is the agent's",
  fixes: 1,
  firstHead: 'A',
  base: [ok('lint'), fail('test', TZ_FAIL)],
  world: [
    ci('A', [ok('lint'), fail('test', TZ_FAIL)]),
    { kind: 'base', jobs: [ok('lint'), ok('test')] }, // main pins the locale: green
    { kind: 'push', to: 'B' }, // main is merged into the branch; the pull request's own bug shows
    ci('B', [
      ok('lint'),
      fail(
        'test',
        "FAIL src/orders.test.ts > orders > ships\nTypeError: Cannot read properties of undefined (reading 'id')",
      ),
    ]),
  ],
  agent: {
    A: [NOTHING],
    B: [
      {
        kind: 'push',
        to: 'C',
        verdict: 'fix',
        files: [oneLine('src/orders.ts', 41, '  const id = order.id;', '  const id = order?.id ?? null;')],
        then: [ci('C', [ok('lint'), ok('test')])],
      },
    ],
  },
  fixloop: 'no attempt while main is red (T1); re-armed when main turns green: one attempt for B',
};

export const approvalGate: Lifecycle = {
  id: 'approval-gate',
  title: 'approval gate, then a real failure',
  pr: 124,
  oracle: 1,
  informed: 1,
  informedWhy: "the gate is a person's to clear; once approved, CI's real failure is the agent's",
  fixes: 1,
  firstHead: 'A',
  world: [
    ci('A', [], { awaitingApproval: true }),
    // A maintainer approves the workflow; it runs and finds a real failure.
    ci(
      'A',
      [
        ok('lint'),
        fail(
          'test',
          "FAIL src/orders.test.ts > orders > ships\nTypeError: Cannot read properties of undefined (reading 'id')",
        ),
      ],
      { approved: true },
    ),
  ],
  agent: {
    A: [
      {
        kind: 'push',
        to: 'B',
        verdict: 'fix',
        files: [oneLine('src/orders.ts', 41, '  const id = order.id;', '  const id = order?.id ?? null;')],
        then: [ci('B', [ok('lint'), ok('test')])],
      },
    ],
  },
  fixloop: 'the gate is a notice to a person (T3), no attempt; the approved run’s failure gets one',
  notice: { reason: /^approval_required$/, what: 'approval_required' },
};

export const noCi: Lifecycle = {
  id: 'no-ci',
  title: "agent's push starts no CI",
  pr: 125,
  oracle: 1,
  informed: 1,
  informedWhy: "one run for A's red; the push that follows starts no CI, so there is nothing more to judge",
  fixes: 1,
  firstHead: 'A',
  world: [
    ci('A', [
      ok('lint'),
      fail('test', 'FAIL src/cart.test.ts > cart > tax\nAssertionError: expected 21.6 to be 21.59'),
    ]),
  ],
  agent: {
    A: [
      {
        kind: 'push',
        to: 'B',
        verdict: 'fix',
        files: [oneLine('src/cart.ts', 3, 'const TAX = 0.2;', 'const TAX = 0.19;')],
        then: [], // pushed with a token whose pushes start no workflow
      },
    ],
  },
  fixloop: 'one attempt; no check appears for B: a notice after the configured wait (T4)',
  notice: { reason: /no_ci|ci_missing|missing_ci|no_checks/, what: 'no CI for the head (T4)' },
};

export const emptyTwice: Lifecycle = {
  id: 'empty-output-twice',
  title: 'two different failures, outputs empty',
  pr: 126,
  oracle: 2,
  informed: 2,
  informedWhy: "an empty output cannot show B's failure is A's: B's red is owed a run, the one that fixes it",
  fixes: 1,
  firstHead: 'A',
  world: [ci('A', [ok('lint'), fail('test', null)])], // no summary, and no log to read
  agent: {
    A: [
      {
        kind: 'push',
        to: 'B',
        verdict: 'attempt',
        files: [
          oneLine(
            'src/cart.ts',
            8,
            '  return items.reduce((s, i) => s + i.price, 0);',
            '  return items.reduce((s, i) => s + i.price * i.qty, 0);',
          ),
        ],
        then: [ci('B', [ok('lint'), fail('test', 'Process completed with exit code 1.')])],
      },
    ],
    B: [
      {
        kind: 'push',
        to: 'C',
        verdict: 'fix',
        files: [oneLine('src/cart.ts', 2, "import { qty } from './qty';", "import { qty } from './qty.js';")],
        then: [ci('C', [ok('lint'), ok('test')])],
      },
    ],
  },
  fixloop: 'degraded evidence is never unchanged (T5): a second attempt on B',
};
