// L1: the process's life is the run's life. When fixloop stops, the agents it started stop too,
// and their runs are written as ended — never left "running" with nobody watching.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestDatabase } from '../support/databases.js';
import { startHarness, REPO, SECRET } from '../support/harness.js';
import { checkRunPayload, delivery, post } from '../support/deliveries.js';
import { tempDir } from '../support/temp-dir.js';
import { createCommandRunner } from '../../src/runners/command.js';
import { openDatabase } from '../../src/ledger/db.js';

test('L1: stopping fixloop stops a running command agent and records its run as failed', async () => {
  const db = await createTestDatabase('sqlite');
  const runner = createCommandRunner({
    command: [process.execPath, '-e', 'setTimeout(() => {}, 60000)'],
    workDir: tempDir('fixloop-runs-'),
  });
  // V4: no grace, so the agent is stopped at once and its run is interrupted (not the agent's own end).
  const h = await startHarness('sqlite', { db, runner: runner as never, env: { FIXLOOP_SHUTDOWN_GRACE_MS: '0' } });
  const { body: task } = await h.api('POST', '/api/tasks', {
    repository: 'acme/shop',
    pullRequest: 5,
    branch: 'agent/fix',
  });
  const sha = '5'.repeat(40);
  await post(
    h.url,
    delivery(
      'check_run',
      checkRunPayload({ repo: REPO, sha, id: 55, pr: { number: 5, headSha: sha }, output: 'broken' }),
    ),
    SECRET,
  );
  await h.app.settle();
  const running = (await h.api('GET', `/api/tasks/${task.id}`)).body.runs.at(-1);
  assert.equal(running.state, 'running');
  assert.equal(runner.running().length, 1);

  await h.close();
  assert.equal(runner.running().length, 0);
  const reopened = openDatabase(db.url);
  try {
    const row = await reopened.kysely
      .selectFrom('runs')
      .selectAll()
      .where('id', '=', running.id)
      .executeTakeFirstOrThrow();
    assert.equal(row.state, 'failed');
    assert.notEqual(row.interrupted_at, null, 'V4: stopped by the shutdown, so interrupted');
    const attempt = await reopened.kysely
      .selectFrom('attempts')
      .selectAll()
      .where('id', '=', running.attemptId)
      .executeTakeFirstOrThrow();
    // V4: left in flight for the next start to offer again, free — not retryable, no notice.
    assert.equal(attempt.state, 'running');
    assert.equal(attempt.interruptions, 0);
    const taskRow = await reopened.kysely
      .selectFrom('tasks')
      .selectAll()
      .where('id', '=', task.id)
      .executeTakeFirstOrThrow();
    assert.equal(taskRow.notice_at, null, 'no agent_unreachable notice for an agent cut short');
  } finally {
    await reopened.close();
    await db.drop();
  }
});
