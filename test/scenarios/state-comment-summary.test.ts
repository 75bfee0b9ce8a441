// SPEC K8, V2 (with K5): the state comment on a real pull request (the fake GitHub) reads as a summary
// for people — the state in words, attempts used of the budget, the failing checks of the *current*
// head, what happens next with the actions a person has, and the link to the Task page — above the
// folded machine-readable block, and follows the loop from an attempt to a stop.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { DATABASE_KINDS } from '../support/databases.js';
import { startGitHubHarness, nextTick, redHead, sha, type GitHubHarness } from '../support/github-harness.js';
import { STATE_MARKER } from '../../src/core/state-comment.js';

const PR = 41;
const comment = (h: GitHubHarness) =>
  (h.fake.state.comments[`acme/shop#${PR}`] ?? []).filter((c) => c.body.startsWith(STATE_MARKER));

for (const kind of DATABASE_KINDS) {
  describe(`the state comment's summary (${kind})`, () => {
    test('K8/V2: after an attempt, then after the stop: the failing check of the current head, what next, the Task page', async () => {
      const h = await startGitHubHarness(kind, {
        env: { TASK_CI_AUTO_RESUME_MAX_ATTEMPTS: '1', FIXLOOP_PUBLIC_URL: 'https://fixloop.example.com/' },
      });
      try {
        const { body: task } = await h.api('POST', '/api/tasks', {
          repository: 'acme/shop',
          pullRequest: PR,
          branch: 'agent/x',
        });
        h.fake.addPull('acme/shop', PR, { headSha: sha('0'), headRef: 'agent/x' });
        await redHead(h, PR, '1', 'FAIL expected sum(2, 2) to be 4, got 5');
        await nextTick(h);
        const during = comment(h);
        assert.equal(during.length, 1);
        const first = during[0]!.body;
        assert.match(
          first,
          /^- \*\*Attempts:\*\* 1 of 1 automatic attempt used; 0 of 3 grants of one more attempt used, 3 left$/m,
        );
        assert.match(first, new RegExp(`^- \\*\\*What failed on \`${sha('1').slice(0, 12)}\`:\\*\\* \`test\`$`, 'm'));
        assert.match(
          first,
          new RegExp(
            `^- \\*\\*Task page:\\*\\* \\[acme/shop#${PR} in fixloop\\]\\(https://fixloop\\.example\\.com/tasks/${task.id}\\)$`,
            'm',
          ),
        );
        assert.ok(
          first.indexOf('- **What happens next:**') < first.indexOf('<details>'),
          'the summary is above the JSON',
        );

        // A new red head spends nothing more (budget 1): the loop stops and a person decides.
        await redHead(h, PR, '2', 'FAIL expected sum(-1, 1) to be 0, got 2');
        await nextTick(h);
        const after = comment(h);
        assert.equal(after.length, 1, 'updated, never duplicated');
        const stopped = after[0]!.body;
        assert.match(stopped, /^\*\*fixloop: stopped — a person decides\*\*$/m);
        assert.match(stopped, new RegExp(`^- \\*\\*What failed on \`${sha('2').slice(0, 12)}\`:\\*\\* \`test\`$`, 'm'));
        assert.match(stopped, /comment `\/fixloop retry`/);
        assert.match(stopped, /`fixloop:approve-one`/);
        const decisions = (await h.api('GET', `/api/deliveries?taskId=${task.id}&limit=500`)).body.decisions as any[];
        assert.ok(
          !decisions.some((d) => d.reason === 'state_comment_tampered'),
          'its own rewrites are never a tamper report',
        );
      } finally {
        await h.close();
      }
    });
  });
}
