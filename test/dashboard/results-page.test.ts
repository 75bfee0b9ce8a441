// SPEC V1 (issue 33) in Debian's Chromium: a red arrives by webhook, the loop claims and dispatches an
// attempt, the fake agent reports its spend through the API with its run token, the poll's green is
// written, and the Results page shows the numbers a person counts by hand — as text and as charts with
// a title and description — at 1280 and 390 px without horizontal scroll, and with no serious or
// critical axe-core violation. `GET /api/results` answers the same figures.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { startHarness, API_TOKEN, REPO, SECRET, type Harness } from '../support/harness.js';
import { checkRunPayload, delivery, post } from '../support/deliveries.js';
import { artifactPath, axeViolations, launchBrowser, signIn } from '../support/browser.js';
import { openDatabase, type Db } from '../../src/ledger/db.js';
import { createLedger } from '../../src/ledger/ledger.js';

const sha = (n: number) => n.toString(16).padStart(40, 'e');

async function redPush(h: Harness, pr: number, n: number, name: string) {
  const d = delivery(
    'check_run',
    checkRunPayload({
      repo: REPO,
      sha: sha(n),
      id: 5000 + n,
      name,
      pr: { number: pr, headSha: sha(n) },
      output: `FAIL ${name}\nexpected 1, got 2`,
    }),
  );
  const res = await post(h.url, d, SECRET);
  assert.equal(res.status, 202, JSON.stringify(res.body));
  await h.app.settle();
}

describe('Results in Chromium (V1, sqlite)', () => {
  let h: Harness;
  let db: Db;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  let page: Page;

  before(async () => {
    h = await startHarness('sqlite', { configExtra: { guards: { currency: 'EUR' } } });
    db = openDatabase(h.db.url);
    const ledger = createLedger(db, { now: () => new Date() });
    // Two pull requests: #7 fixed by the loop, #8 still red.
    for (const [pr, n, check, spend] of [
      [7, 1, 'test', 1.25],
      [8, 2, 'lint', 0.5],
    ] as const) {
      const created = await h.api('POST', '/api/tasks', {
        repository: 'acme/shop',
        pullRequest: pr,
        branch: `agent/${pr}`,
      });
      assert.equal(created.status, 201);
      await redPush(h, pr, n, check);
      const run = h.runner.starts.at(-1)!;
      const res = await fetch(`${h.url}/api/run/spend`, {
        method: 'POST',
        headers: { authorization: `Bearer ${run.runToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: spend }),
      });
      assert.equal(res.status, 200, await res.text());
      h.runner.finish(run.runId);
      await h.app.settle();
      if (pr === 7) {
        // The agent's push, and the poll's green for it.
        const id = created.body.id as number;
        assert.ok(await ledger.advanceHead(id, sha(10), new Date().toISOString(), 'pending'));
        await ledger.setCiStateForHead(id, sha(10), 'passing');
      }
    }
    browser = await launchBrowser();
    page = await browser.context.newPage();
    await signIn(page, h.url, API_TOKEN);
  });
  after(async () => {
    await browser?.close();
    await db?.close();
    await h?.close();
  });

  test('V1: without the session the page leads to sign-in, and the API wants its token', async () => {
    const res = await fetch(`${h.url}/results`, { redirect: 'manual' });
    assert.equal(res.status, 302);
    assert.equal(res.headers.get('location'), '/sign-in');
    assert.equal((await fetch(`${h.url}/api/results`)).status, 401);
  });

  test('V1: the API answers the figures counted by hand', async () => {
    const { status, body } = await h.api('GET', '/api/results');
    assert.equal(status, 200);
    assert.equal(body.currency, 'EUR');
    assert.equal(body.total.pullRequests, 2);
    assert.equal(body.total.greenWithoutPerson, 1);
    assert.equal(body.total.attempts, 2);
    assert.deepEqual(
      body.byAgent.map((a: any) => a.agent),
      ['recording'],
      'the runner fixloop was given, by its kind',
    );
    assert.equal(body.total.spend, 1.75);
    assert.equal(body.total.spendPerGreen, 1.75);
    assert.deepEqual(
      body.costliestChecks.map((c: any) => [c.check, c.attempts, c.spend]),
      [
        ['test', 1, 1.25],
        ['lint', 1, 0.5],
      ],
    );
  });

  test('V1: the page shows the numbers, the charts with their words, and the navigation leads to it', async () => {
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(`${h.url}/`);
    await Promise.all([page.waitForNavigation(), page.getByRole('link', { name: 'Results' }).click()]);
    assert.equal(new URL(page.url()).pathname, '/results');
    const figure = (name: string) => page.textContent(`[data-figure="${name}"]`);
    assert.match((await figure('pull-requests')) ?? '', /^2 pull requests/);
    assert.match((await figure('green-without-person')) ?? '', /^1 went green with no person's help \(50%\)/);
    assert.match((await figure('attempts-per-green')) ?? '', /^2 attempts per green/);
    assert.match(
      (await figure('spend-per-green')) ?? '',
      /1\.75 EUR spent per green pull request \(1\.75 EUR in all\)/,
    );
    // The costliest checks: a chart named and described, and the same numbers in a table beside it.
    assert.equal(await page.textContent('#chart-checks-title'), 'Spend by failing check, in EUR');
    assert.match((await page.textContent('#chart-checks-desc')) ?? '', /test: 1\.25 EUR, 1 attempts; lint: 0\.50 EUR/);
    assert.equal(await page.getAttribute('svg#chart-checks, svg[aria-labelledby^="chart-checks"]', 'role'), 'img');
    const rows = await page.$$eval('[data-table=checks] tbody tr', (trs) =>
      trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)),
    );
    assert.deepEqual(rows, [
      ['test', '1', '1.25', '1'],
      ['lint', '1', '0.50', '1'],
    ]);
    assert.equal(await page.locator('svg.chart rect.chart-bar').count(), 2 + 5, 'two checks, five time spans');
    assert.match((await page.textContent('table.results caption')) ?? '', /./);
    await page.screenshot({ path: artifactPath('results.png'), fullPage: true });
  });

  test('V1: a period with nothing in it says so, and a bad one says why', async () => {
    await page.goto(`${h.url}/results?from=2020-01-01&to=2020-01-31`);
    assert.match((await page.textContent('[data-figure="pull-requests"]')) ?? '', /^0 pull requests/);
    assert.match((await page.textContent('#checks-h + p')) ?? '', /No attempt was made/);
    const bad = await page.goto(`${h.url}/results?from=2020-02-01&to=2020-01-01`);
    assert.equal(bad?.status(), 400);
    assert.match((await page.textContent('body')) ?? '', /`from` must come before `to`/);
  });

  test('V1: at 390 px nothing scrolls sideways, and axe-core finds no serious or critical violation', async () => {
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 900 });
      await page.goto(`${h.url}/results`);
      const o = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, inner: window.innerWidth }));
      assert.ok(o.scroll <= o.inner, `at ${width} px the page is ${o.scroll} px wide`);
      const found = await axeViolations(page);
      assert.deepEqual(found, [], `at ${width} px`);
    }
    await page.screenshot({ path: artifactPath('results-390.png'), fullPage: true });
  });
});
