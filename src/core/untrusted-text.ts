// Strings written by others (branch names, titles, check and job names, logins, review bodies) are
// cleaned once, where a host's webhook body or API answer is read, before fixloop stores or shows
// them: no control characters (C0, DEL, C1, NUL) and no bidirectional overrides or isolates, which
// can make a branch name read as another in a log, a page or a notice (Trojan Source). Pure.
// SPEC A1, A3, F1, M4 (issue 31).

/**
 * The bidirectional formatting characters: LRE, RLE, PDF, LRO, RLO (U+202A–U+202E), LRI, RLI, FSI,
 * PDI (U+2066–U+2069), the LRM and RLM marks (U+200E, U+200F) and the Arabic letter mark (U+061C).
 */
const BIDI = '\\u061C\\u200E\\u200F\\u202A-\\u202E\\u2066-\\u2069';
/** C0 (U+0000–U+001F), DEL (U+007F) and C1 (U+0080–U+009F). */
const CONTROLS = '\\u0000-\\u001F\\u007F-\\u009F';

/** A one-line string: line breaks and tabs become one space each; every other such character goes. */
const LINE_BREAKS = /[\t\n\r]/g;
const LINE_UNSAFE = new RegExp(`[${CONTROLS}${BIDI}]`, 'g');

/** A body: tabs, line feeds and CR-LF pairs stay; a lone CR and every other such character go. */
const TEXT_UNSAFE = new RegExp(`\\r(?!\\n)|[\\u0000-\\u0008\\u000B\\u000C\\u000E-\\u001F\\u007F-\\u009F${BIDI}]`, 'g');

/** A name, ref, login or title: one line, without control or bidirectional formatting characters. */
export function untrustedLine(text: string): string {
  return text.replace(LINE_BREAKS, ' ').replace(LINE_UNSAFE, '');
}

/** A body that may span lines (a review's text): line breaks and tabs kept, the rest as untrustedLine. */
export function untrustedText(text: string): string {
  return text.replace(TEXT_UNSAFE, '');
}

/** untrustedLine over a value that may be absent. */
export function untrustedLineOrNull<T extends string | null | undefined>(text: T): T {
  return (typeof text === 'string' ? untrustedLine(text) : text) as T;
}

/** untrustedText over a value that may be absent. */
export function untrustedTextOrNull<T extends string | null | undefined>(text: T): T {
  return (typeof text === 'string' ? untrustedText(text) : text) as T;
}
