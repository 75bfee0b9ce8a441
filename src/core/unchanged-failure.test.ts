// SPEC C5, K2, T5, T6: an unchanged failure is judged over each head's whole set of failing checks.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { evidenceOf, type Evidence } from './fingerprint.js';
import { unchangedFailure, type HeadCheck, type UnchangedVerdict } from './unchanged-failure.js';

const text = (s: string): Evidence => evidenceOf(s);
const red = (name: string, out = `FAIL ${name}`): HeadCheck => ({ name, verdict: 'red', evidence: text(out) });
const green = (name: string): HeadCheck => ({ name, verdict: 'green', evidence: evidenceOf('') });
const redDegraded = (name: string, why: 'empty_output' | 'log_unreadable' = 'empty_output'): HeadCheck => ({
  name,
  verdict: 'red',
  evidence: why === 'empty_output' ? evidenceOf('') : evidenceOf('FAIL', { unreadable: true }),
});
const of = (v: UnchangedVerdict) => (v.kind === 'changed' ? `changed:${v.why}` : v.kind);

type Row = [string, HeadCheck[], HeadCheck[], boolean, string];
const A = red('a');
const B = red('b');
const C = red('c');

const TABLE: Row[] = [
  ['T6: every failing check of the last head fails again the same way', [A, B, C], [C, A, B], false, 'unchanged'],
  ['C5: a single job failing the same way again', [A], [A], false, 'unchanged'],
  [
    'C5: run-to-run noise in the output is not a change',
    [red('a', 'FAIL at 12:00:01 took 3s in /tmp/x1/y')],
    [red('a', 'FAIL at 13:59:59 took 9s in /tmp/q7/z')],
    false,
    'unchanged',
  ],
  ['T6: checks that passed on both heads do not matter', [A, green('lint')], [A, green('lint')], false, 'unchanged'],
  ['T6: part of the matrix reported, all as before: wait for the rest', [A, B, C], [B], false, 'undecided'],
  ['T6: nothing of the matrix reported red yet', [A, B], [green('other')], false, 'undecided'],
  [
    'T6: a check not yet conclusive (cancelled) is still awaited',
    [A, B],
    [A, { ...B, verdict: 'inconclusive' }],
    false,
    'undecided',
  ],
  ['T6: settled with a failing check missing: not the same failures', [A, B, C], [A, B], true, 'changed:missing'],
  [
    'T6: a check that failed passes now (half fixed), even before the rest reports',
    [A, B, C],
    [A, green('b')],
    false,
    'changed:fixed',
  ],
  [
    'T6: half fixed, the failing half exactly as before',
    [A, B, C, red('d')],
    [green('a'), green('b'), C, red('d')],
    false,
    'changed:fixed',
  ],
  ['K2: a new failing check', [A], [A, red('z')], false, 'changed:new_failure'],
  [
    'K2: the same check fails with other output',
    [A],
    [red('a', 'FAIL a: expected 2, got 3')],
    false,
    'changed:different_output',
  ],
  [
    'K2: one job of the matrix fails differently',
    [A, B, C],
    [A, red('b', 'TypeError in b'), C],
    false,
    'changed:different_output',
  ],
  [
    'T5: an empty output on both heads is not "unchanged"',
    [redDegraded('a')],
    [redDegraded('a')],
    false,
    'changed:degraded_evidence',
  ],
  [
    'T5: an unreadable log on both heads is not "unchanged"',
    [redDegraded('a', 'log_unreadable')],
    [redDegraded('a', 'log_unreadable')],
    false,
    'changed:degraded_evidence',
  ],
  ['T5: an empty output on the new head only', [A], [redDegraded('a')], false, 'changed:degraded_evidence'],
  ['T5: an empty output on the last head only', [redDegraded('a'), B], [A, B], false, 'changed:degraded_evidence'],
  [
    'T5: only the exit-code line is no evidence',
    [red('a', 'Process completed with exit code 1.')],
    [red('a', 'Process completed with exit code 1.')],
    false,
    'changed:degraded_evidence',
  ],
  ['the last head has no failing check on record', [green('a')], [A], false, 'changed:nothing_to_compare'],
  [
    'a check re-run green on the last head no longer counts as its failure',
    [A, green('a'), B],
    [B],
    false,
    'unchanged',
  ],
  [
    'the latest result of a check on the new head decides (re-run red after green)',
    [A],
    [green('a'), A],
    false,
    'unchanged',
  ],
];

describe('T6: the unchanged-failure table', () => {
  for (const [what, previous, current, settled, expected] of TABLE) {
    test(what, () => {
      assert.equal(of(unchangedFailure({ previous, current, settled })), expected);
    });
  }

  test('T6: undecided names what it waits for', () => {
    const v = unchangedFailure({ previous: [A, B, C], current: [B], settled: false });
    assert.equal(v.kind, 'undecided');
    assert.deepEqual(v.kind === 'undecided' ? v.waitingFor : null, ['a', 'c']);
  });
});

describe('T6: the order of arrival never changes the answer', () => {
  const names = Array.from({ length: 12 }, (_, i) => `test (node ${18 + (i % 3)}, shard ${i})`);

  test('T6 (property): the same 12 failures, reported in any order, are undecided until the last and then unchanged', () => {
    fc.assert(
      fc.property(fc.shuffledSubarray(names, { minLength: 12, maxLength: 12 }), (order) => {
        const previous = names.map((n) => red(n, `FAIL ${n} at 10:00:0${n.length % 10} in /tmp/a${n.length}`));
        const seen: HeadCheck[] = [];
        for (const [i, n] of order.entries()) {
          seen.push(red(n, `FAIL ${n} at 11:11:1${i % 10} in /tmp/b${i}`));
          const v = unchangedFailure({ previous, current: seen, settled: false });
          assert.equal(v.kind, i === order.length - 1 ? 'unchanged' : 'undecided');
        }
      }),
    );
  });

  test('T6 (property): half fixed, in any order, is never judged unchanged and ends changed', () => {
    fc.assert(
      fc.property(fc.shuffledSubarray(names, { minLength: 12, maxLength: 12 }), (order) => {
        const previous = names.map((n) => red(n));
        const fixed = new Set(names.slice(0, 6));
        const seen: HeadCheck[] = [];
        for (const n of order) {
          seen.push(fixed.has(n) ? green(n) : red(n));
          assert.notEqual(unchangedFailure({ previous, current: seen, settled: false }).kind, 'unchanged');
        }
        assert.equal(of(unchangedFailure({ previous, current: seen, settled: false })), 'changed:fixed');
      }),
    );
  });
});
