// bin/fixloop.mjs picks what `npm start` and `npx fixloop` run (decision 0026): dist/ when it is at
// least as new as every source, src/ through tsx otherwise — so an install without dev dependencies
// starts from the sources and a stale build never runs. Each case is a copy of the launcher beside a
// stub dist/ and src/ that print which one ran; the copies sit under .tmp/ of this checkout so that
// tsx resolves from its node_modules.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
mkdirSync(join(ROOT, '.tmp'), { recursive: true });
const BASE = mkdtempSync(join(ROOT, '.tmp', 'launcher-'));

/** An install with the given parts; each entry point prints its name. Times are seconds since the epoch. */
function install(name: string, parts: { dist?: number; src?: number; testFile?: number }): string {
  const dir = join(BASE, name);
  mkdirSync(join(dir, 'bin'), { recursive: true });
  copyFileSync(join(ROOT, 'bin', 'fixloop.mjs'), join(dir, 'bin', 'fixloop.mjs'));
  writeFileSync(join(dir, 'package.json'), '{"type":"module"}');
  if (parts.dist !== undefined) {
    mkdirSync(join(dir, 'dist', 'cli'), { recursive: true });
    const file = join(dir, 'dist', 'cli', 'main.js');
    writeFileSync(file, "export async function run() { process.stdout.write('dist'); return 0; }\n");
    utimesSync(file, parts.dist, parts.dist);
  }
  if (parts.src !== undefined) {
    mkdirSync(join(dir, 'src', 'cli'), { recursive: true });
    const file = join(dir, 'src', 'cli', 'main.ts');
    writeFileSync(file, "export async function run(): Promise<number> { process.stdout.write('src'); return 0; }\n");
    utimesSync(file, parts.src, parts.src);
    if (parts.testFile !== undefined) {
      const spec = join(dir, 'src', 'cli', 'main.test.ts');
      writeFileSync(spec, '');
      utimesSync(spec, parts.testFile, parts.testFile);
    }
  }
  return dir;
}

const ran = (dir: string): string =>
  execFileSync(process.execPath, [join(dir, 'bin', 'fixloop.mjs')], { encoding: 'utf8' });

describe('the launcher (decision 0026)', () => {
  after(() => rmSync(BASE, { recursive: true, force: true }));

  test('the image layout, dist/ without src/, runs dist/', () => {
    assert.equal(ran(install('image', { dist: 1000 })), 'dist');
  });

  test('a build at least as new as the sources runs dist/', () => {
    assert.equal(ran(install('built', { dist: 2000, src: 1000 })), 'dist');
  });

  test('a production install without a build (npm ci --omit=dev) runs src/ through tsx', () => {
    assert.equal(ran(install('no-build', { src: 1000 })), 'src');
  });

  test('a source newer than the build runs src/, never the stale dist/', () => {
    assert.equal(ran(install('stale', { dist: 1000, src: 2000 })), 'src');
  });

  test('a test file edited after the build does not make the build stale', () => {
    assert.equal(ran(install('test-edited', { dist: 2000, src: 1000, testFile: 3000 })), 'dist');
  });
});
