// Small text helpers shared by the J3 runner parsers (SPEC J3): splitting a log into lines, keeping
// first-seen unique failures, escaping names into regular expressions, and making a path from an
// untrusted log safe to pass as an argument. Pure functions, no I/O.
import type { Failure, Found } from './types.js';

export function lines(log: string): string[] {
  return log.split(/\r?\n/);
}

/** Failures in first-seen order without repeats (runners print a failure more than once). */
export function unique(found: readonly Found[]): Found[] {
  const seen = new Set<string>();
  const out: Found[] = [];
  for (const f of found) {
    const key = `${f.failure.file}\u0000${f.failure.test ?? '\u0001'}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(f);
  }
  return out;
}

export const firstLine = (found: readonly Found[]): number => found[0]?.line ?? -1;
export const failuresOf = (found: readonly Found[]): Failure[] => found.map((f) => f.failure);

/** Files of the failures, first-seen order, no repeats. */
export function filesOf(failures: readonly Failure[]): string[] {
  return [...new Set(failures.map((f) => f.file).filter((f) => f !== ''))];
}

/** Escape text so a JavaScript RegExp (with or without the `u` flag) matches it literally. */
function escapeJsRegExp(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&');
}

/** Escape text so a Go (RE2) regexp matches it literally — the set regexp.QuoteMeta escapes. */
export function escapeGoRegexp(text: string): string {
  return text.replace(/[\\.+*?()|[\]{}^$]/g, '\\$&');
}

/** `^(?:a|b)$` over the escaped names: matches each name whole and nothing else. */
export function anchoredJsAlternation(names: readonly string[]): string {
  return `^(?:${[...new Set(names)].map(escapeJsRegExp).join('|')})$`;
}

// GitHub-hosted and container runners check the repository out under these prefixes; a path that
// starts with one is shown relative to the checkout, which is where a person reruns the command.
const WORKSPACE_PREFIXES: readonly RegExp[] = [
  /^\/home\/runner\/work\/[^/]+\/[^/]+\//,
  /^\/Users\/runner\/work\/[^/]+\/[^/]+\//,
  /^\/__w\/[^/]+\/[^/]+\//,
  /^[A-Za-z]:\\a\\[^\\]+\\[^\\]+\\/,
];

export function workspaceRelative(path: string): string {
  for (const re of WORKSPACE_PREFIXES) {
    if (re.test(path)) return path.replace(re, '');
  }
  return path;
}

/** A path argument that can never be read as an option, however the log spelled it. */
export function pathArg(path: string): string {
  return path.startsWith('-') ? `./${path}` : path;
}

/**
 * vitest and jest rerun alike: the failing files, then `-t` with an anchored alternation of the
 * failing tests' full names (suites and test joined by single spaces, as `-t` matches them).
 */
export function jsRunnerCommand(
  prefix: readonly string[],
  failures: readonly Failure[],
  separator: string,
): { argv: string[] } {
  const names = failures.flatMap((f) => (f.test === undefined ? [] : [f.test.split(separator).join(' ')]));
  const argv = [...prefix, ...filesOf(failures).map(pathArg)];
  if (names.length > 0) argv.push('-t', anchoredJsAlternation(names));
  return { argv };
}
