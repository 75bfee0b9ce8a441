// The bound on diff growth (issue 36 item 5): an attempt whose changes, counted since the loop's first
// attempt, pass the Work's bound on changed lines or files is stopped before its push counts as
// progress. A loop that answers a one-line failure by rewriting forty files should ask a person first.
// Pure: the files of a comparison in, a verdict with the size in words out (decision 0070).
import type { GuardVerdict } from './guards.js';

/** The most an attempt's changes may touch: changed lines (added plus removed) and files. */
export interface DiffBound {
  lines: number;
  files: number;
}

/** Far above a one-line fix (2 changed lines, 1 file) and above most real fixes of a failing check. */
export const DEFAULT_DIFF_BOUND: DiffBound = { lines: 1000, files: 50 };

/** A Work's bound: what it configures, the default for what it leaves out (or for no Work at all). */
export function boundOfWork(work: { diffBound?: Partial<DiffBound> | undefined } | null | undefined): DiffBound {
  return {
    lines: work?.diffBound?.lines ?? DEFAULT_DIFF_BOUND.lines,
    files: work?.diffBound?.files ?? DEFAULT_DIFF_BOUND.files,
  };
}

/** One file of a comparison as far as its size goes; hosts that count lines (GitHub) say so. */
export interface SizedFile {
  patch: string | null;
  additions?: number | undefined;
  deletions?: number | undefined;
}

export interface DiffSize {
  lines: number;
  files: number;
}

/** Changed lines and files: the host's counts where given, else the patch's `+` and `-` lines. */
export function diffSize(files: readonly SizedFile[]): DiffSize {
  let lines = 0;
  for (const f of files) {
    if (f.additions !== undefined && f.deletions !== undefined) lines += f.additions + f.deletions;
    else if (f.patch !== null) lines += changedLines(f.patch);
  }
  return { lines, files: files.length };
}

/** A patch's hunks only (no file headers, as both hosts give them): every `+` and `-` line is a change. */
function changedLines(patch: string): number {
  let n = 0;
  for (const line of patch.replace(/\r\n?/g, '\n').split('\n')) if (line[0] === '+' || line[0] === '-') n++;
  return n;
}

/** Allow while the size is within the bound on both counts; stop with the size and the bound in words. */
export function diffBoundVerdict(size: DiffSize, bound: DiffBound): GuardVerdict<'diff_too_large'> {
  const over = size.lines > bound.lines || size.files > bound.files;
  if (!over) return { kind: 'allow' };
  return {
    kind: 'stop',
    reason: 'diff_too_large',
    detail:
      `the agent's changes since the loop began touch ${count(size.files, 'file')} and ${count(size.lines, 'changed line')}, ` +
      `over this Work's bound of ${count(bound.files, 'file')} or ${count(bound.lines, 'changed line')}`,
  };
}

/** `1,240 changed lines`, `1 file`: thousands grouped by hand, so the words never depend on a locale. */
function count(n: number, noun: string): string {
  const digits = String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return `${digits} ${noun}${n === 1 ? '' : 's'}`;
}
