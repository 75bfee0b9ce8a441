// Issue 35 (SPEC I5) on both databases: no run holds a loop forever. An automatic run still unfinished
// past its window (runTimeoutMinutes) is ended by the liveness pass, and the Task's one notice says so
// (run_timeout); the attempt is not retried into the budget, and nothing is told twice.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { DATABASE_KINDS } from '../support/databases.js';
import { startGitHubHarness } from '../support/github-harness.js';
import { RecordingRunner } from '../support/harness.js';
import { until } from '../support/server-process.js';
import { attemptRows, decisionsOf, nextTick, sha, taskWithRedHead } from '../support/loop-driver.js';

/** A runner whose agents never end, and which stops one when asked, as the command runner does. */
class HangingRunner extends RecordingRunner {
  killed: number[] = [];
  kill(runId: number): boolean {
    this.killed.push(runId);
    this.finish(runId, 'failed');
    return true;
  }
}

for (const kind of DATABASE_KINDS) {
  describe(`a run past its window ends in a notice (${kind})`, () => {
    test('a hung agent is stopped at its window, the Task handed to a person with run_timeout, and not retried', async () => {
      const runner = new HangingRunner();
      const h = await startGitHubHarness(kind, {
        runner,
        configExtra: { runTimeoutMinutes: 5 },
        adapters: { adoptEveryMs: 20 },
      });
      try {
        const taskId = await taskWithRedHead(h, 51, sha('a'), 'FAIL src/cart.test.ts');
        await nextTick(h);
        const [run] = runner.starts;
        assert.ok(run, 'the red head resumed the agent');

        h.clock.advance(5 * 60_000); // the agent never ends on its own
        const notice: any = await until(
          'the run_timeout notice',
          async () => (await h.api('GET', `/api/tasks/${taskId}`)).body.notice,
          20_000,
          10,
        );
        assert.equal(notice.reason, 'run_timeout');
        assert.match(notice.message, /still unfinished past its window/);
        assert.match(notice.message, /5 minutes after it was dispatched/);

        const ended = await until('the run to end', async () => {
          const r = (await h.api('GET', `/api/runs/${run.runId}`)).body;
          return r.state === 'failed' ? r : null;
        });
        assert.equal(ended.state, 'failed');
        assert.deepEqual(runner.killed, [run.runId], 'its agent was stopped');
        assert.match(
          (await h.app.ledger.getRunLog(run.runId)) ?? '',
          /past its window \(runTimeoutMinutes\); fixloop stops it/,
        );
        // The decision rows are group-committed after the run's end: wait for the run's own.
        const rows = await until('the run_timeout decision of the run', async () => {
          const all = await decisionsOf(h, taskId);
          return all.some((d) => d.outcome === 'failed' && d.reason === 'run_timeout') ? all : null;
        });
        assert.equal(rows.filter((d) => d.outcome === 'noticed').length, 1, 'one notice');
        assert.ok(
          rows.some((d) => d.outcome === 'failed' && d.reason === 'run_timeout'),
          JSON.stringify(rows),
        );

        await nextTick(h);
        await nextTick(h);
        assert.equal(runner.starts.length, 1, 'not retried into the budget');
        assert.equal((await attemptRows(h.app, taskId)).length, 1);
      } finally {
        await h.close();
      }
    });
  });

  describe(`a hung agent process past its window (${kind})`, () => {
    test("the command runner's agent that never exits is killed at its window, and a person is told run_timeout", async () => {
      const hung = `console.log('agent pid ' + process.pid); setInterval(() => {}, 1000);`;
      const h = await startGitHubHarness(kind, {
        configExtra: {
          runner: {
            kind: 'command',
            command: [process.execPath, '-e', hung],
            envAllow: ['AGENT_DIR'],
            isolation: 'none',
          },
          runTimeoutMinutes: 5,
        },
        adapters: { runner: undefined, adoptEveryMs: 20 },
      });
      try {
        const taskId = await taskWithRedHead(h, 52, sha('b'), 'FAIL src/cart.test.ts');
        await nextTick(h);
        const run = await until('the agent to start', async () => {
          const latest = await h.app.ledger.latestRun(taskId);
          return latest?.attemptId != null ? latest : null;
        });
        const pid = Number(
          await until(
            'the agent to say its pid',
            async () => /agent pid (\d+)/.exec((await h.app.ledger.getRunLog(run.id)) ?? '')?.[1],
          ),
        );
        const alive = () => {
          try {
            process.kill(pid, 0);
            return true;
          } catch {
            return false;
          }
        };
        assert.ok(alive(), 'the agent runs, and would forever');

        h.clock.advance(5 * 60_000);
        const notice: any = await until(
          'the run_timeout notice',
          async () => (await h.api('GET', `/api/tasks/${taskId}`)).body.notice,
          20_000,
          10,
        );
        assert.equal(notice.reason, 'run_timeout');
        await until('the agent process to be gone', async () => !alive() || null, 20_000, 20);
      } finally {
        await h.close();
      }
    });
  });
}
