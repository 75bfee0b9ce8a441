// SPEC M4 in a real browser: sign in with the API token, watch the board change without a reload
// as a red check run arrives, act from the dashboard (every action changes the ledger and leaves a
// person's `acted` row in the decision log, H1), and nothing answers without the session.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { startHarness, API_TOKEN, REPO, SECRET, type Harness } from '../support/harness.js';
import { checkRunPayload, delivery, post } from '../support/deliveries.js';
import { artifactPath, launchBrowser } from '../support/browser.js';

const sha = (n: number) => n.toString(16).padStart(40, 'b');

async function redPush(h: Harness, n: number, output: string) {
  const d = delivery(
    'check_run',
    checkRunPayload({
      repo: REPO,
      sha: sha(n),
      id: 2000 + n,
      name: 'test',
      pr: { number: 7, headSha: sha(n) },
      output,
    }),
  );
  const res = await post(h.url, d, SECRET);
  assert.equal(res.status, 202, JSON.stringify(res.body));
  await h.app.settle();
}

async function personRows(h: Harness, taskId: number | null) {
  const q = taskId === null ? '' : `&taskId=${taskId}`;
  const { body } = await h.api('GET', `/api/deliveries?limit=1000${q}`);
  return (body.decisions as any[]).filter((d) => d.outcome === 'acted');
}

/** Submits the form whose button reads `label`, and waits for the page it leads to. */
async function act(page: Page, label: string) {
  await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: label }).first().click()]);
}

describe('the dashboard in Chromium (M4, sqlite)', () => {
  let h: Harness;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  let page: Page;
  let taskId: number;

  before(async () => {
    h = await startHarness('sqlite', {
      env: { TASK_CI_AUTO_RESUME_MAX_ATTEMPTS: '1' },
      adapters: { dashboardLivePollMs: 100 },
    });
    const created = await h.api('POST', '/api/tasks', { repository: 'acme/shop', pullRequest: 7, branch: 'agent/fix' });
    assert.equal(created.status, 201);
    taskId = created.body.id;
    browser = await launchBrowser();
    page = await browser.context.newPage();
  });
  after(async () => {
    await browser?.close();
    await h?.close();
  });

  test('M4: a page without the session leads to sign-in, and the API token signs in', async () => {
    await page.goto(`${h.url}/`);
    assert.match(page.url(), /\/sign-in$/);
    await page.fill('input[name=token]', 'not-the-token');
    await Promise.all([page.waitForNavigation(), page.click('button[type=submit]')]);
    assert.match((await page.textContent('.error')) ?? '', /not the API token/);
    await page.fill('input[name=token]', API_TOKEN);
    await Promise.all([page.waitForNavigation(), page.click('button[type=submit]')]);
    assert.equal(new URL(page.url()).pathname, '/');
    const cookie = (await browser.context.cookies()).find((c) => c.name === 'fixloop_session');
    assert.ok(cookie, 'a session cookie');
    assert.equal(cookie.httpOnly, true);
    assert.equal(cookie.sameSite, 'Strict');
    assert.equal(cookie.secure, false, 'plain http on loopback: not Secure');
    assert.equal(await page.textContent(`tr[data-task="${taskId}"] .loop`), 'idle');
  });

  test('M4: the board shows the Task going red and its attempt without a reload', async () => {
    await page.waitForSelector('body[data-live=on]');
    await page.evaluate(() => ((window as any).sameDocument = true));
    const row = `tr[data-task="${taskId}"]`;
    assert.equal(await page.getAttribute(`${row} .dot`, 'data-ci'), 'unknown');
    await redPush(h, 1, 'FAIL src/a.test.ts > adds\nexpected 2, got 3');
    await page.waitForSelector(`${row} .dot[data-ci=red]`, { timeout: 5000 });
    await page.waitForFunction((s) => document.querySelector(s)?.textContent === '1 of 1', `${row} .attempts`);
    assert.equal(await page.textContent(`${row} .loop`), 'agent running');
    assert.match((await page.textContent(`${row} .failure`)) ?? '', /test: FAIL src\/a\.test\.ts/);
    assert.equal(await page.evaluate(() => (window as any).sameDocument), true, 'the same document: no reload');
    await page.screenshot({ path: artifactPath('board.png'), fullPage: true });
  });

  test('M4/K5: grant one more attempt from the Inbox: the stop round opens and a person did it', async () => {
    h.runner.finish(h.runner.starts[0]!.runId);
    await h.app.settle();
    await redPush(h, 2, 'FAIL src/b.test.ts > parses\nTypeError: x is undefined');
    assert.equal((await h.api('GET', `/api/tasks/${taskId}`)).body.notice?.reason, 'budget_spent');
    await page.goto(`${h.url}/inbox`);
    assert.match((await page.textContent('.inbox .reason')) ?? '', /budget is spent/);
    await act(page, 'Grant one more attempt');
    const task = (await h.api('GET', `/api/tasks/${taskId}`)).body;
    assert.equal(task.extraAttempts, 1);
    assert.equal(task.stopRound, 1);
    assert.equal(task.noticeAt, null);
    assert.deepEqual(
      (await personRows(h, taskId)).map((d) => d.reason),
      ['approve_one'],
    );
    assert.match((await personRows(h, taskId))[0].detail, /a person \(dashboard\)/);
    // The granted attempt is used by the next red.
    await redPush(h, 3, 'FAIL src/c.test.ts > renders\nsnapshot mismatch');
    assert.equal(h.runner.starts.length, 2);
  });

  test('M4: cancel a running run from its timeline', async () => {
    const runId = h.runner.starts[1]!.runId;
    await page.goto(`${h.url}/tasks/${taskId}`);
    // Issue 33: the attempt in words; the ledger's identifiers behind its "details".
    assert.match(
      (await page.textContent('.entry-attempt strong')) ?? '',
      /^Attempt 1: the agent was resumed automatically/,
    );
    assert.match(
      (await page.locator('.timeline .entry-attempt details.ids').last().textContent()) ?? '',
      /attempt \d+ · dispatched · running · fingerprint fp1:[0-9a-f]{8}/,
    );
    await page.screenshot({ path: artifactPath('timeline.png'), fullPage: true });
    await act(page, 'Cancel this run');
    assert.equal((await h.api('GET', `/api/runs/${runId}`)).body.state, 'cancelled');
    assert.equal((await personRows(h, taskId)).at(0)?.reason, 'cancel_run');
  });

  test("M4/H1: resume with a message: a person's run with the message as its prompt", async () => {
    await page.goto(`${h.url}/tasks/${taskId}`);
    // Issue 33: the message box is behind "resume".
    await page.click('summary:has-text("Resume the agent with a message")');
    await page.fill('textarea[name=message]', 'Please rebase on main and rerun the flaky test.');
    await act(page, 'Resume with this message');
    const spec = h.runner.starts.at(-1)!;
    assert.equal(h.runner.starts.length, 3);
    assert.equal(spec.attemptId, null);
    assert.match(spec.prompt, /^Please rebase on main and rerun the flaky test\./);
    const run = (await h.api('GET', `/api/runs/${spec.runId}`)).body;
    assert.deepEqual([run.action, run.autoResume, run.state], ['resume', false, 'running']);
    assert.equal((await personRows(h, taskId))[0]?.reason, 'resume');
    h.runner.finish(spec.runId);
    await h.app.settle();
  });

  test('M4: stop and start the loop for one Task, park and unpark it', async () => {
    await page.goto(`${h.url}/tasks/${taskId}`);
    await act(page, 'Stop the loop for this Task');
    assert.equal((await h.api('GET', `/api/tasks/${taskId}`)).body.loopOff, true);
    await act(page, 'Start the loop for this Task');
    assert.equal((await h.api('GET', `/api/tasks/${taskId}`)).body.loopOff, false);
    await act(page, 'Park');
    assert.notEqual((await h.api('GET', `/api/tasks/${taskId}`)).body.parkedAt, null);
    await act(page, 'Unpark');
    assert.equal((await h.api('GET', `/api/tasks/${taskId}`)).body.parkedAt, null);
    assert.deepEqual(
      (await personRows(h, taskId)).slice(0, 4).map((d) => d.reason),
      ['unpark', 'park', 'loop_on', 'loop_off'],
    );
  });

  test('M4: stop and start the loop everywhere (the global stop flag)', async () => {
    await page.goto(`${h.url}/`);
    // Issue 33: the global stop asks first.
    await page.click('summary:has-text("Stop the loop everywhere")');
    await act(page, 'Yes, stop the loop everywhere');
    assert.equal((await h.api('GET', '/api/stop')).body.stopped, true);
    assert.match((await page.textContent('.banner[data-stopped]')) ?? '', /global stop flag is set/);
    await act(page, 'Start the loop everywhere');
    assert.equal((await h.api('GET', '/api/stop')).body.stopped, false);
    assert.deepEqual(
      (await personRows(h, null)).slice(0, 2).map((d) => [d.reason, d.taskId]),
      [
        ['start_all', null],
        ['stop_all', null],
      ],
    );
  });

  test('M4: sign-out ends the session', async () => {
    await page.goto(`${h.url}/`);
    await act(page, 'Sign out');
    assert.match(page.url(), /\/sign-in$/);
    await page.goto(`${h.url}/inbox`);
    assert.match(page.url(), /\/sign-in$/);
  });
});
