// R2 (issue 35 item 4): the session runner's state table — each vendor state, the run's end it makes —
// and the pointer reads its custom vendors rely on.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  CURSOR_STATES,
  DEVIN_STATES,
  DEVIN_V3_STATES,
  readPointer,
  runUsage,
  sessionRunEnd,
  sessionStateKind,
  spendAt,
  STALE_TERMINAL_READS,
  stateAt,
  type SessionStateKind,
  type SessionStateTable,
} from './session-state.js';

describe('a vendor state means running, completed, failed or needs a person (R2)', () => {
  const rows: [string, SessionStateTable, string | null, SessionStateKind][] = [
    ['devin', DEVIN_STATES, 'working', 'running'],
    ['devin', DEVIN_STATES, 'resumed', 'running'],
    ['devin', DEVIN_STATES, 'suspend_requested', 'running'],
    ['devin', DEVIN_STATES, 'resume_requested_frontend', 'running'],
    ['devin', DEVIN_STATES, 'finished', 'completed'],
    ['devin', DEVIN_STATES, 'expired', 'failed'],
    ['devin', DEVIN_STATES, 'blocked', 'needs_person'],
    ['devin', DEVIN_STATES, null, 'running'],
    ['devin v3', DEVIN_V3_STATES, 'working', 'running'],
    ['devin v3', DEVIN_V3_STATES, 'finished', 'completed'],
    ['devin v3', DEVIN_V3_STATES, 'waiting_for_user', 'needs_person'],
    ['devin v3', DEVIN_V3_STATES, 'waiting_for_approval', 'needs_person'],
    ['devin v3', DEVIN_V3_STATES, 'inactivity', 'needs_person'],
    ['devin v3', DEVIN_V3_STATES, 'error', 'failed'],
    ['devin v3', DEVIN_V3_STATES, 'out_of_credits', 'failed'],
    ['devin v3', DEVIN_V3_STATES, 'user_request', 'failed'],
    ['cursor', CURSOR_STATES, 'CREATING', 'running'],
    ['cursor', CURSOR_STATES, 'RUNNING', 'running'],
    ['cursor', CURSOR_STATES, 'FINISHED', 'completed'],
    ['cursor', CURSOR_STATES, 'ERROR', 'failed'],
    ['cursor', CURSOR_STATES, 'EXPIRED', 'failed'],
    ['cursor', CURSOR_STATES, 'finished', 'running'], // case matters: an unknown state is still running
    ['cursor', CURSOR_STATES, 'SOMETHING_NEW', 'running'],
  ];
  for (const [vendor, table, state, kind] of rows) {
    test(`${vendor} ${JSON.stringify(state)} → ${kind}`, () => {
      assert.equal(sessionStateKind(state, table), kind);
    });
  }
});

describe("a followed session's end (R2, I5)", () => {
  const seen = {
    vendor: 'devin',
    sessionId: 'devin-abc',
    fresh: true,
    sameReads: 1,
    elapsedMs: 1000,
    timeoutMs: 60_000,
  };
  test('finished ends the run completed, with no words of its own', () => {
    assert.deepEqual(sessionRunEnd({ ...seen, state: 'finished' }, DEVIN_STATES), {
      kind: 'ended',
      state: 'completed',
      detail: null,
      needsPerson: false,
    });
  });
  test('blocked ends the run failed and says a person is needed', () => {
    const end = sessionRunEnd({ ...seen, state: 'blocked' }, DEVIN_STATES);
    assert.equal(end.kind, 'ended');
    assert.ok(end.kind === 'ended' && end.state === 'failed' && end.needsPerson);
    assert.match(end.detail ?? '', /devin-abc is waiting for a person \(blocked\)/);
  });
  test('expired ends the run failed with the state named', () => {
    const end = sessionRunEnd({ ...seen, state: 'expired' }, DEVIN_STATES);
    assert.ok(end.kind === 'ended' && end.state === 'failed' && !end.needsPerson);
    assert.match(end.detail ?? '', /ended expired/);
  });
  test('working within the timeout keeps running; at the timeout the run ends failed, said so', () => {
    assert.deepEqual(sessionRunEnd({ ...seen, state: 'working' }, DEVIN_STATES), { kind: 'running' });
    const end = sessionRunEnd({ ...seen, state: 'working', elapsedMs: 60_000 }, DEVIN_STATES);
    assert.ok(end.kind === 'ended' && end.state === 'failed');
    assert.match(end.detail ?? '', /had not finished after 1 minute \(last state "working"\)/);
  });
  test('a terminal state read before the session was seen running counts only when it is read again and again', () => {
    const stale = { ...seen, state: 'finished', fresh: false };
    assert.deepEqual(sessionRunEnd({ ...stale, sameReads: 1 }, DEVIN_STATES), { kind: 'running' });
    assert.deepEqual(sessionRunEnd({ ...stale, sameReads: STALE_TERMINAL_READS - 1 }, DEVIN_STATES), {
      kind: 'running',
    });
    const end = sessionRunEnd({ ...stale, sameReads: STALE_TERMINAL_READS }, DEVIN_STATES);
    assert.ok(end.kind === 'ended' && end.state === 'completed');
  });
  test('a terminal state wins over the timeout', () => {
    const end = sessionRunEnd({ ...seen, state: 'finished', elapsedMs: 10 * 60_000 }, DEVIN_STATES);
    assert.ok(end.kind === 'ended' && end.state === 'completed');
  });
});

describe('JSON pointers into a vendor answer', () => {
  const doc = { status_enum: 'working', a: { 'b/c': [{ '~x': 3 }] }, cost: '1.5', n: 7 };
  test('walks objects, arrays and escapes (RFC 6901)', () => {
    assert.equal(readPointer(doc, '/status_enum'), 'working');
    assert.equal(readPointer(doc, '/a/b~1c/0/~0x'), 3);
    assert.equal(readPointer(doc, ''), doc);
    assert.equal(readPointer(doc, '/a/b~1c/01'), undefined);
    assert.equal(readPointer(doc, '/missing/x'), undefined);
    assert.equal(readPointer(doc, 'status_enum'), undefined);
    assert.equal(readPointer(doc, '/toString'), undefined, 'no inherited property is read');
  });
  test('a state is a string (or a number said as one); spend a non-negative number', () => {
    assert.equal(stateAt(doc, '/status_enum'), 'working');
    assert.equal(stateAt(doc, '/n'), '7');
    assert.equal(stateAt(doc, '/a'), null);
    assert.equal(spendAt(doc, '/cost', 2), 3);
    assert.equal(spendAt(doc, '/n', 1), 7);
    assert.equal(spendAt({ c: -1 }, '/c', 1), null);
    assert.equal(spendAt({ c: 'x' }, '/c', 1), null);
    assert.equal(spendAt({}, '/c', 1), null);
  });
});

describe("a run's share of a session's cumulative usage (decision 0074)", () => {
  test('the growth since the message, in dollars at the price', () => {
    assert.deepEqual(runUsage(12.5, 16.5, 2.25, 'ACU', 'devin'), {
      dollars: 9,
      words: '4 ACUs at $2.25 per ACU, reported by devin',
    });
  });
  test('without a price: told, not counted', () => {
    assert.deepEqual(runUsage(1, 2, null, 'ACU', 'devin'), {
      dollars: null,
      words: 'devin reported 1 ACU used by this run (not counted as spend: no price per ACU is configured)',
    });
  });
  test('a count that could not be read before or after: nothing is guessed', () => {
    assert.equal(runUsage(null, 4, 2, 'ACU', 'devin'), null);
    assert.equal(runUsage(4, null, 2, 'ACU', 'devin'), null);
  });
  test('a count that went down (a reset) counts nothing', () => {
    assert.equal(runUsage(5, 3, 2, 'ACU', 'devin')?.dollars, 0);
  });
});
