// SPEC E4: the conditional-request cache is bounded and keeps the most recently used answers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EtagCache } from './etag-cache.js';

test('E4: the ETag cache evicts the least recently used entry beyond its bound', () => {
  const cache = new EtagCache<number>(2);
  cache.set('a', { etag: '"1"', value: 1 });
  cache.set('b', { etag: '"2"', value: 2 });
  assert.equal(cache.get('a')?.value, 1); // a is now the most recent
  cache.set('c', { etag: '"3"', value: 3 });
  assert.equal(cache.size, 2);
  assert.equal(cache.get('b'), undefined);
  assert.deepEqual([cache.get('a')?.value, cache.get('c')?.value], [1, 3]);
});

test('E4: the ETag cache refuses a bound that is not a positive integer', () => {
  assert.throws(() => new EtagCache(0), RangeError);
});
