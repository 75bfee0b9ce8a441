// Issue 35 item 4 (SPEC R2, I5, L1) on both databases, through the real pipeline: fixloop configured
// with a `session` runner (its key in a secret file) resumes a Task whose resume reference is a vendor
// session — a fake Devin, a fake Cursor, real loopback servers — by a message carrying the frame, and
// the session's end is the run's: finished after a push is progress; waiting for its user hands the
// pull request to a person; Cursor's signed webhook ends it (a bad signature changes nothing); a
// session that never finishes ends at the run's timeout, with a notice, never in silence.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DATABASE_KINDS } from '../support/databases.js';
import { startGitHubHarness, type GitHubHarness } from '../support/github-harness.js';
import { until } from '../support/server-process.js';
import { tempDir } from '../support/temp-dir.js';
import { attemptRows, decisionsOf, nextTick, pushRedHead, sha } from '../support/loop-driver.js';
import { startFakeDevin, type FakeDevin } from '../support/fake-vendors/devin.js';
import { cursorSignature, cursorWebhookBody, startFakeCursor } from '../support/fake-vendors/cursor.js';
import type { FixloopAdapters } from '../../src/main.js';
import { CUSTOM_VENDOR, startFakeCustomVendor } from '../support/fake-vendors/custom.js';

const KEY = 'apk_user_scenario-key';
const HOOK_SECRET = 'cursor-webhook-secret';

function secretFiles(): { key: string; hook: string } {
  const dir = tempDir('fixloop-session-secrets-');
  const key = join(dir, 'vendor-key');
  const hook = join(dir, 'webhook-secret');
  writeFileSync(key, `${KEY}\n`, { mode: 0o600 });
  writeFileSync(hook, `${HOOK_SECRET}\n`, { mode: 0o600 });
  return { key, hook };
}

async function sessionHarness(
  kind: 'sqlite' | 'postgres',
  runner: Record<string, unknown>,
  webhook = false,
): Promise<GitHubHarness> {
  const files = secretFiles();
  return startGitHubHarness(kind, {
    configExtra: { runner: { kind: 'session', ...runner } },
    env: {
      FIXLOOP_SESSION_API_KEY_FILE: files.key,
      ...(webhook ? { FIXLOOP_SESSION_WEBHOOK_SECRET_FILE: files.hook } : {}),
    },
    // The runner the config describes, not the harness's recording double.
    adapters: { runner: undefined } as FixloopAdapters,
  });
}

/** A Task on `pr` whose agent is the vendor session `resumeRef`, its head red. */
async function sessionTask(h: GitHubHarness, pr: number, resumeRef: string, head: string): Promise<number> {
  const created = await h.api('POST', '/api/tasks', {
    repository: 'acme/shop',
    pullRequest: pr,
    branch: `agent/fix-${pr}`,
    resumeRef,
  });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  h.fake.addPull('acme/shop', pr, { headSha: head, headRef: `agent/fix-${pr}` });
  h.fake.addCheckRun('acme/shop', head, {
    name: 'test',
    status: 'completed',
    conclusion: 'failure',
    outputSummary: 'FAIL src/cart.test.ts: expected 3 to be 4',
  });
  return created.body.id as number;
}

/** The Task's automatic runs (the Task's own `start` run row is not one). */
async function runOf(h: GitHubHarness, taskId: number) {
  return h.app.db.kysely
    .selectFrom('runs')
    .selectAll()
    .where('task_id', '=', taskId)
    .where('attempt_id', 'is not', null)
    .orderBy('id')
    .execute();
}

/**
 * The attempt settled and its run ended: the run is marked ended after its end is judged (dispatch.ts),
 * so both are waited for.
 */
async function settled(h: GitHubHarness, taskId: number) {
  return until(
    'the attempt settled and its run ended',
    async () => {
      const rows = await attemptRows(h.app, taskId);
      const [run] = await runOf(h, taskId);
      return rows[0]?.state === 'acknowledged' && run?.state !== 'running' ? { rows, run: run! } : null;
    },
    10_000,
    10,
  );
}

const polled = (devin: FakeDevin) => async () => devin.requests.some((r) => r.method === 'GET');

for (const kind of DATABASE_KINDS) {
  describe(`the session runner through the pipeline (${kind})`, () => {
    test('Devin: the frame is the message; finished after a push is the run completed and the push its progress', async () => {
      const devin = await startFakeDevin(KEY);
      const session = devin.addSession('devin-41', 'blocked', 'working');
      const h = await sessionHarness(kind, { vendor: 'devin', baseUrl: devin.url, pollSeconds: 0.02 });
      try {
        const taskId = await sessionTask(h, 41, 'devin-41', sha('a'));
        await nextTick(h);
        await until('the message', async () => session.messages.length === 1, 10_000, 5);
        assert.match(session.messages[0]!, /expected 3 to be 4/, 'the frame quotes the failure');
        await until('a poll reading working', polled(devin), 10_000, 5);

        pushRedHead(h, 41, sha('b'), 'FAIL src/checkout.test.ts: the receipt has no total line');
        session.status_enum = 'finished';
        const { rows, run } = await settled(h, taskId);
        assert.equal(rows[0]!.outcome, 'action_taken');
        assert.equal(run.state, 'completed');
        assert.equal((await h.api('GET', `/api/tasks/${taskId}`)).body.notice, null);
        assert.deepEqual(devin.violations, []);
      } finally {
        await h.close();
        await devin.close();
      }
    });

    test('Devin: a session waiting for its user ends the run, and a person is told (agent_needs_person)', async () => {
      const devin = await startFakeDevin(KEY);
      const session = devin.addSession('devin-42', 'finished', 'working');
      const h = await sessionHarness(kind, { vendor: 'devin', baseUrl: devin.url, pollSeconds: 0.02 });
      try {
        const taskId = await sessionTask(h, 42, 'devin-42', sha('c'));
        await nextTick(h);
        await until('a poll reading working', polled(devin), 10_000, 5);
        session.status_enum = 'blocked';
        const notice: any = await until(
          'the notice',
          async () => (await h.api('GET', `/api/tasks/${taskId}`)).body.notice,
          10_000,
          10,
        );
        assert.equal(notice.reason, 'agent_needs_person');
        assert.match(notice.message, /session is waiting for a person/);
        assert.match(notice.message, /the devin session devin-42 is waiting for a person \(blocked\)/);
        // Marked ended just after its end filed the notice (dispatch.ts).
        const run = await until(
          'the run ended',
          async () => (await runOf(h, taskId)).find((r) => r.state === 'failed'),
          10_000,
          10,
        );
        assert.ok(
          (await decisionsOf(h, taskId)).some((d) => d.outcome === 'noticed' && d.reason === 'agent_needs_person'),
        );
        await nextTick(h);
        assert.equal((await attemptRows(h.app, taskId)).length, 1, 'the notice stops the loop: no second message');
        assert.equal(session.messages.length, 1);
      } finally {
        await h.close();
        await devin.close();
      }
    });

    test('a session that never finishes ends at the run’s timeout, and the loop ends in a notice', async () => {
      const devin = await startFakeDevin(KEY);
      devin.addSession('devin-43', 'blocked', 'working');
      const h = await sessionHarness(kind, {
        vendor: 'devin',
        baseUrl: devin.url,
        pollSeconds: 0.02,
        timeoutMinutes: 90,
      });
      try {
        const taskId = await sessionTask(h, 43, 'devin-43', sha('d'));
        await nextTick(h);
        await until('a poll reading working', polled(devin), 10_000, 5);
        assert.equal((await runOf(h, taskId))[0]!.state, 'running');
        h.clock.advance(90 * 60_000);
        const notice: any = await until(
          'the notice',
          async () => (await h.api('GET', `/api/tasks/${taskId}`)).body.notice,
          10_000,
          10,
        );
        assert.equal(notice.reason, 'agent_unreachable');
        assert.match(notice.message, /devin-43 had not finished after 90 minutes \(last state "working"\)/);
        // Marked ended just after its end filed the notice (dispatch.ts).
        const run = await until(
          'the run ended',
          async () => (await runOf(h, taskId)).find((r) => r.state === 'failed'),
          10_000,
          10,
        );
        assert.match((await h.app.ledger.getRunLog(run.id)) ?? '', /had not finished after 90 minutes/);
      } finally {
        await h.close();
        await devin.close();
      }
    });

    test('a vendor described in the config: its done after a push is progress, and the spend it reports is the run’s (K6)', async () => {
      const vendor = await startFakeCustomVendor(KEY);
      const session = vendor.addSession('s-45', 'done');
      const h = await sessionHarness(kind, {
        vendor: 'custom',
        baseUrl: vendor.url,
        pollSeconds: 0.02,
        custom: CUSTOM_VENDOR,
      });
      try {
        const taskId = await sessionTask(h, 45, 's-45', sha('1'));
        await nextTick(h);
        await until('the message', async () => session.messages.length === 1, 10_000, 5);
        await until('a poll reading busy', async () => vendor.requests.some((r) => r.method === 'GET'), 10_000, 5);
        pushRedHead(h, 45, sha('2'), 'FAIL src/checkout.test.ts: the receipt has no total line');
        session.credits = 8;
        session.state = 'done';
        const { run } = await settled(h, taskId);
        assert.equal(run.state, 'completed');
        const spends = await h.app.db.kysely.selectFrom('spends').selectAll().where('task_id', '=', taskId).execute();
        assert.equal(spends.length, 1);
        assert.equal(Number(spends[0]!.model), 2, '8 credits at 0.25 dollars');
        assert.equal(Number(spends[0]!.run_id), run.id);
        assert.deepEqual(vendor.violations, []);
      } finally {
        await h.close();
        await vendor.close();
      }
    });

    test("Devin's API v3 (decision 0074): the ACUs the run used, at runner.devin.acuPrice, are its spend (K6)", async () => {
      const devin = await startFakeDevin(KEY);
      const session = devin.addSession('devin-46', 'blocked', 'working', { acus: 20, acusPerMessage: 2 });
      const h = await sessionHarness(kind, {
        vendor: 'devin',
        baseUrl: devin.url,
        pollSeconds: 0.02,
        devin: { orgId: 'org-acme', acuPrice: 2.25 },
      });
      try {
        const taskId = await sessionTask(h, 46, 'devin-46', sha('3'));
        await nextTick(h);
        await until('the message', async () => session.messages.length === 1, 10_000, 5);
        await until(
          'a poll after the message',
          async () => devin.requests.filter((r) => r.method === 'GET').length >= 2 || null,
          10_000,
          5,
        );
        pushRedHead(h, 46, sha('4'), 'FAIL src/checkout.test.ts: the receipt has no total line');
        session.status_enum = 'finished';
        const { run } = await settled(h, taskId);
        assert.equal(run.state, 'completed');
        const spends = await h.app.db.kysely.selectFrom('spends').selectAll().where('task_id', '=', taskId).execute();
        assert.equal(spends.length, 1);
        assert.equal(Number(spends[0]!.model), 4.5, '2 ACUs at 2.25 dollars, not the session’s 22');
        assert.equal(Number(spends[0]!.run_id), run.id);
        assert.ok(
          devin.requests.every((r) => r.path.startsWith('/v3/organizations/org-acme/')),
          'API v3 only',
        );
        assert.deepEqual(devin.violations, []);
      } finally {
        await h.close();
        await devin.close();
      }
    });

    test('Cursor: FINISHED by its signed webhook ends the run; a bad signature is 401 and changes nothing', async () => {
      const cursor = await startFakeCursor(KEY);
      const agent = cursor.addAgent('bc_44', 'FINISHED');
      const h = await sessionHarness(
        kind,
        { vendor: 'cursor', baseUrl: cursor.url, pollSeconds: 3600 }, // only the webhook can end it
        true,
      );
      try {
        const taskId = await sessionTask(h, 44, 'bc_44', sha('e'));
        await nextTick(h);
        await until('the followup', async () => agent.followups.length === 1, 10_000, 5);
        await until('the run running', async () => (await runOf(h, taskId))[0]?.state === 'running', 10_000, 5);
        const hook = `${h.url}/api/session/webhooks`;

        const body = cursorWebhookBody('bc_44', 'FINISHED');
        const bad = await fetch(hook, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'x-webhook-signature': cursorSignature('not-the-secret', body),
          },
          body,
        });
        assert.equal(bad.status, 401);
        await bad.text();
        const huge = await fetch(hook, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ id: 'bc_44', status: 'FINISHED', pad: 'x'.repeat(70 * 1024) }),
        });
        assert.equal(huge.status, 413, 'a body past 64 KiB is refused before anything reads it');
        await huge.text();
        await h.app.settle();
        assert.equal((await runOf(h, taskId))[0]!.state, 'running', 'a bad signature changes nothing');
        assert.equal((await h.api('GET', `/api/tasks/${taskId}`)).body.notice, null);

        pushRedHead(h, 44, sha('f'), 'FAIL src/checkout.test.ts: the receipt has no total line');
        assert.equal(await cursor.sendStatusChange(hook, HOOK_SECRET, 'bc_44', 'FINISHED'), 200);
        const { rows, run } = await settled(h, taskId);
        assert.equal(rows[0]!.outcome, 'action_taken');
        assert.equal(run.state, 'completed');
        assert.deepEqual(cursor.violations, []);
      } finally {
        await h.close();
        await cursor.close();
      }
    });
  });
}
