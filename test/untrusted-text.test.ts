// Issue 31: strings written by others reach the ledger without control or bidirectional characters,
// whatever the webhook carried — a branch name with NUL and a right-to-left override, a check name
// with an isolate (src/core/untrusted-text.ts, applied where payloads are parsed).
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { DATABASE_KINDS } from './support/databases.js';
import { startHarness, REPO, SECRET, type Harness } from './support/harness.js';
import { checkRunPayload, delivery, post, pullRequestPayload } from './support/deliveries.js';

const HEAD = 'c1'.repeat(20);

async function send(h: Harness, event: string, payload: unknown): Promise<void> {
  const res = await post(h.url, delivery(event, payload), SECRET);
  assert.ok(res.status < 300, JSON.stringify(res.body));
  await h.app.settle();
}

for (const kind of DATABASE_KINDS) {
  describe(`untrusted text through the webhook (${kind})`, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(kind, {
        configExtra: {
          works: [
            {
              name: 'shop',
              account: 'acme',
              repositories: [{ name: 'acme/shop', role: 'data', adopt: { branches: ['agent/*'], authors: [] } }],
            },
          ],
        },
      });
    });
    after(() => h.close());

    test('a branch with NUL and RLO, and a check name with an isolate, are stored without them', async () => {
      await send(
        h,
        'pull_request',
        pullRequestPayload({
          repo: REPO,
          number: 77,
          action: 'opened',
          headSha: HEAD,
          branch: 'agent/fix\u0000\u202Etxt.exe',
        }),
      );
      const task = (await h.api('GET', '/api/tasks')).body.tasks.find((t: any) => t.pullRequest === 77);
      assert.ok(task, 'the pull request was adopted');
      assert.equal(task.branch, 'agent/fixtxt.exe');

      await send(
        h,
        'check_run',
        checkRunPayload({
          repo: REPO,
          sha: HEAD,
          id: 7701,
          name: 'unit\u2066 tests\u2069\u0007',
          conclusion: 'failure',
          pr: { number: 77, headSha: HEAD },
          branch: task.branch,
        }),
      );
      const view = (await h.api('GET', `/api/tasks/${task.id}`)).body;
      assert.equal(view.rejections[0].checkName, 'unit tests');
      // What the agent is told names the same plain branch and check.
      const prompt = h.runner.starts.filter((s) => s.taskId === task.id).at(-1)!.prompt;
      assert.match(prompt, /unit tests/);
      assert.doesNotMatch(prompt, /[\u0000\u0007\u202E\u2066\u2069]/);
    });
  });
}
