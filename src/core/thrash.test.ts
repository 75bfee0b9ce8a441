// SPEC K3: the thrash detector — normalised diff hashes, repeats and A-B-A alternations.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { diffHash, normalizeDiff, thrashVerdict } from './thrash.js';

// Attempt A: make the retry count 3.
const A = [
  'diff --git a/src/retry.ts b/src/retry.ts',
  'index 3b18e51..a9c2f04 100644',
  '--- a/src/retry.ts',
  '+++ b/src/retry.ts',
  '@@ -10,7 +10,7 @@ export function retry(fn: () => Promise<void>) {',
  '   const started = Date.now();',
  '   let delay = 100;',
  '-  const attempts = 2;',
  '+  const attempts = 3;',
  '   for (let i = 0; i < attempts; i++) {',
  '     delay *= 2;',
  '   }',
  '',
].join('\n');

// Attempt B: a different change to the same line.
const B = A.replace('+  const attempts = 3;', '+  const attempts = Number(process.env.ATTEMPTS ?? 2);');

// A again, but the file moved 40 lines down, with other context, another index line and CRLF endings.
const A_ELSEWHERE = [
  'diff --git a/src/retry.ts b/src/retry.ts',
  'index 77aa001..0c0ffee 100644',
  '--- a/src/retry.ts',
  '+++ b/src/retry.ts',
  '@@ -50,5 +50,5 @@ export async function retryWithJitter(fn: () => Promise<void>) {',
  '   let delay = 250;',
  '-  const attempts = 2;   ',
  '+  const attempts = 3;\t',
  '   for (let i = 0; i < attempts; i++) {',
  ' ',
  '',
].join('\r\n');

const TWO_FILES = [
  'diff --git a/b.txt b/b.txt',
  'index 1111111..2222222 100644',
  '--- a/b.txt',
  '+++ b/b.txt',
  '@@ -1 +1 @@',
  '-b',
  '+B',
  'diff --git a/a.txt b/a.txt',
  'old mode 100644',
  'new mode 100755',
  'index 3333333..4444444',
  '--- a/a.txt',
  '+++ b/a.txt',
  '@@ -1 +1 @@',
  '-a',
  '+A',
  '\\ No newline at end of file',
].join('\n');

describe('K3: normalising a diff', () => {
  test('K3: keeps file paths and +/- lines; drops index lines, hunk headers and context', () => {
    assert.equal(
      normalizeDiff(A),
      [
        'diff --git a/src/retry.ts b/src/retry.ts',
        '--- a/src/retry.ts',
        '+++ b/src/retry.ts',
        '-  const attempts = 2;',
        '+  const attempts = 3;',
      ].join('\n'),
    );
  });

  test('K3: a diff that differs only in line numbers, context, index, trailing white space and line endings hashes equal', () => {
    assert.equal(diffHash(A_ELSEWHERE), diffHash(A));
  });

  test('K3: whitespace-only differences at line ends hash equal', () => {
    assert.equal(diffHash(A.replace('+  const attempts = 3;', '+  const attempts = 3;    ')), diffHash(A));
  });

  test('K3: line-number-only differences hash equal', () => {
    assert.equal(diffHash(A.replace('@@ -10,7 +10,7 @@', '@@ -212,7 +215,7 @@')), diffHash(A));
  });

  test('K3: a genuinely different diff does not hash equal', () => {
    assert.notEqual(diffHash(B), diffHash(A));
    assert.notEqual(
      diffHash(A.replace('+  const attempts = 3;', '+  const attempts =  3;')),
      diffHash(A),
      'white space inside a line is content',
    );
    assert.notEqual(
      diffHash(A.replaceAll('src/retry.ts', 'src/backoff.ts')),
      diffHash(A),
      'the same lines in another file are another change',
    );
  });

  test('K3: mode lines and the no-newline marker are dropped; files are in path order whatever order the diff lists them', () => {
    const swapped = TWO_FILES.split('diff --git')
      .filter(Boolean)
      .reverse()
      .map((s) => `diff --git${s.endsWith('\n') ? s : `${s}\n`}`)
      .join('');
    assert.equal(diffHash(swapped), diffHash(TWO_FILES));
    assert.doesNotMatch(normalizeDiff(TWO_FILES), /mode|index|No newline/);
    assert.ok(normalizeDiff(TWO_FILES).startsWith('diff --git a/a.txt b/a.txt'));
  });

  test('K3: a removed line that reads like a file header is content (the hunk counts decide)', () => {
    const tricky = ['--- a/notes.md', '+++ b/notes.md', '@@ -1,2 +1,1 @@', '--- old heading', ' kept', ''].join('\n');
    assert.equal(normalizeDiff(tricky), ['--- a/notes.md', '+++ b/notes.md', '--- old heading'].join('\n'));
  });

  test('K3: a preamble before the first file (a format-patch message, a diffstat) is not the change', () => {
    const patch = [
      'From 0123 Mon Sep 17 00:00:00 2001',
      'Subject: [PATCH] bump attempts',
      '',
      '---',
      ' src/retry.ts | 2 +-',
      '',
      A,
    ].join('\n');
    assert.equal(diffHash(patch), diffHash(A));
  });

  test('K3: plain `diff -u` output keeps its paths without the timestamps', () => {
    const plain = [
      '--- a/x.txt\t2026-12-01 10:00:00.000000000 +0000',
      '+++ b/x.txt\t2026-12-01 10:05:00.000000000 +0000',
      '@@ -1 +1 @@',
      '-1',
      '+2',
      '',
    ].join('\n');
    assert.equal(normalizeDiff(plain), ['--- a/x.txt', '+++ b/x.txt', '-1', '+2'].join('\n'));
  });

  test('K3: hunks without file headers (a GitHub `patch` field) still hash by their lines', () => {
    assert.notEqual(diffHash('@@ -1 +1 @@\n-a\n+b'), diffHash('@@ -1 +1 @@\n-a\n+c'));
    assert.equal(diffHash('@@ -1 +1 @@\n-a\n+b'), diffHash('@@ -9 +9 @@\n-a\n+b'));
  });

  test('K3: normalising is idempotent in effect (a normalised diff hashes like its source)', () => {
    for (const d of [A, B, TWO_FILES]) assert.equal(diffHash(normalizeDiff(d)), diffHash(d));
  });

  test('K3: the hash is prefixed and deterministic', () => {
    assert.match(diffHash(A), /^diff1:[0-9a-f]{32}$/);
    assert.equal(diffHash(A), diffHash(A));
  });
});

describe('K3: the verdict over the attempts so far', () => {
  const [a, b, c] = [diffHash(A), diffHash(B), diffHash(TWO_FILES)];

  const TABLE: ReadonlyArray<[string, string[], string, 'allow' | 'thrash_repeat' | 'thrash_aba']> = [
    ['the first attempt → allow', [], a, 'allow'],
    ['a second, different diff → allow', [a], b, 'allow'],
    ['a third, different diff → allow', [a, b], c, 'allow'],
    ['the same diff twice in a row → repeat', [a], a, 'thrash_repeat'],
    ['A, B, then A again → aba', [a, b], a, 'thrash_aba'],
    ['C, A, B, then A → aba (the last three alternate)', [c, a, b], a, 'thrash_aba'],
    ['A, B, C, then A → repeat (not an alternation)', [a, b, c], a, 'thrash_repeat'],
    ['A, B, B → repeat', [a, b], b, 'thrash_repeat'],
    ['A, A, then A → repeat (no B between)', [a, a], a, 'thrash_repeat'],
  ];
  for (const [label, history, current, want] of TABLE) {
    test(`K3: ${label}`, () => {
      const v = thrashVerdict(history, current);
      if (want === 'allow') assert.deepEqual(v, { kind: 'allow' });
      else {
        assert.equal(v.kind, 'stop');
        assert.equal(v.kind === 'stop' && v.reason, want);
      }
    });
  }

  test('K3: A-B-A over three pushes, from the diffs themselves (the third A landed elsewhere)', () => {
    const pushes = [A, B, A_ELSEWHERE];
    const hashes: string[] = [];
    const verdicts = pushes.map((d) => {
      const h = diffHash(d);
      const v = thrashVerdict(hashes, h);
      hashes.push(h);
      return v;
    });
    assert.deepEqual(verdicts.slice(0, 2), [{ kind: 'allow' }, { kind: 'allow' }]);
    assert.deepEqual(verdicts[2], {
      kind: 'stop',
      reason: 'thrash_aba',
      detail: 'attempt 3 undoes attempt 2 and brings back the diff of attempt 1 (A-B-A)',
    });
  });

  test('K3: the repeat detail names the attempt repeated', () => {
    assert.deepEqual(thrashVerdict([a, b, c], a), {
      kind: 'stop',
      reason: 'thrash_repeat',
      detail: 'attempt 4 repeats the diff of attempt 1',
    });
  });

  test('K3: a hash seen anywhere earlier always stops; one never seen never does', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom('h1', 'h2', 'h3', 'h4'), { maxLength: 8 }),
        fc.constantFrom('h1', 'h2', 'h3', 'h4'),
        (history, current) => {
          assert.equal(thrashVerdict(history, current).kind, history.includes(current) ? 'stop' : 'allow');
        },
      ),
    );
  });
});
