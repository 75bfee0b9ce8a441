// eslint (SPEC J3), default "stylish" formatter: a file's path on a line of its own, then one
// indented `line:col  error|warning  message  rule` line per problem, and a closing
// `✖ N problems (E errors, W warnings)`. A file fails when it has an error — or a warning, when
// the run failed on `--max-warnings` ("ESLint found too many warnings"). `test` is absent: the
// file is the unit. Rerun: `npx eslint <files>`, which lints those files with the same config.
import type { Failure, Found, RerunCommand } from './types.js';
import { failuresOf, filesOf, firstLine, lines, pathArg, unique, workspaceRelative } from './text.js';

export const tool = 'eslint';

const PROBLEM = /^\s+\d+:\d+\s+(error|warning)\s+\S/;
const TOTAL = /^✖ \d+ problems? \(\d+ errors?, \d+ warnings?\)/;
const TOO_MANY_WARNINGS = /^ESLint found too many warnings \(maximum: \d+\)/;

function scan(log: string): Found[] {
  const all = lines(log);
  if (!all.some((l) => TOTAL.test(l))) return [];
  const warningsFail = all.some((l) => TOO_MANY_WARNINGS.test(l));
  const found: Found[] = [];
  for (let line = 0; line < all.length; line++) {
    const header = all[line] ?? '';
    // A path header: not indented, not blank, and followed by problem lines.
    if (header.trim() === '' || /^\s/.test(header) || !PROBLEM.test(all[line + 1] ?? '')) continue;
    let fails = false;
    let next = line + 1;
    for (; next < all.length; next++) {
      const problem = PROBLEM.exec(all[next] ?? '');
      if (problem === null) break;
      if (problem[1] === 'error' || warningsFail) fails = true;
    }
    if (fails) found.push({ failure: { file: workspaceRelative(header.trimEnd()) }, line });
    line = next - 1;
  }
  return unique(found);
}

export const detect = (log: string): number => firstLine(scan(log));
export const parse = (log: string): Failure[] => failuresOf(scan(log));

export function command(failures: readonly Failure[]): RerunCommand {
  return { argv: ['npx', 'eslint', ...filesOf(failures).map(pathArg)] };
}
