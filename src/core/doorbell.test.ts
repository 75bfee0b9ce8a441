// SPEC F1 (review rejections) and F2 (the comment doorbell).
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  DOORBELL_MAX_AGE_MS,
  doorbell,
  rejectionFromReview,
  type DoorbellInput,
  type DoorbellReason,
  type ReviewLike,
} from './doorbell.js';

const who = { allowBots: ['coderabbitai', 'Sonar-Bot[bot]'], selfLogin: 'fixloop[bot]' };

function review(over: Partial<ReviewLike>): ReviewLike {
  return {
    id: 77,
    state: 'CHANGES_REQUESTED',
    body: 'Please rename this.',
    author: 'alice',
    authorType: 'User',
    authorAssociation: 'MEMBER',
    submittedAt: '2026-12-01T10:00:00Z',
    commitId: 'abc123',
    ...over,
  };
}

// [label, review, expected source or null]
const REVIEWS: ReadonlyArray<[string, Partial<ReviewLike>, 'review' | 'bot' | null]> = [
  ['a person requesting changes', {}, 'review'],
  ['a person requesting changes (lower-case state, as classify stores it)', { state: 'changes_requested' }, 'review'],
  ['a person requesting changes with an empty body', { body: '' }, 'review'],
  ['a person approving', { state: 'APPROVED' }, null],
  ['a person commenting', { state: 'COMMENTED' }, null],
  ['a dismissed review', { state: 'DISMISSED' }, null],
  ['a pending review', { state: 'PENDING' }, null],
  ['an allow-listed bot requesting changes', { author: 'coderabbitai[bot]', authorType: 'Bot' }, 'bot'],
  [
    'an allow-listed bot commenting a finding',
    { author: 'coderabbitai[bot]', authorType: 'Bot', state: 'COMMENTED' },
    'bot',
  ],
  [
    'an allow-listed bot commenting with an empty body',
    { author: 'coderabbitai[bot]', authorType: 'Bot', state: 'COMMENTED', body: '  \n' },
    null,
  ],
  ['an allow-listed bot approving', { author: 'coderabbitai[bot]', authorType: 'Bot', state: 'APPROVED' }, null],
  [
    'an allow-listed bot listed with its [bot] suffix and another case',
    { author: 'sonar-bot[bot]', authorType: 'Bot', state: 'COMMENTED' },
    'bot',
  ],
  // F1 standing: a listed login counts only on an account of type Bot (decision 0018).
  ['an allow-listed login with no account type', { author: 'coderabbitai[bot]', authorType: null }, null],
  ['an allow-listed login on a User account', { author: 'coderabbitai', authorType: 'User' }, null],
  [
    'an allow-listed login with its [bot] suffix on a User account',
    { author: 'coderabbitai[bot]', authorType: 'User' },
    null,
  ],
  ['a person without standing requesting changes', { authorAssociation: 'CONTRIBUTOR' }, null],
  ['a person with no association requesting changes', { authorAssociation: null }, null],
  ['a bot that is not allow-listed requesting changes', { author: 'random[bot]', authorType: 'Bot' }, null],
  ['a bot that is not allow-listed commenting', { author: 'random[bot]', authorType: 'Bot', state: 'COMMENTED' }, null],
  ['fixloop itself requesting changes', { author: 'fixloop[bot]', authorType: 'Bot' }, null],
  ['a deleted account (no author)', { author: null, authorType: null }, null],
  ['an author of unknown type', { authorType: 'Mannequin' }, null],
];

describe('F1: which reviews become rejections', () => {
  for (const [label, over, source] of REVIEWS) {
    test(`F1: ${label} → ${source ?? 'no rejection'}`, () => {
      const r = rejectionFromReview(review(over), who);
      assert.equal(r?.source ?? null, source);
    });
  }

  test('F1: the candidate carries the review id, author, body and commit', () => {
    assert.deepEqual(rejectionFromReview(review({}), who), {
      source: 'review',
      reviewId: 77,
      author: 'alice',
      body: 'Please rename this.',
      headSha: 'abc123',
      submittedAt: '2026-12-01T10:00:00Z',
    });
  });

  test('F1: with no known self login, a person is still a person', () => {
    assert.equal(rejectionFromReview(review({}), { allowBots: [], selfLogin: null })?.source, 'review');
  });

  test('F1: fixloop acting with a user token never rejects its own pull request', () => {
    assert.equal(
      rejectionFromReview(review({ author: 'Fixloop-Operator' }), { allowBots: [], selfLogin: 'fixloop-operator' }),
      null,
    );
  });
});

const NOW = Date.parse('2026-12-08T12:00:00Z');
const ROW_AUTHOR = { login: 'bob', type: 'User', association: 'COLLABORATOR' };
const PR = { repository: 'acme/app', number: 7 };

function input(
  over: {
    comment?: Partial<DoorbellInput['comment']>;
    row?: Partial<NonNullable<DoorbellInput['row']>> | null;
    now?: DoorbellInput['now'];
  } = {},
): DoorbellInput {
  return {
    comment: {
      author: 'alice',
      authorType: 'User',
      authorAssociation: 'OWNER',
      pullRequest: PR,
      createdAt: '2026-12-08T11:59:00Z',
      ...over.comment,
    },
    row:
      over.row === null
        ? null
        : {
            source: 'review',
            author: ROW_AUTHOR,
            pullRequest: PR,
            createdAt: '2026-12-05T12:00:00Z',
            consumed: false,
            ...over.row,
          },
    selfLogin: 'fixloop[bot]',
    allowBots: ['coderabbitai'],
    now: over.now ?? NOW,
  };
}

// [label, input overrides, expected reason or 'ring']
const RULES: ReadonlyArray<[string, Parameters<typeof input>[0], DoorbellReason | 'ring']> = [
  ['a person on a fresh review row rings', {}, 'ring'],
  ['a person on a fresh bot row rings', { row: { source: 'bot' } }, 'ring'],
  ['an allow-listed bot rings', { comment: { author: 'coderabbitai[bot]', authorType: 'Bot' } }, 'ring'],
  ["fixloop's own comment never rings", { comment: { author: 'fixloop[bot]', authorType: 'Bot' } }, 'own_identity'],
  [
    "fixloop's own identity, whatever the case",
    { comment: { author: 'FIXLOOP[bot]', authorType: 'Bot' } },
    'own_identity',
  ],
  [
    'a bot that is not allow-listed never rings',
    { comment: { author: 'dependabot[bot]', authorType: 'Bot' } },
    'untrusted_bot',
  ],
  [
    'a [bot] login with a missing type is still a bot',
    { comment: { author: 'dependabot[bot]', authorType: null } },
    'untrusted_bot',
  ],
  ['a deleted account never rings', { comment: { author: null, authorType: null } }, 'unknown_author'],
  [
    'an organization or other non-person type never rings',
    { comment: { authorType: 'Organization' } },
    'unknown_author',
  ],
  ['no row to ring for', { row: null }, 'no_row'],
  ['a gate row is never cashed in by a comment', { row: { source: 'gate' } }, 'gate_row'],
  [
    'a row about another pull request number',
    { row: { pullRequest: { repository: 'acme/app', number: 8 } } },
    'other_pull_request',
  ],
  [
    'a row about the same number in another repository',
    { row: { pullRequest: { repository: 'acme/other', number: 7 } } },
    'other_pull_request',
  ],
  [
    'the repository is compared case-insensitively',
    { row: { pullRequest: { repository: 'ACME/App', number: 7 } } },
    'ring',
  ],
  ['a row exactly one week old', { row: { createdAt: NOW - DOORBELL_MAX_AGE_MS } }, 'too_old'],
  ['a row one millisecond under a week old', { row: { createdAt: NOW - DOORBELL_MAX_AGE_MS + 1 } }, 'ring'],
  ['a row eight days old (ISO time)', { row: { createdAt: '2026-11-30T12:00:00Z' } }, 'too_old'],
  ['a row whose time cannot be read', { row: { createdAt: 'yesterday' } }, 'too_old'],
  ['a now that cannot be read', { now: 'soon' }, 'too_old'],
  [
    'a comment dated a week after the row, even if now lags',
    { comment: { createdAt: '2026-12-12T12:00:00Z' } },
    'too_old',
  ],
  ['a row already consumed by an attempt', { row: { consumed: true } }, 'already_consumed'],
  // F1/F2 standing (decision 0018): the comment's author, then the row's own author.
  [
    'a person without standing never rings',
    { comment: { authorAssociation: 'CONTRIBUTOR' } },
    'author_without_standing',
  ],
  [
    'an allow-listed login on a User account never rings',
    { comment: { author: 'coderabbitai', authorType: 'User' } },
    'bot_lookalike',
  ],
  ['a row stored without its author never rings', { row: { author: null } }, 'row_without_standing'],
  [
    'a row whose author lost standing never rings',
    { row: { author: { ...ROW_AUTHOR, association: 'NONE' } } },
    'row_without_standing',
  ],
  [
    'a row by an allow-listed bot rings',
    { row: { source: 'bot', author: { login: 'coderabbitai[bot]', type: 'Bot', association: 'NONE' } } },
    'ring',
  ],
];

describe('F2: the doorbell rules', () => {
  for (const [label, over, expected] of RULES) {
    test(`F2: ${label} → ${expected}`, () => {
      const v = doorbell(input(over));
      assert.deepEqual(v, expected === 'ring' ? { ring: true } : { ring: false, reason: expected });
    });
  }

  test('F2: the week limit is seven days', () => {
    assert.equal(DOORBELL_MAX_AGE_MS, 604_800_000);
  });

  test('F2: own identity is checked before the row (own comments never ring, even for a gate row)', () => {
    assert.deepEqual(
      doorbell(input({ comment: { author: 'fixloop[bot]', authorType: 'Bot' }, row: { source: 'gate' } })),
      { ring: false, reason: 'own_identity' },
    );
  });

  test('F2 (property): a ring needs a person or allow-listed bot, a non-gate row, the same pull request, under a week, unconsumed', () => {
    fc.assert(
      fc.property(
        fc.record({
          author: fc.constantFrom('alice', 'fixloop[bot]', 'coderabbitai[bot]', 'evil[bot]', null),
          source: fc.constantFrom('gate', 'review', 'bot') as fc.Arbitrary<'gate' | 'review' | 'bot'>,
          number: fc.constantFrom(7, 8),
          ageMs: fc.integer({ min: -1000, max: 2 * DOORBELL_MAX_AGE_MS }),
          consumed: fc.boolean(),
          hasRow: fc.boolean(),
        }),
        (c) => {
          const v = doorbell({
            comment: {
              author: c.author,
              authorType: c.author?.endsWith('[bot]') ? 'Bot' : 'User',
              authorAssociation: 'MEMBER',
              pullRequest: PR,
              createdAt: NOW,
            },
            row: c.hasRow
              ? {
                  source: c.source,
                  author: ROW_AUTHOR,
                  pullRequest: { ...PR, number: c.number },
                  createdAt: NOW - c.ageMs,
                  consumed: c.consumed,
                }
              : null,
            selfLogin: 'fixloop[bot]',
            allowBots: ['coderabbitai'],
            now: NOW,
          });
          const expected =
            (c.author === 'alice' || c.author === 'coderabbitai[bot]') &&
            c.hasRow &&
            c.source !== 'gate' &&
            c.number === 7 &&
            c.ageMs < DOORBELL_MAX_AGE_MS &&
            !c.consumed;
          assert.equal(v.ring, expected);
        },
      ),
    );
  });
});

describe('F1/F2 on GitHub: the doorbell and the review read the repository permission (decision 0042)', () => {
  const github = (over: Parameters<typeof input>[0]): DoorbellInput => ({ ...input(over), minimumPermission: 'write' });
  const has = (permission: string) => ({ kind: 'permission' as const, permission });
  const reason = (v: ReturnType<typeof doorbell>) => (v.ring ? 'ring' : v.reason);

  test('F2: a commenter and a row author who may both push ring', () => {
    const v = doorbell(github({ comment: { answer: has('admin') }, row: { authorAnswer: has('write') } }));
    assert.equal(reason(v), 'ring');
  });

  test('F2: a MEMBER without repository access, or a read-only collaborator, does not ring', () => {
    const member = github({
      comment: { authorAssociation: 'MEMBER', answer: has('none') },
      row: { authorAnswer: has('write') },
    });
    const reader = github({
      comment: { authorAssociation: 'COLLABORATOR', answer: has('read') },
      row: { authorAnswer: has('write') },
    });
    assert.equal(reason(doorbell(member)), 'author_without_standing');
    assert.equal(reason(doorbell(reader)), 'author_without_standing');
  });

  test('F2: a row whose author is read-only now does not ring (standing is checked again, not stored)', () => {
    const v = doorbell(github({ comment: { answer: has('admin') }, row: { authorAnswer: has('read') } }));
    assert.equal(reason(v), 'row_without_standing');
  });

  test('F2: a commenter or a row author GitHub could not say anything about does not ring, and says so', () => {
    const commenter = github({ comment: { answer: { kind: 'unreadable' } }, row: { authorAnswer: has('write') } });
    const rowAuthor = github({ comment: { answer: has('write') }, row: { authorAnswer: { kind: 'unreadable' } } });
    const neverAsked = github({ comment: { answer: has('write') } });
    assert.equal(reason(doorbell(commenter)), 'standing_unreadable');
    assert.equal(reason(doorbell(rowAuthor)), 'standing_unreadable');
    assert.equal(
      reason(doorbell(neverAsked)),
      'standing_unreadable',
      'a row author nobody asked about has no standing',
    );
  });

  test('F1: a read-only collaborator requesting changes is no rejection; a write collaborator is', () => {
    const rules = { ...who, minimumPermission: 'write' as const };
    assert.equal(rejectionFromReview(review({ authorAssociation: 'COLLABORATOR' }), rules, has('read')), null);
    assert.equal(rejectionFromReview(review({ authorAssociation: 'MEMBER' }), rules, has('none')), null);
    assert.equal(rejectionFromReview(review({}), rules), null, 'never asked: no standing');
    assert.equal(
      rejectionFromReview(review({ authorAssociation: 'COLLABORATOR' }), rules, has('write'))?.source,
      'review',
    );
  });

  test('F1: an allow-listed bot needs no permission', () => {
    const rules = { ...who, minimumPermission: 'write' as const };
    const bot = review({ author: 'coderabbitai[bot]', authorType: 'Bot', authorAssociation: 'NONE' });
    assert.equal(rejectionFromReview(bot, rules)?.source, 'bot');
  });
});
