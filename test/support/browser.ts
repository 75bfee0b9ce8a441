// Real headless Chromium for the dashboard's tests (SPEC M4): Debian's /usr/bin/chromium driven by
// playwright-core (never a downloaded browser), on a fresh profile each time. Screenshots go to
// test-artifacts/ at the repository root (git-ignored).
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type BrowserContext } from 'playwright-core';

export const CHROMIUM = process.env.FIXLOOP_TEST_CHROMIUM ?? '/usr/bin/chromium';
export const ARTIFACTS = fileURLToPath(new URL('../../test-artifacts/', import.meta.url));

export async function launchBrowser(): Promise<{ context: BrowserContext; close(): Promise<void> }> {
  const profile = mkdtempSync(join(tmpdir(), 'fixloop-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
  return {
    context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

export function artifactPath(name: string): string {
  mkdirSync(ARTIFACTS, { recursive: true });
  return join(ARTIFACTS, name);
}
