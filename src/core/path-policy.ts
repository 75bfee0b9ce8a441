// The path policy (SPEC K4): a push that edits CI workflows, lockfiles or snapshots, changes or removes
// an existing test's expectations, removes a test file, or adds a skip or focus marker changes what
// judges the fix instead of fixing it; it goes to a person with each offending file and why.
// The globs and markers are configurable per repository. Pure: file names and patches in, a verdict out.
import { boundReason } from './attempt-state.js';
import type { GuardVerdict } from './guards.js';

export interface PathPolicy {
  /** Globs of CI configuration. */
  workflows: readonly string[];
  lockfiles: readonly string[];
  snapshots: readonly string[];
  /** Globs of test files. */
  tests: readonly string[];
  /** Substrings that skip, disable or focus a test; forbidden on any added line of any file. */
  skipMarkers: readonly string[];
  /** Substrings of an assertion or expectation; forbidden on a removed (or changed) line of an existing test file. */
  assertions: readonly string[];
}

/**
 * Globs: `*` any characters but '/', `**` any characters, `**` then '/' zero or more directories, `?` one
 * character but '/'. A glob with no '/' matches the file's name in any directory (`yarn.lock`,
 * `*.snap`); one with a '/' matches from the repository root. Case-sensitive, like Git.
 * The code hosts' own CI files (a workflow folder, a pipeline file) are each host's to say (its
 * `ciFiles`, app/hosts.ts): withCiFiles adds every registered host's, in every repository.
 */
export const BASE_PATH_POLICY: PathPolicy = Object.freeze({
  workflows: Object.freeze([
    '.circleci/**',
    '.buildkite/**',
    'azure-pipelines.yml',
    'bitbucket-pipelines.yml',
    '.travis.yml',
    'Jenkinsfile',
    '.drone.yml',
    'appveyor.yml',
  ]),
  lockfiles: Object.freeze([
    'package-lock.json',
    'npm-shrinkwrap.json',
    'yarn.lock',
    'pnpm-lock.yaml',
    'bun.lockb',
    'bun.lock',
    'deno.lock',
    'Cargo.lock',
    'poetry.lock',
    'Pipfile.lock',
    'uv.lock',
    'pdm.lock',
    'go.sum',
    'Gemfile.lock',
    'composer.lock',
    'mix.lock',
    'pubspec.lock',
    'Podfile.lock',
    'Package.resolved',
    'packages.lock.json',
    'gradle.lockfile',
    'flake.lock',
  ]),
  snapshots: Object.freeze([
    '**/__snapshots__/**',
    '**/__image_snapshots__/**',
    '*.snap',
    '*.ambr',
    '*.golden',
    '*.approved.*',
  ]),
  tests: Object.freeze([
    '*.test.*',
    '*.spec.*',
    'test_*.py',
    '*_test.py',
    'conftest.py',
    '*_test.go',
    '*_spec.rb',
    '*Test.java',
    '*Tests.java',
    '*Test.kt',
    '*Tests.cs',
    '*Tests.swift',
    '**/test/**',
    '**/tests/**',
    '**/__tests__/**',
    '**/spec/**',
  ]),
  skipMarkers: Object.freeze([
    // JavaScript / TypeScript (jest, vitest, mocha, jasmine, node:test)
    'it.skip',
    'test.skip',
    'describe.skip',
    'context.skip',
    'suite.skip',
    'this.skip(',
    'it.only',
    'test.only',
    'describe.only',
    'context.only',
    'suite.only',
    'fdescribe(',
    'xit(',
    'xit ',
    'xtest(',
    'xdescribe(',
    'xdescribe ',
    'xcontext(',
    'it.todo(',
    'test.todo(',
    'it.fails(',
    'test.fails(',
    // Python
    '@pytest.mark.skip',
    '@pytest.mark.xfail',
    'pytest.skip(',
    'pytest.xfail(',
    'unittest.skip',
    'unittest.expectedFailure',
    'self.skipTest(',
    // Go, Rust, JVM, .NET, Swift, PHP, Elixir
    't.Skip',
    '#[ignore',
    '@Disabled',
    '@Ignore',
    '[Ignore',
    '(Skip',
    'XCTSkip',
    'markTestSkipped',
    'markTestIncomplete',
    '@tag :skip',
  ]),
  assertions: Object.freeze([
    'expect(',
    'Expect(',
    'expected',
    'Expected',
    'assert',
    'Assert',
    'toEqual',
    'toStrictEqual',
    'toBe',
    'toMatch',
    'toThrow',
    'toHave',
    'toContain',
    '.should',
    't.Error',
    't.Fatal',
    'require.',
    'want',
  ]),
});

/** `policy` with the code hosts' CI files first among its workflows (in the order of the hosts). */
export function withCiFiles(policy: PathPolicy, ciFiles: readonly string[]): PathPolicy {
  return Object.freeze({ ...policy, workflows: Object.freeze([...ciFiles, ...policy.workflows]) });
}

const FORBIDDEN_KINDS = [
  'workflow', // CI configuration
  'lockfile',
  'snapshot',
  'test_expectation', // a removed or changed assertion line in an existing test file
  'test_removed', // a test file deleted, or renamed out of the test globs
  'test_unreadable', // a test file changed and its patch is not available: fail closed
  'skip_marker', // an added line that skips, disables or focuses a test
] as const;
export type ForbiddenKind = (typeof FORBIDDEN_KINDS)[number];

const CHANGED_FILE_STATUSES = ['added', 'modified', 'removed', 'renamed'] as const;
export type ChangedFileStatus = (typeof CHANGED_FILE_STATUSES)[number];

/** One file of a push (GitHub's compare or pull-request files entry fits: filename → path). */
export interface ChangedFile {
  path: string;
  /** The unified-diff hunks of the file; absent for binary files and very large diffs. */
  patch?: string | undefined;
  /** Absent = modified. */
  status?: ChangedFileStatus | undefined;
  /** For a rename: the path it had before. */
  previousPath?: string | undefined;
}

export interface ForbiddenChange {
  path: string;
  why: ForbiddenKind;
  /** The first offending line (without its +/- sign), when the reason is a line. */
  line?: string;
}

export type PathPolicyVerdict =
  { kind: 'allow' } | (Extract<GuardVerdict<'forbidden_change'>, { kind: 'stop' }> & { offenses: ForbiddenChange[] });

/** How many offending files the detail names before "and N more". */
const DETAIL_FILES = 10;

/** K4: every offending file and why, in path order; allow when there is none. */
export function pathPolicyVerdict(files: readonly ChangedFile[], policy: PathPolicy): PathPolicyVerdict {
  const offenses = files.flatMap((f) => offensesOf(f, policy));
  if (offenses.length === 0) return { kind: 'allow' };
  offenses.sort((a, b) =>
    a.path < b.path ? -1 : a.path > b.path ? 1 : FORBIDDEN_KINDS.indexOf(a.why) - FORBIDDEN_KINDS.indexOf(b.why),
  );
  const named = offenses.slice(0, DETAIL_FILES).map((o) => {
    const line = o.line === undefined ? '' : `: "${boundReason(o.line, 120)}"`;
    return `${boundReason(o.path, 200)} (${o.why}${line})`;
  });
  const more = offenses.length > DETAIL_FILES ? `; and ${offenses.length - DETAIL_FILES} more` : '';
  return {
    kind: 'stop',
    reason: 'forbidden_change',
    detail: `the push changes what judges the fix: ${named.join('; ')}${more}`,
    offenses,
  };
}

function offensesOf(file: ChangedFile, policy: PathPolicy): ForbiddenChange[] {
  const status = file.status ?? 'modified';
  const paths =
    file.previousPath !== undefined && file.previousPath !== file.path ? [file.path, file.previousPath] : [file.path];
  const matches = (globs: readonly string[]) => paths.some((p) => globs.some((g) => pathMatchesGlob(g, p)));
  const offense = (why: ForbiddenKind, line?: string): ForbiddenChange =>
    line === undefined ? { path: file.path, why } : { path: file.path, why, line };

  // Files that judge the build: any change to them at all is the offense.
  if (matches(policy.workflows)) return [offense('workflow')];
  if (matches(policy.lockfiles)) return [offense('lockfile')];
  if (matches(policy.snapshots)) return [offense('snapshot')];

  const out: ForbiddenChange[] = [];
  const isTest = (p: string) => policy.tests.some((g) => pathMatchesGlob(g, p));
  const wasTest = isTest(file.previousPath ?? file.path);
  const patch = file.patch === undefined ? null : readPatch(file.patch);

  switch (status) {
    case 'removed':
      if (wasTest) out.push(offense('test_removed'));
      return out; // a removed file adds no line
    case 'renamed':
      if (wasTest && !isTest(file.path)) out.push(offense('test_removed'));
      break;
    case 'added':
    case 'modified':
      break;
  }
  const testNow = isTest(file.path);
  if ((testNow || wasTest) && patch === null) out.push(offense('test_unreadable'));
  if (patch === null) return out;

  // An existing test file (not a new one) must not lose or change an assertion line.
  if (status !== 'added' && wasTest) {
    const changed = patch.removed.find((l) => policy.assertions.some((a) => a !== '' && l.includes(a)));
    if (changed !== undefined) out.push(offense('test_expectation', changed));
  }
  const skipped = patch.added.find((l) => policy.skipMarkers.some((m) => hasMarker(l, m)));
  if (skipped !== undefined) out.push(offense('skip_marker', skipped));
  return out;
}

/** The added and removed lines of a file's hunks (anything before the first `@@` is its header). */
function readPatch(patch: string): { added: string[]; removed: string[] } {
  const lines = patch.replace(/\r\n?/g, '\n').split('\n');
  const first = lines.findIndex((l) => l.startsWith('@@'));
  const added: string[] = [];
  const removed: string[] = [];
  for (const l of first < 0 ? lines : lines.slice(first)) {
    if (l.startsWith('@@')) continue;
    if (l.startsWith('+')) added.push(l.slice(1));
    else if (l.startsWith('-')) removed.push(l.slice(1));
  }
  return { added, removed };
}

/**
 * A marker that begins with a word character must begin a word, and not follow a '.': `xit(` is not
 * found in `process.exit(`, nor `t.Skip` in `bt.Skip`, nor `it.skip` in `split.skip`.
 */
function hasMarker(line: string, marker: string): boolean {
  if (marker === '') return false;
  const wordStart = /^[\w$]/.test(marker);
  for (let i = line.indexOf(marker); i >= 0; i = line.indexOf(marker, i + 1)) {
    if (!wordStart || i === 0 || !/[\w$.]/.test(line[i - 1] as string)) return true;
  }
  return false;
}

type Token = { kind: 'char'; c: string } | { kind: 'any' } | { kind: 'star' } | { kind: 'globstar' } | { kind: 'dirs' };

/** Whether a repository path matches a glob of PathPolicy (see BASE_PATH_POLICY for the syntax). */
export function pathMatchesGlob(glob: string, path: string): boolean {
  const p = path.replace(/^\.?\//, '');
  const g = glob.replace(/^\//, '');
  if (!g.includes('/')) return matchTokens(tokenize(g), p.slice(p.lastIndexOf('/') + 1));
  return matchTokens(tokenize(g), p);
}

function tokenize(glob: string): Token[] {
  const out: Token[] = [];
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i] as string;
    if (c === '*' && glob[i + 1] === '*') {
      const start = i;
      while (glob[i + 1] === '*') i++;
      const atSegmentStart = start === 0 || glob[start - 1] === '/';
      if (glob[i + 1] === '/' && atSegmentStart) {
        i++;
        out.push({ kind: 'dirs' });
      } else out.push({ kind: 'globstar' });
    } else if (c === '*') out.push({ kind: 'star' });
    else if (c === '?') out.push({ kind: 'any' });
    else out.push({ kind: 'char', c });
  }
  return out;
}

/** Dynamic programming over the text: ok[j] = the tokens so far match text[0..j). No backtracking. */
function matchTokens(tokens: readonly Token[], text: string): boolean {
  let ok: boolean[] = new Array<boolean>(text.length + 1).fill(false);
  ok[0] = true;
  for (const t of tokens) {
    const next: boolean[] = new Array<boolean>(text.length + 1).fill(false);
    let seen = false; // some ok[k] with k < j (for `**/`)
    for (let j = 0; j <= text.length; j++) {
      const prev = j > 0 ? (text[j - 1] as string) : '';
      switch (t.kind) {
        case 'char':
          next[j] = j > 0 && ok[j - 1] === true && prev === t.c;
          break;
        case 'any':
          next[j] = j > 0 && ok[j - 1] === true && prev !== '/';
          break;
        case 'star':
          next[j] = ok[j] === true || (j > 0 && next[j - 1] === true && prev !== '/');
          break;
        case 'globstar':
          next[j] = ok[j] === true || (j > 0 && next[j - 1] === true);
          break;
        case 'dirs':
          // Nothing, or anything that ends with '/'.
          next[j] = ok[j] === true || (prev === '/' && seen);
          break;
      }
      if (ok[j] === true) seen = true;
    }
    ok = next;
  }
  return ok[text.length] === true;
}
