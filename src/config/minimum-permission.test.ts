// works[].minimumPermission (SPEC F1, F2, decision 0042): the least permission on the repository a
// person needs to steer a GitHub Work; absent means write (standing.ts). GitLab Works refuse the key.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { loadConfig } from './config.js';
import { ConfigError } from './errors.js';
import { MINIMUM_PERMISSIONS } from '../core/standing.js';

const dir = mkdtempSync(join(tmpdir(), 'fixloop-config-'));
after(() => rmSync(dir, { recursive: true, force: true }));
function withWork(extra: Record<string, unknown>): string {
  const path = join(dir, `fixloop-${Math.random().toString(36).slice(2)}.json`);
  const work = { name: 'shop', account: 'acme', repositories: [{ name: 'acme/shop', role: 'data' }], ...extra };
  writeFileSync(path, JSON.stringify({ works: [work] }));
  return path;
}
const load = (file: string) => loadConfig({ env: { WEBHOOK_SECRET: 'shh' }, file });

describe('works[].minimumPermission (F1, F2, decision 0042)', () => {
  it('F1: absent, the Work carries none (standing.ts applies write)', () => {
    assert.equal(load(withWork({})).works[0]?.minimumPermission, undefined);
  });

  for (const value of MINIMUM_PERMISSIONS) {
    it(`F1: "${value}" is kept as given`, () => {
      assert.equal(load(withWork({ minimumPermission: value })).works[0]?.minimumPermission, value);
    });
  }

  for (const bad of ['none', 'Write', 'push', 'owner']) {
    it(`F1: "${bad}" is not a GitHub role a Work may require: a ConfigError naming the key`, () => {
      const path = withWork({ minimumPermission: bad });
      assert.throws(
        () => load(path),
        (e: unknown) => e instanceof ConfigError && e.source === path && e.message.includes('minimumPermission'),
      );
    });
  }

  it('F1: a gitlab Work refuses it (its standing is the member access level)', () => {
    const path = withWork({ provider: 'gitlab', minimumPermission: 'write' });
    assert.throws(
      () => load(path),
      (e: unknown) => e instanceof ConfigError && e.message.includes('minimumPermission is for GitHub Works'),
    );
  });
});
