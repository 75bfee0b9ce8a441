// `npm start`'s first step. In a checkout with its dev dependencies (the README's `npm ci && npm
// start`) it compiles src/ to dist/, so the server runs what the sources say. An install without them
// (`npm ci --omit=dev`) has no TypeScript and skips it: bin/fixloop.mjs then runs dist/ when it is as
// new as src/ (built by an image or CI), else src/ through tsx, a runtime dependency (decision 0026).
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';

let tsc;
try {
  tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
} catch {
  process.exit(0); // a production install: nothing to build
}
const built = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { stdio: 'inherit' });
process.exit(built.status ?? 1);
