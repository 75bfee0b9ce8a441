// Decision 0079: a review's text composed from the reviewer's comments, for a host that sends none.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { reviewTextOf } from './review-text.js';

const cases: { name: string; comments: { path: string; body: string }[]; text: string }[] = [
  { name: 'nothing written: empty, so the frame says the review has no text', comments: [], text: '' },
  { name: 'blank comments count as nothing', comments: [{ path: 'a.ts', body: '  \n' }], text: '' },
  {
    name: 'the summary first, then each comment under its file, in the order listed',
    comments: [
      { path: 'src/cart.ts', body: 'Round the total here.' },
      { path: '', body: 'Two things before this can merge.' },
      { path: 'test/cart.test.ts', body: ' Add a case for zero items. ' },
    ],
    text: 'Two things before this can merge.\n\nOn src/cart.ts:\nRound the total here.\n\nOn test/cart.test.ts:\nAdd a case for zero items.',
  },
];

for (const c of cases)
  test(c.name, () => {
    assert.equal(reviewTextOf(c.comments), c.text);
  });

test('a reviewer who wrote a great deal is cut as any rejection body is', () => {
  const long = reviewTextOf([{ path: '', body: 'x'.repeat(500_000) }]);
  assert.ok(long.length < 500_000 && long.length > 1000, String(long.length));
});
