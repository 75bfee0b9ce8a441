// tsc (SPEC J3): `src/a.ts(3,7): error TS2322: …` as it prints without a terminal, or
// `src/a.ts:3:7 - error TS2322: …` with `--pretty`. `file` is each file with an error, once; `test`
// is absent. tsc cannot check a few files under the project's own tsconfig, so the rerun is the
// whole project, `npx tsc --noEmit -p .`, and the files tell where to look.
import type { Failure, Found, RerunCommand } from './types.js';
import { failuresOf, firstLine, lines, unique, workspaceRelative } from './text.js';

export const tool = 'tsc';

const PLAIN = /^(\S(?:.*?\S)?)\(\d+,\d+\): error TS\d+: /;
const PRETTY = /^(\S(?:.*?\S)?):\d+:\d+ - error TS\d+: /;

function scan(log: string): Found[] {
  const found: Found[] = [];
  lines(log).forEach((l, line) => {
    const m = PLAIN.exec(l) ?? PRETTY.exec(l);
    if (m?.[1] !== undefined) found.push({ failure: { file: workspaceRelative(m[1]) }, line });
  });
  return unique(found);
}

export const detect = (log: string): number => firstLine(scan(log));
export const parse = (log: string): Failure[] => failuresOf(scan(log));

export function command(_failures: readonly Failure[]): RerunCommand {
  return { argv: ['npx', 'tsc', '--noEmit', '-p', '.'] };
}
