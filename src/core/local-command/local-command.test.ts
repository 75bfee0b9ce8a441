// SPEC J3: the failure report names the local command. Every fixture is real output of the tool,
// run on a tiny sample project (test/fixtures/tool-output/README.md); `<name>.rerun.txt` is the
// output of the command localCommand printed for `<name>.txt`, run on the same project. The point
// of each test: the failures read from the log are the ones the log shows, and the printed command
// ran exactly those tests — no fewer, and none of the passing ones.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import * as eslint from './eslint.js';
import * as jest from './jest.js';
import * as pytest from './pytest.js';
import * as tsc from './tsc.js';
import { localCommand, localCommands, shellQuote, type Failure, type LocalCommandReport, type Tool } from './index.js';

const FIXTURES = new URL('../../../test/fixtures/tool-output/', import.meta.url);
const fixture = (name: string): string => readFileSync(new URL(name, FIXTURES), 'utf8');

function reportOf(log: string): LocalCommandReport {
  const report = localCommand(log);
  assert.ok(report, 'a report');
  return report;
}

const tests = (failures: readonly Failure[]): string[] => failures.map((f) => f.test ?? '').sort();
const files = (failures: readonly Failure[]): string[] => [...new Set(failures.map((f) => f.file))].sort();

// GitHub Actions shows each log line after a timestamp; J2 strips it before J3 reads the log.
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{7}Z /gm;
function asActionsLog(output: string, run: string): string {
  const body = [
    `##[group]Run ${run}`,
    `${run}`,
    '##[endgroup]',
    ...output.split('\n'),
    '##[error]Process completed with exit code 1.',
  ];
  return body
    .map(
      (l, i) =>
        `2026-11-30T02:11:${String(36 + Math.floor(i / 10)).padStart(2, '0')}.${String(1234567 + i * 811).padStart(7, '0')}Z ${l}`,
    )
    .join('\n');
}
const stripTimestamps = (log: string): string => log.replace(TIMESTAMP, '');

interface Case {
  readonly fixture: string;
  readonly run: string;
  readonly tool: Tool;
  readonly failures: readonly Failure[];
  readonly command: readonly string[];
  /** What ran in `<fixture>.rerun.txt`, read with a per-tool regex, as failures to compare. */
  readonly ran: (rerun: string) => Failure[];
}

/** vitest lists each test of a file that had a failure: ✓ passed, × failed, ↓ skipped. */
function vitestRan(rerun: string): Failure[] {
  const out: Failure[] = [];
  let file = '';
  for (const l of rerun.split('\n')) {
    const header = /^ [❯✓×↓] (\S+) \(\d+ tests?/.exec(l);
    if (header?.[1] !== undefined) file = header[1];
    const ran = /^ {3}[✓×] (.+?)(?: \d+ms)?$/.exec(l);
    if (ran?.[1] !== undefined) out.push({ file, test: ran[1] });
  }
  return out;
}

/** jest (several files, so not verbose): the ● failures, and a total with no test passed. */
function jestRan(rerun: string): Failure[] {
  const total = /^Tests:\s+(.*)$/m.exec(rerun)?.[1] ?? '';
  assert.doesNotMatch(total, /passed/, 'no test passed in the rerun');
  const failed = jest.parse(rerun);
  assert.match(total, new RegExp(`^${failed.length} failed`));
  return failed;
}

/** node TAP: every `ok`/`not ok` that is not skipped by the pattern and is not a suite. */
function nodeRan(rerun: string): Failure[] {
  const all = rerun.split('\n');
  const out: Failure[] = [];
  all.forEach((l, i) => {
    const m = /^(\s*)(?:not )?ok \d+ - (.*)$/.exec(l);
    if (m?.[1] === undefined || m[2] === undefined || / # SKIP\b/.test(m[2])) return;
    const block: string[] = [];
    for (let j = i + 2; j < all.length && all[j] !== `${m[1]}  ...`; j++) block.push(all[j] ?? '');
    if (block.some((b) => b.trim() === "type: 'suite'")) return;
    const location = block.map((b) => /location: '(.+):\d+:\d+'/.exec(b)?.[1]).find((x) => x !== undefined) ?? '';
    out.push({ file: location, test: m[2] });
  });
  return out;
}

/** pytest (not verbose): the FAILED node ids, and a total with no test passed. */
function pytestRan(rerun: string): Failure[] {
  const total = /^=+ (.*) in [\d.]+s =+$/m.exec(rerun)?.[1] ?? '';
  const failed = pytest.parse(rerun);
  assert.equal(total, `${failed.length} failed`);
  return failed;
}

/** go test -v: the leaves of the `=== RUN` lines, each in the package whose result line follows. */
function goRan(rerun: string): Failure[] {
  const out: Failure[] = [];
  let names: string[] = [];
  for (const l of rerun.split('\n')) {
    const run = /^=== RUN\s+(\S+)$/.exec(l)?.[1];
    if (run !== undefined) names.push(run);
    const pkg = /^(?:FAIL|ok)\s+(\S+)\s+\d/.exec(l)?.[1];
    if (pkg === undefined) continue;
    for (const n of names) if (!names.some((o) => o.startsWith(`${n}/`))) out.push({ file: pkg, test: n });
    names = [];
  }
  return out;
}

/** cargo test: every `test <name> ... ok|FAILED|ignored`, in the binary it ran in. */
function cargoRan(rerun: string): Failure[] {
  const out: Failure[] = [];
  let file = '';
  for (const l of rerun.split('\n')) {
    const running = /^\s*Running (?:unittests )?(\S+) \(/.exec(l)?.[1];
    if (running !== undefined) file = running;
    const t = /^test (.+) \.\.\. (?:ok|FAILED|ignored)$/.exec(l)?.[1];
    if (t !== undefined) out.push({ file: /^(\S+) - .*\(line \d+\)/.exec(t)?.[1] ?? file, test: t });
  }
  return out;
}

/** eslint reports every file it linted that has a problem, warnings included (lib/warn.js has one). */
function eslintRan(rerun: string): Failure[] {
  const all = rerun.split('\n');
  return all.flatMap((l, i) =>
    l !== '' && !/^\s/.test(l) && /^\s+\d+:\d+\s+(?:error|warning)/.test(all[i + 1] ?? '') ? [{ file: l }] : [],
  );
}

const CASES: readonly Case[] = [
  {
    fixture: 'vitest',
    run: 'npx vitest run',
    tool: 'vitest',
    failures: [
      { file: 'src/math.test.js', test: "math > doesn't divide (by zero)" },
      { file: 'test/words.test.js', test: 'joins words with a space' },
    ],
    command: [
      'npx',
      'vitest',
      'run',
      'src/math.test.js',
      'test/words.test.js',
      '-t',
      "^(?:math doesn't divide \\(by zero\\)|joins words with a space)$",
    ],
    ran: vitestRan,
  },
  {
    fixture: 'jest',
    run: 'npx jest',
    tool: 'jest',
    failures: [
      { file: 'test/words.test.js', test: 'joins words with a space' },
      { file: 'src/math.test.js', test: "math › doesn't divide (by zero)" },
    ],
    command: [
      'npx',
      'jest',
      '--runTestsByPath',
      'test/words.test.js',
      'src/math.test.js',
      '-t',
      "^(?:joins words with a space|math doesn't divide \\(by zero\\))$",
    ],
    ran: jestRan,
  },
  {
    fixture: 'node-test',
    run: 'node --test src/math.test.mjs test/words.test.mjs test/ok.test.mjs',
    tool: 'node-test',
    failures: [
      { file: '/tmp/j3/node/src/math.test.mjs', test: "doesn't divide (by zero)" },
      { file: '/tmp/j3/node/test/words.test.mjs', test: 'joins words with a space' },
    ],
    command: [
      'node',
      '--test',
      "--test-name-pattern=^(?:doesn't divide \\(by zero\\)|joins words with a space)$",
      '/tmp/j3/node/src/math.test.mjs',
      '/tmp/j3/node/test/words.test.mjs',
    ],
    ran: nodeRan,
  },
  {
    fixture: 'pytest',
    run: 'python -m pytest',
    tool: 'pytest',
    failures: [
      { file: 'tests/test_math.py', test: 'TestMath::test_divides' },
      { file: 'tests/test_math.py', test: "test_joins[it's a quote]" },
    ],
    command: [
      'python',
      '-m',
      'pytest',
      'tests/test_math.py::TestMath::test_divides',
      "tests/test_math.py::test_joins[it's a quote]",
    ],
    ran: pytestRan,
  },
  {
    fixture: 'go-test',
    run: 'go test ./...',
    tool: 'go-test',
    failures: [
      { file: 'example.com/j3/mathx', test: 'TestDivides' },
      { file: 'example.com/j3/words', test: "TestJoin/it's_joined_with_a_space" },
    ],
    command: [
      'go',
      'test',
      '-v',
      '-run',
      "^TestDivides$|^TestJoin$/^it's_joined_with_a_space$",
      'example.com/j3/mathx',
      'example.com/j3/words',
    ],
    ran: goRan,
  },
  {
    fixture: 'cargo-test',
    run: 'cargo test --no-fail-fast',
    tool: 'cargo-test',
    failures: [
      { file: 'src/lib.rs', test: 'tests::divides' },
      { file: 'tests/words.rs', test: 'joins_words' },
    ],
    command: ['cargo', 'test', '--no-fail-fast', '--', '--exact', 'tests::divides', 'joins_words'],
    ran: cargoRan,
  },
  {
    fixture: 'eslint',
    run: 'npx eslint .',
    tool: 'eslint',
    failures: [{ file: "/tmp/j3/eslint/src/it's a file.js" }, { file: '/tmp/j3/eslint/src/unused.js' }],
    command: ['npx', 'eslint', "/tmp/j3/eslint/src/it's a file.js", '/tmp/j3/eslint/src/unused.js'],
    ran: eslintRan,
  },
  {
    fixture: 'tsc',
    run: 'npx tsc --noEmit -p .',
    tool: 'tsc',
    failures: [{ file: "src/it's here.ts" }, { file: 'src/math.ts' }],
    command: ['npx', 'tsc', '--noEmit', '-p', '.'],
    // tsc checks the whole project: what it "ran" is every file, and the same files fail again.
    ran: (rerun) => tsc.parse(rerun),
  },
];

describe('J3 local command, on real output of each runner', () => {
  for (const c of CASES) {
    describe(c.tool, () => {
      const log = fixture(`${c.fixture}.txt`);
      const rerun = fixture(`${c.fixture}.rerun.txt`);

      test(`J3 ${c.tool}: recognizes the runner and lists the failures the log shows`, () => {
        const report = reportOf(log);
        assert.equal(report.tool, c.tool);
        assert.deepEqual(report.failures, c.failures);
      });

      test(`J3 ${c.tool}: the printed command reruns exactly the failing tests`, () => {
        const report = reportOf(log);
        assert.deepEqual(report.command, c.command);
        assert.equal(report.note, undefined, 'the command is exact');
        const ran = c.ran(rerun);
        assert.deepEqual(tests(ran), tests(report.failures), 'the tests that ran are the failing ones');
        assert.deepEqual(files(ran), files(report.failures), 'in the failing files only');
      });

      test(`J3 ${c.tool}: the same report from the log as GitHub Actions shows it, timestamps stripped`, () => {
        const actions = asActionsLog(log, c.run);
        assert.match(actions, /^2026-11-30T02:11:36\.1234567Z ##\[group\]Run /);
        assert.deepEqual(localCommand(stripTimestamps(actions)), localCommand(log));
      });
    });
  }
});

describe('J3 local command, the runner-specific cases', () => {
  test('J3 node --test: the spec reporter gives the same failures, with the paths it prints (relative)', () => {
    const report = reportOf(fixture('node-test.spec.txt'));
    assert.equal(report.tool, 'node-test');
    assert.deepEqual(report.failures, [
      { file: 'src/math.test.mjs', test: "doesn't divide (by zero)" },
      { file: 'test/words.test.mjs', test: 'joins words with a space' },
    ]);
    assert.deepEqual(report.command.slice(0, 3), reportOf(fixture('node-test.txt')).command.slice(0, 3));
  });

  test('J3 go test: `go test -v` output gives the same failures as the terse output', () => {
    assert.deepEqual(reportOf(fixture('go-test.v.txt')), reportOf(fixture('go-test.txt')));
  });

  test('J3 go test: a parent that failed only through its subtest is not listed; its subtest is', () => {
    const log = fixture('go-test.txt');
    assert.match(log, /^--- FAIL: TestJoin \(/m);
    assert.ok(!reportOf(log).failures.some((f) => f.test === 'TestJoin'));
  });

  test('J3 tsc: the --pretty form gives the same files', () => {
    assert.deepEqual(reportOf(fixture('tsc.pretty.txt')), reportOf(fixture('tsc.txt')));
  });

  test('J3 eslint: a file with only warnings is not a failure', () => {
    const log = fixture('eslint.txt');
    assert.match(log, /^\/tmp\/j3\/eslint\/lib\/warn\.js$/m);
    assert.ok(!reportOf(log).failures.some((f) => f.file.endsWith('warn.js')));
  });

  test('J3 eslint: with "too many warnings" a file with only warnings fails', () => {
    const log = `${fixture('eslint.txt')}ESLint found too many warnings (maximum: 0).\n`;
    assert.deepEqual(
      eslint.parse(log).map((f) => f.file),
      ['/tmp/j3/eslint/lib/warn.js', "/tmp/j3/eslint/src/it's a file.js", '/tmp/j3/eslint/src/unused.js'],
    );
  });

  test('J3 cargo test: a failed doc test cannot be selected by name; the rerun is every doc test, with a note', () => {
    const report = reportOf(fixture('cargo-test.doc.txt'));
    assert.deepEqual(report.failures, [{ file: 'src/lib.rs', test: 'src/lib.rs - add (line 3)' }]);
    assert.deepEqual(report.command, ['cargo', 'test', '--doc']);
    assert.match(report.note ?? '', /doc test/);
    const ran = cargoRan(fixture('cargo-test.doc.rerun.txt'));
    assert.deepEqual(
      tests(ran),
      ['src/lib.rs - add (line 3)', 'src/lib.rs - join (line 12)'],
      'every doc test, and nothing else',
    );
  });

  test('J3 a file that fails as a whole (does not load, does not build) is listed without a test, and rerun', () => {
    const BROKEN: ReadonlyArray<[string, Failure, readonly string[]]> = [
      [
        'vitest',
        { file: 'src/broken.test.js' },
        ['npx', 'vitest', 'run', 'src/broken.test.js', 'src/math.test.js', 'test/words.test.js'],
      ],
      [
        'jest',
        { file: 'src/broken.test.js' },
        ['npx', 'jest', '--runTestsByPath', 'test/words.test.js', 'src/math.test.js', 'src/broken.test.js'],
      ],
      ['pytest', { file: 'tests/test_broken.py' }, ['python', '-m', 'pytest', 'tests/test_broken.py']],
      [
        'go-test',
        { file: 'example.com/j3/mathx' },
        [
          'go',
          'test',
          '-v',
          '-run',
          "^TestJoin$/^it's_joined_with_a_space$",
          'example.com/j3/mathx',
          'example.com/j3/words',
        ],
      ],
    ];
    for (const [name, whole, argv] of BROKEN) {
      const report = reportOf(fixture(`${name}.broken.txt`));
      assert.ok(
        report.failures.some((f) => f.file === whole.file && f.test === undefined),
        name,
      );
      // The test-name pattern (if any) comes after the files; a file that does not load fails whatever it is.
      assert.deepEqual(report.command.slice(0, argv.length), argv, name);
    }
  });

  test('J3 paths under a GitHub runner workspace are shown relative to the checkout', () => {
    const log = fixture('eslint.txt').replaceAll('/tmp/j3/eslint/', '/home/runner/work/fixloop/fixloop/');
    assert.deepEqual(reportOf(log).command, ['npx', 'eslint', "src/it's a file.js", 'src/unused.js']);
  });
});

describe('J3 local command, untrusted log text', () => {
  const PAYLOAD = "it's $(echo pwned) `echo pwned` ; echo pwned | x > y && $HOME *";
  const hostile = fixture('vitest.txt').replaceAll('joins words with a space', PAYLOAD);

  test('J3 a hostile test name lands in one argument, and the display is inert in a shell', () => {
    const report = reportOf(hostile);
    assert.ok(report.failures.some((f) => f.test === PAYLOAD));
    // Have sh parse the display and print back each argument it sees: nothing may run or expand.
    const shown = spawnSync('sh', ['-c', `printf '%s\\0' ${report.display}`], { encoding: 'utf8' });
    assert.equal(shown.status, 0);
    assert.deepEqual(shown.stdout.split('\0').slice(0, -1), report.command);
  });

  test('J3 shell quoting: inert words stay bare, everything else is single-quoted', () => {
    assert.equal(shellQuote('src/a.test.ts'), 'src/a.test.ts');
    assert.equal(shellQuote('--exact'), '--exact');
    assert.equal(shellQuote(''), "''");
    assert.equal(shellQuote("it's"), "'it'\\''s'");
    assert.equal(shellQuote('$(x)'), "'$(x)'");
    assert.equal(shellQuote('~/x'), "'~/x'");
  });

  test('J3 a path that looks like an option is passed as a path', () => {
    const log = fixture('pytest.txt').replaceAll('tests/test_math.py', '--pdb=tests/test_math.py');
    assert.ok(
      reportOf(log)
        .command.slice(3)
        .every((a) => a.startsWith('./--pdb=')),
    );
  });
});

describe('J3 local command, logs with nothing or more than one runner', () => {
  test('J3 a log with no recognizable failures gives null', () => {
    assert.equal(localCommand(''), null);
    const passing = [
      'Run npm test',
      'PASS test/ok.test.js',
      'Tests:       1 passed, 1 total',
      'ok  \texample.com/j3/ok\t0.003s',
      'test result: ok. 2 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.01s',
      '============================== 1 passed in 0.10s ===============================',
      'FAIL: this word alone is not a runner',
      'error: something went wrong',
    ].join('\n');
    assert.equal(localCommand(passing), null);
    assert.deepEqual(localCommands(passing), []);
  });

  test('J3 noise before, after and between the lines does not change the report', () => {
    const NOISE = [
      'npm warn deprecated inflight@1.0.6: This module is not supported',
      '##[warning]Node.js 16 actions are deprecated.',
      'stdout | something printed by a test',
      '',
    ];
    for (const name of ['vitest', 'jest', 'pytest', 'go-test', 'cargo-test', 'tsc']) {
      const log = fixture(`${name}.txt`);
      const interleaved = [
        ...NOISE,
        ...log.split('\n').flatMap((l, i) => [l, NOISE[i % NOISE.length] ?? '']),
        ...NOISE,
      ].join('\n');
      assert.deepEqual(localCommand(interleaved), localCommand(log), name);
    }
    for (const name of ['node-test', 'node-test.spec', 'eslint', 'cargo-test.doc']) {
      const log = fixture(`${name}.txt`);
      assert.deepEqual(localCommand([...NOISE, log, ...NOISE].join('\n')), localCommand(log), name);
    }
  });

  test('J3 several runners in one log: the first to fail in the log is reported, all are listed', () => {
    const log = [fixture('eslint.txt'), fixture('vitest.txt')].join('\n');
    assert.equal(localCommand(log)?.tool, 'eslint');
    assert.deepEqual(
      localCommands(log).map((r) => r.tool),
      ['eslint', 'vitest'],
    );
    const reversed = [fixture('vitest.txt'), fixture('tsc.txt')].join('\n');
    assert.deepEqual(
      localCommands(reversed).map((r) => r.tool),
      ['vitest', 'tsc'],
    );
  });

  test('J3 one runner is not mistaken for another', () => {
    for (const c of CASES) {
      assert.deepEqual(
        localCommands(fixture(`${c.fixture}.txt`)).map((r) => r.tool),
        [c.tool],
        c.fixture,
      );
    }
  });
});
