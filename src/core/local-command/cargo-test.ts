// cargo test (SPEC J3). Each test binary starts with `Running unittests src/lib.rs (…)`,
// `Running tests/words.rs (…)` or `Doc-tests <crate>`, and a failed test prints
// `test <name> ... FAILED` and is listed again under the closing `failures:`. `file` is the source
// of the binary (for a doc test, the file in its name) and `test` the name as printed
// (`tests::divides`, `src/lib.rs - add (line 3)`).
//
// Rerun: `cargo test <name> -- --exact`, or `cargo test -- --exact <name> <name>` for several,
// with `--no-fail-fast` when they are in more than one binary (cargo otherwise stops at the first
// binary that fails). A doc test cannot be selected exactly: cargo hands test arguments to rustdoc,
// which splits them at spaces, and every doc test name has spaces; so with a failed doc test the
// rerun is `cargo test --doc` (doc tests only) or the whole `cargo test --no-fail-fast`, with a note.
import type { Failure, Found, RerunCommand } from './types.js';
import { failuresOf, firstLine, lines, unique, workspaceRelative } from './text.js';

export const tool = 'cargo-test';

const RUNNING = /^\s*Running (?:unittests )?(\S+) \(/;
const DOC_TESTS = /^\s*Doc-tests (\S+)/;
const FAILED = /^test (\S(?:.*?\S)?) \.\.\. FAILED\s*$/;
const FAILURES_HEADER = /^failures:\s*$/;
const LISTED = /^ {4}(\S(?:.*\S)?)\s*$/;
/** `src/lib.rs - add (line 3)`, `src/lib.rs - Type::method (line 12) - compile fail`. */
const DOC_TEST_NAME = /^(\S+) - .*\(line \d+\)/;

function scan(log: string): Found[] {
  const all = lines(log);
  const found: Found[] = [];
  let binary = '';
  const add = (test: string, line: number): void => {
    if (test.startsWith('-')) return; // a libtest option, never a name
    const doc = DOC_TEST_NAME.exec(test);
    found.push({ failure: { file: workspaceRelative(doc?.[1] ?? binary), test }, line });
  };
  for (let line = 0; line < all.length; line++) {
    const l = all[line] ?? '';
    const running = RUNNING.exec(l);
    if (running?.[1] !== undefined) binary = running[1];
    else if (DOC_TESTS.test(l)) binary = '';
    const failed = FAILED.exec(l);
    if (failed?.[1] !== undefined) add(failed[1], line);
    // The closing list names every failed test, even one whose `... FAILED` line was interleaved with output.
    if (
      FAILURES_HEADER.test(l) &&
      LISTED.test(all[line + 1] ?? '') &&
      !(all[line + 1] ?? '').trimStart().startsWith('---- ')
    ) {
      for (line++; line < all.length; line++) {
        const listed = LISTED.exec(all[line] ?? '');
        if (listed?.[1] === undefined) break;
        add(listed[1], line);
      }
    }
  }
  return unique(found);
}

export const detect = (log: string): number => firstLine(scan(log));
export const parse = (log: string): Failure[] => failuresOf(scan(log));

const isDocTest = (f: Failure): boolean => f.test !== undefined && DOC_TEST_NAME.test(f.test);

export function command(failures: readonly Failure[]): RerunCommand {
  const doc = failures.filter(isDocTest);
  const names = [
    ...new Set(failures.filter((f) => !isDocTest(f)).flatMap((f) => (f.test === undefined ? [] : [f.test]))),
  ];
  const binaries = new Set(failures.filter((f) => !isDocTest(f)).map((f) => f.file));
  const why = 'cargo splits test arguments for doc tests at spaces, so a doc test cannot be selected by its name';
  if (doc.length > 0 && names.length === 0) {
    return { argv: ['cargo', 'test', '--doc'], note: `${why}: this reruns every doc test.` };
  }
  if (doc.length > 0) {
    return { argv: ['cargo', 'test', '--no-fail-fast'], note: `${why}: this reruns the whole test suite.` };
  }
  const noFailFast = binaries.size > 1 ? ['--no-fail-fast'] : [];
  if (names.length === 1) return { argv: ['cargo', 'test', ...noFailFast, names[0]!, '--', '--exact'] };
  return { argv: ['cargo', 'test', ...noFailFast, '--', '--exact', ...names] };
}
