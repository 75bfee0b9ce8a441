#!/usr/bin/env node
// Launcher for `npx fixloop …` and `npm start` (SPEC M1): runs the built CLI in dist/ when it is at
// least as new as every source in src/ (or src/ is absent, as in the image), else the TypeScript
// sources through tsx's loader — so an install without dev dependencies runs, and a stale dist/ never
// does (decision 0026). The check is a stat of each source file, a few milliseconds.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const built = new URL('../dist/cli/main.js', import.meta.url);
const sources = new URL('../src/', import.meta.url);

function newestSource() {
  if (!existsSync(sources)) return 0;
  let newest = 0;
  for (const file of readdirSync(sources, { recursive: true })) {
    if (!file.endsWith('.ts') || file.endsWith('.test.ts')) continue;
    newest = Math.max(newest, statSync(new URL(file, sources)).mtimeMs);
  }
  return newest;
}

let entry = built;
if (!existsSync(built) || statSync(built).mtimeMs < newestSource()) {
  const { register } = await import('tsx/esm/api');
  // The checkout's tsconfig, wherever fixloop is started from: without it tsx compiles the dashboard's
  // JSX for React, and every page answers 500 ("React is not defined").
  const tsconfig = new URL('../tsconfig.json', import.meta.url);
  register(existsSync(tsconfig) ? { tsconfig: fileURLToPath(tsconfig) } : {});
  entry = new URL('../src/cli/main.ts', import.meta.url);
}
const { run } = await import(entry.href);
process.exitCode = await run(process.argv.slice(2));
