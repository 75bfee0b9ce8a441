// The spend benchmark's corpus: pull-request lifecycles as data. Each is what the world does (CI
// results, reviews, pushes nobody resumed anyone for, what a re-run of failed jobs turns up) and what
// the agent does in each run it is resumed for, with two minimums: the oracle, the fewest model runs
// that reach the fix with this agent (0 when no run can fix it), and the informed minimum, the fewest
// a policy could spend knowing at each decision only what had happened by then (issue 17).
// bench/spend-world.ts turns a lifecycle into GitHub deliveries; bench/spend.ts replays it through
// fixloop and the naive policies.
//
// Heads are labels ('A', 'B', …): the world gives each a 40-hex SHA per lifecycle.
import type { FakeCompareFile } from '../test/support/fake-github/state.js';

export interface Job {
  name: string;
  conclusion: 'success' | 'failure';
  /** The check run's output summary (what fixloop fingerprints and seeds the prompt with). */
  output?: string;
}

/**
 * One GitHub Actions workflow run completing on a commit: a completed check_run per job, then the
 * check suite and the workflow run (each red when a job failed) — what GitHub sends for it.
 */
export interface CiStep {
  kind: 'ci';
  head: string;
  workflow: string;
  jobs: Job[];
  /** Each job's created and in_progress check_run too (a matrix as GitHub sends it). */
  progress?: boolean;
  /** Every delivery sent a second time, byte-identical, same delivery id (a redelivery). */
  redeliver?: boolean;
  /** A re-run of the workflow on the same commit: new check run ids, run attempt + 1, no code change. */
  rerun?: boolean;
  /**
   * The workflow waits for a person to approve it (an agent's or a first-time contributor's branch):
   * no job runs; the check suite and the workflow run complete as `action_required`. `jobs` is empty.
   */
  awaitingApproval?: boolean;
  /** The workflow run that awaited approval runs now that a person approved it: same run, same attempt. */
  approved?: boolean;
  /** The jobs report in this many bursts, a poll interval apart (a matrix finishing over minutes); default 1. */
  bursts?: number;
}

/** A reviewer submits a review on `head`. */
export interface ReviewStep {
  kind: 'review';
  head: string;
  state: 'changes_requested' | 'approved';
  body: string;
}

/** The branch moves with no resumed run behind it (the agent's original run pushes a follow-up commit). */
export interface PushStep {
  kind: 'push';
  to: string;
}

/** The base branch (`main`) moves to a new commit, whose checks are these (the poll reads them; no webhook). */
export interface BaseStep {
  kind: 'base';
  jobs: Job[];
}

export type WorldStep = CiStep | ReviewStep | PushStep | BaseStep;

/** The agent pushes (and reports `action_taken`). */
export interface AgentPush {
  kind: 'push';
  to: string;
  /** What the push changes: GitHub's compare of the run's head and `to`. */
  files: FakeCompareFile[];
  /** What the branch changes since the loop's first head, when it is not `files` (the thrash guard reads it). */
  sinceBase?: FakeCompareFile[];
  /** A real fix, a "fix" that edits what judges it (green, but not a fix), or an attempt that fixes nothing. */
  verdict: 'fix' | 'false_fix' | 'attempt';
  /** What follows the push: its CI, a reviewer's next round. */
  then: WorldStep[];
}

export type AgentAction =
  | AgentPush
  /** Nothing to push (reports `non_actionable`). */
  | { kind: 'nothing' }
  /** The run dies: no push, no outcome. */
  | { kind: 'crash' };

export interface Lifecycle {
  id: string;
  title: string;
  pr: number;
  /** The fewest model runs that reach the fix(es) with this agent; 0 when no run can fix it. */
  oracle: number;
  /**
   * The informed minimum: the fewest model runs a policy could spend knowing, at each decision, only
   * what had happened by then (never what the agent or CI will do next). fixloop's target.
   */
  informed: number;
  /** Why the informed minimum is what it is, in one line. */
  informedWhy: string;
  /** The real fixes there are to reach. */
  fixes: number;
  firstHead: string;
  world: WorldStep[];
  /**
   * The n-th run started for a head does `agent[head][n]` while that head is still the branch's
   * head; a run past the list, or for a head the branch has left, does nothing. An agent that never
   * fixes has a finite script: a person steps in after its last push.
   */
  agent: Record<string, AgentAction[]>;
  /** What fixloop is expected to do (shown under the table). */
  fixloop: string;
  /**
   * The base branch's head (`main`) and its checks, as GitHub holds them before the lifecycle starts;
   * default one green `test`.
   */
  base?: Job[];
  /**
   * What the n-th re-run of a head's failed jobs (rerun-failed-jobs, asked by fixloop) reports:
   * `reruns[head][n]`, the re-run jobs only. Past the list, the same failures again.
   */
  reruns?: Record<string, Job[][]>;
  /** The notice the lifecycle is about, when it is about one (shown beside PASS/FAIL, not part of it). */
  notice?: { reason: RegExp; what: string };
}

// ---------------------------------------------------------------- building blocks
const ok = (name: string): Job => ({ name, conclusion: 'success' });
/** A failed job; an output of `null` is a job that reported nothing (GitHub Actions' usual summary). */
const fail = (name: string, output: string | null): Job =>
  output === null ? { name, conclusion: 'failure' } : { name, conclusion: 'failure', output };
const ci = (
  head: string,
  jobs: Job[],
  o: Partial<
    Pick<CiStep, 'workflow' | 'progress' | 'redeliver' | 'rerun' | 'awaitingApproval' | 'approved' | 'bursts'>
  > = {},
): CiStep => ({ kind: 'ci', head, workflow: 'CI', jobs, ...o });
const NOTHING: AgentAction = { kind: 'nothing' };

/** One line of src/price.ts changed at line `at` (the hunk lands elsewhere when `at` differs: the same change). */
const priceLine = (from: string, to: string, at: number): FakeCompareFile => ({
  path: 'src/price.ts',
  patch: `@@ -${at},3 +${at},3 @@ export function price(cart: Cart) {\n   const total = sum(cart);\n-  return ${from};\n+  return ${to};\n }`,
});
const oneLine = (path: string, at: number, from: string, to: string): FakeCompareFile => ({
  path,
  patch: `@@ -${at},1 +${at},1 @@\n-${from}\n+${to}`,
});
const added = (path: string, after: number, lines: string[]): FakeCompareFile => ({
  path,
  patch: `@@ -${after},0 +${after + 1},${lines.length} @@\n${lines.map((l) => `+${l}`).join('\n')}`,
});

// ---------------------------------------------------------------- the lifecycles
const MATRIX = (failing: (shard: number) => boolean): Job[] =>
  Array.from({ length: 12 }, (_, shard) => {
    const name = `test (node ${18 + (shard % 3)}, shard ${shard})`;
    return failing(shard)
      ? fail(name, `FAIL src/price.test.ts (shard ${shard})\n  price > rounds the total: expected 10.004 to be 10`)
      : ok(name);
  });

const matrixStorm: Lifecycle = {
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
const flaky: Lifecycle = {
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
const fixTheFix: Lifecycle = {
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
const unchanged: Lifecycle = {
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

const editsTest: Lifecycle = {
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

const staleHead: Lifecycle = {
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

const reviewRounds: Lifecycle = {
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

const noOutcome: Lifecycle = {
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
const matrixUnchanged = (seed: number): Lifecycle => {
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

const matrixHalfFixed: Lifecycle = {
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
const runnerLost: Lifecycle = {
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
const redOnBase: Lifecycle = {
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

const redOnBaseRearmed: Lifecycle = {
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

const approvalGate: Lifecycle = {
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

const noCi: Lifecycle = {
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

const emptyTwice: Lifecycle = {
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

export const CORPUS: readonly Lifecycle[] = [
  matrixStorm,
  flaky,
  fixTheFix,
  unchanged,
  editsTest,
  staleHead,
  reviewRounds,
  noOutcome,
  ...[1, 2, 3, 4, 5].map(matrixUnchanged),
  matrixHalfFixed,
  runnerLost,
  redOnBase,
  redOnBaseRearmed,
  approvalGate,
  noCi,
  emptyTwice,
];
