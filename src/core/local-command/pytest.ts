// pytest (SPEC J3). Its "short test summary info" (on by default, `-rfE`) has one line per failure:
// `FAILED <nodeid> - <message>` for a failed test, `ERROR <nodeid> - …` for an error in its setup, or
// `ERROR <file> - …` when the file could not be collected. A node id is `path::Class::test[param]`:
// `file` is the path and `test` the rest, `Class::test[param]`. The rerun passes the node ids:
// `python -m pytest <nodeid> …` runs exactly those (a file alone for a file that failed whole).
import type { Failure, Found, RerunCommand } from './types.js';
import { failuresOf, firstLine, lines, pathArg, unique, workspaceRelative } from './text.js';

export const tool = 'pytest';

// The parameter id may hold anything, ` - ` included; the shortest `[…]` that is followed by the
// message separator or the end of the line is taken.
const SUMMARY = /^(FAILED|ERROR) (\S(?:.*?\S)?\.py)(?:::([^\s[:]+(?:::[^\s[:]+)*)(\[.*?\])?)?(?: - .*)?\s*$/;

function scan(log: string): Found[] {
  const found: Found[] = [];
  lines(log).forEach((l, line) => {
    const m = SUMMARY.exec(l);
    if (m?.[2] === undefined) return;
    const file = workspaceRelative(m[2]);
    found.push({ failure: m[3] === undefined ? { file } : { file, test: `${m[3]}${m[4] ?? ''}` }, line });
  });
  return unique(found);
}

export const detect = (log: string): number => firstLine(scan(log));
export const parse = (log: string): Failure[] => failuresOf(scan(log));

const nodeId = (f: Failure): string => (f.test === undefined ? f.file : `${f.file}::${f.test}`);

export function command(failures: readonly Failure[]): RerunCommand {
  return { argv: ['python', '-m', 'pytest', ...new Set(failures.map((f) => pathArg(nodeId(f))))] };
}
