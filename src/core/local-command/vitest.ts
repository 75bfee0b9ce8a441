// vitest (SPEC J3). Its default reporter ends with one ` FAIL  <file> > <suite> > <test>` line per
// failed test (` FAIL  <file> [ <file> ]` when the file itself failed to load). The rerun is
// `npx vitest run <files> -t <pattern>`: the files are vitest's path filters, and `-t` is matched
// against the test's full name — its suites and itself joined by spaces — so an anchored
// alternation of those full names runs the failed tests and none of their siblings.
import type { Failure, Found, RerunCommand } from './types.js';
import { failuresOf, firstLine, jsRunnerCommand, lines, unique, workspaceRelative } from './text.js';

export const tool = 'vitest';

// Something only vitest prints, so a jest `FAIL` line is never read as vitest's.
const SIGNATURE = /^\s*(?:RUN\s+v\d+\.\d+|⎯+ Failed (?:Tests|Suites) \d+ ⎯+|Test Files\s+\d+ failed)/;
// ` FAIL  |project| src/a.test.ts > suite > test`, the project tag only in a workspace.
const FAIL_TEST = /^\s*FAIL\s+(?:\|[^|]+\|\s+)?(\S(?:.*?\S)?) > (.+?)\s*$/;
const FAIL_FILE = /^\s*FAIL\s+(?:\|[^|]+\|\s+)?(\S(?:.*?\S)?) \[ (.+?) \]\s*$/;
// vitest separates suite and test names with ` > ` in what it prints.
const SEPARATOR = ' > ';

function scan(log: string): Found[] {
  const all = lines(log);
  if (!all.some((l) => SIGNATURE.test(l))) return [];
  const found: Found[] = [];
  all.forEach((l, line) => {
    const file = FAIL_FILE.exec(l);
    if (file?.[1] !== undefined && file[1] === file[2]) {
      found.push({ failure: { file: workspaceRelative(file[1]) }, line });
      return;
    }
    const m = FAIL_TEST.exec(l);
    if (m?.[1] !== undefined && m[2] !== undefined) {
      found.push({ failure: { file: workspaceRelative(m[1]), test: m[2] }, line });
    }
  });
  return unique(found);
}

export const detect = (log: string): number => firstLine(scan(log));
export const parse = (log: string): Failure[] => failuresOf(scan(log));

export function command(failures: readonly Failure[]): RerunCommand {
  return jsRunnerCommand(['npx', 'vitest', 'run'], failures, SEPARATOR);
}
