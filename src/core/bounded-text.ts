// Bounds on untrusted text that fixloop keeps beside the delivery that carried it (SPEC A1, C6, H2):
// the event's payload holds the full text once; a check's name and the failing output a gate
// rejection keeps are bounded copies. Output keeps its head and its tail, where test runners print
// their failures, and says how much was cut. Pure.

/** Longest check name kept or shown; GitHub's own check names are far shorter. */
export const MAX_CHECK_NAME_CHARS = 256;
/** Longest failing output a rejection keeps: four times what one prompt shows of it (prompt-frames.ts). */
export const MAX_REJECTION_BODY_CHARS = 64 * 1024;
/** Of the kept output, how much comes from its head; the rest is its tail. */
const HEAD_SHARE = 1 / 4;

/** A check name cut to MAX_CHECK_NAME_CHARS, ending in "…" when it was cut. */
export function boundCheckName(name: string): string {
  if (name.length <= MAX_CHECK_NAME_CHARS) return name;
  return `${name.slice(0, cutAt(name, MAX_CHECK_NAME_CHARS - 1))}…`;
}

/**
 * Text of at most `max` characters: itself when short enough, else its head and its tail around a
 * line saying how many characters were cut there.
 */
export function boundText(text: string, max: number): string {
  if (text.length <= max) return text;
  // The cut line's longest form, and one character a surrogate pair may move into the tail.
  const keep = max - cutLine(text.length).length - 1;
  if (keep < 2) return text.slice(0, cutAt(text, max)); // no room to say what was cut
  const head = cutAt(text, Math.floor(keep * HEAD_SHARE));
  const tailStart = cutAt(text, text.length - (keep - head));
  return `${text.slice(0, head)}${cutLine(tailStart - head)}${text.slice(tailStart)}`;
}

const cutLine = (n: number) => `\n[… fixloop cut ${n} characters here …]\n`;

/** The failing output a gate rejection keeps (H2), bounded (A1). */
export function boundRejectionBody(output: string): string {
  return boundText(output, MAX_REJECTION_BODY_CHARS);
}

/** An index at most `i` that does not split a surrogate pair. */
function cutAt(s: string, i: number): number {
  const code = s.charCodeAt(i);
  return code >= 0xdc00 && code <= 0xdfff ? i - 1 : i;
}
