// go test (SPEC J3). A failed test prints `--- FAIL: TestName (0.00s)` — a subtest, indented, as
// `--- FAIL: TestName/sub_name (0.00s)` (go has already replaced its spaces by underscores) — and
// its package then ends with `FAIL	<import path>	0.01s` (or `[build failed]`). `file` holds the
// package's import path (go test names packages, not files) and `test` the failed test's full name;
// a parent that failed only because of its subtests is left out, the subtests stand for it.
//
// Rerun: `go test -v -run <pattern> <packages>`. Each level of `-run` is matched on its own, and
// a top-level `|` separates alternatives, so `^TestA$|^TestB$/^sub$` runs TestA and TestB/sub only.
// With several packages the one pattern applies to each; a test of the same name in another of
// those packages also runs. `-v` because only it shows which tests ran.
import type { Failure, Found, RerunCommand } from './types.js';
import { escapeGoRegexp, failuresOf, filesOf, firstLine, lines, unique } from './text.js';

export const tool = 'go-test';

const FAILED_TEST = /^\s*--- FAIL: (\S+) \(\d+(?:\.\d+)?s\)\s*$/;
const PACKAGE_END = /^(FAIL|ok)\s+(\S+)\s+(?:\d+(?:\.\d+)?s|\(cached\)|\[(build|setup) failed\]|\[no test files\])/;

function scan(log: string): Found[] {
  const found: Found[] = [];
  let pending: Array<{ test: string; line: number }> = [];
  lines(log).forEach((l, line) => {
    const failed = FAILED_TEST.exec(l);
    if (failed?.[1] !== undefined) {
      pending.push({ test: failed[1], line });
      return;
    }
    const end = PACKAGE_END.exec(l);
    if (end?.[2] === undefined) return;
    const pkg = end[2];
    if (end[1] === 'FAIL' && !pkg.startsWith('-')) {
      if (end[3] !== undefined) found.push({ failure: { file: pkg }, line });
      const names = pending.map((p) => p.test);
      for (const p of pending) {
        // A parent whose subtests failed is reported too; keep the leaves.
        if (names.some((n) => n.startsWith(`${p.test}/`))) continue;
        found.push({ failure: { file: pkg, test: p.test }, line: p.line });
      }
    }
    pending = [];
  });
  return unique(found.sort((a, b) => a.line - b.line));
}

export const detect = (log: string): number => firstLine(scan(log));
export const parse = (log: string): Failure[] => failuresOf(scan(log));

/** The `-run` pattern selecting exactly these tests (by name; the packages are separate). */
function runPattern(tests: readonly string[]): string {
  const names = [...new Set(tests)];
  const top = names.filter((n) => !n.includes('/')).map(escapeGoRegexp);
  const nested = names
    .filter((n) => n.includes('/'))
    .map((n) =>
      n
        .split('/')
        .map((e) => `^${escapeGoRegexp(e)}$`)
        .join('/'),
    );
  const alternatives = [
    ...(top.length === 0 ? [] : [top.length === 1 ? `^${top[0]}$` : `^(${top.join('|')})$`]),
    ...nested,
  ];
  return alternatives.join('|');
}

export function command(failures: readonly Failure[]): RerunCommand {
  const tests = failures.flatMap((f) => (f.test === undefined ? [] : [f.test]));
  const argv = ['go', 'test', '-v'];
  if (tests.length > 0) argv.push('-run', runPattern(tests));
  argv.push(...filesOf(failures));
  return { argv };
}
