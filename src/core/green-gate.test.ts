// SPEC B4 (with B2, B3): the green gate over every check run and status of a head.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { greenGate, type GateCheckRun, type GateStatus, type GateVerdict, type GateWhy } from './green-gate.js';

function run(name: string, conclusion: string | null, over: Partial<GateCheckRun> = {}): GateCheckRun {
  return {
    id: 1,
    name,
    status: 'completed',
    conclusion,
    startedAt: '2026-12-01T10:00:00Z',
    completedAt: conclusion === null && over.status && over.status !== 'completed' ? null : '2026-12-01T10:05:00Z',
    ...over,
  };
}
function status(context: string, state: string, updatedAt = '2026-12-01T10:05:00Z'): GateStatus {
  return { context, state, updatedAt };
}
const whys = (r: ReturnType<typeof greenGate>, check: string): GateWhy[] =>
  r.reasons.filter((x) => x.check === check).map((x) => x.why);

// One row per conclusion of check "X": [conclusion, status, verdict when X is required, why, verdict when not].
const CONCLUSIONS: ReadonlyArray<[string | null, string, GateVerdict, GateWhy | null, GateVerdict]> = [
  ['success', 'completed', 'passing', null, 'passing'],
  ['failure', 'completed', 'red', 'failed', 'red'],
  ['timed_out', 'completed', 'red', 'failed', 'red'],
  ['action_required', 'completed', 'red', 'failed', 'red'],
  ['startup_failure', 'completed', 'red', 'failed', 'red'],
  ['cancelled', 'completed', 'not_green', 'cancelled', 'passing'],
  ['neutral', 'completed', 'not_green', 'neutral', 'passing'],
  ['stale', 'completed', 'not_green', 'stale', 'passing'],
  ['skipped', 'completed', 'not_green', 'skipped_without_decider', 'passing'],
  [null, 'completed', 'pending', 'unsettled', 'passing'],
  ['some_future_conclusion', 'completed', 'not_green', 'unknown_conclusion', 'passing'],
  [null, 'queued', 'pending', 'in_progress', 'passing'],
  [null, 'in_progress', 'pending', 'in_progress', 'passing'],
  [null, 'waiting', 'pending', 'in_progress', 'passing'],
];

describe('B4/B3: conclusions × required or not', () => {
  for (const [conclusion, st, ifRequired, why, ifNot] of CONCLUSIONS) {
    const label = `${st}/${conclusion ?? 'null'}`;
    test(`B4: required check X ${label} → ${ifRequired}${why ? ` (${why})` : ''}`, () => {
      const r = greenGate({
        checkRuns: [run('build', 'success'), run('X', conclusion, { status: st })],
        statuses: [],
        required: ['build', 'X'],
      });
      assert.equal(r.verdict, ifRequired);
      assert.deepEqual(whys(r, 'X'), why ? [why] : []);
    });
    test(`B4: with no required list every check counts: X ${label} → ${ifRequired}`, () => {
      const r = greenGate({
        checkRuns: [run('build', 'success'), run('X', conclusion, { status: st })],
        statuses: [],
        required: null,
      });
      assert.equal(r.verdict, ifRequired);
      assert.deepEqual(
        greenGate({
          checkRuns: [run('build', 'success'), run('X', conclusion, { status: st })],
          statuses: [],
          required: [],
        }).verdict,
        ifRequired,
      );
    });
    test(`B3/B4: not-required check X ${label} → ${ifNot}`, () => {
      const r = greenGate({
        checkRuns: [run('build', 'success'), run('X', conclusion, { status: st })],
        statuses: [],
        required: ['build'],
      });
      assert.equal(r.verdict, ifNot);
      assert.deepEqual(r.failing, ifNot === 'red' ? ['X'] : []);
    });
  }
});

// Skipped check X whose decider is "changes": [decider's run or none, verdict when X required, why, verdict when not].
const DECIDERS: ReadonlyArray<[string, GateCheckRun | null, GateVerdict, GateWhy | null, GateVerdict]> = [
  ['decider succeeded', run('changes', 'success'), 'passing', null, 'passing'],
  ['decider failed', run('changes', 'failure'), 'red', 'skipped_decider_not_green', 'red'],
  ['decider has no run on the head', null, 'not_green', 'skipped_decider_missing', 'passing'],
  ['decider cancelled', run('changes', 'cancelled'), 'not_green', 'skipped_decider_not_green', 'passing'],
  ['decider itself skipped', run('changes', 'skipped'), 'not_green', 'skipped_decider_not_green', 'passing'],
  ['decider neutral', run('changes', 'neutral'), 'not_green', 'skipped_decider_not_green', 'passing'],
  [
    'decider still running',
    run('changes', null, { status: 'in_progress', completedAt: null }),
    'pending',
    'skipped_decider_pending',
    'passing',
  ],
  ['decider completed with no conclusion', run('changes', null), 'pending', 'skipped_decider_pending', 'passing'],
];

describe('B4: skipped passes only when the job that decided the skip succeeded', () => {
  for (const [label, decider, ifRequired, why, ifNot] of DECIDERS) {
    const checkRuns = [run('X', 'skipped'), ...(decider ? [decider] : [])];
    test(`B4: required skipped X, ${label} → ${ifRequired}`, () => {
      const r = greenGate({ checkRuns, statuses: [], required: ['X'], deciders: { X: 'changes' } });
      assert.equal(r.verdict, ifRequired);
      assert.deepEqual(whys(r, 'X'), why ? [why] : []);
      if (why) assert.equal(r.reasons.find((x) => x.check === 'X')?.decider, 'changes');
    });
    test(`B4: not-required skipped X, ${label} → ${ifNot}`, () => {
      const r = greenGate({
        checkRuns: [run('build', 'success'), ...checkRuns],
        statuses: [],
        required: ['build'],
        deciders: { X: 'changes' },
      });
      assert.equal(r.verdict, ifNot);
    });
  }

  test('B4: a skipped required check with no known decider is not green', () => {
    const r = greenGate({
      checkRuns: [run('X', 'skipped'), run('changes', 'success')],
      statuses: [],
      required: ['X'],
      deciders: { Y: 'changes' },
    });
    assert.equal(r.verdict, 'not_green');
    assert.deepEqual(whys(r, 'X'), ['skipped_without_decider']);
  });

  test('B4: a check cannot be its own decider', () => {
    const r = greenGate({ checkRuns: [run('X', 'skipped')], statuses: [], required: ['X'], deciders: { X: 'X' } });
    assert.deepEqual(whys(r, 'X'), ['skipped_without_decider']);
  });

  test('B4: an inherited object key is not a decider', () => {
    const r = greenGate({
      checkRuns: [run('toString', 'skipped')],
      statuses: [],
      required: ['toString'],
      deciders: {},
    });
    assert.deepEqual(whys(r, 'toString'), ['skipped_without_decider']);
  });

  test('B4: the decider is judged by its latest run (a failed decider re-run to success lets the skip pass)', () => {
    const r = greenGate({
      checkRuns: [
        run('X', 'skipped'),
        run('changes', 'failure', { completedAt: '2026-12-01T10:01:00Z' }),
        run('changes', 'success', { completedAt: '2026-12-01T10:09:00Z' }),
      ],
      statuses: [],
      required: ['X'],
      deciders: { X: 'changes' },
    });
    assert.equal(r.verdict, 'passing');
  });
});

describe('B4: required checks with no explicit success', () => {
  test('B4: a required check with no run on the head is not green (missing)', () => {
    const r = greenGate({ checkRuns: [run('build', 'success')], statuses: [], required: ['build', 'lint'] });
    assert.equal(r.verdict, 'not_green');
    assert.deepEqual(r.reasons, [{ check: 'lint', why: 'missing', seen: null }]);
  });

  test('B4: nothing required and nothing ran is not green (no evidence of green)', () => {
    const r = greenGate({ checkRuns: [], statuses: [], required: null });
    assert.equal(r.verdict, 'not_green');
    assert.deepEqual(
      r.reasons.map((x) => x.why),
      ['no_checks'],
    );
  });

  test('B4: a required name may be satisfied by a commit status context', () => {
    assert.equal(
      greenGate({ checkRuns: [], statuses: [status('ci/jenkins', 'success')], required: ['ci/jenkins'] }).verdict,
      'passing',
    );
  });

  test('B4: a name present both as check run and status needs both to succeed', () => {
    const r = greenGate({ checkRuns: [run('ci', 'success')], statuses: [status('ci', 'pending')], required: ['ci'] });
    assert.equal(r.verdict, 'pending');
  });

  test('B4: every required check succeeded → passing with no reasons', () => {
    const r = greenGate({
      checkRuns: [run('build', 'success'), run('lint', 'success'), run('extra', 'neutral')],
      statuses: [status('ci/x', 'success')],
      required: ['build', 'lint', 'ci/x'],
    });
    assert.deepEqual(r, { verdict: 'passing', reasons: [], failing: [] });
  });
});

describe('B3/B4: commit statuses', () => {
  const STATES: ReadonlyArray<[string, GateVerdict, GateVerdict]> = [
    ['success', 'passing', 'passing'],
    ['failure', 'red', 'red'],
    ['error', 'red', 'red'],
    ['pending', 'pending', 'passing'],
  ];
  for (const [state, ifRequired, ifNot] of STATES) {
    test(`B4: required status "${state}" → ${ifRequired}`, () => {
      assert.equal(
        greenGate({
          checkRuns: [run('build', 'success')],
          statuses: [status('ci/x', state)],
          required: ['build', 'ci/x'],
        }).verdict,
        ifRequired,
      );
    });
    test(`B3: not-required status "${state}" → ${ifNot}`, () => {
      assert.equal(
        greenGate({ checkRuns: [run('build', 'success')], statuses: [status('ci/x', state)], required: ['build'] })
          .verdict,
        ifNot,
      );
    });
  }

  test('B3: a failing status is listed in failing by its context', () => {
    assert.deepEqual(greenGate({ checkRuns: [], statuses: [status('ci/x', 'error')], required: null }).failing, [
      'ci/x',
    ]);
  });

  test('B4: the latest status per context decides', () => {
    const statuses = [
      status('ci/x', 'failure', '2026-12-01T10:00:00Z'),
      status('ci/x', 'success', '2026-12-01T10:09:00Z'),
    ];
    assert.equal(greenGate({ checkRuns: [], statuses, required: null }).verdict, 'passing');
    assert.equal(greenGate({ checkRuns: [], statuses: [...statuses].reverse(), required: null }).verdict, 'passing');
  });
});

describe('B2/B4: precedence — red beats everything, then pending, then not green', () => {
  test('B2: red beats a missing, a cancelled and a pending required check', () => {
    const r = greenGate({
      checkRuns: [
        run('lint', 'failure'),
        run('build', 'cancelled'),
        run('test', null, { status: 'in_progress', completedAt: null }),
      ],
      statuses: [],
      required: ['build', 'test', 'docs'],
    });
    assert.equal(r.verdict, 'red');
    assert.deepEqual(r.failing, ['lint']);
    assert.deepEqual(
      r.reasons.map((x) => `${x.check}:${x.why}`),
      ['build:cancelled', 'docs:missing', 'lint:failed', 'test:in_progress'],
    );
  });

  test('B4: pending beats not green (a running check may still turn red)', () => {
    const r = greenGate({
      checkRuns: [
        run('build', 'cancelled'),
        run('test', null, { status: 'queued', completedAt: null, startedAt: null }),
      ],
      statuses: [],
      required: null,
    });
    assert.equal(r.verdict, 'pending');
  });

  test('B2: a red status beats required successes', () => {
    assert.equal(
      greenGate({ checkRuns: [run('build', 'success')], statuses: [status('other', 'failure')], required: ['build'] })
        .verdict,
      'red',
    );
  });
});

describe('B4: re-runs — the latest run of a name decides', () => {
  test('B4: failure then a later success → passing', () => {
    const checkRuns = [
      run('test', 'failure', { completedAt: '2026-12-01T10:05:00Z' }),
      run('test', 'success', { completedAt: '2026-12-01T10:20:00Z' }),
    ];
    assert.equal(greenGate({ checkRuns, statuses: [], required: null }).verdict, 'passing');
    assert.equal(greenGate({ checkRuns: [...checkRuns].reverse(), statuses: [], required: null }).verdict, 'passing');
  });

  test('B4: success then a later failure → red', () => {
    const checkRuns = [
      run('test', 'success', { completedAt: '2026-12-01T10:05:00Z' }),
      run('test', 'failure', { completedAt: '2026-12-01T10:20:00Z' }),
    ];
    assert.equal(greenGate({ checkRuns, statuses: [], required: null }).verdict, 'red');
  });

  test('B4: times are compared as instants, not as text (offsets)', () => {
    // 10:30+02:00 is 08:30Z — earlier than 09:00Z.
    const checkRuns = [
      run('test', 'success', { completedAt: '2026-12-01T09:00:00Z' }),
      run('test', 'failure', { completedAt: '2026-12-01T10:30:00+02:00' }),
    ];
    assert.equal(greenGate({ checkRuns, statuses: [], required: null }).verdict, 'passing');
  });

  test('B4: an in-progress re-run (started after the old run completed) keeps the gate pending', () => {
    const checkRuns = [
      run('test', 'success', { completedAt: '2026-12-01T10:05:00Z' }),
      run('test', null, { status: 'in_progress', startedAt: '2026-12-01T10:10:00Z', completedAt: null }),
    ];
    assert.equal(greenGate({ checkRuns, statuses: [], required: null }).verdict, 'pending');
  });

  test('B4: a queued re-run with no time yet is the newest → pending', () => {
    const checkRuns = [
      run('test', 'success'),
      run('test', null, { status: 'queued', startedAt: null, completedAt: null }),
    ];
    assert.equal(greenGate({ checkRuns, statuses: [], required: null }).verdict, 'pending');
  });

  test('B4: equal times → the higher id decides', () => {
    const a = run('test', 'failure', { id: 10 });
    const b = run('test', 'success', { id: 11 });
    assert.equal(greenGate({ checkRuns: [a, b], statuses: [], required: null }).verdict, 'passing');
    assert.equal(greenGate({ checkRuns: [b, a], statuses: [], required: null }).verdict, 'passing');
  });

  test('B3: an old red superseded by a success is not listed as failing', () => {
    const checkRuns = [
      run('test', 'failure', { completedAt: '2026-12-01T10:05:00Z' }),
      run('test', 'success', { completedAt: '2026-12-01T10:20:00Z' }),
    ];
    assert.deepEqual(greenGate({ checkRuns, statuses: [], required: null }).failing, []);
  });
});

describe('B4 (properties)', () => {
  const NAMES = ['a', 'b', 'c', 'd'];
  const CONC = ['success', 'failure', 'timed_out', 'cancelled', 'neutral', 'skipped', 'stale', null] as const;
  const arbRun = fc.record({
    id: fc.integer({ min: 1, max: 1000 }),
    name: fc.constantFrom(...NAMES),
    status: fc.constantFrom('completed', 'completed', 'in_progress', 'queued'),
    conclusion: fc.constantFrom(...CONC),
    startedAt: fc.constant('2026-12-01T10:00:00Z'),
    completedAt: fc.option(
      fc.integer({ min: 0, max: 59 }).map((m) => `2026-12-01T11:${String(m).padStart(2, '0')}:00Z`),
      { nil: null },
    ),
  });
  const arbInput = fc.record({
    checkRuns: fc.array(arbRun, { maxLength: 8 }),
    required: fc.option(fc.subarray(NAMES), { nil: null }),
    deciders: fc.dictionary(fc.constantFrom(...NAMES), fc.constantFrom(...NAMES)),
  });

  test('B4 (property): the verdict does not depend on the order of the check runs', () => {
    fc.assert(
      fc.property(arbInput, (i) => {
        // Distinct ids keep "latest" well defined.
        const checkRuns = i.checkRuns.map((r, k) => ({ ...r, id: k + 1 }));
        const a = greenGate({ ...i, checkRuns, statuses: [] });
        const b = greenGate({ ...i, checkRuns: [...checkRuns].reverse(), statuses: [] });
        assert.deepEqual(a, b);
      }),
    );
  });

  test('B2/B4 (property): passing means no reasons and every required check has a run or status', () => {
    fc.assert(
      fc.property(arbInput, (i) => {
        const r = greenGate({ ...i, statuses: [] });
        if (r.verdict === 'passing') {
          assert.deepEqual(r.reasons, []);
          for (const name of i.required ?? []) assert.ok(i.checkRuns.some((x) => x.name === name));
        }
        assert.equal(r.verdict === 'red', r.failing.length > 0);
      }),
    );
  });

  test('B2 (property): adding a failing check, required or not, always makes the gate red', () => {
    fc.assert(
      fc.property(arbInput, (i) => {
        const r = greenGate({ ...i, checkRuns: [...i.checkRuns, run('zz-red', 'failure')], statuses: [] });
        assert.equal(r.verdict, 'red');
        assert.ok(r.failing.includes('zz-red'));
      }),
    );
  });
});
