// SPEC F1, F2 (and K9's "a person acted"): who may steer the loop — every association GitHub
// documents, every account type, allow-listed bots and the accounts that imitate them.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import {
  AUTHOR_ASSOCIATIONS,
  DEFAULT_TRUSTED_ASSOCIATIONS,
  NO_STANDING_REASONS,
  standingOf,
  type Author,
  type Standing,
  type StandingRules,
} from './standing.js';

const rules: StandingRules = { selfLogin: 'fixloop[bot]', allowBots: ['coderabbitai[bot]', 'Sonar'] };
const person = (association: string | null, login = 'alice'): Author => ({ login, type: 'User', association });
const kindOf = (s: Standing) => (s.kind === 'none' ? s.reason : s.kind);

describe('F1/F2: a person counts by association', () => {
  for (const association of AUTHOR_ASSOCIATIONS) {
    const expected = ['OWNER', 'MEMBER', 'COLLABORATOR'].includes(association) ? 'person' : 'author_without_standing';
    test(`F1/F2: a User with association ${association} → ${expected}`, () => {
      assert.equal(kindOf(standingOf(person(association), rules)), expected);
    });
  }

  test('F1/F2: the default trusts exactly OWNER, MEMBER and COLLABORATOR', () => {
    assert.deepEqual([...DEFAULT_TRUSTED_ASSOCIATIONS].sort(), ['COLLABORATOR', 'MEMBER', 'OWNER']);
  });

  test('F1/F2: a delivery without an association has no standing', () => {
    assert.equal(kindOf(standingOf(person(null), rules)), 'author_without_standing');
    assert.equal(kindOf(standingOf(person(''), rules)), 'author_without_standing');
  });

  test('F1/F2: an association outside GitHub’s list has no standing', () => {
    assert.equal(kindOf(standingOf(person('ADMIN'), rules)), 'author_without_standing');
  });

  test('F1/F2: the association is read in any case', () => {
    assert.equal(kindOf(standingOf(person('member'), rules)), 'person');
  });

  test('F1/F2: a Work that trusts only OWNER gives a MEMBER no standing', () => {
    const owners = { ...rules, trustedAssociations: ['OWNER'] };
    assert.equal(kindOf(standingOf(person('OWNER'), owners)), 'person');
    assert.equal(kindOf(standingOf(person('MEMBER'), owners)), 'author_without_standing');
  });

  test('F1/F2: a Work may trust CONTRIBUTOR as well', () => {
    const wider = { ...rules, trustedAssociations: [...DEFAULT_TRUSTED_ASSOCIATIONS, 'CONTRIBUTOR'] };
    assert.equal(kindOf(standingOf(person('CONTRIBUTOR'), wider)), 'person');
    assert.equal(kindOf(standingOf(person('FIRST_TIME_CONTRIBUTOR'), wider)), 'author_without_standing');
  });

  test('F1/F2: a Work that trusts nobody still hears its allow-listed bots', () => {
    const none = { ...rules, trustedAssociations: [] };
    assert.equal(kindOf(standingOf(person('OWNER'), none)), 'author_without_standing');
    assert.equal(kindOf(standingOf({ login: 'coderabbitai[bot]', type: 'Bot', association: 'NONE' }, none)), 'bot');
  });
});

// [label, author, expected]
const ACCOUNTS: ReadonlyArray<[string, Author, ReturnType<typeof kindOf>]> = [
  ['an allow-listed bot of type Bot', { login: 'coderabbitai[bot]', type: 'Bot', association: 'NONE' }, 'bot'],
  [
    'an allow-listed bot, whatever its association',
    { login: 'coderabbitai[bot]', type: 'Bot', association: null },
    'bot',
  ],
  ['an allow-listed bot in another case', { login: 'CodeRabbitAI[bot]', type: 'Bot', association: 'NONE' }, 'bot'],
  [
    'a Bot account without the [bot] suffix its listing names',
    { login: 'coderabbitai', type: 'Bot', association: 'NONE' },
    'untrusted_bot',
  ],
  ['a bot listed without its [bot] suffix', { login: 'sonar[bot]', type: 'Bot', association: 'NONE' }, 'bot'],
  [
    'a User named like an allow-listed bot',
    { login: 'coderabbitai', type: 'User', association: 'OWNER' },
    'bot_lookalike',
  ],
  [
    'a User carrying an allow-listed bot’s full login',
    { login: 'coderabbitai[bot]', type: 'User', association: 'MEMBER' },
    'bot_lookalike',
  ],
  [
    'an Organization named like an allow-listed bot',
    { login: 'coderabbitai', type: 'Organization', association: 'NONE' },
    'bot_lookalike',
  ],
  [
    'an allow-listed login with no type',
    { login: 'coderabbitai[bot]', type: null, association: 'NONE' },
    'bot_lookalike',
  ],
  ['a bot that is not allow-listed', { login: 'dependabot[bot]', type: 'Bot', association: 'NONE' }, 'untrusted_bot'],
  [
    'a bot that is not allow-listed, as a member',
    { login: 'renovate[bot]', type: 'Bot', association: 'MEMBER' },
    'untrusted_bot',
  ],
  ['a [bot] login of type User', { login: 'helper[bot]', type: 'User', association: 'OWNER' }, 'untrusted_bot'],
  [
    'a bot named like an allow-listed one',
    { login: 'coderabbit-ai[bot]', type: 'Bot', association: 'NONE' },
    'untrusted_bot',
  ],
  ['fixloop itself', { login: 'fixloop[bot]', type: 'Bot', association: 'NONE' }, 'own_identity'],
  ['fixloop itself in another case', { login: 'FixLoop[bot]', type: 'Bot', association: 'NONE' }, 'own_identity'],
  ['a deleted account', { login: null, type: null, association: 'NONE' }, 'unknown_author'],
  ['an empty login', { login: '  ', type: 'User', association: 'OWNER' }, 'unknown_author'],
  ['an Organization', { login: 'acme', type: 'Organization', association: 'OWNER' }, 'unknown_author'],
  ['an account with no type', { login: 'alice', type: null, association: 'OWNER' }, 'unknown_author'],
  ['a Mannequin account', { login: 'ghost-import', type: 'Mannequin', association: 'MANNEQUIN' }, 'unknown_author'],
];

describe('F1/F2: accounts, bots and lookalikes', () => {
  for (const [label, author, expected] of ACCOUNTS) {
    test(`F1/F2: ${label} → ${expected}`, () => {
      assert.equal(kindOf(standingOf(author, rules)), expected);
    });
  }

  test('F1/F2: fixloop is itself first, even when its login is allow-listed', () => {
    const listed = { ...rules, allowBots: ['fixloop[bot]'] };
    assert.equal(
      kindOf(standingOf({ login: 'fixloop[bot]', type: 'Bot', association: 'NONE' }, listed)),
      'own_identity',
    );
  });

  test('F1/F2: with no known self login, a person is still a person', () => {
    assert.equal(kindOf(standingOf(person('OWNER'), { ...rules, selfLogin: null })), 'person');
  });

  test('F1/F2: fixloop acting with a user token never steers itself', () => {
    const asUser = { ...rules, selfLogin: 'Fixloop-Operator' };
    assert.equal(kindOf(standingOf(person('OWNER', 'fixloop-operator'), asUser)), 'own_identity');
  });

  test('F1/F2: every reason without standing is reachable', () => {
    const seen = new Set(ACCOUNTS.map(([, a]) => kindOf(standingOf(a, rules))));
    seen.add(kindOf(standingOf(person('NONE'), rules)));
    for (const reason of NO_STANDING_REASONS) assert.ok(seen.has(reason), reason);
  });
});

describe('F1/F2: the whole table', () => {
  const logins = [null, 'alice', 'coderabbitai', 'coderabbitai[bot]', 'dependabot[bot]', 'fixloop[bot]'];
  const types = [null, 'User', 'Bot', 'Organization'];
  const associations = [null, ...AUTHOR_ASSOCIATIONS];
  const trusts: ReadonlyArray<readonly string[] | undefined> = [undefined, ['OWNER'], []];

  test('F1/F2: standing is a person with a trusted association, or a listed login on a Bot — nothing else', () => {
    let cases = 0;
    for (const login of logins)
      for (const type of types)
        for (const association of associations)
          for (const trustedAssociations of trusts) {
            const r = { ...rules, trustedAssociations };
            const got = standingOf({ login, type, association }, r).kind;
            const trusted = trustedAssociations ?? DEFAULT_TRUSTED_ASSOCIATIONS;
            const expected =
              login === 'coderabbitai[bot]' && type === 'Bot'
                ? 'bot'
                : login === 'alice' && type === 'User' && association !== null && trusted.includes(association)
                  ? 'person'
                  : 'none';
            assert.equal(got, expected, JSON.stringify({ login, type, association, trustedAssociations }));
            cases++;
          }
    assert.equal(cases, logins.length * types.length * associations.length * trusts.length);
  });
});
