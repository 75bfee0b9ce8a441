// works[].diffBound (issue 36, decision 0070): the bound on the agent's diff growth per Work; absent
// (or a count absent) means the defaults, a count below 1 or an unknown key is an error naming the key.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { loadConfig } from './config.js';
import { ConfigError } from './errors.js';
import { boundOfWork } from '../core/diff-bound.js';

const dir = mkdtempSync(join(tmpdir(), 'fixloop-config-'));
after(() => rmSync(dir, { recursive: true, force: true }));
function withWork(extra: Record<string, unknown>): string {
  const path = join(dir, `fixloop-${Math.random().toString(36).slice(2)}.json`);
  const work = { name: 'shop', account: 'acme', repositories: [{ name: 'acme/shop', role: 'data' }], ...extra };
  writeFileSync(path, JSON.stringify({ works: [work] }));
  return path;
}
const load = (file: string) => loadConfig({ env: { WEBHOOK_SECRET: 'shh' }, file });

describe('works[].diffBound (issue 36)', () => {
  it('absent: the Work gets 1,000 changed lines or 50 files', () => {
    assert.deepEqual(boundOfWork(load(withWork({})).works[0]), { lines: 1000, files: 50 });
  });

  it('one count set keeps the default for the other', () => {
    assert.deepEqual(boundOfWork(load(withWork({ diffBound: { files: 20 } })).works[0]), { lines: 1000, files: 20 });
  });

  for (const bad of [{ files: 0 }, { lines: -1 }, { lines: 1.5 }, { files: 20, size: 3 }]) {
    it(`${JSON.stringify(bad)} is an error naming diffBound`, () => {
      const path = withWork({ diffBound: bad });
      assert.throws(
        () => load(path),
        (e: unknown) => e instanceof ConfigError && e.source === path && e.message.includes('diffBound'),
      );
    });
  }
});
