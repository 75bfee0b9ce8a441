#!/usr/bin/env node
// Launcher for `npx fixloop …` (SPEC M1): runs the built CLI in dist/ when there is one (`npm run
// build`, which `npm start` does first), else the TypeScript sources through tsx's loader.
import { existsSync } from 'node:fs';

const built = new URL('../dist/cli/main.js', import.meta.url);
let entry = built;
if (!existsSync(built)) {
  const { register } = await import('tsx/esm/api');
  register();
  entry = new URL('../src/cli/main.ts', import.meta.url);
}
const { run } = await import(entry.href);
process.exitCode = await run(process.argv.slice(2));
