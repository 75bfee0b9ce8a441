// SPEC F1, F2 (and K9's "a person acted"): who may steer the loop — every association GitHub
// documents, every account type, allow-listed bots and the accounts that imitate them.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import {
  AUTHOR_ASSOCIATIONS,
  awaitsBotMembership,
  DEFAULT_HOST_STANDING,
  DEFAULT_MINIMUM_PERMISSION,
  DEFAULT_TRUSTED_ASSOCIATIONS,
  MINIMUM_PERMISSIONS,
  NO_STANDING_REASONS,
  REPOSITORY_PERMISSIONS,
  permissionAtLeast,
  permissionNeeded,
  rulesOfWork,
  standingOf,
  type HostAnswer,
  type HostStanding,
  type Author,
  type Standing,
  type StandingRules,
} from './standing.js';

const rules: StandingRules = { selfLogin: 'fixloop[bot]', allowBots: ['coderabbitai[bot]', 'Sonar'] };
const person = (association: string | null, login = 'alice'): Author => ({ login, type: 'User', association });
const kindOf = (s: Standing) => (s.kind === 'none' ? s.reason : s.kind);
/** A host whose bots are ordinary accounts (as GitLab says in src/gitlab/words.ts). */
const MEMBERSHIP_HOST: HostStanding = { minimumPermission: false, associationFromHost: true, botMembership: true };

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
    seen.add(kindOf(standingOf(person('MEMBER'), rules, { kind: 'unreadable' })));
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

describe('F1/F2 on GitHub: the repository decides (decision 0042)', () => {
  const github: StandingRules = { ...rules, minimumPermission: 'write' };
  const has = (permission: string): HostAnswer => ({ kind: 'permission', permission });

  test('F1/F2: a Work says write unless it says otherwise', () => {
    assert.equal(DEFAULT_MINIMUM_PERMISSION, 'write');
  });

  test('F1/F2: roles rank none < read < triage < write < maintain < admin', () => {
    assert.deepEqual([...REPOSITORY_PERMISSIONS], ['none', 'read', 'triage', 'write', 'maintain', 'admin']);
    for (const minimum of MINIMUM_PERMISSIONS)
      for (const permission of REPOSITORY_PERMISSIONS) {
        const expected = REPOSITORY_PERMISSIONS.indexOf(permission) >= REPOSITORY_PERMISSIONS.indexOf(minimum);
        assert.equal(permissionAtLeast(permission, minimum), expected, `${permission} vs ${minimum}`);
      }
  });

  test('F1/F2: no access, an unknown role or an empty answer is below every minimum; case does not matter', () => {
    for (const minimum of MINIMUM_PERMISSIONS) {
      assert.equal(permissionAtLeast('none', minimum), false);
      assert.equal(permissionAtLeast('security-manager', minimum), false);
      assert.equal(permissionAtLeast('', minimum), false);
    }
    assert.equal(permissionAtLeast(' Admin ', 'maintain'), true);
  });

  test('F1/F2: a MEMBER without access to the repository has no standing', () => {
    assert.equal(kindOf(standingOf(person('MEMBER'), github, has('none'))), 'author_without_standing');
  });

  test('F1/F2: a read-only or triage collaborator has no standing under the default minimum', () => {
    assert.equal(kindOf(standingOf(person('COLLABORATOR'), github, has('read'))), 'author_without_standing');
    assert.equal(kindOf(standingOf(person('COLLABORATOR'), github, has('triage'))), 'author_without_standing');
  });

  test('F1/F2: a write, maintain or admin collaborator has standing', () => {
    for (const p of ['write', 'maintain', 'admin'])
      assert.equal(kindOf(standingOf(person('COLLABORATOR'), github, has(p))), 'person', p);
  });

  test('F1/F2: a Work that asks for triage hears a triage collaborator, not a read-only one', () => {
    const triage = { ...github, minimumPermission: 'triage' as const };
    assert.equal(kindOf(standingOf(person('COLLABORATOR'), triage, has('triage'))), 'person');
    assert.equal(kindOf(standingOf(person('COLLABORATOR'), triage, has('read'))), 'author_without_standing');
  });

  test('F1/F2: the association is still a first filter: an admin permission does not lift NONE', () => {
    assert.equal(kindOf(standingOf(person('NONE'), github, has('admin'))), 'author_without_standing');
  });

  test('F1/F2: a permission nobody asked for, or that could not be read, is never standing', () => {
    assert.equal(kindOf(standingOf(person('OWNER'), github)), 'standing_unreadable');
    assert.equal(kindOf(standingOf(person('OWNER'), github, { kind: 'unreadable' })), 'standing_unreadable');
  });

  test('F1/F2: an unreadable answer is said for an association-only Work too (GitLab could not read the level)', () => {
    assert.equal(kindOf(standingOf(person(null), rules, { kind: 'unreadable' })), 'standing_unreadable');
  });

  test('F1/F2: bots, fixloop itself and lookalikes are judged before any answer', () => {
    for (const [label, author, expected] of ACCOUNTS)
      for (const answer of [undefined, has('admin'), { kind: 'unreadable' } as const])
        assert.equal(kindOf(standingOf(author, github, answer)), expected, `${label} with ${JSON.stringify(answer)}`);
  });

  test('F1/F2: the permission is asked for only of a person who passes every other rule', () => {
    assert.equal(permissionNeeded(person('MEMBER'), github), true);
    assert.equal(permissionNeeded(person('NONE'), github), false, 'a stranger costs no API call');
    assert.equal(permissionNeeded(person('MEMBER'), rules), false, 'an association-only Work asks nothing');
    assert.equal(permissionNeeded({ login: 'coderabbitai[bot]', type: 'Bot', association: 'NONE' }, github), false);
    assert.equal(permissionNeeded({ login: 'fixloop[bot]', type: 'Bot', association: 'OWNER' }, github), false);
    assert.equal(permissionNeeded({ login: 'coderabbitai', type: 'User', association: 'OWNER' }, github), false);
  });

  test('F1/F2: the whole table — a person needs a trusted association AND at least the minimum, read just now', () => {
    const answers: Array<HostAnswer | undefined> = [
      undefined,
      { kind: 'unreadable' },
      ...[...REPOSITORY_PERMISSIONS, 'custom-role', ''].map(has),
    ];
    const minimums = [undefined, ...MINIMUM_PERMISSIONS];
    const associations = [null, ...AUTHOR_ASSOCIATIONS];
    let cases = 0;
    for (const minimumPermission of minimums)
      for (const association of associations)
        for (const answer of answers)
          for (const type of ['User', 'Bot']) {
            const r = { ...rules, minimumPermission };
            const author = { login: type === 'Bot' ? 'coderabbitai[bot]' : 'alice', type, association };
            const got = kindOf(standingOf(author, r, answer));
            const trusted = association !== null && DEFAULT_TRUSTED_ASSOCIATIONS.includes(association as never);
            const expected =
              type === 'Bot'
                ? 'bot'
                : answer?.kind === 'unreadable'
                  ? 'standing_unreadable'
                  : !trusted
                    ? 'author_without_standing'
                    : minimumPermission === undefined
                      ? 'person'
                      : answer === undefined
                        ? 'standing_unreadable'
                        : REPOSITORY_PERMISSIONS.indexOf(answer.permission as never) >=
                            REPOSITORY_PERMISSIONS.indexOf(minimumPermission)
                          ? 'person'
                          : 'author_without_standing';
            assert.equal(got, expected, JSON.stringify({ minimumPermission, association, answer, type }));
            assert.equal(
              permissionNeeded(author, r),
              type === 'User' && trusted && minimumPermission !== undefined,
              JSON.stringify({ minimumPermission, association, type }),
            );
            cases++;
          }
    assert.equal(cases, minimums.length * associations.length * answers.length * 2);
  });
});

// Decision 0077: on GitLab a review bot is an ordinary account (its own user, an access token's bot
// user); the project's membership tells the listed bot from an account that merely took its name.
describe('F1/F2: a listed bot on a host where bots are ordinary accounts (GitLab)', () => {
  const gitlab: StandingRules = { ...rulesOfWork({}, 'fixloop-bot', ['coderabbit'], MEMBERSHIP_HOST) };
  const cases: ReadonlyArray<[string, Author, HostAnswer | undefined, ReturnType<typeof kindOf>]> = [
    [
      'a listed User who is a Developer',
      { login: 'coderabbit', type: 'User', association: 'COLLABORATOR' },
      undefined,
      'bot',
    ],
    [
      'a listed User who is a Maintainer, in another case',
      { login: 'CodeRabbit', type: 'User', association: 'MEMBER' },
      undefined,
      'bot',
    ],
    [
      'a listed User who is no member (or a Reporter)',
      { login: 'coderabbit', type: 'User', association: 'NONE' },
      undefined,
      'bot_lookalike',
    ],
    [
      'a listed User whose level was not read',
      { login: 'coderabbit', type: 'User', association: null },
      undefined,
      'bot_lookalike',
    ],
    [
      'a listed User whose level could not be read',
      { login: 'coderabbit', type: 'User', association: null },
      { kind: 'unreadable' },
      'standing_unreadable',
    ],
    ['a listed bot user (GitLab says bot)', { login: 'coderabbit', type: 'Bot', association: null }, undefined, 'bot'],
    [
      'a User carrying the listing with [bot]',
      { login: 'coderabbit[bot]', type: 'User', association: 'OWNER' },
      undefined,
      'bot_lookalike',
    ],
    [
      'a Developer not listed is a person',
      { login: 'alice', type: 'User', association: 'COLLABORATOR' },
      undefined,
      'person',
    ],
  ];
  for (const [label, author, answer, expected] of cases)
    test(`F1/F2 (0077): ${label} → ${expected}`, () => {
      assert.equal(kindOf(standingOf(author, gitlab, answer)), expected);
    });

  test('F1/F2 (0077): without the host saying so, a listed User is still a lookalike (GitHub)', () => {
    const github = rulesOfWork({}, 'fixloop[bot]', ['coderabbit'], DEFAULT_HOST_STANDING);
    assert.equal(github.botMembership, undefined);
    assert.equal(
      kindOf(
        standingOf({ login: 'coderabbit', type: 'User', association: 'MEMBER' }, github, {
          kind: 'permission',
          permission: 'admin',
        }),
      ),
      'bot_lookalike',
    );
  });
});

test('decision 0077: only an account listed as a bot, on a host where bots are ordinary accounts, awaits its membership', () => {
  const rules = { allowBots: ['CodeRabbit'], botMembership: true, selfLogin: 'fixloop' };
  const user = (login: string | null, type = 'User') => ({ login, type, association: null });
  const table: [ReturnType<typeof user>, Parameters<typeof awaitsBotMembership>[1], boolean][] = [
    [user('coderabbit'), rules, true],
    [user(' CodeRabbit '), rules, true],
    [user('coderabbit[bot]'), rules, false],
    [user('coderabbit', 'Bot'), rules, false],
    [user('dev-dora'), rules, false],
    [user(null), rules, false],
    [user('coderabbit'), { allowBots: ['CodeRabbit'], selfLogin: 'fixloop' }, false],
  ];
  for (const [author, r, expected] of table)
    assert.equal(awaitsBotMembership(author, r), expected, JSON.stringify({ author, r }));
});
