// `npm ci`'s build (npm runs `prepare` after installing): compiles src/ to dist/ once, at install,
// so `npm start` runs the compiled build and answers in about a second instead of compiling first
// (issue 32). Nothing to do without TypeScript (`npm ci --omit=dev`) or without the sources (an
// image's install stage): bin/fixloop.mjs then runs dist/ only while it is as new as every source,
// else src/ through tsx — a stale build never runs (decision 0026).
import { existsSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';

if (!existsSync('src') || !existsSync('tsconfig.build.json')) process.exit(0);
let tsc;
try {
  tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
} catch {
  process.exit(0); // a production install: nothing to build with
}
const built = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { stdio: 'inherit' });
process.exit(built.status ?? 1);
