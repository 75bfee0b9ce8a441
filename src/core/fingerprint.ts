// The failure fingerprint (SPEC C5, K2): failing check names plus a digest of the reported output,
// normalised so run-to-run noise — digits, hex ids, timestamps, temp paths — does not make two
// identical failures differ. The attempt row keeps it; whether a new head fails the same way is
// decided over each check's evidence (below, T5) by unchanged-failure.ts (T6, decision 0029).
import { createHash } from 'node:crypto';

const RULES: ReadonlyArray<[RegExp, string]> = [
  // ISO-8601 and common log timestamps first, before digits are erased.
  [/\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:[.,]\d+)?(?:Z|[+-]\d{2}:?\d{2})?/g, '<time>'],
  [/\b\d{1,2}:\d{2}:\d{2}(?:\.\d+)?\b/g, '<time>'],
  // Temp paths: /tmp/…, /var/folders/…, /private/var/…, Windows %TEMP%.
  [/(?:\/private)?\/var\/folders\/[^\s'"`:)]+/g, '<tmp>'],
  [/\/tmp\/[^\s'"`:)]+/g, '<tmp>'],
  [/[A-Za-z]:\\Users\\[^\\\s]+\\AppData\\Local\\Temp\\[^\s'"`:)]+/g, '<tmp>'],
  [/\/home\/runner\/work\/_temp\/[^\s'"`:)]+/g, '<tmp>'],
  // UUIDs and hex ids (commit shas, object ids, addresses).
  [/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi, '<id>'],
  [/\b0x[0-9a-f]+\b/gi, '<hex>'],
  [/\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,}\b/gi, '<hex>'],
  // Durations and counts.
  [/\d+(?:\.\d+)?/g, '<n>'],
  [/[ \t]+/g, ' '],
];

/** The output with run-to-run noise replaced by placeholders. */
export function normalizeOutput(text: string): string {
  let out = text.replace(/\r\n?/g, '\n');
  for (const [re, sub] of RULES) out = out.replace(re, sub);
  return out
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.length > 0)
    .join('\n');
}

export function fingerprint(failingChecks: readonly string[], output: string): string {
  const names = [...new Set(failingChecks.map((n) => n.trim()))].sort();
  const digest = createHash('sha256')
    .update(names.join('\u0000'))
    .update('\u0001')
    .update(normalizeOutput(output))
    .digest('hex');
  return `fp1:${digest.slice(0, 32)}`;
}

/** Why a failure's evidence cannot show what failed (T5). */
export const DEGRADED_WHYS = [
  'empty_output', // nothing but whitespace and noise was reported
  'no_failure_text', // only the runner's exit line ("Process completed with exit code 1."), which every failure shares
  'log_unreadable', // the log that should hold the failure could not be read
] as const;
export type DegradedWhy = (typeof DEGRADED_WHYS)[number];

/**
 * What one failing result says about the failure: a digest of its normalised output, or why it says
 * nothing. Two degraded evidences are never "the same failure" (T5): an empty output, or a log that
 * could not be read, tells nothing about what failed, so it cannot show that nothing changed.
 */
export type Evidence = { kind: 'text'; digest: string } | { kind: 'degraded'; why: DegradedWhy };

/** Lines every failing job of a runner prints whatever failed: they carry no evidence of their own. */
const CONTENT_FREE_LINE = /^(?:error: )?process completed with exit code <n>\.?$/i;

export function evidenceOf(output: string, log: { unreadable: boolean } = { unreadable: false }): Evidence {
  if (log.unreadable) return { kind: 'degraded', why: 'log_unreadable' };
  const normal = normalizeOutput(output);
  if (normal.length === 0) return { kind: 'degraded', why: 'empty_output' };
  if (normal.split('\n').every((l) => CONTENT_FREE_LINE.test(l))) return { kind: 'degraded', why: 'no_failure_text' };
  return { kind: 'text', digest: createHash('sha256').update(normal).digest('hex').slice(0, 32) };
}
