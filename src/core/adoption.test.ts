// Issue 3 item 9 (with SPEC D, fork pull requests): which pull requests become Tasks without an API call.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  adoptPullRequest,
  matchesGlob,
  type AdoptionCandidate,
  type AdoptionRules,
  type AdoptionVerdict,
} from './adoption.js';

const GLOBS: ReadonlyArray<[string, string, boolean]> = [
  ['agent/*', 'agent/fix-ci', true],
  ['agent/*', 'agent/', true],
  ['agent/*', 'agent', false],
  ['agent/*', 'agent/a/b', false],
  ['agent/*', 'xagent/fix', false],
  ['agent/*', 'agent/fix-ci-extra', true],
  ['claude/**', 'claude/a/b/c', true],
  ['claude/**', 'claude/x', true],
  ['claude/**', 'claude', false],
  ['**', 'anything/at/all', true],
  ['*', 'main', true],
  ['*', 'feature/x', false],
  ['*-fix', 'ci-fix', true],
  ['*-fix', 'ci-fix/more', false],
  ['a/*/c', 'a/b/c', true],
  ['a/*/c', 'a/b/x/c', false],
  ['a/**/c', 'a/b/x/c', true],
  ['a/**/c', 'a//c', true],
  ['main', 'main', true],
  ['main', 'main2', false],
  ['release.1', 'releaseX1', false], // '.' is literal, not a regex wildcard
  ['fix+(x)', 'fix+(x)', true], // regex metacharacters are literal
  ['codex/***', 'codex/a/b', true], // three stars behave as '**'
  ['', '', true],
  ['', 'x', false],
];

describe('issue 3 item 9: branch globs', () => {
  for (const [pattern, text, expected] of GLOBS) {
    test(`adoption: "${pattern}" ${expected ? 'matches' : 'does not match'} "${text}"`, () => {
      assert.equal(matchesGlob(pattern, text), expected);
    });
  }

  test('adoption (property): a pattern with no stars matches only itself', () => {
    fc.assert(
      fc.property(
        fc.string().filter((s) => !s.includes('*')),
        fc.string(),
        (p, t) => {
          assert.equal(matchesGlob(p, t), p === t);
        },
      ),
    );
  });

  test('adoption (property): "**" matches everything and "*" matches exactly the texts without "/"', () => {
    fc.assert(
      fc.property(fc.string(), (t) => {
        assert.ok(matchesGlob('**', t));
        assert.equal(matchesGlob('*', t), !t.includes('/'));
      }),
    );
  });

  test('adoption: a long adversarial pattern is matched without backtracking blow-up', () => {
    const start = process.hrtime.bigint();
    assert.equal(matchesGlob('*a*a*a*a*a*a*a*a*a*a*a*a*b', 'a'.repeat(2000)), false);
    assert.ok(process.hrtime.bigint() - start < 2_000_000_000n);
  });
});

function pr(over: Partial<AdoptionCandidate> = {}): AdoptionCandidate {
  return {
    repository: 'acme/app',
    number: 7,
    headRef: 'agent/fix-ci',
    headRepository: 'acme/app',
    baseRepository: 'acme/app',
    author: 'claude[bot]',
    draft: false,
    ...over,
  };
}

const TABLE: ReadonlyArray<[string, Partial<AdoptionCandidate>, AdoptionRules, AdoptionVerdict]> = [
  ['a branch rule matches', {}, { branches: ['agent/*'], authors: [] }, { adopt: true }],
  [
    'a branch rule does not match',
    { headRef: 'feature/x' },
    { branches: ['agent/*'], authors: [] },
    { adopt: false, reason: 'no_rule_matched' },
  ],
  [
    'any of several branch rules matches',
    { headRef: 'claude/a/b' },
    { branches: ['agent/*', 'claude/**'], authors: [] },
    { adopt: true },
  ],
  ['an author rule matches', { headRef: 'whatever' }, { branches: [], authors: ['claude[bot]'] }, { adopt: true }],
  [
    'an author rule matches in another case and without [bot]',
    { author: 'Claude[bot]' },
    { branches: [], authors: ['claude'] },
    { adopt: true },
  ],
  [
    'an author rule does not match',
    { author: 'alice' },
    { branches: [], authors: ['claude[bot]'] },
    { adopt: false, reason: 'no_rule_matched' },
  ],
  [
    'an author rule and no author (deleted account)',
    { author: null },
    { branches: [], authors: ['claude[bot]'] },
    { adopt: false, reason: 'no_rule_matched' },
  ],
  [
    'branch and author both given and both match',
    {},
    { branches: ['agent/*'], authors: ['claude[bot]'] },
    { adopt: true },
  ],
  [
    "branch and author given; a person's branch of the same pattern",
    { author: 'alice' },
    { branches: ['agent/*'], authors: ['claude[bot]'] },
    { adopt: false, reason: 'no_rule_matched' },
  ],
  [
    'branch and author given; the agent on another branch',
    { headRef: 'main' },
    { branches: ['agent/*'], authors: ['claude[bot]'] },
    { adopt: false, reason: 'no_rule_matched' },
  ],
  ['no rules at all adopt nothing', {}, { branches: [], authors: [] }, { adopt: false, reason: 'no_rule_matched' }],
  ['a draft is adopted like any other', { draft: true }, { branches: ['agent/*'], authors: [] }, { adopt: true }],
  [
    'a fork is never adopted, even on a matching branch and author',
    { headRepository: 'mallory/app' },
    { branches: ['agent/*'], authors: ['claude[bot]'] },
    { adopt: false, reason: 'fork' },
  ],
  [
    'a deleted head repository counts as a fork',
    { headRepository: null },
    { branches: ['**'], authors: [] },
    { adopt: false, reason: 'fork' },
  ],
  [
    'the head repository is compared case-insensitively',
    { headRepository: 'Acme/App' },
    { branches: ['agent/*'], authors: [] },
    { adopt: true },
  ],
  [
    'a fork with no rules is reported as a fork',
    { headRepository: 'mallory/app' },
    { branches: [], authors: [] },
    { adopt: false, reason: 'fork' },
  ],
];

describe('issue 3 item 9 / D: adopting a pull request', () => {
  for (const [label, over, rules, verdict] of TABLE) {
    test(`adoption: ${label}`, () => {
      assert.deepEqual(adoptPullRequest(pr(over), rules), verdict);
    });
  }

  test('D (property): a pull request whose head repository differs from its base is never adopted', () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 1 }),
        fc.string(),
        fc.array(fc.constantFrom('**', '*', 'agent/*')),
        (head, ref, branches) => {
          fc.pre(head.toLowerCase() !== 'acme/app');
          assert.deepEqual(adoptPullRequest(pr({ headRepository: head, headRef: ref }), { branches, authors: [] }), {
            adopt: false,
            reason: 'fork',
          });
        },
      ),
    );
  });
});
