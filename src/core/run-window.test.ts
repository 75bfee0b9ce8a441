import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runOverdue, DEFAULT_RUN_TIMEOUT_MINUTES, type WindowedRun } from './run-window.js';
import { RUN_STATES } from './types.js';

const HOUR = 60 * 60_000;
const run = (o: Partial<WindowedRun> = {}): WindowedRun => ({
  id: 9,
  state: 'running',
  attemptId: 4,
  createdAt: '2026-12-05T10:00:00.000Z',
  ...o,
});

test('issue 35: the default window is an hour', () => {
  assert.equal(DEFAULT_RUN_TIMEOUT_MINUTES, 60);
});

test('issue 35: an automatic run unfinished at its window is overdue; one a millisecond younger is not', () => {
  assert.equal(runOverdue(run(), HOUR, '2026-12-05T10:59:59.999Z'), null);
  const why = runOverdue(run(), HOUR, '2026-12-05T11:00:00.000Z');
  assert.match(
    why ?? '',
    /^run 9 was still running 60 minutes after it was dispatched \(at 2026-12-05T10:00:00.000Z\)/,
  );
  assert.match(why ?? '', /runTimeoutMinutes/);
});

test('issue 35: only queued and running automatic runs are held to the window', () => {
  const late = '2026-12-06T10:00:00.000Z';
  const checked = RUN_STATES.map((state) => [state, runOverdue(run({ state }), HOUR, late) !== null] as const);
  assert.deepEqual(checked, [
    ['queued', true],
    ['running', true],
    ['question', false],
    ['completed', false],
    ['failed', false],
    ['cancelled', false],
  ]);
  assert.equal(runOverdue(run({ attemptId: null }), HOUR, late), null, "a person's run is theirs");
});

test('issue 35: a run whose start cannot be read is overdue rather than held forever', () => {
  assert.notEqual(runOverdue(run({ createdAt: 'not a time' }), HOUR, '2026-12-05T10:00:00.000Z'), null);
});

test('issue 35: a one-minute window says minute, not minutes', () => {
  assert.match(runOverdue(run(), 60_000, '2026-12-05T10:01:00.000Z') ?? '', /1 minute after/);
});
