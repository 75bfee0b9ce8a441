// Issue 36 item 6: a bot's findings fingerprinted per round — line numbers, SHAs, hidden markers and
// white space do not change a fingerprint, the findings do — and a round repeating an answered one stops.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { botRoundVerdict, findingsFingerprint, normalizeFindingText, type BotRound } from './bot-findings.js';

const round: BotRound = {
  body: '**Actionable comments posted: 2**\n\nReviewing files between a1b2c3d and 9f8e7d6c5b4a.\n<!-- review-id: 1187 -->',
  comments: [
    { path: 'src/cart.ts', body: 'Potential null dereference of `cart.items` on line 42.' },
    { path: 'src/price.ts', body: 'Lines 10-14: `total` is never rounded (see src/price.ts:12).' },
  ],
};

describe('findingsFingerprint (issue 36)', () => {
  const same: ReadonlyArray<[string, BotRound]> = [
    [
      'the same findings after a rebase: other lines, other SHAs, another hidden id',
      {
        body: '**Actionable comments posted: 2**\n\nReviewing files between 0e1f2a3 and 77aa88bb99cc.\n<!-- review-id: 2290 -->',
        comments: [
          { path: 'src/cart.ts', body: 'Potential null dereference of `cart.items` on line 57.' },
          { path: 'src/price.ts', body: 'Lines 31-35: `total` is never rounded (see src/price.ts:33).' },
        ],
      },
    ],
    [
      'the comments in another order, with other white space',
      {
        body: round.body.replace(/\n\n/, '\n   \n'),
        comments: [
          { path: 'src/price.ts', body: 'Lines 10-14:  `total` is never\nrounded (see src/price.ts:12).' },
          { path: 'src/cart.ts', body: '  Potential null dereference of `cart.items` on line 42.' },
        ],
      },
    ],
    ['a comment said twice counts once', { ...round, comments: [...round.comments, round.comments[0]!] }],
  ];
  for (const [label, other] of same)
    test(`equal: ${label}`, () => assert.equal(findingsFingerprint(other), findingsFingerprint(round)));

  const different: ReadonlyArray<[string, BotRound]> = [
    ['one finding fixed (a comment gone)', { ...round, comments: [round.comments[0]!] }],
    [
      'a new finding',
      { ...round, comments: [...round.comments, { path: 'src/tax.ts', body: 'Tax is applied twice.' }] },
    ],
    [
      'the same text on another file',
      { ...round, comments: [{ ...round.comments[0]!, path: 'src/basket.ts' }, round.comments[1]!] },
    ],
    ['another summary', { ...round, body: '**Actionable comments posted: 1**' }],
  ];
  for (const [label, other] of different)
    test(`different: ${label}`, () => assert.notEqual(findingsFingerprint(other), findingsFingerprint(round)));

  test('a SHA of digits alone goes too; a short number stays', () => {
    assert.equal(normalizeFindingText('between 2222222 and 1234 issues'), 'between and 1234 issues');
  });

  test('words made of hex letters alone are kept (only SHAs with a digit go)', () => {
    assert.equal(normalizeFindingText('the handler is defaced at 1a2b3c4d'), 'the handler is defaced at');
  });
});

describe('botRoundVerdict (issue 36)', () => {
  const fp = findingsFingerprint(round);
  const other = findingsFingerprint({ body: 'something else', comments: [] });
  const TABLE: ReadonlyArray<[string, Array<{ fingerprint: string; answered: boolean }>, 'new' | 'repeat']> = [
    ['the first round is new', [], 'new'],
    ['the same findings as an answered round repeat it', [{ fingerprint: fp, answered: true }], 'repeat'],
    [
      'the same as an older answered round, with a different one between, is still a repeat',
      [
        { fingerprint: fp, answered: true },
        { fingerprint: other, answered: true },
      ],
      'repeat',
    ],
    ['findings that changed are new', [{ fingerprint: other, answered: true }], 'new'],
    [
      'the same as a round not answered yet is new (the agent never saw it)',
      [{ fingerprint: fp, answered: false }],
      'new',
    ],
  ];
  for (const [label, earlier, want] of TABLE)
    test(label, () => assert.equal(botRoundVerdict('coderabbitai[bot]', earlier, fp).kind, want));

  test('the repeat names the bot and the rounds in words', () => {
    const v = botRoundVerdict(
      'coderabbitai[bot]',
      [
        { fingerprint: fp, answered: true },
        { fingerprint: other, answered: true },
      ],
      fp,
    );
    assert.deepEqual(v, {
      kind: 'repeat',
      detail:
        "coderabbitai[bot]'s review (round 3) repeats the findings of its round 1, which the agent already answered",
    });
  });
});
