// Issue 33 (SPEC M4, V2) in Debian's Chromium at 1280 and 390 px: the board's summary strip and order
// (needs-you first), the Task page's header showing the failure that stopped the loop (not the first
// red), the global stop asking first and saying who set it, a new Task appearing without a reload, the
// "disconnected — reconnecting" state, no horizontal scroll on a phone, and axe-core finding no serious
// or critical violation on the board, a Task page, the Inbox, Results (when it exists) and sign-in.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { startHarness, API_TOKEN, REPO, SECRET, type Harness } from '../support/harness.js';
import { checkRunPayload, delivery, post } from '../support/deliveries.js';
import { artifactPath, axeViolations, launchBrowser, signIn } from '../support/browser.js';

const sha = (n: number) => n.toString(16).padStart(40, 'c');
const FIRST_RED = 'FAIL test/sum.test.ts > adds\nexpected sum(2, 2) to be 4, got 5';
const STOPPING_RED = 'FAIL test/sum.test.ts > negatives\nexpected sum(-1, 1) to be 0, got 2';

async function redPush(h: Harness, pr: number, n: number, output: string) {
  const payload = checkRunPayload({
    repo: REPO,
    sha: sha(n),
    id: 3000 + n,
    name: 'test',
    pr: { number: pr, headSha: sha(n) },
    output,
  });
  payload.check_run.html_url = `https://github.com/acme/shop/runs/${3000 + n}`;
  const d = delivery('check_run', payload);
  const res = await post(h.url, d, SECRET);
  assert.equal(res.status, 202, JSON.stringify(res.body));
  await h.app.settle();
}

async function act(page: Page, label: string) {
  await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: label }).first().click()]);
}

const overflow = (page: Page) =>
  page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, inner: window.innerWidth }));

describe('the dashboard made for people, in Chromium (issue 33, sqlite)', () => {
  let h: Harness;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  let page: Page;
  const ids: Record<string, number> = {};

  before(async () => {
    h = await startHarness('sqlite', {
      env: { TASK_CI_AUTO_RESUME_MAX_ATTEMPTS: '1' },
      adapters: { dashboardLivePollMs: 100 },
      configExtra: { guards: { costCeiling: 5, currency: 'EUR' } },
    });
    for (const [name, pr] of [
      ['stopped', 7],
      ['idle', 8],
      ['parked', 9],
    ] as const) {
      const created = await h.api('POST', '/api/tasks', {
        repository: 'acme/shop',
        pullRequest: pr,
        branch: `agent/fix-${pr}`,
      });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      ids[name] = created.body.id;
    }
    // #7: a red, an attempt that spends 1.50 and fixes nothing, a second red that stops the loop.
    await redPush(h, 7, 1, FIRST_RED);
    const run = h.runner.starts.at(-1)!;
    const spent = await fetch(`${h.url}/api/run/spend`, {
      method: 'POST',
      headers: { authorization: `Bearer ${run.runToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 1.25, sandbox: 0.25 }),
    });
    assert.equal(spent.status, 200, await spent.text());
    h.runner.finish(run.runId);
    await h.app.settle();
    await redPush(h, 7, 2, STOPPING_RED);
    assert.equal((await h.api('GET', `/api/tasks/${ids.stopped}`)).body.notice?.reason, 'budget_spent');
    assert.equal((await h.api('PUT', `/api/tasks/${ids.parked}/parked`, { parked: true })).status, 200);

    browser = await launchBrowser();
    page = await browser.context.newPage();
    await page.setViewportSize({ width: 1280, height: 900 });
    await signIn(page, h.url, API_TOKEN);
  });
  after(async () => {
    await browser?.close();
    await h?.close();
  });

  test('the summary strip counts what needs a person, what is being fixed, what is parked, and the spend in EUR', async () => {
    await page.goto(`${h.url}/`);
    const count = async (k: string) => (await page.textContent(`.summary [data-count=${k}]`))?.replace(/\s+/g, ' ');
    assert.match((await count('needs-you')) ?? '', /^1 needs you$/);
    assert.match((await count('being-fixed')) ?? '', /^0 being fixed$/);
    assert.match((await count('red-waiting')) ?? '', /^0 red and waiting$/);
    assert.match((await count('parked-off')) ?? '', /^1 parked or off$/);
    assert.match((await count('spend')) ?? '', /1\.50 EUR spent today · 1\.50 EUR this month/);
    // The Inbox badge in the navigation.
    assert.equal(await page.getAttribute('header nav .badge', 'data-inbox-count'), '1');
    // The repository filter is a list of the Works' repositories, not free text.
    const options = await page.$$eval('select[name=repository] option', (os) => os.map((o) => o.textContent));
    assert.deepEqual(options, ['every repository', 'acme/shop', 'acme/shop-site']);
  });

  test('needs-you first, then by last activity; ages in words with the exact time on hover', async () => {
    await page.goto(`${h.url}/`);
    const order = await page.$$eval('tr[data-task]', (rows) => rows.map((r) => Number(r.getAttribute('data-task'))));
    // #7 is the oldest Task (by id it would come last): it needs a person, so it leads; then the
    // parked #9 (parked a moment ago) before the idle #8, untouched since it was registered.
    assert.deepEqual(order, [ids.stopped, ids.parked, ids.idle]);
    const age = `tr[data-task="${ids.stopped}"] .age time`;
    assert.equal(await page.textContent(age), 'just now');
    assert.match((await page.getAttribute(age, 'title')) ?? '', /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/);
    // CI state in words as well as colour; the "↗" link has a name.
    assert.equal((await page.textContent(`tr[data-task="${ids.stopped}"] .ci`))?.replace(/\s+/g, ' ').trim(), 'red');
    assert.equal(
      await page.getAttribute(`tr[data-task="${ids.stopped}"] a.ext`, 'aria-label'),
      'acme/shop#7 on GitHub',
    );
    // The board's failure is the one that stopped the loop, not the first red.
    const failure = (await page.textContent(`tr[data-task="${ids.stopped}"] .failure`)) ?? '';
    assert.match(failure, /^test: FAIL test\/sum\.test\.ts > negatives/);
    await page.screenshot({ path: artifactPath('board-1280.png'), fullPage: true });
  });

  test('after a stop, the Task page shows the failure that stopped the loop, not the first red', async () => {
    await page.goto(`${h.url}/tasks/${ids.stopped}`);
    const now = (await page.textContent('[data-failure-now]')) ?? '';
    assert.match(now, /The failure that stopped the loop/);
    assert.match(now, /expected sum\(-1, 1\) to be 0, got 2/);
    assert.doesNotMatch(now, /sum\(2, 2\)/);
    assert.match(now, /See the failing job on GitHub/);
    assert.equal(
      await page.getAttribute('[data-failure-now] a.job-link', 'href'),
      'https://github.com/acme/shop/runs/3002',
      'the job of the red that stopped the loop',
    );
    // The state in words and what happens next; the fitting actions; resume behind a disclosure.
    assert.match((await page.textContent('.state-words')) ?? '', /Needs a person: the automatic fix budget is spent\./);
    assert.match((await page.textContent('.state-words')) ?? '', /The loop waits for you/);
    assert.equal(await page.getByRole('button', { name: 'Grant one more attempt' }).count(), 1);
    assert.equal(await page.isVisible('textarea[name=message]'), false, 'the message box only behind "resume"');
    // The story by head commit: the two reds each under their commit, the attempt with its spend and duration.
    const heads = await page.$$eval('.story-group', (gs) => gs.map((g) => g.getAttribute('data-head')));
    assert.deepEqual(heads.slice(-2), [sha(1), sha(2)]);
    // Same-millisecond rows in causal order: the red, the claim, the attempt, the hand-over, the run.
    const first = await page.$$eval(`.story-group[data-head="${sha(1)}"] .entry strong`, (es) =>
      es.map((e) => e.textContent),
    );
    assert.deepEqual(first.slice(0, 5), [
      'CI went red: test',
      'The loop took this red on: an attempt was claimed',
      'Attempt 1: the agent was resumed automatically',
      "The agent's run was handed to the runner",
      'The agent ran for this attempt: finished',
    ]);
    // The stopping red has its place under its commit, and the stop is told once.
    const last = await page.$$eval(`.story-group[data-head="${sha(2)}"] .entry strong`, (es) =>
      es.map((e) => e.textContent),
    );
    assert.deepEqual(last, ['CI went red: test', 'The loop stopped and asked for a person after 1 attempt']);
    // The registration is not "run 1 · start · a person's".
    assert.match((await page.textContent('.entry-registration')) ?? '', /Registered/);
    const attempt = (await page.textContent('.entry-attempt')) ?? '';
    assert.match(attempt, /Attempt 1: the agent was resumed automatically/);
    assert.match(attempt, /spent 1\.50 EUR/);
    assert.match(attempt, /took \d+ s/);
    // Internal identifiers are behind "details", not in the text a person reads first.
    const shown = await page.evaluate(() => (document.querySelector('#live') as HTMLElement).innerText);
    assert.doesNotMatch(shown, /fingerprint|coordinate|delivery [0-9a-f-]{36}/);
    assert.match((await page.textContent('.entry-attempt details.ids')) ?? '', /fingerprint fp1:/);
    // No ISO timestamps with milliseconds on the page.
    assert.doesNotMatch(shown, /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/);
    await page.screenshot({ path: artifactPath('task-1280.png'), fullPage: true });
  });

  test('the global stop asks first, and its banner says who set it and when', async () => {
    await page.goto(`${h.url}/`);
    assert.equal(await page.isVisible('text=Yes, stop the loop everywhere'), false);
    await page.click('summary:has-text("Stop the loop everywhere")');
    await act(page, 'Yes, stop the loop everywhere');
    assert.equal((await h.api('GET', '/api/stop')).body.stopped, true);
    assert.match(
      (await page.textContent('.banner[data-stopped]'))?.replace(/\s+/g, ' ') ?? '',
      /global stop flag is set: no Task is resumed\. Set by a person \(dashboard\), just now\./,
    );
    await act(page, 'Start the loop everywhere');
    assert.equal((await h.api('GET', '/api/stop')).body.stopped, false);
  });

  test('a Task registered through the API appears on the board without a reload', async () => {
    await page.goto(`${h.url}/`);
    await page.waitForSelector('body[data-live=on]');
    await page.evaluate(() => ((window as any).sameDocument = true));
    const created = await h.api('POST', '/api/tasks', {
      repository: 'acme/shop',
      pullRequest: 10,
      branch: 'agent/new',
    });
    assert.equal(created.status, 201);
    await page.waitForSelector(`tr[data-task="${created.body.id}"]`, { timeout: 5000 });
    assert.equal(await page.evaluate(() => (window as any).sameDocument), true, 'the same document: no reload');
  });

  test('with the live stream gone the page says "disconnected — reconnecting"', async () => {
    const cut = await browser.context.newPage();
    await cut.route('**/events', (route) => route.abort());
    await cut.goto(`${h.url}/`);
    await cut.waitForSelector('#connection', { state: 'visible', timeout: 5000 });
    assert.match((await cut.textContent('#connection')) ?? '', /Disconnected — reconnecting/);
    assert.equal(await cut.getAttribute('body', 'data-live'), 'reconnecting');
    await cut.screenshot({ path: artifactPath('board-disconnected.png') });
    await cut.close();
  });

  test('at 390 px: one card per Task, no page scrolls sideways, and axe-core finds nothing serious', async () => {
    const results = (await fetch(`${h.url}/results`, { redirect: 'manual' })).status !== 404;
    const pages: Array<[string, string]> = [
      ['board', '/'],
      ['task', `/tasks/${ids.stopped}`],
      ['inbox', '/inbox'],
      ...(results ? ([['results', '/results']] as Array<[string, string]>) : []),
    ];
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 844 });
      for (const [name, path] of pages) {
        await page.goto(`${h.url}${path}`);
        const o = await overflow(page);
        assert.ok(o.scroll <= o.inner, `${name} at ${width} px is ${o.scroll} px wide`);
        assert.deepEqual(await axeViolations(page), [], `${name} at ${width} px`);
        if (width === 390) await page.screenshot({ path: artifactPath(`${name}-390.png`), fullPage: true });
      }
    }
    // A card per Task on a phone: the rows stack (their cells are blocks, the header row hidden).
    await page.goto(`${h.url}/`);
    assert.equal(await page.$eval('table.board tr[data-task]', (r) => getComputedStyle(r).display), 'block');
    // Sign-in (its page has no session header whoever asks).
    const out = await browser.context.newPage();
    for (const width of [1280, 390]) {
      await out.setViewportSize({ width, height: 844 });
      await out.goto(`${h.url}/sign-in`);
      const o = await overflow(out);
      assert.ok(o.scroll <= o.inner, `sign-in at ${width} px is ${o.scroll} px wide`);
      assert.deepEqual(await axeViolations(out), [], `sign-in at ${width} px`);
    }
    await out.screenshot({ path: artifactPath('sign-in-390.png'), fullPage: true });
    await out.close();
  });
});
