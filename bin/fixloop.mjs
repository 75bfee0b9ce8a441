#!/usr/bin/env node
// Launcher for `npx fixloop …` without a build (SPEC M1): registers tsx's ESM loader, then runs
// the TypeScript CLI in src/cli/main.ts and hands its exit code to the process.
import { register } from 'tsx/esm/api';

register();
const { run } = await import(new URL('../src/cli/main.ts', import.meta.url).href);
process.exitCode = await run(process.argv.slice(2));
