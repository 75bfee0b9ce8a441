// Issue 36 item 3, on GitHub: a Work's rules per check, through the real pipeline (poll → gate →
// claim → dispatch, and the push guard) against the fake GitHub, on both databases. A check ruled
// to a person files its notice with the rule in words and starts no run; a check's instructions are
// in the agent's prompt; a check allowed one attempt gets one while another check keeps the Work's
// budget; a fix for a check that touches a path outside its rule's paths is stopped; a check whose
// rule re-runs first is re-run before any attempt, and reaches the agent only when it fails again.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { DATABASE_KINDS } from '../support/databases.js';
import { startGitHubHarness, sha, type GitHubHarness } from '../support/github-harness.js';
import { API_TOKEN } from '../support/harness.js';
import type { FakeCompareFile } from '../support/fake-github/state.js';

const REPO = 'acme/shop';

/** The harness's one Work, with rules per check. */
const works = (checks: unknown[]) => [
  {
    name: 'shop',
    account: 'acme',
    repositories: [
      { name: 'acme/shop', role: 'data' },
      { name: 'acme/shop-site', role: 'website' },
    ],
    checks,
  },
];

async function withRules(
  kind: 'sqlite' | 'postgres',
  checks: unknown[],
  f: (h: GitHubHarness) => Promise<void>,
  budget = '2',
): Promise<void> {
  const h = await startGitHubHarness(kind, {
    env: { TASK_CI_AUTO_RESUME_MAX_ATTEMPTS: budget },
    configExtra: { works: works(checks) },
  });
  try {
    await f(h);
  } finally {
    await h.close();
  }
}

async function openTask(h: GitHubHarness, pr: number): Promise<number> {
  const branch = `agent/${pr}`;
  const { body } = await h.api('POST', '/api/tasks', { repository: REPO, pullRequest: pr, branch });
  h.fake.addPull(REPO, pr, { headSha: sha('0'), headRef: branch });
  return body.id as number;
}

/** The agent pushed `sha(c)`, on which the check `name` failed with `output`; the next tick reads it; a started run ends. */
async function redCheck(
  h: GitHubHarness,
  pr: number,
  c: string,
  name: string,
  output: string,
  o: { runId?: number } = {},
) {
  h.clock.advance(120_000);
  h.fake.setHead(REPO, pr, sha(c));
  h.fake.addCheckRun(REPO, sha(c), {
    name,
    status: 'completed',
    conclusion: 'failure',
    outputSummary: output,
    ...(o.runId !== undefined ? { runId: o.runId } : {}),
  });
  const before = h.runner.starts.length;
  await h.tick();
  if (h.runner.starts.length > before) h.runner.finish(h.runner.starts.at(-1)!.runId);
  await h.app.settle();
}

const notices = async (h: GitHubHarness, taskId: number) =>
  ((await h.api('GET', '/api/inbox')).body.notices as any[]).filter((n) => n.taskId === taskId);

/** The Task's page on the dashboard, signed in. */
async function taskPage(h: GitHubHarness, taskId: number): Promise<string> {
  const res = await fetch(`${h.url}/sign-in`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: h.url },
    body: new URLSearchParams({ token: API_TOKEN }).toString(),
    redirect: 'manual',
  });
  assert.equal(res.status, 303, 'signed in');
  const cookie = (res.headers.get('set-cookie') ?? '').split(';')[0]!;
  return (await fetch(`${h.url}/tasks/${taskId}`, { headers: { cookie } })).text();
}

for (const kind of DATABASE_KINDS) {
  describe(`rules per check on GitHub (issue 36, ${kind})`, () => {
    test('a check with 0 attempts goes to a person: one notice with the rule in words, no run, and the Task page says so', async () => {
      await withRules(
        kind,
        [
          { name: 'e2e*', attempts: 0 },
          { name: '*', attempts: 3 },
        ],
        async (h) => {
          const taskId = await openTask(h, 51);
          await redCheck(h, 51, '1', 'e2e (chrome)', 'checkout flow: timeout waiting for #pay');
          assert.equal(h.runner.starts.length, 0, 'no agent run');
          const [notice, ...more] = await notices(h, taskId);
          assert.equal(more.length, 0, 'one notice');
          assert.equal(notice.reason, 'check_rule_person');
          assert.match(notice.message, /rule for this check hands its failures to a person/);
          assert.match(notice.message, /rule: e2e\* → a person/);
          const page = await taskPage(h, taskId);
          assert.match(page, /data-check-rule="">rule: e2e\* → a person</);
          // The loop stopped: a later red of another check is a read.
          await redCheck(h, 51, '2', 'lint', 'src/a.ts: 1:1 unused import');
          assert.equal(h.runner.starts.length, 0);
          assert.equal((await notices(h, taskId)).length, 1);
        },
      );
    });

    test("a check's instructions are in the agent's prompt, labelled as the operators'; another check's are not", async () => {
      const snap = 'Snapshot tests are updated with `npm run snap`, never by hand.';
      await withRules(kind, [{ name: 'unit', instructions: snap }], async (h) => {
        await openTask(h, 52);
        await redCheck(h, 52, '1', 'unit', 'FAIL src/card.test.ts > renders\nsnapshot mismatch');
        assert.equal(h.runner.starts.length, 1);
        const prompt = h.runner.starts[0]!.prompt;
        assert.match(prompt, /Instructions for this check from the people who run fixloop for this repository/);
        assert.ok(prompt.includes(snap), 'the instructions are in the prompt');
        // Outside the untrusted data block: they come before its opening marker.
        assert.ok(prompt.indexOf(snap) < prompt.indexOf('<untrusted-data-'), 'in the frame, not in the data');

        await redCheck(h, 52, '2', 'lint', 'src/a.ts: 1:1 unused import');
        assert.equal(h.runner.starts.length, 2);
        assert.ok(!h.runner.starts[1]!.prompt.includes(snap), 'a check without the rule gets none');
      });
    });

    test("a check allowed 1 attempt gets one; another check keeps the Work's budget; then the rule hands the check to a person", async () => {
      await withRules(
        kind,
        [{ name: 'lint', attempts: 1 }],
        async (h) => {
          const taskId = await openTask(h, 53);
          await redCheck(h, 53, '1', 'lint', 'src/a.ts: 1:1 unused import');
          assert.equal(h.runner.starts.length, 1);
          await redCheck(h, 53, '2', 'unit', 'FAIL src/b.test.ts > parses');
          assert.equal(h.runner.starts.length, 2, 'another check keeps the budget of 3');
          await redCheck(h, 53, '3', 'lint', 'src/c.ts: 4:2 missing semicolon');
          assert.equal(h.runner.starts.length, 2, 'no second attempt for lint');
          const [notice] = await notices(h, taskId);
          assert.equal(notice.reason, 'check_rule_spent');
          assert.match(notice.message, /rule: lint → at most 1 attempt; 1 used/);
          assert.match(notice.message, /2 of 3 automatic attempts used/);
          assert.match(await taskPage(h, taskId), /data-check-rule="">rule: lint → at most 1 attempt</);
        },
        '3',
      );
    });

    test("a fix for a check that touches a path outside its rule's paths is stopped, naming the files", async () => {
      await withRules(kind, [{ name: 'lint', paths: ['src/**'] }], async (h) => {
        const taskId = await openTask(h, 54);
        await redCheck(h, 54, '1', 'lint', 'src/a.ts: 1:1 unused import');
        assert.equal(h.runner.starts.length, 1);
        const push: FakeCompareFile[] = [
          { path: 'src/a.ts', patch: '@@ -1,2 +1,1 @@\n-import { x } from "./x";\n import { y } from "./y";' },
          {
            path: 'eslint.config.js',
            patch: '@@ -3,1 +3,1 @@\n-  "no-unused-vars": "error",\n+  "no-unused-vars": "off",',
          },
        ];
        h.fake.setCompare(REPO, sha('1'), sha('2'), push);
        await redCheck(h, 54, '2', 'lint', 'src/b.ts: 2:2 missing semicolon');
        assert.equal(h.runner.starts.length, 1, 'no attempt after the stopped push');
        const [notice, ...more] = await notices(h, taskId);
        assert.equal(more.length, 0);
        assert.equal(notice.reason, 'check_rule_paths');
        assert.match(notice.message, /outside the paths the Work's rule allows/);
        assert.match(notice.message, /rule: lint → fixes only in src\/\*\*; outside them: eslint\.config\.js/);
        assert.doesNotMatch(notice.message, /outside them: [^)]*src\/a\.ts/);
      });
    });

    test('a fix for the same check inside its paths goes on', async () => {
      await withRules(kind, [{ name: 'lint', paths: ['src/**'] }], async (h) => {
        const taskId = await openTask(h, 55);
        await redCheck(h, 55, '1', 'lint', 'src/a.ts: 1:1 unused import');
        h.fake.setCompare(REPO, sha('1'), sha('2'), [
          { path: 'src/a.ts', patch: '@@ -1,2 +1,1 @@\n-import { x } from "./x";\n import { y } from "./y";' },
        ]);
        await redCheck(h, 55, '2', 'lint', 'src/b.ts: 2:2 missing semicolon');
        assert.equal(h.runner.starts.length, 2);
        assert.deepEqual(await notices(h, taskId), []);
      });
    });

    test('a check whose rule re-runs first is re-run before any attempt, and goes to the agent when the re-run fails too', async () => {
      await withRules(kind, [{ name: 'integration', rerunFirst: true }], async (h) => {
        const taskId = await openTask(h, 56);
        await redCheck(h, 56, '1', 'integration', 'db container did not answer in 30s', { runId: 7001 });
        assert.equal(h.runner.starts.length, 0, 'no attempt before the re-run');
        assert.deepEqual(
          h.fake.state.reruns.map((r) => r.runId),
          [7001],
        );
        const decisions = (await h.api('GET', `/api/deliveries?taskId=${taskId}&limit=500`)).body.decisions as any[];
        assert.ok(
          decisions.some(
            (d) => d.reason === 'rerun_requested' && /rule: integration → a first failure re-run first/.test(d.detail),
          ),
          'the refusal names the rule',
        );
        // The re-run fails too (a new job of the same workflow run): now the agent.
        await redCheck(h, 56, '1', 'integration', 'db container did not answer in 30s', { runId: 7001 });
        assert.equal(h.runner.starts.length, 1);
        assert.equal(h.fake.state.reruns.length, 1, 'asked once');
      });
    });
  });
}
