// SPEC V4, K5, G1 (issue 31, decision 0044): a person's grants of one more attempt are capped per Task
// across its life, whatever the source — the API, the dashboard, `/fixloop retry`, the approve-one
// label. Past the cap each is refused saying how many were used and how to open more; only a person
// raising the Task's own cap opens more, recorded. The board, the Task and the state comment show it.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { DATABASE_KINDS } from '../support/databases.js';
import { API_TOKEN, REPO, SECRET } from '../support/harness.js';
import { nextTick, redHead, sha, startGitHubHarness, type GitHubHarness } from '../support/github-harness.js';
import { delivery, post, prCommentPayload } from '../support/deliveries.js';
import { STATE_MARKER } from '../../src/core/state-comment.js';

const REPO_NAME = 'acme/shop';
const PR = 41;

const comments = (h: GitHubHarness) => (h.fake.state.comments[`${REPO_NAME}#${PR}`] ?? []).map((c) => c.body);
const stateComment = (h: GitHubHarness) => comments(h).find((b) => b.startsWith(STATE_MARKER)) ?? '';
const stateJson = (h: GitHubHarness) => JSON.parse(/```json\n([\s\S]*?)\n```/.exec(stateComment(h))![1]!);

async function comment(h: GitHubHarness, body: string, author = 'alice') {
  const d = delivery(
    'issue_comment',
    prCommentPayload({ repo: REPO, number: PR, body, author, association: 'MEMBER' }),
  );
  assert.equal((await post(h.url, d, SECRET)).status, 202);
  await h.app.settle();
}

async function decisions(h: GitHubHarness, taskId: number): Promise<Array<[string, string | null, string | null]>> {
  const rows = (await h.api('GET', `/api/deliveries?taskId=${taskId}&limit=500`)).body.decisions as any[];
  return rows.map((d) => [d.outcome, d.reason, d.detail]);
}

/** A signed-in dashboard session: its cookie, and a form's CSRF token read from the Task's page. */
async function signIn(h: GitHubHarness, taskId: number) {
  const res = await fetch(`${h.url}/sign-in`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: h.url },
    body: new URLSearchParams({ token: API_TOKEN }).toString(),
    redirect: 'manual',
  });
  assert.equal(res.status, 303, 'signed in');
  const cookie = (res.headers.get('set-cookie') ?? '').split(';')[0]!;
  const page = await (await fetch(`${h.url}/tasks/${taskId}`, { headers: { cookie } })).text();
  const csrf = /name="_csrf" value="([^"]+)"/.exec(page)?.[1];
  assert.ok(csrf, 'the page carries the CSRF token');
  const postForm = (path: string, fields: Record<string, string> = {}) =>
    fetch(`${h.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: h.url, cookie },
      body: new URLSearchParams({ _csrf: csrf, ...fields }).toString(),
      redirect: 'manual',
    });
  const get = async (path: string) => (await fetch(`${h.url}${path}`, { headers: { cookie } })).text();
  return { postForm, get };
}

/** After a grant: the next tick re-offers the red head (one attempt), its run ends, then a new red stops the loop again. */
async function spendTheGrant(h: GitHubHarness, next: string) {
  const before = h.runner.starts.length;
  await nextTick(h);
  assert.equal(h.runner.starts.length, before + 1, 'the granted attempt ran');
  h.runner.finish(h.runner.starts.at(-1)!.runId);
  await h.app.settle();
  await redHead(h, PR, next, `failure ${next}`);
  assert.equal(h.runner.starts.length, before + 1, 'and the loop stopped again');
}

for (const kind of DATABASE_KINDS) {
  describe(`the grant cap (${kind})`, () => {
    test('V4: five grants in a row from the API, the dashboard, a comment, the label and the API stop at the cap of 3; raising the Task’s cap opens one more, recorded', async () => {
      const h = await startGitHubHarness(kind, {
        env: { TASK_CI_AUTO_RESUME_MAX_ATTEMPTS: '1', TASK_MAX_GRANTS: '3' },
      });
      try {
        h.fake.setCollaborator(REPO_NAME, 'alice', 'write');
        const { body: created } = await h.api('POST', '/api/tasks', {
          repository: REPO_NAME,
          pullRequest: PR,
          branch: 'agent/g',
        });
        const id = created.id as number;
        assert.deepEqual(created.grants, { used: 0, max: 3, left: 3, own: false }, 'the Task shows its grants');
        h.fake.addPull(REPO_NAME, PR, { headSha: sha('0'), headRef: 'agent/g' });
        await redHead(h, PR, '1', 'failure 1');
        await redHead(h, PR, '2', 'failure 2'); // the budget of 1 is spent: the loop stops
        assert.equal(h.runner.starts.length, 1);
        const dash = await signIn(h, id);

        // Grant 1: the API.
        assert.equal((await h.api('POST', `/api/tasks/${id}/approve-one`)).status, 200);
        await spendTheGrant(h, '3');
        // Grant 2: the dashboard.
        assert.equal((await dash.postForm(`/tasks/${id}/approve-one`)).status, 303);
        await spendTheGrant(h, '4');
        // Grant 3: `/fixloop retry` on the pull request.
        await comment(h, '/fixloop retry');
        assert.equal((await h.api('GET', `/api/tasks/${id}`)).body.extraAttempts, 3);
        await spendTheGrant(h, '5');
        assert.equal(h.runner.starts.length, 4, '1 automatic + 3 granted');

        // Grant 4: the label. Consumed, grants nothing, and the pull request is told why.
        h.fake.state.pulls[`${REPO_NAME}#${PR}`]!.labels = ['fixloop:needs-human', 'fixloop:approve-one'];
        await nextTick(h);
        await nextTick(h);
        assert.deepEqual(h.fake.state.pulls[`${REPO_NAME}#${PR}`]!.labels, ['fixloop:needs-human']);
        const labelReply = comments(h).find((b) => b.includes('the label `fixloop:approve-one` was removed'));
        assert.ok(labelReply, JSON.stringify(comments(h)));
        assert.match(labelReply, /3 of 3 grants of one more attempt for this Task were used/);
        assert.match(labelReply, new RegExp(`PUT /api/tasks/${id}/budget with \\{"maxGrants": 4\\}`));
        assert.ok(
          (await decisions(h, id)).some(([o, r]) => o === 'refused' && r === 'grant_cap'),
          'the label’s refusal is recorded',
        );

        // Grant 5: the API, and the dashboard, and a comment again: 409 / a reply, each saying how many and how to open more.
        const api = await h.api('POST', `/api/tasks/${id}/approve-one`);
        assert.equal(api.status, 409);
        assert.equal(api.body.error, 'grant_cap');
        assert.match(api.body.message, /^No more attempts can be granted: 3 of 3 grants/);
        assert.match(api.body.message, /TASK_MAX_GRANTS/);
        const viaDash = await dash.postForm(`/tasks/${id}/approve-one`);
        assert.equal(viaDash.status, 409);
        assert.match(await viaDash.text(), /3 of 3 grants/);
        await comment(h, '/fixloop retry', 'alice');
        const reply = comments(h).find((b) => b.startsWith('fixloop (to @alice): No more attempts can be granted'));
        assert.ok(reply, JSON.stringify(comments(h)));
        assert.match(reply, /3 of 3 grants of one more attempt for this Task were used/);
        assert.ok(
          (await decisions(h, id)).some(
            ([o, r, d]) => o === 'refused' && r === 'command_not_applied' && /3 of 3 grants/.test(d ?? ''),
          ),
        );
        await nextTick(h);
        assert.equal(h.runner.starts.length, 4, 'nothing past the cap ran');
        assert.equal((await h.api('GET', `/api/tasks/${id}`)).body.extraAttempts, 3);

        // The board, the Task and the state comment show the cap and that none is left.
        const board = (await h.api('GET', `/api/board?q=%23${PR}`)).body.tasks[0];
        assert.deepEqual([board.extraAttempts, board.maxGrants], [3, null]);
        const boardHtml = await dash.get('/');
        assert.match(boardHtml, /<th[^>]*>Grants<\/th>/);
        assert.match(boardHtml, /class="grants grants-none-left"[^>]*>3 of 3 · none left</);
        const taskHtml = await dash.get(`/tasks/${id}`);
        assert.match(taskHtml, /3 of 3 grants of one more attempt used, none left/);
        assert.doesNotMatch(taskHtml, />Grant one more attempt</, 'no grant button past the cap');
        assert.deepEqual((await h.api('GET', `/api/tasks/${id}`)).body.grants, {
          used: 3,
          max: 3,
          left: 0,
          own: false,
        });
        assert.deepEqual(stateJson(h).grants, { used: 3, max: 3, left: 0 });
        assert.match(stateComment(h), /No more attempts can be granted on this pull request \(3 of 3 grants/);
        assert.match(stateComment(h), new RegExp(`PUT /api/tasks/${id}/budget`));

        // A person raises the Task's own cap through the API: recorded, shown, and one more grant opens.
        for (const bad of [{ maxGrants: 21 }, { maxGrants: -1 }, { maxGrants: 1.5 }, {}, { maxGrants: 4, extra: 1 }])
          assert.equal((await h.api('PUT', `/api/tasks/${id}/budget`, bad)).status, 400, JSON.stringify(bad));
        assert.equal((await h.api('PUT', '/api/tasks/9999/budget', { maxGrants: 4 })).status, 404);
        const raised = await h.api('PUT', `/api/tasks/${id}/budget`, { maxGrants: 4 });
        assert.equal(raised.status, 200, JSON.stringify(raised.body));
        assert.equal(raised.body.maxGrants, 4);
        assert.deepEqual(raised.body.grants, { used: 3, max: 4, left: 1, own: true });
        const acted = (await decisions(h, id)).filter(([o, r]) => o === 'acted' && r === 'set_grant_cap');
        assert.equal(acted.length, 1);
        assert.match(
          acted[0]![2] ?? '',
          /^a person \(api\): set the cap on grants of one more attempt from 3 \(the configured cap\) to 4 \(this Task's own\)/,
        );
        assert.equal((await h.api('PUT', `/api/tasks/${id}/budget`, { maxGrants: 4 })).status, 200);
        assert.equal(
          (await decisions(h, id)).filter(([o, r]) => o === 'acted' && r === 'set_grant_cap').length,
          1,
          'the same cap again changes nothing and records nothing',
        );
        assert.match(await dash.get('/'), /class="grants"[^>]*>3 of 4 \(this Task\) · 1 left</);

        assert.equal((await h.api('POST', `/api/tasks/${id}/approve-one`)).status, 200);
        await spendTheGrant(h, '6');
        assert.equal(h.runner.starts.length, 5, 'the raised cap opened exactly one more');
        const again = await h.api('POST', `/api/tasks/${id}/approve-one`);
        assert.equal(again.status, 409);
        assert.match(again.body.message, /4 of 4 grants/);
        assert.match(again.body.message, /this Task's own cap opens more/);
        assert.deepEqual(stateJson(h).grants, { used: 4, max: 4, left: 0 });
      } finally {
        await h.close();
      }
    });

    test('V4: a race of grants over the API and comments never passes the cap', async () => {
      const h = await startGitHubHarness(kind, {
        env: { TASK_CI_AUTO_RESUME_MAX_ATTEMPTS: '1', TASK_MAX_GRANTS: '2' },
      });
      try {
        h.fake.setCollaborator(REPO_NAME, 'alice', 'write');
        const { body: created } = await h.api('POST', '/api/tasks', {
          repository: REPO_NAME,
          pullRequest: PR,
          branch: 'agent/r',
        });
        const id = created.id as number;
        h.fake.addPull(REPO_NAME, PR, { headSha: sha('0'), headRef: 'agent/r' });
        await redHead(h, PR, '1', 'failure 1');
        await redHead(h, PR, '2', 'failure 2');
        const race = async () => {
          const [answers] = await Promise.all([
            Promise.all(Array.from({ length: 8 }, () => h.api('POST', `/api/tasks/${id}/approve-one`))),
            comment(h, '/fixloop retry'),
            comment(h, '/fixloop retry'),
          ]);
          return answers.map((a) => a.status);
        };
        const statuses: number[] = [];
        for (const next of ['3', '4', '5']) {
          statuses.push(...(await race()));
          const t = (await h.api('GET', `/api/tasks/${id}`)).body;
          if (t.noticeAt === null) await spendTheGrant(h, next);
        }
        const task = (await h.api('GET', `/api/tasks/${id}`)).body;
        assert.equal(task.extraAttempts, 2, 'two grants, whatever raced');
        assert.deepEqual(task.grants, { used: 2, max: 2, left: 0, own: false });
        assert.ok(statuses.filter((s) => s === 200).length <= 2);
        assert.equal(h.runner.starts.length, 3, '1 automatic + 2 granted');
        const granted = (await decisions(h, id)).filter(([o, r]) => o === 'acted' && r === 'approve_one');
        assert.equal(granted.length, 2, 'each grant recorded once');
        const last = await h.api('POST', `/api/tasks/${id}/approve-one`);
        assert.deepEqual([last.status, last.body.error], [409, 'grant_cap']);
        await comment(h, '/fixloop status');
        const status = comments(h).find((b) => b.startsWith('fixloop: the loop is'));
        assert.match(status ?? '', /\(2 of 2 grants of one more attempt used, none left\)/);
      } finally {
        await h.close();
      }
    });

    test('V4: the state comment and the board say what is left before the cap is reached; 0 allows no grant at all', async () => {
      const h = await startGitHubHarness(kind, {
        env: { TASK_CI_AUTO_RESUME_MAX_ATTEMPTS: '1', TASK_MAX_GRANTS: '0' },
      });
      try {
        const { body: created } = await h.api('POST', '/api/tasks', {
          repository: REPO_NAME,
          pullRequest: PR,
          branch: 'agent/h',
        });
        const id = created.id as number;
        h.fake.addPull(REPO_NAME, PR, { headSha: sha('0'), headRef: 'agent/h' });
        await redHead(h, PR, '1', 'failure 1');
        assert.deepEqual(stateJson(h).grants, { used: 0, max: 0, left: 0 });
        await redHead(h, PR, '2', 'failure 2');
        const refused = await h.api('POST', `/api/tasks/${id}/approve-one`);
        assert.equal(refused.status, 409);
        assert.match(refused.body.message, /this Task allows no grants of one more attempt/);

        // The dashboard's button on the stopped Task raises its own cap by one, recorded as the person's.
        const dash = await signIn(h, id);
        assert.match(await dash.get(`/tasks/${id}`), /No grants left: allow one more grant for this Task/);
        assert.equal((await dash.postForm(`/tasks/${id}/budget`, { maxGrants: '1' })).status, 303);
        assert.equal((await dash.postForm(`/tasks/${id}/budget`, { maxGrants: '99' })).status, 400);
        assert.ok(
          (await decisions(h, id)).some(
            ([o, r, d]) =>
              o === 'acted' &&
              r === 'set_grant_cap' &&
              /^a person \(dashboard\): .* to 1 \(this Task's own\)/.test(d ?? ''),
          ),
        );
        assert.equal((await h.api('PUT', `/api/tasks/${id}/budget`, { maxGrants: 2 })).status, 200);
        await nextTick(h); // the state comment follows the ledger
        assert.deepEqual(stateJson(h).grants, { used: 0, max: 2, left: 2 });
        assert.match(
          stateComment(h),
          /allow exactly one more automatic attempt \(0 of 2 grants of one more attempt used, 2 left\)/,
        );
        assert.equal((await h.api('POST', `/api/tasks/${id}/approve-one`)).status, 200);
        assert.equal((await h.api('PUT', `/api/tasks/${id}/budget`, { maxGrants: null })).body.grants.max, 0);
        assert.equal((await h.api('POST', `/api/tasks/${id}/approve-one`)).status, 409, 'back to the configured 0');
      } finally {
        await h.close();
      }
    });
  });
}
