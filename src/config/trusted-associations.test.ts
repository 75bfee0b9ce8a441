// works[].trustedAssociations (SPEC F1, F2): whose reviews and comments steer a Work, validated
// against GitHub's documented author_association values; absent means the default of standing.ts.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { loadConfig } from './config.js';
import { ConfigError } from './errors.js';

const dir = mkdtempSync(join(tmpdir(), 'fixloop-config-'));
after(() => rmSync(dir, { recursive: true, force: true }));
function withWork(extra: Record<string, unknown>): string {
  const path = join(dir, `fixloop-${Math.random().toString(36).slice(2)}.json`);
  const work = { name: 'shop', account: 'acme', repositories: [{ name: 'acme/shop', role: 'data' }], ...extra };
  writeFileSync(path, JSON.stringify({ works: [work] }));
  return path;
}
const load = (file: string) => loadConfig({ env: { WEBHOOK_SECRET: 'shh' }, file });

describe('works[].trustedAssociations (F1, F2)', () => {
  it('F1: absent, the Work carries no list (standing.ts applies OWNER, MEMBER, COLLABORATOR)', () => {
    assert.equal(load(withWork({})).works[0]?.trustedAssociations, undefined);
  });

  it('F1: a list of GitHub association values is kept as given, frozen', () => {
    const c = load(withWork({ trustedAssociations: ['OWNER', 'CONTRIBUTOR'] }));
    assert.deepEqual(c.works[0]?.trustedAssociations, ['OWNER', 'CONTRIBUTOR']);
    assert.ok(Object.isFrozen(c.works[0]?.trustedAssociations));
  });

  it('F1: an empty list is allowed (only the listed reviewer bots steer)', () => {
    assert.deepEqual(load(withWork({ trustedAssociations: [] })).works[0]?.trustedAssociations, []);
  });

  for (const bad of ['ADMIN', 'owner', 'maintainer']) {
    it(`F1: "${bad}" is not one of GitHub's author_association values: a ConfigError naming the key`, () => {
      const path = withWork({ trustedAssociations: ['MEMBER', bad] });
      assert.throws(
        () => load(path),
        (e: unknown) => e instanceof ConfigError && e.source === path && e.message.includes('trustedAssociations'),
      );
    });
  }
});
