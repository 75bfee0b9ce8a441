import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { untrustedLine, untrustedLineOrNull, untrustedText, untrustedTextOrNull } from './untrusted-text.js';

const BIDI = [0x061c, 0x200e, 0x200f, 0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069];
const ch = (cp: number) => String.fromCodePoint(cp);

describe('untrustedLine (issue 31)', () => {
  it('removes every C0 control but tab and line breaks, DEL and every C1 control', () => {
    for (let cp = 0; cp <= 0x9f; cp++) {
      const control = cp < 0x20 || (cp >= 0x7f && cp <= 0x9f);
      const got = untrustedLine(`a${ch(cp)}b`);
      if (!control) assert.equal(got, `a${ch(cp)}b`, `U+${cp.toString(16)} is kept`);
      else if (cp === 0x09 || cp === 0x0a || cp === 0x0d) assert.equal(got, 'a b', `U+${cp.toString(16)} → space`);
      else assert.equal(got, 'ab', `U+${cp.toString(16)} is removed`);
    }
  });

  it('removes every bidirectional override, isolate and mark', () => {
    for (const cp of BIDI) assert.equal(untrustedLine(`fix${ch(cp)}-login`), 'fix-login', `U+${cp.toString(16)}`);
  });

  it('keeps what a branch, title or login may hold: letters of any script, emoji, joiners, punctuation', () => {
    for (const s of [
      'feature/ünïcödé-名前',
      'fix: 🚀 deploy 👩‍💻',
      'عربي',
      'a\u200db',
      'dependabot[bot]',
      'x\u00a0y',
      '',
    ])
      assert.equal(untrustedLine(s), s);
  });

  it('a branch name with NUL and a right-to-left override comes out plain', () => {
    assert.equal(untrustedLine('main\u0000\u202Etxt.exe'), 'maintxt.exe');
  });

  it('the OrNull twin passes null and undefined through', () => {
    assert.equal(untrustedLineOrNull(null), null);
    assert.equal(untrustedLineOrNull(undefined), undefined);
    assert.equal(untrustedLineOrNull('a\u202eb'), 'ab');
  });
});

describe('untrustedText (issue 31)', () => {
  it('keeps tabs, line feeds and CR-LF pairs; removes a lone CR and every other control', () => {
    for (let cp = 0; cp <= 0x9f; cp++) {
      const control = cp < 0x20 || (cp >= 0x7f && cp <= 0x9f);
      const got = untrustedText(`a${ch(cp)}b`);
      if (!control || cp === 0x09 || cp === 0x0a) assert.equal(got, `a${ch(cp)}b`, `U+${cp.toString(16)} is kept`);
      else assert.equal(got, 'ab', `U+${cp.toString(16)} is removed`);
    }
    assert.equal(untrustedText('line one\r\nline two\r'), 'line one\r\nline two');
  });

  it('removes every bidirectional override, isolate and mark, across lines', () => {
    for (const cp of BIDI) assert.equal(untrustedText(`please\n${ch(cp)}fix`), 'please\nfix', `U+${cp.toString(16)}`);
  });

  it('the OrNull twin passes null and undefined through', () => {
    assert.equal(untrustedTextOrNull(null), null);
    assert.equal(untrustedTextOrNull(undefined), undefined);
    assert.equal(untrustedTextOrNull('a\u0000\nb'), 'a\nb');
  });
});
