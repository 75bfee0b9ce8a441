// A run found `running` at start-up (L1, I4): what becomes of it depends only on its agent process.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ENDED_UNSEEN, strandedRunFate, strandedRunLogLine } from './stranded-run.js';

test('its process is gone: the run ends now, failed, saying its exit status is unknown', () => {
  assert.deepEqual(strandedRunFate('gone'), { kind: 'end', detail: ENDED_UNSEEN });
  assert.match(ENDED_UNSEEN, /exit status is unknown/);
});

test('its process still runs: it is watched until it exits', () => {
  assert.deepEqual(strandedRunFate('alive'), { kind: 'watch' });
});

test('another host started it: left to the replica on that host', () => {
  assert.deepEqual(strandedRunFate('elsewhere'), { kind: 'leave' });
});

test('the fixloop process that started it still runs: left to that process, which hears the exit', () => {
  assert.deepEqual(strandedRunFate('owned'), { kind: 'leave' });
});

test('the log line stands on a line of its own, marked as fixloop\'s', () => {
  assert.equal(strandedRunLogLine('x'), '\n[fixloop: x]\n');
});
