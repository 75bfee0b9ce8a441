// Issue 36: a Work's rules per check as the config file gives them (works[].checks): the keys, their
// bounds, and the rules reaching the Work as loaded.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { configFileSchema } from './schema.js';
import { CHECK_RULE_INSTRUCTIONS_MAX } from '../core/check-rules.js';

const work = (checks: unknown) => ({
  works: [
    {
      name: 'shop',
      account: 'acme',
      repositories: [{ name: 'acme/shop', role: 'data' }],
      checks,
    },
  ],
});

describe('works[].checks (issue 36)', () => {
  it('accepts rules in the order given, each key optional but the name', () => {
    const parsed = configFileSchema.parse(
      work([
        { name: 'e2e*', attempts: 0 },
        { name: 'lint', attempts: 3, rerunFirst: false, instructions: 'Run the fixer first.', paths: ['src/**'] },
        { name: 'unit' },
      ]),
    );
    assert.deepEqual(
      parsed.works[0]!.checks?.map((r) => r.name),
      ['e2e*', 'lint', 'unit'],
    );
    assert.equal(parsed.works[0]!.checks?.[0]?.attempts, 0);
  });

  const refused: Array<[string, unknown]> = [
    ['attempts past the budget limit', [{ name: 'lint', attempts: 6 }]],
    ['negative attempts', [{ name: 'lint', attempts: -1 }]],
    ['no name', [{ attempts: 1 }]],
    ['an empty name', [{ name: '  ' }]],
    ['an unknown key (a typo never silently does nothing)', [{ name: 'lint', attempt: 1 }]],
    ['instructions over the bound', [{ name: 'lint', instructions: 'x'.repeat(CHECK_RULE_INSTRUCTIONS_MAX + 1) }]],
    ['an empty paths list', [{ name: 'lint', paths: [] }]],
  ];
  for (const [what, checks] of refused)
    it(`refuses ${what}`, () => {
      assert.equal(configFileSchema.safeParse(work(checks)).success, false);
    });
});
