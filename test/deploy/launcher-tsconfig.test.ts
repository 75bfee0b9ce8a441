// bin/fixloop.mjs runs the sources with the checkout's own tsconfig.json wherever fixloop is started
// from (issue 32): tsx otherwise looks for a tsconfig in the current directory, finds none when a
// service starts in its data directory, and compiles the dashboard's JSX for React — every page then
// answered 500 ("React is not defined"). The stub install below resolves an import only through its
// tsconfig's `paths`, and is started from a directory of its own.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
mkdirSync(join(ROOT, '.tmp'), { recursive: true });
// Under .tmp/ of this checkout, so that tsx resolves from its node_modules.
const BASE = mkdtempSync(join(ROOT, '.tmp', 'launcher-tsconfig-'));
after(() => rmSync(BASE, { recursive: true, force: true }));

test("the sources run with the checkout's tsconfig when fixloop starts in another directory", () => {
  const dir = join(BASE, 'install');
  mkdirSync(join(dir, 'bin'), { recursive: true });
  mkdirSync(join(dir, 'src', 'cli'), { recursive: true });
  copyFileSync(join(ROOT, 'bin', 'fixloop.mjs'), join(dir, 'bin', 'fixloop.mjs'));
  writeFileSync(join(dir, 'package.json'), '{"type":"module"}');
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({ compilerOptions: { baseUrl: '.', paths: { '@probe/*': ['src/*'] } } }),
  );
  writeFileSync(join(dir, 'src', 'probe.ts'), "export const where: string = 'tsconfig';\n");
  writeFileSync(
    join(dir, 'src', 'cli', 'main.ts'),
    "import { where } from '@probe/probe';\nexport async function run(): Promise<number> { process.stdout.write(where); return 0; }\n",
  );
  const elsewhere = join(BASE, 'data');
  mkdirSync(elsewhere);
  const out = execFileSync(process.execPath, [join(dir, 'bin', 'fixloop.mjs')], { cwd: elsewhere, encoding: 'utf8' });
  assert.equal(out, 'tsconfig');
});
