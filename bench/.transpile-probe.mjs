import { transformSync } from 'esbuild';
import { readdirSync, readFileSync, writeFileSync, mkdirSync, symlinkSync, statSync } from 'node:fs';
import { join, dirname, relative } from 'node:path';
const out = process.argv[2];
function walk(d) { return readdirSync(d).flatMap(f => { const p = join(d, f); return statSync(p).isDirectory() ? walk(p) : [p]; }); }
for (const f of walk('src').filter(f => f.endsWith('.ts') && !f.endsWith('.test.ts'))) {
  const dst = join(out, f.replace(/\.ts$/, '.js'));
  mkdirSync(dirname(dst), { recursive: true });
  writeFileSync(dst, transformSync(readFileSync(f, 'utf8'), { loader: 'ts', format: 'esm', target: 'node20' }).code);
}
writeFileSync(join(out, 'package.json'), readFileSync('package.json'));
symlinkSync('/work/main/node_modules', join(out, 'node_modules'));
