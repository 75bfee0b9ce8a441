// A run found `running` at start-up (L1, I4): what becomes of it depends only on its agent process.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ENDED_UNSEEN, parseProcessMark, strandedRunFate, strandedRunLogLine } from './stranded-run.js';

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
