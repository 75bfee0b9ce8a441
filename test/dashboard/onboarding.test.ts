// Issue 32 (SPEC M4): the board of an install with no Task is its first steps — configure a Work,
// connect GitHub (/setup), register or adopt a Task — not "No Tasks match", which stays for a filter
// that matches nothing. Once on the real server's board, once rendered with no Work and no GitHub.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness, API_TOKEN, type Harness } from '../support/harness.js';
import { boardPage } from '../../src/dashboard/board-page.js';
import type { PageContext } from '../../src/dashboard/page-context.js';

async function signIn(h: Harness): Promise<string> {
  const res = await fetch(`${h.url}/sign-in`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token: API_TOKEN }).toString(),
    redirect: 'manual',
  });
  assert.equal(res.status, 303);
  return (res.headers.get('set-cookie') ?? '').split(';')[0]!;
}

describe('the empty board is an onboarding page (issue 32)', () => {
  let h: Harness;
  let cookie: string;
  before(async () => {
    h = await startHarness('sqlite');
    cookie = await signIn(h);
  });
  after(() => h.close());

  const board = async (query = '') => (await fetch(`${h.url}/${query}`, { headers: { cookie } })).text();

  test('M4: with no Task, the board shows the three first steps, the Work step done, and links /setup', async () => {
    const html = await board();
    assert.match(html, /data-onboarding/);
    assert.doesNotMatch(html, /No Tasks match/);
    assert.match(html, /<li class="step step-done" data-step="work">/); // the harness configures one Work
    assert.match(html, /1 configured\./);
    assert.match(html, /href="\/setup"/);
    assert.match(html, /data-step="task"/);
    assert.match(html, new RegExp(`curl -X POST ${h.app.config.publicUrl.replace(/[.]/g, '\\.')}/api/tasks`));
    assert.match(html, /works\[\]\.repositories\[\]\.adopt/);
  });

  test('M4: a filter that matches nothing still says "No Tasks match", without the first steps', async () => {
    const html = await board('?repository=acme%2Fnothing');
    assert.match(html, /No Tasks match\./);
    assert.doesNotMatch(html, /data-onboarding/);
  });

  test('M4: with no notice sink configured, the Inbox says notices are shown only there, not that every one reached its sinks', async () => {
    const html = await (await fetch(`${h.url}/inbox`, { headers: { cookie } })).text();
    assert.match(html, /No notice sinks are configured, so notices are shown here only/);
    assert.doesNotMatch(html, /Every notice reached its sinks/);
  });

  test('M4: once a Task exists, the first steps are gone', async () => {
    const created = await h.api('POST', '/api/tasks', { repository: 'acme/shop', pullRequest: 7, branch: 'agent/x' });
    assert.equal(created.status, 201);
    assert.doesNotMatch(await board(), /data-onboarding/);
  });

  test('M4: with no Work and no GitHub, neither step is marked done and the Work step says what is refused', () => {
    const page: PageContext = {
      csrf: 'x',
      stopped: false,
      failedDeliveries: 0,
      maxAttempts: 2,
      costCeiling: null,
      onboarding: { works: 0, github: false, publicUrl: 'https://fixloop.example.com' },
    };
    const html = String(boardPage(page, {}, [], null));
    assert.match(html, /<li class="step" data-step="work">/);
    assert.match(html, /<li class="step" data-step="github">/);
    assert.match(html, /None is configured yet, so every delivery and Task registration is refused\./);
    assert.match(html, /https:\/\/fixloop\.example\.com\/api\/github\/webhooks/);
    assert.match(html, /application\/json/);
  });
});
