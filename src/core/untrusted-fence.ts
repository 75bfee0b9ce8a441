// The prompt's fence around untrusted text (SPEC C6, I2; issue 34 split it from prompt-frames.ts):
// CI output, review and comment bodies, check names and logins are stripped of what can hide or
// reorder text, bounded, and kept from closing or forging the per-prompt marker; short strings are
// quoted on one line. Facts fixloop holds (a repository, a sha, a URL) are shown only once they have
// the expected shape. Pure: the nonce is a parameter.
//
// Decisions (tested in prompt-frames.test.ts and ci-failure-frame.test.ts):
// - Variation selectors are stripped along with other invisible characters: they can carry hidden
//   bytes, and losing an emoji's presentation style costs a CI log nothing.
// - The nonce guarantees the fence: no untrusted text in the prompt contains it (any case), so the
//   closing marker exists exactly once. Marker look-alikes (other brackets, full-width or homoglyph
//   letters, a guessed id) are defanged as well — best effort, for the reader's sake.

/** A caller passed facts no prompt can be built from (a bad nonce, a negative count). */
export class PromptInputError extends Error {
  override readonly name = 'PromptInputError';
}

/** Longest data section kept: its head and (mostly) its tail, where test runners print failures. */
export const MAX_DATA_CHARS = 16_000;
const DATA_HEAD_CHARS = 4_000;
/** Longest short untrusted string (a check name, a login) quoted in a sentence. */
export const MAX_INLINE_CHARS = 200;

const ANSI = /\u001B(?:\[[0-?]*[ -/]*[@-~]|\][^\u0007\u001B\n]*(?:\u0007|\u001B\\)?)/g;
const INVISIBLE = new RegExp(
  [
    '[\\u0000-\\u0008\\u000B-\\u001F\\u007F-\\u009F]', // C0 but tab and newline, DEL, C1
    '\\p{Cf}', // every format character: bidi controls, zero-width, soft hyphen, tags, U+FFF9–FFFB …
    // …listed again so they go whatever Unicode version the engine has, plus invisible non-Cf
    // characters: combining grapheme joiner, Hangul fillers, Khmer inherent vowels, Mongolian and
    // standard variation selectors.
    '[\\u00AD\\u034F\\u061C\\u115F\\u1160\\u17B4\\u17B5\\u180B-\\u180F\\u200B-\\u200F\\u202A-\\u202E\\u2060-\\u206F\\u3164\\uFE00-\\uFE0F\\uFEFF\\uFFA0\\uFFF9-\\uFFFB]',
    '[\\u{E0000}-\\u{E007F}\\u{E0100}-\\u{E01EF}]', // tag characters, variation selectors 17–256
    '\\p{Cs}', // a lone surrogate half
  ].join('|'),
  'gu',
);

/**
 * Remove what can hide or reorder text: ANSI escape sequences, C0/C1 controls (but tab and
 * newline), format characters (bidi controls, zero-width, soft hyphen, Unicode tags, interlinear
 * annotation), variation selectors and lone surrogates. CR, CRLF, U+2028 and U+2029 become newline.
 */
export function stripInvisible(text: string): string {
  return text
    .replace(/\r\n?|[\u2028\u2029]/g, '\n')
    .replace(ANSI, '')
    .replace(INVISIBLE, '');
}

const OPEN_MARK = 'untrusted-data-';
export const openMarker = (nonce: string) => `<${OPEN_MARK}${nonce}>`;
export const closeMarker = (nonce: string) => `</${OPEN_MARK}${nonce}>`;

/** Untrusted long text made safe to quote: stripped, bounded, and unable to close the fence. */
export function fenceData(text: string, nonce: string): string {
  checkNonce(nonce);
  return `${openMarker(nonce)}\n${prepareData(text, nonce)}\n${closeMarker(nonce)}`;
}

/** A short untrusted string for a sentence, in double quotes: one line, no backticks, bounded. */
export function quoteUntrusted(text: string, nonce: string): string {
  checkNonce(nonce);
  return `"${inline(text, nonce)}"`;
}

export function prepareData(text: string, nonce: string): string {
  let body = stripInvisible(text)
    .replace(/^(?:[ \t]*\n)+/, '')
    .trimEnd();
  if (body.length > MAX_DATA_CHARS) {
    const head = cutAt(body, DATA_HEAD_CHARS);
    const tail = body.slice(cutAt(body, body.length - (MAX_DATA_CHARS - DATA_HEAD_CHARS)));
    const cut = body.length - head - tail.length;
    body = `${body.slice(0, head)}\n[… fixloop cut ${cut} characters here …]\n${tail}`;
  }
  return neutralise(body, nonce);
}

export function inline(text: string, nonce: string): string {
  let s = stripInvisible(text).replace(/`/g, '').replace(/"/g, "'").replace(/\s+/g, ' ').trim();
  if (s.length > MAX_INLINE_CHARS) s = `${s.slice(0, cutAt(s, MAX_INLINE_CHARS - 1))}…`;
  return neutralise(s, nonce);
}

/** An index at most `i` that does not split a surrogate pair. */
function cutAt(s: string, i: number): number {
  const code = s.charCodeAt(i);
  return code >= 0xdc00 && code <= 0xdfff ? i - 1 : i;
}

/**
 * Take from untrusted text every copy of the nonce (any case) and the bracket of anything that
 * reads as one of fixloop's markers. The replacement `[id removed]` holds no run of 8 nonce
 * characters and is bounded by characters a nonce cannot contain, so it cannot form a new copy.
 */
export function neutralise(text: string, nonce: string): string {
  return text
    .replace(MARKER_LOOKALIKE, (bracket, ahead: string) =>
      foldLookalike(ahead).startsWith('untrusteddata') ? '[' : bracket,
    )
    .replace(new RegExp(escapeRegExp(nonce), 'gi'), '[id removed]');
}

// `<` and the characters that look like it, each followed by what a marker would hold.
const MARKER_LOOKALIKE = /[<\u02C2\u1438\u2039\u2329\u27E8\u276C\u276E\u3008\uFE64\uFF1C](?=([^\n]{0,48}))/g;
// Homoglyphs of the letters in "untrusted-data" that NFKC does not fold.
const HOMOGLYPHS: Readonly<Record<string, string>> = {
  а: 'a',
  α: 'a',
  ɑ: 'a',
  е: 'e',
  ε: 'e',
  ԁ: 'd',
  ո: 'n',
  η: 'n',
  п: 'n',
  г: 'r',
  ѕ: 's',
  т: 't',
  τ: 't',
  υ: 'u',
  ս: 'u',
};
function foldLookalike(s: string): string {
  return [...s.normalize('NFKC').toLowerCase()]
    .map((c) => HOMOGLYPHS[c] ?? c)
    .join('')
    .replace(/[^a-z0-9]/g, '');
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\-]/g, '\\$&');
}

const NONCE = /^[A-Za-z0-9_-]{8,128}$/;
export function checkNonce(nonce: string): void {
  if (!NONCE.test(nonce)) throw new PromptInputError('the prompt nonce must be 8–128 characters of [A-Za-z0-9_-]');
}

export function checkCount(name: string, n: number): void {
  if (!Number.isSafeInteger(n) || n < 0) throw new PromptInputError(`${name} must be a whole number ≥ 0, got ${n}`);
}

// ---------------------------------------------------------------------------------------------
// Facts fixloop holds, shown as-is once they have the expected shape

export function repositoryName(repository: string): string {
  return repository.replace(/[^A-Za-z0-9._/-]/g, '').slice(0, MAX_INLINE_CHARS) || 'unknown';
}

export function shaOrNull(sha: string | null): string | null {
  return sha !== null && /^[0-9a-f]{7,64}$/i.test(sha) ? sha.toLowerCase() : null;
}

export function conclusionOrNull(conclusion: string | null): string | null {
  return conclusion !== null && /^[a-z_]{1,32}$/.test(conclusion) ? conclusion : null;
}

export function httpsUrlOrNull(url: string | null, nonce: string): string | null {
  if (url === null) return null;
  const u = stripInvisible(url).trim();
  if (!/^https:\/\/[^\s"'`<>\\]{1,2000}$/.test(u) || u.toLowerCase().includes(nonce.toLowerCase())) return null;
  return u;
}
