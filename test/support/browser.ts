// Real headless Chromium for the dashboard's tests (SPEC M4): Debian's /usr/bin/chromium driven by
// playwright-core (never a downloaded browser), on a fresh profile each time. Screenshots go to
// test-artifacts/ at the repository root (git-ignored).
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

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

/** Signs the page in to the dashboard at `url` with the API token, as a person does on /sign-in. */
export async function signIn(page: Page, url: string, token: string): Promise<void> {
  await page.goto(`${url}/sign-in`);
  await page.fill('input[name=token]', token);
  await Promise.all([page.waitForNavigation(), page.click('button[type=submit]')]);
}

const AXE = readFileSync(fileURLToPath(new URL('../../node_modules/axe-core/axe.min.js', import.meta.url)), 'utf8');

/** axe-core's serious and critical violations on the page as it is (injected past the CSP by evaluate). */
export async function axeViolations(page: Page): Promise<string[]> {
  await page.evaluate(AXE);
  return (await page.evaluate(() =>
    (window as any).axe
      .run(document, { resultTypes: ['violations'] })
      .then((r: any) =>
        r.violations
          .filter((v: any) => v.impact === 'serious' || v.impact === 'critical')
          .map((v: any) => `${v.id} (${v.impact}): ${v.nodes.map((n: any) => n.target.join(' ')).join(', ')}`),
      ),
  )) as string[];
}
