// Issue 33 (SPEC M4, V2): the Task page's words, without a browser — the failure to fix now after a
// stop, a run log of JSON lines read as text, and each state saying what happens next.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Notice, Rejection } from '../../src/core/types.js';
import { failureNow, logAsText, type TaskStory } from '../../src/dashboard/timeline.js';
import { ago } from '../../src/dashboard/time-words.js';
import { timelinePage } from '../../src/dashboard/timeline-page.js';
import type { PageContext } from '../../src/dashboard/page-context.js';
import { taskFixture } from '../support/fixtures.js';

const NOW = Date.parse('2026-12-04T12:00:00.000Z');
const page: PageContext = {
  csrf: 'x',
  stopped: false,
  failedDeliveries: 0,
  maxAttempts: 2,
  costCeiling: null,
  nowMs: NOW,
};
const rejection = (id: number, headSha: string, body: string): Rejection => ({
  id,
  taskId: 1,
  source: 'gate',
  headSha,
  checkName: 'test',
  body,
  author: null,
  createdAt: '2026-12-04T11:00:00.000Z',
});
const notice = (headSha: string): Notice => ({
  id: 1,
  taskId: 1,
  reason: 'budget_spent',
  headSha,
  attemptsUsed: 2,
  repository: 'acme/shop',
  pullRequest: 7,
  message: 'stopped',
  createdAt: '2026-12-04T11:30:00.000Z',
});
const story = (over: Partial<TaskStory>): TaskStory => ({
  task: taskFixture({}),
  entries: [],
  groups: [],
  interrupted: false,
  attemptsUsed: 0,
  notice: null,
  failureNow: null,
  runningRunId: null,
  ...over,
});
const render = async (...args: Parameters<typeof timelinePage>) => String(await timelinePage(...args));

describe('the Task page in words (issue 33)', () => {
  test("after a stop, the failure to fix is the stopping head's, not the first red nor a newer one of another head", () => {
    const reds = [
      rejection(1, 'a'.repeat(40), 'FAIL first\nexpected sum(2, 2) to be 4, got 5'),
      rejection(2, 'b'.repeat(40), 'FAIL second\nexpected sum(-1, 1) to be 0, got 2'),
      rejection(3, 'c'.repeat(40), 'FAIL third'),
    ];
    const task = taskFixture({ ciHeadSha: 'c'.repeat(40) });
    const f = failureNow(task, reds, notice('b'.repeat(40)));
    assert.deepEqual([f?.stopping, f?.headSha], [true, 'b'.repeat(40)]);
    assert.match(f!.line, /expected sum\(-1, 1\) to be 0, got 2/);
    // Without a stop: the current head's red.
    assert.equal(failureNow(task, reds, null)?.headSha, 'c'.repeat(40));
  });

  test('a run log of JSON lines reads as its text; plain lines stay as they are', () => {
    const log = [
      '{"type":"assistant","message":{"content":[{"type":"text","text":"Reading the failing test."}]}}',
      'plain line from the shell',
      '{"type":"result","result":"Pushed a fix to agent/fix."}',
      '{"type":"system","subtype":"init"}',
    ].join('\n');
    assert.equal(logAsText(log), 'Reading the failing test.\nplain line from the shell\nPushed a fix to agent/fix.');
  });

  test('relative times', () => {
    assert.equal(ago('2026-12-04T11:59:50.000Z', NOW), 'just now');
    assert.equal(ago('2026-12-04T11:57:00.000Z', NOW), '3 minutes ago');
    assert.equal(ago('2026-12-04T09:00:00.000Z', NOW), '3 hours ago');
    assert.equal(ago('2026-12-01T12:00:00.000Z', NOW), '3 days ago');
  });

  test('parked, off, interrupted and a cancelled run each say what happens next', async () => {
    const parked = await render(page, taskFixture({ parkedAt: '2026-12-04T10:00:00.000Z', ciState: 'red' }), [], 1);
    assert.match(parked, /Parked\.<\/strong>.*Unpark it to let the loop work on it again/s);
    const off = await render(page, taskFixture({ loopOff: true, ciState: 'red' }), [], 1);
    assert.match(off, /The loop is off for this Task\..*until someone starts the loop for this Task again/s);
    const interrupted = await render(page, taskFixture({ ciState: 'red' }), [], 1, true);
    assert.match(interrupted, /Interrupted by a restart: will be offered again\..*once, at no cost to the budget/s);
    const cancelled = await render(page, taskFixture({ ciState: 'red' }), [], 1, false, {
      story: story({
        entries: [
          {
            at: '2026-12-04T11:00:00.000Z',
            kind: 'run',
            title: 'The agent ran for this attempt: cancelled',
            words: null,
            text: null,
          },
        ],
      }),
    });
    assert.match(
      cancelled,
      /CI is red; the last run was cancelled\..*The loop resumes the agent on the next red \(1 automatic attempt left\)/s,
    );
    // Never "idle" beside a red CI.
    assert.doesNotMatch(cancelled, />idle</);
  });

  test('the resume box is behind "resume", and the ↗ link has a name', async () => {
    const html = await render(page, taskFixture({}), [], 0);
    assert.match(html, /<details class="resume card"><summary>Resume the agent with a message…<\/summary>/);
    assert.match(html, /aria-label="acme\/[^"]+#\d+ on GitHub"/);
  });
});
