// Issue 36 item 5: the bound on diff growth — sizes from the host's counts or the patch, and the
// verdict at, under and over the bound on either count, with the size and the bound in words.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  DEFAULT_DIFF_BOUND,
  boundOfWork,
  diffBoundVerdict,
  diffSize,
  type DiffBound,
  type SizedFile,
} from './diff-bound.js';

const oneLineFix: SizedFile = { patch: '@@ -12,1 +12,1 @@\n-  return total;\n+  return Math.round(total);' };
const files = (n: number, lines = 2): SizedFile[] =>
  Array.from({ length: n }, () => ({ patch: null, additions: lines / 2, deletions: lines / 2 }));

describe('diffSize (issue 36)', () => {
  const TABLE: ReadonlyArray<[string, SizedFile[], { lines: number; files: number }]> = [
    ['a one-line fix from its patch: 2 changed lines, 1 file', [oneLineFix], { lines: 2, files: 1 }],
    [
      "the host's counts win over the patch (GitHub gives them even without a patch)",
      [{ patch: null, additions: 300, deletions: 12 }],
      { lines: 312, files: 1 },
    ],
    [
      'context lines, hunk headers and "no newline" markers are not changes',
      [{ patch: '@@ -1,3 +1,3 @@\n a\n-b\n+c\n d\n\\ No newline at end of file' }],
      { lines: 2, files: 1 },
    ],
    ['a binary file without counts is a file of no lines', [{ patch: null }], { lines: 0, files: 1 }],
    ['CRLF patches count the same', [{ patch: '@@ -1 +1 @@\r\n-a\r\n+b' }], { lines: 2, files: 1 }],
    ['nothing changed', [], { lines: 0, files: 0 }],
  ];
  for (const [label, input, want] of TABLE) test(label, () => assert.deepEqual(diffSize(input), want));
});

describe('diffBoundVerdict (issue 36)', () => {
  const bound: DiffBound = { lines: 400, files: 20 };
  const TABLE: ReadonlyArray<[string, SizedFile[], DiffBound, 'allow' | 'stop']> = [
    ['a one-line fix never meets the defaults', [oneLineFix], DEFAULT_DIFF_BOUND, 'allow'],
    ['exactly at the bound on both counts is allowed', files(20, 20), bound, 'allow'],
    ['one file over the bound stops', files(21), bound, 'stop'],
    ['one line over the bound stops', [{ patch: null, additions: 201, deletions: 200 }], bound, 'stop'],
    ['40 files against a Work bound of 20 stops', files(40, 10), bound, 'stop'],
    ['40 small files are within the defaults', files(40, 10), DEFAULT_DIFF_BOUND, 'allow'],
    ['51 files pass the default bound', files(51), DEFAULT_DIFF_BOUND, 'stop'],
    [
      '1,001 lines pass the default bound',
      [{ patch: null, additions: 1001, deletions: 0 }],
      DEFAULT_DIFF_BOUND,
      'stop',
    ],
  ];
  for (const [label, input, b, want] of TABLE)
    test(label, () => assert.equal(diffBoundVerdict(diffSize(input), b).kind, want));

  test('the stop names the size and the bound in words, thousands grouped', () => {
    const v = diffBoundVerdict({ lines: 1240, files: 43 }, DEFAULT_DIFF_BOUND);
    assert.deepEqual(v, {
      kind: 'stop',
      reason: 'diff_too_large',
      detail:
        "the agent's changes since the loop began touch 43 files and 1,240 changed lines, over this Work's bound of 50 files or 1,000 changed lines",
    });
  });

  test('one file and one line are said in the singular', () => {
    const v = diffBoundVerdict({ lines: 1, files: 1 }, { lines: 0, files: 0 });
    assert.ok(v.kind === 'stop' && /touch 1 file and 1 changed line,/.test(v.detail));
  });
});

describe('boundOfWork (issue 36)', () => {
  test('a Work without diffBound, or no Work at all, gets the defaults', () => {
    assert.deepEqual(boundOfWork({}), DEFAULT_DIFF_BOUND);
    assert.deepEqual(boundOfWork(null), DEFAULT_DIFF_BOUND);
  });
  test('a Work that sets one count keeps the default for the other', () => {
    assert.deepEqual(boundOfWork({ diffBound: { files: 20 } }), { lines: 1000, files: 20 });
    assert.deepEqual(boundOfWork({ diffBound: { lines: 300, files: 10 } }), { lines: 300, files: 10 });
  });
});
