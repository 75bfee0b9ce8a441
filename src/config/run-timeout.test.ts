// Issue 35: every automatic run's window (`runTimeoutMinutes`): an hour by default, 1–1440 minutes, a bad
// value fails start-up rather than leaving a run unbounded.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { loadConfig } from './config.js';
import { ConfigError } from './errors.js';
import { tempDir } from '../../test/support/temp-dir.js';

const dir = tempDir('fixloop-run-timeout-');
const base = { WEBHOOK_SECRET: 'shh' };
let n = 0;
function file(text: string): string {
  const path = join(dir, `${n++}.yaml`);
  writeFileSync(path, text);
  return path;
}

describe('the run window (issue 35)', () => {
  it('an automatic run gets an hour by default', () => {
    assert.equal(loadConfig({ env: base }).runTimeoutMs, 60 * 60_000);
  });

  it('the config file sets it in minutes', () => {
    assert.equal(loadConfig({ env: base, file: file('runTimeoutMinutes: 5\n') }).runTimeoutMs, 5 * 60_000);
    assert.equal(loadConfig({ env: base, file: file('runTimeoutMinutes: 1440\n') }).runTimeoutMs, 1440 * 60_000);
  });

  it('zero, a fraction, more than a day or text is a ConfigError naming the key', () => {
    for (const bad of ['0', '1.5', '1441', 'soon']) {
      assert.throws(
        () => loadConfig({ env: base, file: file(`runTimeoutMinutes: ${bad}\n`) }),
        (err: unknown) => err instanceof ConfigError && /runTimeoutMinutes/.test(err.message),
        bad,
      );
    }
  });
});
