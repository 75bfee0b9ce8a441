// Issue 36 item 3, on GitLab: a Work's rules per check, through GitLab's webhooks (the push's Merge
// Request hook, then the failing job's Job hook) against the fake GitLab, on both databases. A job
// ruled to a person files its notice with the rule in words and starts no run; a job's instructions
// are in the agent's prompt; a job allowed one attempt gets one while another job keeps the Work's
// budget; a fix touching a path outside the job's rule's paths is stopped; a job whose rule re-runs
// first has its pipeline retried before any attempt.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { DATABASE_KINDS } from '../../support/databases.js';
import {
  GL_PROJECT,
  finishLast,
  gitlabWorks,
  sha,
  startGitLabHarness,
  type GitLabHarness,
} from '../../support/gitlab-harness.js';

async function withRules(
  kind: 'sqlite' | 'postgres',
  checks: unknown[],
  f: (h: GitLabHarness) => Promise<void>,
  budget = '2',
): Promise<void> {
  const [work] = gitlabWorks() as Array<Record<string, unknown>>;
  const h = await startGitLabHarness(kind, {
    env: { TASK_CI_AUTO_RESUME_MAX_ATTEMPTS: budget },
    configExtra: { works: [{ ...work, checks }] },
  });
  try {
    await f(h);
  } finally {
    await h.close();
  }
}

async function openTask(h: GitLabHarness, iid: number): Promise<number> {
  h.openMergeRequest(iid, { headSha: sha('0'), sourceBranch: `agent/${iid}` });
  const created = await h.api('POST', '/api/tasks', {
    repository: GL_PROJECT,
    pullRequest: iid,
    branch: `agent/${iid}`,
  });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  return created.body.id as number;
}

/** The agent pushed `sha(c)` (its Merge Request hook), then the job `name` failed on it (its Job hook); a started run ends. */
async function redJob(h: GitLabHarness, iid: number, c: string, name: string, trace: string) {
  h.clock.advance(120_000);
  const oldrev = h.push(iid, sha(c));
  const pushed = await h.hook('Merge Request Hook', h.mergeRequestHook(iid, { action: 'update', oldrev }));
  assert.equal(pushed.status, 202, JSON.stringify(pushed.body));
  h.clock.advance(60_000);
  const [job] = h.runPipeline(iid, sha(c), [{ name, status: 'failed', trace }]).jobs;
  const res = await h.hook('Job Hook', h.jobHook(job!));
  assert.equal(res.status, 202, JSON.stringify(res.body));
  await h.app.settle();
  return job!;
}

async function redJobAndFinish(h: GitLabHarness, iid: number, c: string, name: string, trace: string) {
  const before = h.runner.starts.length;
  const job = await redJob(h, iid, c, name, trace);
  if (h.runner.starts.length > before) await finishLast(h);
  return job;
}

const notices = async (h: GitLabHarness, taskId: number) =>
  ((await h.api('GET', '/api/inbox')).body.notices as any[]).filter((n) => n.taskId === taskId);

for (const kind of DATABASE_KINDS) {
  describe(`rules per check on GitLab (issue 36, ${kind})`, () => {
    test('a job with 0 attempts goes to a person: one notice with the rule in words, no run', async () => {
      await withRules(kind, [{ name: 'e2e*', attempts: 0 }], async (h) => {
        const taskId = await openTask(h, 61);
        await redJobAndFinish(h, 61, '1', 'e2e-chrome', 'checkout flow: timeout waiting for #pay');
        assert.equal(h.runner.starts.length, 0, 'no agent run');
        const all = await notices(h, taskId);
        assert.deepEqual(
          all.map((n) => n.reason),
          ['check_rule_person'],
        );
        assert.match(all[0].message, /acme\/shop-gl!61/, "in the merge request's words");
        assert.match(all[0].message, /rule: e2e\* → a person/);
      });
    });

    test("a job's instructions are in the agent's prompt", async () => {
      const snap = 'Snapshot tests are updated with `npm run snap`, never by hand.';
      await withRules(kind, [{ name: 'unit', instructions: snap }], async (h) => {
        await openTask(h, 62);
        await redJobAndFinish(h, 62, '1', 'unit', 'FAIL src/card.test.ts > renders\nsnapshot mismatch');
        assert.equal(h.runner.starts.length, 1);
        const prompt = h.runner.starts[0]!.prompt;
        assert.match(prompt, /Instructions for this check from the people who run fixloop for this repository/);
        assert.ok(prompt.indexOf(snap) >= 0 && prompt.indexOf(snap) < prompt.indexOf('<untrusted-data-'));
      });
    });

    test("a job allowed 1 attempt gets one; another job keeps the Work's budget; then a person", async () => {
      await withRules(
        kind,
        [{ name: 'lint', attempts: 1 }],
        async (h) => {
          const taskId = await openTask(h, 63);
          await redJobAndFinish(h, 63, '1', 'lint', 'src/a.ts: 1:1 unused import');
          await redJobAndFinish(h, 63, '2', 'unit', 'FAIL src/b.test.ts > parses');
          assert.equal(h.runner.starts.length, 2, 'another job keeps the budget of 3');
          await redJobAndFinish(h, 63, '3', 'lint', 'src/c.ts: 4:2 missing semicolon');
          assert.equal(h.runner.starts.length, 2, 'no second attempt for lint');
          const [notice] = await notices(h, taskId);
          assert.equal(notice.reason, 'check_rule_spent');
          assert.match(notice.message, /rule: lint → at most 1 attempt; 1 used/);
        },
        '3',
      );
    });

    test("a fix touching a path outside the job's rule's paths is stopped", async () => {
      await withRules(kind, [{ name: 'lint', paths: ['src/**'] }], async (h) => {
        const taskId = await openTask(h, 64);
        await redJobAndFinish(h, 64, '1', 'lint', 'src/a.ts: 1:1 unused import');
        assert.equal(h.runner.starts.length, 1);
        h.fake.setCompare(GL_PROJECT, sha('1'), sha('2'), [
          {
            old_path: 'src/a.ts',
            new_path: 'src/a.ts',
            diff: '@@ -1,2 +1,1 @@\n-import { x } from "./x";\n import { y } from "./y";\n',
          },
          {
            old_path: '.eslintrc.json',
            new_path: '.eslintrc.json',
            diff: '@@ -3,1 +3,1 @@\n-  "no-unused-vars": "error"\n+  "no-unused-vars": "off"\n',
          },
        ]);
        await redJobAndFinish(h, 64, '2', 'lint', 'src/b.ts: 2:2 missing semicolon');
        assert.equal(h.runner.starts.length, 1, 'no attempt after the stopped push');
        const all = await notices(h, taskId);
        assert.deepEqual(
          all.map((n) => n.reason),
          ['check_rule_paths'],
        );
        assert.match(all[0].message, /rule: lint → fixes only in src\/\*\*; outside them: \.eslintrc\.json/);
      });
    });

    test('a job whose rule re-runs first has its pipeline retried before any attempt', async () => {
      await withRules(kind, [{ name: 'integration', rerunFirst: true }], async (h) => {
        const taskId = await openTask(h, 65);
        const job = await redJobAndFinish(h, 65, '1', 'integration', 'db container did not answer in 30s');
        assert.equal(h.runner.starts.length, 0, 'no attempt before the re-run');
        const decisions = (await h.api('GET', `/api/deliveries?taskId=${taskId}&limit=500`)).body.decisions as any[];
        assert.ok(
          decisions.some(
            (d) => d.reason === 'rerun_requested' && /rule: integration → a first failure re-run first/.test(d.detail),
          ),
          'the refusal names the rule',
        );
        const retries = h.fake.state.jobRetries;
        assert.deepEqual(
          retries.map((r) => r.jobId),
          [job.id],
          'the failed job was retried once',
        );
        // The retried job fails too: now the agent, and nothing is retried again.
        h.clock.advance(60_000);
        const again = h.finishJob({ ...job, id: retries[0]!.newJobId, retries: 1 }, 'failed');
        const res = await h.hook('Job Hook', h.jobHook(again));
        assert.equal(res.status, 202, JSON.stringify(res.body));
        await h.app.settle();
        assert.equal(h.runner.starts.length, 1);
        assert.equal(h.fake.state.jobRetries.length, 1);
      });
    });
  });
}
