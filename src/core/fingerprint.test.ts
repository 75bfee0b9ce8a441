// SPEC C5, K2: the failure fingerprint ignores run-to-run noise but not a different failure.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { evidenceOf, fingerprint, normalizeOutput } from './fingerprint.js';

const CHECKS = ['test (ubuntu-latest)'];
const fp = (out: string, checks: readonly string[] = CHECKS) => fingerprint(checks, out);

/** [what varies, output of run 1, output of run 2]: the same failure, different noise. */
const NOISE: ReadonlyArray<[string, string, string]> = [
  [
    'digits (durations, counts, line numbers)',
    'FAIL adds.test.ts:12:5 (took 123ms, 4 tests)',
    'FAIL adds.test.ts:98:1 (took 7ms, 51 tests)',
  ],
  ['decimal durations', 'Duration 1.23s', 'Duration 45.6s'],
  ['hex ids (0x addresses)', 'segfault at 0x7ffd1234abcd', 'segfault at 0xdeadbeef'],
  ['hex object ids', 'object id 5f3e2a1b9c8d', 'object id 0a1b2c3d4e5f6'],
  [
    'commit shas',
    'HEAD is 3f2a9c1d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a39',
    'HEAD is 0aa1bb2cc3dd4ee5ff6aa7bb8cc9dd0ee1ff2aa3',
  ],
  ['short shas', 'at commit ec26c3e', 'at commit 5bd5f19'],
  [
    'UUIDs',
    'request 123e4567-e89b-12d3-a456-426614174000 failed',
    'request 9F1C2D3E-4B5A-6C7D-8E9F-0A1B2C3D4E5F failed',
  ],
  ['ISO timestamps', '2024-05-01T12:34:56.789Z expected true', '2023-11-30T01:02:03+02:00 expected true'],
  ['ISO timestamps with a space', '2024-05-01 12:34:56 expected true', '1999-12-31 23:59:59,5 expected true'],
  ['HH:MM:SS times', '[12:00:01] boom', '[9:59:59.123] boom'],
  ['/tmp paths', 'cannot open /tmp/vitest-abc123/fixture.json', 'cannot open /tmp/jest_q9z/other/file.json'],
  ['/var/folders paths', 'ENOENT /var/folders/ab/cd_ef12/T/jest_x/y.js', 'ENOENT /var/folders/zz/yy_99/T/jest_q/z.js'],
  ['/private/var/folders paths', 'ENOENT /private/var/folders/ab/xyz/T/a', 'ENOENT /var/folders/qq/rr/T/b'],
  [
    'GitHub runner temp paths',
    'script /home/runner/work/_temp/4c1e-a.sh failed',
    'script /home/runner/work/_temp/99ff-b.sh failed',
  ],
  [
    'Windows temp paths',
    'C:\\Users\\runneradmin\\AppData\\Local\\Temp\\abc\\x.txt missing',
    'C:\\Users\\bob\\AppData\\Local\\Temp\\q1\\y.txt missing',
  ],
  ['line endings and blank lines', 'line one\r\nline two\r\n\r\n', 'line one\nline two\n'],
  ['indentation and runs of spaces', '   expected   true', 'expected true'],
  [
    'everything at once',
    'FAIL src/a.test.ts > adds 2024-05-01T12:34:56.789Z 12:00:01 sha 3f2a9c1d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a39 uuid 123e4567-e89b-12d3-a456-426614174000 at /tmp/vitest-abc123/x.ts:12:5 /var/folders/ab/cd_ef12/T/jest_x/y.js id 0x7ffd1234 took 123ms',
    'FAIL src/a.test.ts > adds 2023-11-30T01:02:03Z 09:59:59 sha 0aa1bb2cc3dd4ee5ff6aa7bb8cc9dd0ee1ff2aa3 uuid 9f1c2d3e-4b5a-6c7d-8e9f-0a1b2c3d4e5f at /tmp/vitest-zzz999/qq.ts:99:1 /var/folders/zz/yy_99/T/jest_q/z.js id 0xdeadbeef took 9ms',
  ],
];

describe('C5: run-to-run noise does not change the fingerprint', () => {
  for (const [what, a, b] of NOISE) {
    test(`C5: two outputs differing only by ${what} have the same fingerprint`, () => {
      assert.notEqual(a, b);
      assert.equal(fp(a), fp(b));
    });
  }

  test('C5 (property): any digits substituted for digits leave the fingerprint unchanged', () => {
    fc.assert(
      fc.property(fc.nat(), fc.nat(), fc.nat(), fc.nat(), (a, b, c, d) => {
        const out = (x: number, y: number) =>
          `AssertionError: expected value to be truthy\n  at check (src/x.ts:${x}:${y})\n  took ${x}.${y}s`;
        assert.equal(fp(out(a, b)), fp(out(c, d)));
      }),
    );
  });
});

/** [what differs, output 1, output 2]: a different failure. */
const DIFFERENT: ReadonlyArray<[string, string, string]> = [
  [
    'a different assertion message',
    "AssertionError: expected 'cart' to equal 'basket'",
    "AssertionError: expected 'cart' to equal 'wallet'",
  ],
  ['a different failing test name', 'FAIL src/cart.test.ts > adds an item', 'FAIL src/cart.test.ts > removes an item'],
  ['a different error type', 'TypeError: x is not a function', 'RangeError: x is not a function'],
  ['a different file', 'FAIL src/cart.test.ts', 'FAIL src/shop.test.ts'],
  ['an extra failing line', 'FAIL a', 'FAIL a\nFAIL b'],
];

describe('C5: a different failure changes the fingerprint', () => {
  for (const [what, a, b] of DIFFERENT) {
    test(`C5: ${what} changes the fingerprint`, () => {
      assert.notEqual(fp(a), fp(b));
    });
  }

  test('C5: a different failing check name changes the fingerprint', () => {
    assert.notEqual(fingerprint(['test (ubuntu-latest)'], 'boom'), fingerprint(['lint'], 'boom'));
  });

  test('C5: an additional failing check changes the fingerprint', () => {
    assert.notEqual(fingerprint(['test'], 'boom'), fingerprint(['test', 'lint'], 'boom'));
  });

  test('C5: check names and output do not run together (name vs output boundary)', () => {
    assert.notEqual(fingerprint(['ab'], 'c'), fingerprint(['a'], 'bc'));
  });
});

describe('C5: check names are a set', () => {
  test('C5: check name order does not matter', () => {
    assert.equal(fingerprint(['test', 'lint', 'build'], 'boom'), fingerprint(['build', 'test', 'lint'], 'boom'));
  });

  test('C5 (property): any permutation of the failing check names gives the same fingerprint', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.string({ minLength: 1 }), { minLength: 1, maxLength: 6 }),
        fc.string(),
        (names, out) => {
          const reversed = [...names].reverse();
          assert.equal(fingerprint(names, out), fingerprint(reversed, out));
        },
      ),
    );
  });

  test('C5: a check name reported twice (run and its suite) counts once; surrounding spaces ignored', () => {
    assert.equal(fingerprint(['test', 'test ', ' test'], 'boom'), fingerprint(['test'], 'boom'));
  });
});

describe('C5: fingerprint format and normal form', () => {
  test('C5: the fingerprint is versioned and fixed-length', () => {
    assert.match(fingerprint(CHECKS, 'anything'), /^fp1:[0-9a-f]{32}$/);
  });

  test('C5: the fingerprint is deterministic', () => {
    assert.equal(fp('x 1'), fp('x 1'));
  });

  test('C5: normalizeOutput replaces noise with placeholders and keeps words', () => {
    assert.equal(
      normalizeOutput(
        '  at 2024-05-01T12:34:56Z in /tmp/abc/x.ts line 12 sha ec26c3e uuid 123e4567-e89b-12d3-a456-426614174000 ptr 0xff\r\n\r\n  done  ',
      ),
      'at <time> in <tmp> line <n> sha <hex> uuid <id> ptr <hex>\ndone',
    );
  });

  test('C5: plain words that happen to be hex letters are not erased', () => {
    assert.equal(normalizeOutput('deadbeef facade accede'), 'deadbeef facade accede');
  });
});

describe('T5: degraded evidence', () => {
  const table: ReadonlyArray<[string, string, { unreadable: boolean } | undefined, string]> = [
    ['an empty output', '', undefined, 'empty_output'],
    ['whitespace and blank lines only', '  \r\n\n\t ', undefined, 'empty_output'],
    ['the runner exit line only', 'Process completed with exit code 1.', undefined, 'no_failure_text'],
    [
      'the exit line as an error annotation, twice',
      'Error: Process completed with exit code 2.\n\nError: Process completed with exit code 137.',
      undefined,
      'no_failure_text',
    ],
    [
      'a log that could not be read, whatever the output says',
      'FAIL src/a.test.ts',
      { unreadable: true },
      'log_unreadable',
    ],
  ];
  for (const [what, output, log, why] of table) {
    test(`T5: ${what} is degraded evidence (${why})`, () => {
      assert.deepEqual(evidenceOf(output, log), { kind: 'degraded', why });
    });
  }

  test('T5: a failure text with an exit line is evidence, and noise does not change its digest', () => {
    const a = evidenceOf('FAIL src/a.test.ts at 12:00:01\nProcess completed with exit code 1.');
    const b = evidenceOf('FAIL src/a.test.ts at 13:45:09\nProcess completed with exit code 1.');
    assert.equal(a.kind, 'text');
    assert.deepEqual(a, b);
    assert.notDeepEqual(a, evidenceOf('FAIL src/b.test.ts'));
  });
});
