// SPEC K4: the path policy — workflows, lockfiles, snapshots, test expectations, removed tests and
// skip markers go to a person; new tests and ordinary source changes do not; globs are configurable.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_PATH_POLICY } from '../wiring/path-policy.js';
import {
  pathMatchesGlob,
  pathPolicyVerdict,
  type ChangedFile,
  type ForbiddenChange,
  type PathPolicy,
} from './path-policy.js';

const hunk = (...lines: string[]) => ['@@ -10,6 +10,7 @@ describe("sum", () => {', ...lines].join('\n');

const offenses = (files: ChangedFile[], policy: PathPolicy = DEFAULT_PATH_POLICY): ForbiddenChange[] => {
  const v = pathPolicyVerdict(files, policy);
  return v.kind === 'allow' ? [] : v.offenses;
};

// [label, files, offenses]
const TABLE: ReadonlyArray<[string, ChangedFile[], ForbiddenChange[]]> = [
  [
    'a push editing .github/workflows/ci.yml is stopped',
    [{ path: '.github/workflows/ci.yml', patch: hunk('-      - run: npm test', '+      - run: npm test || true') }],
    [{ path: '.github/workflows/ci.yml', why: 'workflow' }],
  ],
  [
    'a new workflow file is stopped',
    [{ path: '.github/workflows/skip.yml', status: 'added' }],
    [{ path: '.github/workflows/skip.yml', why: 'workflow' }],
  ],
  [
    'a workflow renamed away is stopped (its old path counts)',
    [{ path: 'docs/old-ci.yml', previousPath: '.github/workflows/ci.yml', status: 'renamed' }],
    [{ path: 'docs/old-ci.yml', why: 'workflow' }],
  ],
  ['.gitlab-ci.yml is a workflow', [{ path: '.gitlab-ci.yml' }], [{ path: '.gitlab-ci.yml', why: 'workflow' }]],
  [
    'a CircleCI config is a workflow',
    [{ path: '.circleci/config.yml' }],
    [{ path: '.circleci/config.yml', why: 'workflow' }],
  ],
  [
    'a composite action used by workflows is a workflow',
    [{ path: '.github/actions/setup/action.yml' }],
    [{ path: '.github/actions/setup/action.yml', why: 'workflow' }],
  ],
  [
    'package-lock.json is a lockfile',
    [{ path: 'package-lock.json' }],
    [{ path: 'package-lock.json', why: 'lockfile' }],
  ],
  [
    'a lockfile in a workspace package is a lockfile',
    [{ path: 'packages/web/pnpm-lock.yaml' }],
    [{ path: 'packages/web/pnpm-lock.yaml', why: 'lockfile' }],
  ],
  [
    'go.sum, Cargo.lock, poetry.lock, uv.lock, Gemfile.lock, composer.lock, yarn.lock are lockfiles',
    ['go.sum', 'Cargo.lock', 'poetry.lock', 'uv.lock', 'Gemfile.lock', 'composer.lock', 'yarn.lock'].map((path) => ({
      path,
    })),
    ['Cargo.lock', 'Gemfile.lock', 'composer.lock', 'go.sum', 'poetry.lock', 'uv.lock', 'yarn.lock'].map((path) => ({
      path,
      why: 'lockfile' as const,
    })),
  ],
  [
    'a removed lockfile is stopped too',
    [{ path: 'yarn.lock', status: 'removed' }],
    [{ path: 'yarn.lock', why: 'lockfile' }],
  ],
  [
    'a file under __snapshots__ is a snapshot',
    [
      {
        path: 'src/__snapshots__/view.test.ts.snap',
        patch: hunk('-exports[`view 1`] = `"a"`;', '+exports[`view 1`] = `"b"`;'),
      },
    ],
    [{ path: 'src/__snapshots__/view.test.ts.snap', why: 'snapshot' }],
  ],
  [
    'a .snap file anywhere is a snapshot, even a new one (CI does not write snapshots)',
    [{ path: 'tests/snapshots/parse__case.snap', status: 'added' }],
    [{ path: 'tests/snapshots/parse__case.snap', why: 'snapshot' }],
  ],
  [
    'changing expect(x).toBe(2) to toBe(3) in a test file is stopped',
    [
      {
        path: 'src/sum.test.ts',
        patch: hunk(
          '   it("adds", () => {',
          '-    expect(sum(1, 1)).toBe(2);',
          '+    expect(sum(1, 1)).toBe(3);',
          '   });',
        ),
      },
    ],
    [{ path: 'src/sum.test.ts', why: 'test_expectation', line: '    expect(sum(1, 1)).toBe(2);' }],
  ],
  [
    'removing an assertion from a test file is stopped',
    [
      {
        path: 'tests/test_parse.py',
        patch: hunk(' def test_parse():', '-    assert parse("1") == 1', '+    parse("1")'),
      },
    ],
    [{ path: 'tests/test_parse.py', why: 'test_expectation', line: '    assert parse("1") == 1' }],
  ],
  [
    'changing a Go expectation (t.Errorf) is stopped',
    [{ path: 'pkg/sum_test.go', patch: hunk('-\t\tt.Errorf("got %d, want 2", got)', '+\t\tt.Logf("got %d", got)') }],
    [{ path: 'pkg/sum_test.go', why: 'test_expectation', line: '\t\tt.Errorf("got %d, want 2", got)' }],
  ],
  [
    'changing a table-driven expected value is stopped',
    [
      {
        path: 'pkg/sum_test.go',
        patch: hunk('-\t\t{name: "two", in: 1, want: 2},', '+\t\t{name: "two", in: 1, want: 3},'),
      },
    ],
    [{ path: 'pkg/sum_test.go', why: 'test_expectation', line: '\t\t{name: "two", in: 1, want: 2},' }],
  ],
  [
    'adding a new test case to an existing test file is allowed',
    [
      {
        path: 'src/sum.test.ts',
        patch: hunk('   });', '+  it("adds negatives", () => {', '+    expect(sum(-1, -1)).toBe(-2);', '+  });'),
      },
    ],
    [],
  ],
  [
    'adding a new test file is allowed',
    [
      {
        path: 'src/mul.test.ts',
        status: 'added',
        patch: '@@ -0,0 +1,3 @@\n+test("mul", () => {\n+  expect(mul(2, 3)).toBe(6);\n+});',
      },
    ],
    [],
  ],
  [
    'a normal source change is allowed',
    [{ path: 'src/sum.ts', patch: hunk('-  return a - b;', '+  return a + b;') }],
    [],
  ],
  [
    'a source change that removes an assert-like line outside tests is allowed',
    [{ path: 'src/guard.ts', patch: hunk('-  assert(ok, "x");', '+  if (!ok) throw new Error("x");') }],
    [],
  ],
  [
    'adding it.skip( is stopped',
    [{ path: 'src/sum.test.ts', patch: hunk('-  it("adds", () => {', '+  it.skip("adds", () => {') }],
    [{ path: 'src/sum.test.ts', why: 'skip_marker', line: '  it.skip("adds", () => {' }],
  ],
  [
    'adding describe.only is stopped (focusing hides failures)',
    [{ path: 'src/sum.test.ts', patch: hunk('+describe.only("sum", () => {') }],
    [{ path: 'src/sum.test.ts', why: 'skip_marker', line: 'describe.only("sum", () => {' }],
  ],
  [
    'adding xit( is stopped',
    [{ path: 'spec/sum.spec.js', patch: hunk('+  xit("adds", () => {});') }],
    [{ path: 'spec/sum.spec.js', why: 'skip_marker', line: '  xit("adds", () => {});' }],
  ],
  [
    'adding @pytest.mark.skip is stopped',
    [{ path: 'tests/test_parse.py', patch: hunk('+@pytest.mark.skip(reason="flaky")', ' def test_parse():') }],
    [{ path: 'tests/test_parse.py', why: 'skip_marker', line: '@pytest.mark.skip(reason="flaky")' }],
  ],
  [
    'adding @pytest.mark.xfail is stopped',
    [{ path: 'tests/test_parse.py', patch: hunk('+@pytest.mark.xfail') }],
    [{ path: 'tests/test_parse.py', why: 'skip_marker', line: '@pytest.mark.xfail' }],
  ],
  [
    'adding t.Skip( is stopped',
    [{ path: 'pkg/sum_test.go', patch: hunk('+\tt.Skip("later")') }],
    [{ path: 'pkg/sum_test.go', why: 'skip_marker', line: '\tt.Skip("later")' }],
  ],
  [
    'adding #[ignore] in a Rust source file (unit tests live there) is stopped',
    [{ path: 'src/lib.rs', patch: hunk('+    #[ignore]', '     #[test]') }],
    [{ path: 'src/lib.rs', why: 'skip_marker', line: '    #[ignore]' }],
  ],
  [
    'adding @Disabled is stopped',
    [{ path: 'src/test/java/SumTest.java', patch: hunk('+    @Disabled("flaky")') }],
    [{ path: 'src/test/java/SumTest.java', why: 'skip_marker', line: '    @Disabled("flaky")' }],
  ],
  [
    'adding test.todo( is stopped',
    [{ path: 'src/sum.test.ts', patch: hunk('+test.todo("negative numbers");') }],
    [{ path: 'src/sum.test.ts', why: 'skip_marker', line: 'test.todo("negative numbers");' }],
  ],
  [
    'process.exit( is not xit(, model.fit( is not a focus, iter().skip(1) is not a skip',
    [
      {
        path: 'src/main.ts',
        patch: hunk('+  process.exit(1);', '+  model.fit(x);', '+  let rest = it.iter().skip(1);'),
      },
    ],
    [],
  ],
  [
    'removing a skip marker is allowed',
    [{ path: 'src/sum.test.ts', patch: hunk('-  it.skip("adds", () => {', '+  it("adds", () => {') }],
    [],
  ],
  [
    'a removed test file is stopped',
    [{ path: 'src/sum.test.ts', status: 'removed' }],
    [{ path: 'src/sum.test.ts', why: 'test_removed' }],
  ],
  [
    'a test file renamed out of the test globs is stopped',
    [{ path: 'src/sum.disabled.ts', previousPath: 'src/sum.test.ts', status: 'renamed', patch: '' }],
    [{ path: 'src/sum.disabled.ts', why: 'test_removed' }],
  ],
  [
    'a changed test file whose patch is not available is stopped (fail closed)',
    [{ path: 'tests/big_test.py' }],
    [{ path: 'tests/big_test.py', why: 'test_unreadable' }],
  ],
  ['a removed source file is allowed', [{ path: 'src/legacy.ts', status: 'removed' }], []],
  [
    'several offences in one file are each listed',
    [
      {
        path: 'src/sum.test.ts',
        patch: hunk('-    expect(sum(1, 1)).toBe(2);', '+    expect(sum(1, 1)).toBe(3);', '+  it.only("x", () => {});'),
      },
    ],
    [
      { path: 'src/sum.test.ts', why: 'test_expectation', line: '    expect(sum(1, 1)).toBe(2);' },
      { path: 'src/sum.test.ts', why: 'skip_marker', line: '  it.only("x", () => {});' },
    ],
  ],
  [
    'every offending file is listed, in path order, and the clean ones are not',
    [{ path: 'yarn.lock' }, { path: 'src/ok.ts', patch: hunk('+x') }, { path: '.github/workflows/ci.yml' }],
    [
      { path: '.github/workflows/ci.yml', why: 'workflow' },
      { path: 'yarn.lock', why: 'lockfile' },
    ],
  ],
  [
    'a patch with CRLF line endings is read',
    [{ path: 'src/a.test.ts', patch: '@@ -1 +1 @@\r\n-expect(a).toBe(1);\r\n+expect(a).toBe(2);\r\n' }],
    [{ path: 'src/a.test.ts', why: 'test_expectation', line: 'expect(a).toBe(1);' }],
  ],
  ['no files → allowed', [], []],
];

describe('K4: the default path policy', () => {
  for (const [label, files, want] of TABLE) {
    test(`K4: ${label}`, () => {
      assert.deepEqual(offenses(files), want);
    });
  }

  test('K4: the stop carries forbidden_change and a detail naming each file and why', () => {
    const v = pathPolicyVerdict(
      [
        { path: '.github/workflows/ci.yml' },
        { path: 'src/sum.test.ts', patch: hunk('-    expect(sum(1, 1)).toBe(2);') },
      ],
      DEFAULT_PATH_POLICY,
    );
    assert.equal(v.kind, 'stop');
    if (v.kind !== 'stop') return;
    assert.equal(v.reason, 'forbidden_change');
    assert.equal(
      v.detail,
      'the push changes what judges the fix: .github/workflows/ci.yml (workflow); src/sum.test.ts (test_expectation: "expect(sum(1, 1)).toBe(2);")',
    );
  });

  test('K4: the detail is bounded and free of control characters from the push', () => {
    const files: ChangedFile[] = Array.from({ length: 14 }, (_, i) => ({ path: `\u001b[31mpkg${i}/go.sum` }));
    const v = pathPolicyVerdict(files, DEFAULT_PATH_POLICY);
    assert.equal(v.kind, 'stop');
    if (v.kind !== 'stop') return;
    assert.equal(v.offenses.length, 14);
    assert.doesNotMatch(v.detail, /\p{Cc}/u);
    assert.match(v.detail, /; and 4 more$/);
  });

  test('K4: the default policy cannot be mutated', () => {
    assert.ok(Object.isFrozen(DEFAULT_PATH_POLICY));
    assert.ok(Object.isFrozen(DEFAULT_PATH_POLICY.workflows));
  });
});

describe('K4: custom globs are honoured', () => {
  const CUSTOM: PathPolicy = {
    workflows: ['ci/**'],
    lockfiles: ['deps.lock'],
    snapshots: ['**/golden/**'],
    tests: ['checks/**'],
    skipMarkers: ['@skip'],
    assertions: ['verify('],
  };
  const ROWS: ReadonlyArray<[string, ChangedFile[], ForbiddenChange[]]> = [
    [
      'a custom workflow path is stopped',
      [{ path: 'ci/pipeline.yml' }],
      [{ path: 'ci/pipeline.yml', why: 'workflow' }],
    ],
    ['the default workflow path is not, under a custom policy', [{ path: '.github/workflows/ci.yml' }], []],
    [
      'a custom lockfile name is stopped anywhere',
      [{ path: 'svc/deps.lock' }],
      [{ path: 'svc/deps.lock', why: 'lockfile' }],
    ],
    [
      'a custom snapshot folder is stopped',
      [{ path: 'a/golden/out.txt' }],
      [{ path: 'a/golden/out.txt', why: 'snapshot' }],
    ],
    [
      'a custom assertion in a custom test path is stopped',
      [{ path: 'checks/sum.lua', patch: hunk('-verify(sum(1,1) == 2)') }],
      [{ path: 'checks/sum.lua', why: 'test_expectation', line: 'verify(sum(1,1) == 2)' }],
    ],
    [
      'a default assertion is not, under a custom policy',
      [{ path: 'checks/sum.lua', patch: hunk('-expect(x).toBe(2)') }],
      [],
    ],
    [
      'a custom skip marker is stopped',
      [{ path: 'checks/sum.lua', patch: hunk('+@skip') }],
      [{ path: 'checks/sum.lua', why: 'skip_marker', line: '@skip' }],
    ],
    [
      'a default skip marker is not, under a custom policy',
      [{ path: 'src/a.test.ts', patch: hunk('+it.skip("x")') }],
      [],
    ],
  ];
  for (const [label, files, want] of ROWS) {
    test(`K4: ${label}`, () => {
      assert.deepEqual(offenses(files, CUSTOM), want);
    });
  }
});

describe('K4: the glob matcher', () => {
  const GLOBS: ReadonlyArray<[string, string, boolean]> = [
    ['.github/workflows/**', '.github/workflows/ci.yml', true],
    ['.github/workflows/**', '.github/workflows/sub/ci.yml', true],
    ['.github/workflows/**', 'x/.github/workflows/ci.yml', false],
    ['.github/workflows/**', '.github/workflowsx/ci.yml', false],
    ['yarn.lock', 'yarn.lock', true],
    ['yarn.lock', 'a/b/yarn.lock', true],
    ['yarn.lock', 'a/yarn.lock.bak', false],
    ['*.snap', 'deep/dir/x.snap', true],
    ['*.test.*', 'src/a.test.ts', true],
    ['*.test.*', 'src/test.ts', false],
    ['**/__snapshots__/**', '__snapshots__/a.snap', true],
    ['**/__snapshots__/**', 'a/b/__snapshots__/c/d.snap', true],
    ['**/tests/**', 'tests/a.py', true],
    ['**/tests/**', 'pkg/tests/a.py', true],
    ['**/tests/**', 'pkg/mytests/a.py', false],
    ['src/*.ts', 'src/a.ts', true],
    ['src/*.ts', 'src/a/b.ts', false],
    ['src/**/*.ts', 'src/a.ts', true],
    ['src/**/*.ts', 'src/a/b/c.ts', true],
    ['/src/?.ts', 'src/a.ts', true],
    ['src/?.ts', 'src/ab.ts', false],
    ['Jenkinsfile', 'ci/Jenkinsfile', true],
    ['test_*.py', 'tests/test_x.py', true],
    ['*_test.go', 'pkg/x_test.go', true],
    ['*_test.go', 'pkg/x_test.go.orig', false],
    ['Yarn.lock', 'yarn.lock', false],
  ];
  for (const [glob, path, want] of GLOBS) {
    test(`K4: ${glob} ${want ? 'matches' : 'does not match'} ${path}`, () => {
      assert.equal(pathMatchesGlob(glob, path), want);
    });
  }
});
