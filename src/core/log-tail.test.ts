// J2: the capped tail both hosts' log readers feed — memory bounded by what is kept, reading stopped
// at the cap, and "cut" only when the log really went on past it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CappedTailRead, TailBuffer } from './log-tail.js';

test('a tail keeps only its last bytes, whatever size the chunks come in', () => {
  const t = new TailBuffer(5);
  for (const c of ['ab', 'cdef', 'g', 'hijklmnop']) t.write(Buffer.from(c));
  assert.equal(t.bytes().toString(), 'lmnop');
  assert.equal(t.dropped, 11);
});

test('reading stops at the cap; the read is cut unless the declared length is exactly the cap', () => {
  const open = new CappedTailRead(4, 10, Number.NaN);
  assert.equal(open.feed(Buffer.from('12345')), null);
  const done = open.feed(Buffer.from('6789abc'));
  assert.ok(done);
  assert.equal(done.bytesRead, 10);
  assert.equal(done.cut, true);
  assert.equal(done.tail.bytes().toString(), '789a');

  const exact = new CappedTailRead(4, 10, 10);
  assert.equal(exact.feed(Buffer.from('12345')), null);
  assert.equal(exact.feed(Buffer.from('67890'))?.cut, false, 'a body of exactly the cap is whole');

  const short = new CappedTailRead(4, 10, 3);
  assert.equal(short.feed(Buffer.from('abc')), null);
  assert.deepEqual({ ...short.ended(), tail: undefined }, { tail: undefined, bytesRead: 3, cut: false });
});
