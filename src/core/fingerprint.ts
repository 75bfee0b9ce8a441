// The failure fingerprint (SPEC C5, K2): failing check names plus a digest of the reported output,
// normalised so run-to-run noise — digits, hex ids, timestamps, temp paths — does not make two
// identical failures differ. Same fingerprint on a new commit = the fix changed nothing.
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
