// The README's picture of the board (docs/images/board.png): runs `npm run demo` (scripts/demo.ts: the
// whole loop on this machine, fixloop serve on SQLite), waits until its story has ended, signs in to
// the dashboard it serves with the token it prints, and saves the board as a PNG. Debian's Chromium
// driven by playwright-core, as the dashboard's tests do (test/support/browser.ts); no browser download.
//   npx tsx scripts/board-screenshot.ts [out.png]      (default docs/images/board.png)
import { spawn } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchBrowser } from '../test/support/browser.js';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const OUT = resolve(process.argv[2] ?? `${ROOT}docs/images/board.png`);
/** The demo's whole story takes about 12 s here; anything past this is a broken demo, not a slow one. */
const DEMO_TIMEOUT_MS = 120_000;

/** Starts the demo and resolves with the address and token it prints once the loop has run to its end. */
function startDemo(): Promise<{ url: string; token: string; root: string; stop(): Promise<void> }> {
  const demo = spawn(process.execPath, ['--import', 'tsx', 'scripts/demo.ts'], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const stop = (): Promise<void> =>
    new Promise((done) => {
      if (demo.exitCode !== null) return done();
      demo.once('exit', () => done());
      demo.kill('SIGINT');
    });
  return new Promise((resolveDemo, reject) => {
    let out = '';
    const timer = setTimeout(() => {
      void stop();
      reject(new Error(`the demo did not reach its end within ${DEMO_TIMEOUT_MS / 1000} s:\n${out}`));
    }, DEMO_TIMEOUT_MS);
    demo.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the demo exited (${code}) before its end:\n${out}`));
    });
    demo.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
      process.stdout.write(chunk);
      const end = /The loop ran to its end\. Look around at (\S+)\/ \(token (\S+)\)/.exec(out);
      if (!end) return;
      clearTimeout(timer);
      demo.stdout.removeAllListeners('data');
      demo.stdout.resume();
      const root = /fixloop demo in (\S+)/.exec(out)?.[1] ?? '';
      resolveDemo({ url: end[1]!, token: end[2]!, root, stop });
    });
  });
}

const demo = await startDemo();
const browser = await launchBrowser();
try {
  const page = await browser.context.newPage();
  await page.setViewportSize({ width: 1200, height: 300 });
  await page.goto(`${demo.url}/`);
  await page.fill('input[name=token]', demo.token);
  await Promise.all([page.waitForNavigation(), page.click('button[type=submit]')]);
  if (new URL(page.url()).pathname !== '/') throw new Error(`sign-in did not lead to the board: ${page.url()}`);
  mkdirSync(dirname(OUT), { recursive: true });
  await page.screenshot({ path: OUT, fullPage: true });
  console.log(`the board: ${OUT}`);
} finally {
  await browser.close();
  await demo.stop();
  // The demo keeps its files when stopped by hand, for a person to look at; this picture needs none of them.
  if (demo.root) rmSync(demo.root, { recursive: true, force: true });
}
