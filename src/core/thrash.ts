// The thrash detector (SPEC K3): each attempt's diff is normalised and hashed; a diff that repeats
// any earlier attempt's, or an A-B-A alternation, stops the loop. Normalising keeps what a change is
// (file paths, added and removed lines) and drops what varies with where it lands: index lines, mode
// lines, hunk headers, context lines, trailing white space, line endings and the order of files.
import { createHash } from 'node:crypto';
import type { GuardVerdict } from './guards.js';

interface Section {
  header: string[];
  body: string[];
}

/** Header lines that say nothing about the change itself. */
const DROPPED_HEADER =
  /^(?:index |old mode |new mode |new file mode |deleted file mode |similarity index |dissimilarity index )/;

/** K3: the diff reduced to file paths and +/- lines, one file section after another in path order. */
export function normalizeDiff(unifiedDiffText: string): string {
  const lines = unifiedDiffText.replace(/\r\n?/g, '\n').split('\n');
  const sections: Section[] = [];
  let current: Section | null = null;
  let oldLeft = 0;
  let newLeft = 0;

  for (const raw of lines) {
    if (oldLeft > 0 || newLeft > 0) {
      // Inside a hunk the counts of its header decide what a line is, so a removed line that reads
      // `--- x` or `diff …` is content, not a new file.
      const c = raw[0];
      if (c === ' ' || raw === '') {
        oldLeft--;
        newLeft--;
        continue; // context
      }
      if (c === '-' || c === '+') {
        if (c === '-') oldLeft--;
        else newLeft--;
        current?.body.push(raw.trimEnd());
        continue;
      }
      if (c === '\\') continue; // "\ No newline at end of file"
      oldLeft = newLeft = 0; // a short hunk: read the line as what follows it
    }

    if (
      raw.startsWith('diff ') ||
      (raw.startsWith('--- ') &&
        (current === null || current.body.length > 0 || current.header.some((h) => h.startsWith('--- '))))
    ) {
      current = { header: [], body: [] };
      sections.push(current);
    }
    if (current === null) {
      if (!raw.startsWith('@@')) continue; // a preamble (commit message, diffstat) is not the change
      current = { header: [], body: [] };
      sections.push(current);
    }

    const hunk = /^@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@/.exec(raw);
    if (hunk) {
      oldLeft = hunk[1] === undefined ? 1 : Number(hunk[1]);
      newLeft = hunk[2] === undefined ? 1 : Number(hunk[2]);
      continue; // line numbers and the enclosing function's name vary with where the change lands
    }
    if (
      raw.startsWith('@@') ||
      raw.startsWith('\\') ||
      raw.startsWith(' ') ||
      raw.trim() === '' ||
      DROPPED_HEADER.test(raw)
    )
      continue;
    if (raw.startsWith('--- ') || raw.startsWith('+++ ')) {
      // `diff -u` appends a tab and a timestamp to the path.
      current.header.push(raw.replace(/\t.*$/, '').trimEnd());
      continue;
    }
    if (current.body.length > 0 || raw.startsWith('+') || raw.startsWith('-')) current.body.push(raw.trimEnd());
    else current.header.push(raw.trimEnd());
  }

  return sections
    .map((s) => [...s.header, ...s.body].join('\n'))
    .filter((s) => s.length > 0)
    .sort()
    .join('\n');
}

/** K3: the hash of the normalised diff (SHA-256, deterministic). */
export function diffHash(unifiedDiffText: string): string {
  return `diff1:${createHash('sha256').update(normalizeDiff(unifiedDiffText)).digest('hex').slice(0, 32)}`;
}

/**
 * K3: `history` is the earlier attempts' diff hashes in order. An A-B-A alternation (the attempt
 * before last had this diff, the last one a different diff) is named as such; any other repeat of an
 * earlier diff is a repeat.
 */
export function thrashVerdict(
  history: readonly string[],
  current: string,
): GuardVerdict<'thrash_repeat' | 'thrash_aba'> {
  const n = history.length;
  if (n >= 2 && history[n - 2] === current && history[n - 1] !== current) {
    return {
      kind: 'stop',
      reason: 'thrash_aba',
      detail: `attempt ${n + 1} undoes attempt ${n} and brings back the diff of attempt ${n - 1} (A-B-A)`,
    };
  }
  const earlier = history.indexOf(current);
  if (earlier >= 0) {
    return {
      kind: 'stop',
      reason: 'thrash_repeat',
      detail: `attempt ${n + 1} repeats the diff of attempt ${earlier + 1}`,
    };
  }
  return { kind: 'allow' };
}
