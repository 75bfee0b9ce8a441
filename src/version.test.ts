// The version fixloop reports is package.json's, found from where this module sits.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { packageVersion } from './version.js';

test('packageVersion reads package.json, not the 0.0.0 fallback', () => {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
  assert.notEqual(pkg.version, '0.0.0');
  assert.equal(packageVersion(), pkg.version);
});
