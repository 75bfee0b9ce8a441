// SPEC I3: provider-visible progress between the dispatch snapshot and now.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { PROGRESS_KINDS, detectProgress, type ProgressKind, type ProgressSnapshot } from './progress.js';

const HEAD = 'a'.repeat(40);
const BASE: ProgressSnapshot = {
  headSha: HEAD,
  checks: [
    { name: 'test', id: 100, startedAt: '2026-12-01T10:00:00Z' },
    { name: 'lint', id: 101, startedAt: '2026-12-01T10:00:05Z' },
  ],
  reviewThreads: { resolved: 1, unresolved: 2 },
  latestReviewId: 7,
  mergeableState: 'unstable',
  inMergeQueue: false,
};

const snap = (over: Partial<ProgressSnapshot>): ProgressSnapshot => ({ ...BASE, ...over });

// [label, baseline overrides, now overrides, progress kinds]
type Row = [string, Partial<ProgressSnapshot>, Partial<ProgressSnapshot>, ProgressKind[]];
const TABLE: readonly Row[] = [
  ['nothing changed → no progress', {}, {}, []],
  ['a new head commit → new_head', {}, { headSha: 'b'.repeat(40) }, ['new_head']],
  ['the same head in another case → no progress', {}, { headSha: HEAD.toUpperCase() }, []],
  [
    'a new head with new check runs → new_head only (runs of a new head are not re-runs)',
    {},
    { headSha: 'b'.repeat(40), checks: [{ name: 'test', id: 200, startedAt: '2026-12-01T11:00:00Z' }] },
    ['new_head'],
  ],
  [
    'a re-run of a check (new id, later start) → check_rerun',
    {},
    { checks: [...BASE.checks, { name: 'test', id: 150, startedAt: '2026-12-01T10:30:00Z' }] },
    ['check_rerun'],
  ],
  [
    'a re-run queued, not started yet (new id, no start) → check_rerun',
    {},
    { checks: [...BASE.checks, { name: 'lint', id: 151, startedAt: null }] },
    ['check_rerun'],
  ],
  [
    'the same check run restarted later (same id, later start) → check_rerun',
    {},
    { checks: [{ name: 'test', id: 100, startedAt: '2026-12-01T10:20:00Z' }, BASE.checks[1]!] },
    ['check_rerun'],
  ],
  ['the same check runs listed in another order → no progress', {}, { checks: [...BASE.checks].reverse() }, []],
  [
    'a check with a new name (a late job of the same push) → no progress',
    {},
    { checks: [...BASE.checks, { name: 'e2e', id: 300, startedAt: '2026-12-01T10:40:00Z' }] },
    [],
  ],
  ['a check that disappeared → no progress', {}, { checks: [BASE.checks[0]!] }, []],
  [
    'an unreadable start time on the same id → no progress',
    {},
    { checks: [{ name: 'test', id: 100, startedAt: 'garbled' }, BASE.checks[1]!] },
    [],
  ],
  [
    'a review thread resolved → review_threads',
    {},
    { reviewThreads: { resolved: 2, unresolved: 1 } },
    ['review_threads'],
  ],
  [
    'a new unresolved thread → review_threads',
    {},
    { reviewThreads: { resolved: 1, unresolved: 3 } },
    ['review_threads'],
  ],
  ['a new review → review_threads', {}, { latestReviewId: 8 }, ['review_threads']],
  [
    'a first review where there was none → review_threads',
    { latestReviewId: null },
    { latestReviewId: 8 },
    ['review_threads'],
  ],
  ['thread counts that could not be read now → no progress', {}, { reviewThreads: null }, []],
  ['thread counts that could not be read at dispatch → no progress', { reviewThreads: null }, {}, []],
  [
    'a conflict resolved (dirty → clean) → conflict',
    { mergeableState: 'dirty' },
    { mergeableState: 'clean' },
    ['conflict'],
  ],
  [
    'a conflict appearing (clean → dirty) → conflict',
    { mergeableState: 'clean' },
    { mergeableState: 'dirty' },
    ['conflict'],
  ],
  [
    'a branch brought up to date (behind → blocked) → conflict',
    { mergeableState: 'behind' },
    { mergeableState: 'blocked' },
    ['conflict'],
  ],
  ['checks finishing (unstable → clean) is not a conflict change → no progress', {}, { mergeableState: 'clean' }, []],
  [
    'GitHub still computing (dirty → unknown) → no progress',
    { mergeableState: 'dirty' },
    { mergeableState: 'unknown' },
    [],
  ],
  ['merge state not read (dirty → null) → no progress', { mergeableState: 'dirty' }, { mergeableState: null }, []],
  ['entered the merge queue → merge_queue', {}, { inMergeQueue: true }, ['merge_queue']],
  ['left the merge queue → merge_queue', { inMergeQueue: true }, { inMergeQueue: false }, ['merge_queue']],
  [
    'several at once, listed in PROGRESS_KINDS order',
    {},
    { headSha: 'c'.repeat(40), latestReviewId: 9, inMergeQueue: true, mergeableState: 'dirty' },
    ['new_head', 'review_threads', 'conflict', 'merge_queue'],
  ],
];

describe('I3: progress kinds', () => {
  for (const [label, before, now, want] of TABLE) {
    test(`I3: ${label}`, () => {
      assert.deepEqual(detectProgress(snap(before), snap(now)), want);
    });
  }

  test('I3: the baseline against itself is never progress, and the answer follows PROGRESS_KINDS order', () => {
    const arb = fc.record({
      headSha: fc.constantFrom('a'.repeat(40), 'b'.repeat(40)),
      checks: fc.array(
        fc.record({
          name: fc.constantFrom('test', 'lint'),
          id: fc.nat(20),
          startedAt: fc.option(fc.constantFrom('2026-12-01T10:00:00Z', '2026-12-01T11:00:00Z')),
        }),
      ),
      reviewThreads: fc.option(fc.record({ resolved: fc.nat(3), unresolved: fc.nat(3) })),
      latestReviewId: fc.option(fc.nat(3)),
      mergeableState: fc.option(fc.constantFrom('clean', 'dirty', 'behind', 'blocked', 'unknown')),
      inMergeQueue: fc.boolean(),
    });
    fc.assert(
      fc.property(arb, arb, (a, b) => {
        assert.deepEqual(detectProgress(a, a), []);
        const kinds = detectProgress(a, b);
        assert.deepEqual(
          kinds,
          PROGRESS_KINDS.filter((k) => kinds.includes(k)),
        );
      }),
    );
  });
});
