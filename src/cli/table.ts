// How the CLI prints for people (SPEC M1): aligned columns with a header, as `gh pr list` does, text
// cut to a width with "…", and times as "3 h ago". Scripts use `--json` instead; nothing here is a
// format to parse. Control characters in text that came from CI are dropped before it is printed.
import { untrustedLine } from '../core/untrusted-text.js';

export interface Column<T> {
  header: string;
  value: (row: T) => string;
  /** Cut longer values to this many characters. */
  max?: number;
}

/** The rows under their headers, columns two spaces apart, no trailing spaces. */
export function renderTable<T>(columns: readonly Column<T>[], rows: readonly T[]): string {
  const cells = rows.map((row) => columns.map((c) => cut(untrustedLine(c.value(row)), c.max)));
  const widths = columns.map((c, i) => Math.max(c.header.length, ...cells.map((r) => [...r[i]!].length)));
  const line = (values: readonly string[]) =>
    values
      .map((v, i) => (i === values.length - 1 ? v : v + ' '.repeat(widths[i]! - [...v].length)))
      .join('  ')
      .trimEnd();
  return `${[line(columns.map((c) => c.header)), ...cells.map(line)].join('\n')}\n`;
}

/** Cut to `max` characters (code points), the last one "…". */
export function cut(text: string, max: number | undefined): string {
  const chars = [...text];
  return max === undefined || chars.length <= max ? text : `${chars.slice(0, max - 1).join('')}…`;
}

/** "just now", "4 min ago", "3 h ago", "2 d ago", "5 mo ago"; "in the future" for a skewed clock. */
export function relativeTime(iso: string | null | undefined, now: Date): string {
  if (!iso) return '—';
  const at = Date.parse(iso);
  if (Number.isNaN(at)) return '—';
  const s = Math.round((now.getTime() - at) / 1000);
  if (s < -60) return 'in the future';
  if (s < 60) return 'just now';
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ago`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h} h ago`;
  const d = Math.floor(h / 24);
  if (d < 60) return `${d} d ago`;
  return `${Math.floor(d / 30)} mo ago`;
}
