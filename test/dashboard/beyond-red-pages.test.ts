// Issue 36 on the pages people read, in Debian's Chromium: a red `main` holding two pull requests is
// one "Base branches failing" entry in the Inbox, in words, linking each held pull request; a check
// ruled to a person says so on its Task page ("rule: e2e* → a person"). Both read at 1280 and 390 px
// without sideways scroll and with no serious or critical axe-core violation.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { startGitHubHarness, sha, type GitHubHarness } from '../support/github-harness.js';
import { API_TOKEN } from '../support/harness.js';
import { artifactPath, axeViolations, launchBrowser, signIn } from '../support/browser.js';

const REPO = 'acme/shop';

const WORKS = [
  {
    name: 'shop',
    account: 'acme',
    repositories: [
      { name: 'acme/shop', role: 'data' },
      { name: 'acme/shop-site', role: 'website' },
    ],
    checks: [
      { name: 'e2e*', attempts: 0 },
      { name: '*', attempts: 3 },
    ],
  },
];

async function openTask(h: GitHubHarness, pr: number, head: string): Promise<number> {
  const branch = `agent/${pr}`;
  const { body } = await h.api('POST', '/api/tasks', { repository: REPO, pullRequest: pr, branch });
  h.fake.addPull(REPO, pr, { headSha: sha(head), headRef: branch });
  return body.id as number;
}

async function readsAtBothWidths(page: Page, url: string, shot: string): Promise<void> {
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: 900 });
    await page.goto(url);
    const o = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, inner: window.innerWidth }));
    assert.ok(o.scroll <= o.inner, `at ${width} px ${url} is ${o.scroll} px wide`);
    assert.deepEqual(await axeViolations(page), [], `${url} at ${width} px`);
    await page.screenshot({ path: artifactPath(`${shot}-${width}.png`), fullPage: true });
  }
}

describe('issue 36 on the Inbox and the Task page, in Chromium (sqlite)', () => {
  let h: GitHubHarness;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  let page: Page;
  let ruled: number;

  before(async () => {
    h = await startGitHubHarness('sqlite', { configExtra: { works: WORKS } });
    // main fails `test`; pull requests 51 and 52 fail it too: both held by the red base.
    h.fake.setBranch(REPO, 'main', sha('m'));
    h.fake.addCheckRun(REPO, sha('m'), { name: 'test', status: 'completed', conclusion: 'failure' });
    for (const [pr, c] of [
      [51, 'a'],
      [52, 'b'],
    ] as const) {
      await openTask(h, pr, c);
      h.fake.addCheckRun(REPO, sha(c), { name: 'test', status: 'completed', conclusion: 'failure' });
    }
    // Pull request 53 fails `e2e (chrome)`, a check its Work hands to a person.
    ruled = await openTask(h, 53, 'c');
    h.fake.addCheckRun(REPO, sha('c'), {
      name: 'e2e (chrome)',
      status: 'completed',
      conclusion: 'failure',
      outputSummary: 'checkout flow: timeout waiting for #pay',
    });
    h.clock.advance(120_000);
    await h.tick();
    await h.app.settle();
    assert.equal(h.runner.starts.length, 0, 'no agent run for any of them');

    browser = await launchBrowser();
    page = await browser.context.newPage();
    await signIn(page, h.url, API_TOKEN);
  });
  after(async () => {
    await browser?.close();
    await h?.close();
  });

  test('the Inbox tells the red base once, in words, with the pull requests it holds', async () => {
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(`${h.url}/inbox`);
    assert.equal(await page.textContent('h2#base-reds'), 'Base branches failing');
    const text = (await page.textContent('section[aria-labelledby="base-reds"]')) ?? '';
    assert.match(text, /main of acme\/shop is failing/);
    assert.deepEqual(
      await page.$$eval('section[aria-labelledby="base-reds"] .reason code', (cs) => cs.map((c) => c.textContent)),
      ['test'],
      'the check is named as code, not in raw backticks',
    );
    assert.equal(
      await page.textContent('h2#waiting'),
      'Pull requests waiting for you',
      "the pull request ruled to a person is under its own heading, not the base's",
    );
    const held = await page.$$eval('section[aria-labelledby="base-reds"] a', (as) =>
      as.map((a) => [a.textContent?.trim(), a.getAttribute('href')]),
    );
    assert.deepEqual(held, [
      ['acme/shop#51', 'https://github.com/acme/shop/pull/51'],
      ['acme/shop#52', 'https://github.com/acme/shop/pull/52'],
    ]);
    assert.doesNotMatch(text, /base_red|red_on_base|\bid\b/, 'no ledger words');
    await readsAtBothWidths(page, `${h.url}/inbox`, 'inbox-base-red');
  });

  test("the Task page names the check's rule: a person", async () => {
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(`${h.url}/tasks/${ruled}`);
    assert.equal((await page.textContent('[data-check-rule]'))?.trim(), 'rule: e2e* → a person');
    assert.ok(await page.isVisible('[data-check-rule]'), 'the rule line is visible');
    await readsAtBothWidths(page, `${h.url}/tasks/${ruled}`, 'task-rule');
  });
});
