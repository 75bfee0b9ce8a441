// jest (SPEC J3). Its default reporter prints `FAIL <file>` and, under it, one
// `  ● <describe> › <test>` header per failed test (`  ● Test suite failed to run` when the file
// itself failed). The rerun is `npx jest --runTestsByPath <files> -t <pattern>`:
// `--runTestsByPath` takes the files as exact paths rather than regular expressions, and `-t` is
// matched against the full name — the describe blocks and the test joined by spaces.
import type { Failure, Found, RerunCommand } from './types.js';
import { failuresOf, firstLine, jsRunnerCommand, lines, unique, workspaceRelative } from './text.js';

export const tool = 'jest';

// `FAIL src/a.test.js` (jest adds ` (12.3 s)` for a slow file); a project name may precede the path.
const SUITE = /^\s*(PASS|FAIL)\s+(\S(?:.*?\S)?)(?:\s+\(\d+(?:\.\d+)?\s*m?s\))?\s*$/;
const TEST = /^\s+● (.+?)\s*$/;
const FILE_FAILED = 'Test suite failed to run';
// The end of the per-file reports: jest's totals.
const TOTALS = /^(?:Test Suites|Tests):/;
// jest separates describe and test names with ` › ` in what it prints.
const SEPARATOR = ' › ';

function scan(log: string): Found[] {
  const found: Found[] = [];
  let file: string | null = null;
  lines(log).forEach((l, line) => {
    const suite = SUITE.exec(l);
    if (suite?.[2] !== undefined) {
      file = suite[1] === 'FAIL' ? workspaceRelative(suite[2]) : null;
      return;
    }
    // "Summary of all failing tests" repeats the FAIL/● lines; unique() drops the repeats.
    if (TOTALS.test(l)) {
      file = null;
      return;
    }
    const test = TEST.exec(l);
    if (file === null || test?.[1] === undefined) return;
    found.push({ failure: test[1] === FILE_FAILED ? { file } : { file, test: test[1] }, line });
  });
  return unique(found);
}

export const detect = (log: string): number => firstLine(scan(log));
export const parse = (log: string): Failure[] => failuresOf(scan(log));

export function command(failures: readonly Failure[]): RerunCommand {
  return jsRunnerCommand(['npx', 'jest', '--runTestsByPath'], failures, SEPARATOR);
}
