// SPEC A1, H2: the bounds on CI text kept beside its delivery — a check name, a rejection's output.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  boundCheckName,
  boundRejectionBody,
  boundText,
  MAX_CHECK_NAME_CHARS,
  MAX_REJECTION_BODY_CHARS,
} from './bounded-text.js';
import { ciIdentity } from './identity.js';

test('A1: a check name within the cap is kept as it is; a longer one is cut to the cap, ending in …', () => {
  assert.equal(boundCheckName('test (ubuntu-latest)'), 'test (ubuntu-latest)');
  const cut = boundCheckName('n'.repeat(5 * 1024 * 1024));
  assert.equal(cut.length, MAX_CHECK_NAME_CHARS);
  assert.ok(cut.endsWith('…'));
  assert.equal(boundCheckName('😀'.repeat(200)).length, MAX_CHECK_NAME_CHARS - 1, 'an emoji is never cut in half');
});

test('A1/H2: long output keeps its head and its tail, says how much was cut, and fits the cap', () => {
  const output = `HEAD${'a'.repeat(100_000)}${'b'.repeat(100_000)}TAIL`;
  const kept = boundRejectionBody(output);
  assert.ok(kept.length <= MAX_REJECTION_BODY_CHARS);
  assert.ok(kept.startsWith('HEAD') && kept.endsWith('TAIL'));
  const cut = Number(/\n\[… fixloop cut (\d+) characters here …\]\n/.exec(kept)![1]);
  assert.equal(kept.length - `\n[… fixloop cut ${cut} characters here …]\n`.length + cut, output.length);
  assert.equal(boundRejectionBody('short'), 'short');
});

test('A1 (property): bounded text never exceeds its cap and never splits a surrogate pair', () => {
  fc.assert(
    fc.property(fc.string({ unit: 'grapheme', maxLength: 400 }), fc.integer({ min: 1, max: 300 }), (text, max) => {
      const kept = boundText(text, max);
      assert.ok(kept.length <= max, `${kept.length} > ${max}`);
      assert.doesNotMatch(kept, /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/);
    }),
    { numRuns: 2000 },
  );
});

test('A1/A3: a status identity holds a long context as its head and a digest: short, deterministic, distinct', () => {
  const id = (context: string) =>
    ciIdentity({ kind: 'status', repository: 'acme/shop', sha: 'a'.repeat(40), context, state: 'failure' });
  assert.equal(id('ci/lint'), `check:acme/shop@${'a'.repeat(40)}:status:ci/lint:failure`);
  const long = 'c'.repeat(5 * 1024 * 1024);
  assert.ok(id(long).length < 400);
  assert.equal(id(long), id(long));
  assert.notEqual(id(long), id(`${long}x`));
});
