// Issue 33 (migration 0024_task_people_facts): the poll stores the pull request's title and author,
// on both databases, and the board and the Task page show them beside the pull request.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { DATABASE_KINDS } from '../support/databases.js';
import { startGitHubHarness, sha } from '../support/github-harness.js';
import { boardPage } from '../../src/dashboard/board-page.js';
import { timelinePage } from '../../src/dashboard/timeline-page.js';
import type { PageContext } from '../../src/dashboard/page-context.js';

const page: PageContext = { csrf: 'x', stopped: false, failedDeliveries: 0, maxAttempts: 2, costCeiling: null };

for (const kind of DATABASE_KINDS) {
  describe(`the pull request's title and author (issue 33, ${kind})`, () => {
    test('the poll fills them, and a later rename is written', async () => {
      const h = await startGitHubHarness(kind);
      try {
        const pull = h.fake.addPull('acme/shop', 7, {
          headSha: sha('a'),
          title: 'Fix the login form',
          author: 'agent-bot[bot]',
        });
        const created = await h.api('POST', '/api/tasks', {
          repository: 'acme/shop',
          pullRequest: 7,
          branch: 'agent/x',
        });
        assert.equal(created.status, 201);
        const before = await h.app.ledger.getTask(created.body.id);
        assert.equal(before?.prTitle ?? null, null, 'nothing is known before the poll');
        h.clock.advance(120_000);
        await h.tick();
        const rows = (await h.app.ledger.boardPage({ limit: 10 })).rows;
        assert.deepEqual(
          rows.map((r) => [r.prTitle, r.prAuthor]),
          [['Fix the login form', 'agent-bot[bot]']],
        );
        pull.title = 'Fix the login form (take 2)';
        pull.updatedAt = '2024-01-02T00:00:00Z';
        h.clock.advance(120_000);
        await h.tick();
        const task = (await h.app.ledger.getTask(created.body.id))!;
        assert.equal(task.prTitle, 'Fix the login form (take 2)');
        // Shown beside the pull request, escaped like every other text from a host.
        const board = String(await boardPage(page, {}, (await h.app.ledger.boardPage({ limit: 10 })).rows, null));
        assert.match(board, /<div class="title">Fix the login form \(take 2\)<\/div>/);
        assert.match(board, /by agent-bot\[bot\] · agent\/x/);
        const story = String(await timelinePage(page, task, [], 0));
        assert.match(story, /Fix the login form \(take 2\)/);
        assert.match(story, /Opened by agent-bot\[bot\]/);
      } finally {
        await h.close();
      }
    });
  });
}
