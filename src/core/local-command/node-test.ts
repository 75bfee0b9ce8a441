// node's test runner, `node --test` (SPEC J3), in either of its reporters: TAP (the default when
// output is not a terminal, as on CI, through Node 22) and spec (the terminal default, and the CI
// default from Node 23 on). TAP gives each failed test a `not ok N - <name>` line with a YAML block
// holding `location: '<file>:<line>:<col>'`; spec ends with a "✖ failing tests:" section of
// `test at <file>:<line>:<col>` / `✖ <name> (…ms)` pairs. A file that failed to load is reported as a
// test named after the file itself. A failed test is named by its own name only (not its suites').
//
// Rerun: `node --test --test-name-pattern=<pattern> <files>`, the pattern an anchored alternation of
// the failed tests' own names. Node 20 matches the pattern against that own name only; Node 22
// also accepts the suites-prefixed name, and still matches the own name. So a test of the same name
// in another suite of the same files reruns too — the one way the selection can be wider.
import type { Failure, Found, RerunCommand } from './types.js';
import {
  anchoredJsAlternation,
  failuresOf,
  filesOf,
  firstLine,
  lines,
  pathArg,
  unique,
  workspaceRelative,
} from './text.js';

export const tool = 'node-test';

const NOT_OK = /^(\s*)not ok \d+ - (.*)$/;
const FAILING_SECTION = /^✖ failing tests:\s*$/;
const SPEC_AT = /^(?:test|suite|hook)?\s*at (.+):\d+:\d+\s*$/;
const SPEC_FAILED = /^✖ (.*?)(?: \(\d+(?:\.\d+)?m?s\))?\s*$/;

/** A YAML scalar as node's TAP reporter writes it: 'single', "double" (JSON escapes) or plain. */
function yamlScalar(raw: string): string {
  const v = raw.trim();
  if (v.startsWith("'") && v.endsWith("'") && v.length >= 2) return v.slice(1, -1).replace(/''/g, "'");
  if (v.startsWith('"') && v.endsWith('"') && v.length >= 2) {
    try {
      const parsed: unknown = JSON.parse(v);
      if (typeof parsed === 'string') return parsed;
    } catch {
      // Not JSON after all: fall through to the text between the quotes.
    }
    return v.slice(1, -1);
  }
  return v;
}

/** TAP escapes `\` and `#` in names (and a few control characters); undo that. */
function tapUnescape(name: string): string {
  const CONTROL: Record<string, string> = { n: '\n', t: '\t', r: '\r', f: '\f', v: '\v', b: '\b' };
  return name.replace(/\\(.)/g, (_, c: string) => CONTROL[c] ?? c);
}

/** Split `name # SKIP reason` at the first unescaped ` # `. */
function tapDirective(rest: string): { name: string; directive: string } {
  const m = /^(.*?)(?<!\\) # (.*)$/.exec(rest);
  return m?.[1] !== undefined && m[2] !== undefined ? { name: m[1], directive: m[2] } : { name: rest, directive: '' };
}

const withoutPosition = (location: string): string => location.replace(/:\d+:\d+$/, '');

/** A file that failed as a whole is reported as a test named after that file. */
const isFileItself = (name: string, file: string): boolean =>
  file !== '' && (name === file || name.endsWith(`/${file}`) || name.endsWith(`\\${file}`));

function failureOf(name: string, file: string): Failure {
  return isFileItself(name, file) ? { file: workspaceRelative(file) } : { file: workspaceRelative(file), test: name };
}

function scanTap(all: readonly string[]): Found[] {
  const found: Found[] = [];
  all.forEach((l, line) => {
    const m = NOT_OK.exec(l);
    if (m?.[1] === undefined || m[2] === undefined) return;
    const { name, directive } = tapDirective(m[2]);
    if (/^(?:TODO|SKIP)\b/i.test(directive)) return;
    // The YAML block: indented two more than the test line, between `---` and `...`.
    const indent = `${m[1]}  `;
    const fields = new Map<string, string>();
    if (all[line + 1] !== `${indent}---`) return;
    for (let i = line + 2; i < all.length && all[i] !== `${indent}...`; i++) {
      const field = /^(\w+): (.*)$/.exec(all[i]?.startsWith(indent) ? all[i]!.slice(indent.length) : '');
      if (field?.[1] !== undefined && field[2] !== undefined) fields.set(field[1], field[2]);
    }
    // Only node's TAP has failureType; a suite that failed only because a test in it did is not itself a failure.
    const failureType = fields.get('failureType');
    if (failureType === undefined || yamlScalar(failureType) === 'subtestsFailed') return;
    const location = fields.get('location');
    const file = location === undefined ? '' : withoutPosition(yamlScalar(location));
    found.push({ failure: failureOf(tapUnescape(name), file), line });
  });
  return found;
}

function scanSpec(all: readonly string[]): Found[] {
  const found: Found[] = [];
  const start = all.findIndex((l) => FAILING_SECTION.test(l));
  if (start < 0) return found;
  for (let line = start + 1; line < all.length; line++) {
    const at = SPEC_AT.exec(all[line] ?? '');
    const failed = SPEC_FAILED.exec(all[line + 1] ?? '');
    if (at?.[1] === undefined || failed?.[1] === undefined) continue;
    found.push({ failure: failureOf(failed[1], at[1]), line });
    line++;
  }
  return found;
}

function scan(log: string): Found[] {
  const all = lines(log);
  return unique([...scanTap(all), ...scanSpec(all)].sort((a, b) => a.line - b.line));
}

export const detect = (log: string): number => firstLine(scan(log));
export const parse = (log: string): Failure[] => failuresOf(scan(log));

export function command(failures: readonly Failure[]): RerunCommand {
  const names = failures.flatMap((f) => (f.test === undefined ? [] : [f.test]));
  const argv = ['node', '--test'];
  if (names.length > 0) argv.push(`--test-name-pattern=${anchoredJsAlternation(names)}`);
  argv.push(...filesOf(failures).map(pathArg));
  return { argv };
}
