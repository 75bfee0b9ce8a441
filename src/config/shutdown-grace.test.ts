// V4: the shutdown's grace for running agents (FIXLOOP_SHUTDOWN_GRACE_MS, `shutdownGraceMs`): 60 s by
// default, 0 allowed (do not wait), the variable wins over the file, and a bad value fails start-up.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { loadConfig } from './config.js';
import { ConfigError } from './errors.js';

const dir = mkdtempSync(join(tmpdir(), 'fixloop-grace-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const base = { WEBHOOK_SECRET: 'shh' };
function file(text: string): string {
  const path = join(dir, `${Math.random().toString(36).slice(2)}.yaml`);
  writeFileSync(path, text);
  return path;
}

describe('the shutdown grace (V4)', () => {
  it('V4: running agents get 60 s by default', () => {
    assert.equal(loadConfig({ env: base }).shutdownGraceMs, 60_000);
  });

  it('V4: the config file sets it, 0 included (do not wait)', () => {
    assert.equal(loadConfig({ env: base, file: file('shutdownGraceMs: 0\n') }).shutdownGraceMs, 0);
    assert.equal(loadConfig({ env: base, file: file('shutdownGraceMs: 90000\n') }).shutdownGraceMs, 90_000);
  });

  it('V4: FIXLOOP_SHUTDOWN_GRACE_MS wins over the file', () => {
    const c = loadConfig({ env: { ...base, FIXLOOP_SHUTDOWN_GRACE_MS: '1500' }, file: file('shutdownGraceMs: 0\n') });
    assert.equal(c.shutdownGraceMs, 1_500);
  });

  it('V4: a negative or unreadable grace is a ConfigError', () => {
    assert.throws(() => loadConfig({ env: { ...base, FIXLOOP_SHUTDOWN_GRACE_MS: '-1' } }), ConfigError);
    assert.throws(() => loadConfig({ env: { ...base, FIXLOOP_SHUTDOWN_GRACE_MS: 'soon' } }), ConfigError);
    assert.throws(() => loadConfig({ env: base, file: file('shutdownGraceMs: -5\n') }), ConfigError);
  });
});
