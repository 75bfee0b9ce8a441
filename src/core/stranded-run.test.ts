// A run found `running` at start-up (L1, I4): what becomes of it depends only on its agent process.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  ENDED_UNSEEN,
  ENDED_WATCHED,
  interruptedByShutdown,
  interruptedRunFate,
  parseProcessMark,
  strandedRunEnd,
  strandedRunFate,
  strandedRunLogLine,
} from './stranded-run.js';

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

test("the log line stands on a line of its own, marked as fixloop's", () => {
  assert.equal(strandedRunLogLine('x'), '\n[fixloop: x]\n');
});

test('a stored mark reads back; text that is not a whole mark reads as none, so one bad row stops nothing', () => {
  const mark = { host: 'h', pid: 42, since: 'b:1', owner: { pid: 7, since: 'b:0', instance: 'i' } };
  assert.deepEqual(parseProcessMark(JSON.stringify(mark)), mark);
  assert.equal(parseProcessMark(null), null);
  assert.equal(parseProcessMark('{not json'), null);
  assert.equal(parseProcessMark('null'), null);
  assert.equal(parseProcessMark(JSON.stringify({ ...mark, owner: undefined })), null);
  assert.equal(parseProcessMark(JSON.stringify({ ...mark, pid: '42' })), null);
  assert.equal(parseProcessMark(JSON.stringify({ ...mark, owner: { pid: 7, since: 'b:0' } })), null);
});

test('V4: an agent watched until it exited ran its course: its run is not interrupted', () => {
  assert.deepEqual(strandedRunEnd(ENDED_WATCHED, false), {
    state: 'failed',
    detail: ENDED_WATCHED,
    interrupted: false,
  });
  assert.equal(strandedRunEnd(ENDED_UNSEEN, true).interrupted, false, 'its outcome stands');
});

test('V4: an interrupted run ended without an outcome: its attempt is offered again, free, the first time', () => {
  assert.deepEqual(interruptedRunFate({ runEnded: true, interrupted: true, hadOutcome: false, interruptions: 0 }), {
    kind: 'reoffer',
  });
});

test('V4: interrupted again after its free re-offer: the notice (interrupted_twice), so nothing loops', () => {
  assert.deepEqual(interruptedRunFate({ runEnded: true, interrupted: true, hadOutcome: false, interruptions: 1 }), {
    kind: 'notice',
    reason: 'interrupted_twice',
  });
});

test('V4: a run not interrupted, still running, or settled by its outcome follows the ordinary rules', () => {
  const base = { runEnded: true, interrupted: true, hadOutcome: false, interruptions: 0 };
  assert.deepEqual(interruptedRunFate({ ...base, interrupted: false }), { kind: 'none' });
  assert.deepEqual(interruptedRunFate({ ...base, runEnded: false }), { kind: 'none' }, 'a sibling may still run it');
  assert.deepEqual(interruptedRunFate({ ...base, hadOutcome: true }), { kind: 'none' });
});

test('V4: the run log says the shutdown stopped the agent after its grace, and what happens next', () => {
  assert.match(interruptedByShutdown(60_000), /still running after the 60 s grace, so it was stopped/);
  assert.match(interruptedByShutdown(60_000), /offered again once, free/);
});
