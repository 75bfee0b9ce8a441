// works[].updateBranch (issue 36 §2): whether a branch only behind its base is brought up to date
// through the host (no model run); absent means on. A value that is not a boolean is refused.
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

describe('works[].updateBranch (issue 36)', () => {
  it('absent, the Work carries none (branch updates are on)', () => {
    assert.equal(load(withWork({})).works[0]?.updateBranch, undefined);
  });
  it('false turns them off for the Work, on GitLab too', () => {
    assert.equal(load(withWork({ updateBranch: false })).works[0]?.updateBranch, false);
    assert.equal(load(withWork({ provider: 'gitlab', updateBranch: false })).works[0]?.updateBranch, false);
  });
  it('a value that is not a boolean is a ConfigError naming the key', () => {
    const path = withWork({ updateBranch: 'no' });
    assert.throws(
      () => load(path),
      (e: unknown) => e instanceof ConfigError && e.source === path && e.message.includes('updateBranch'),
    );
  });
});
