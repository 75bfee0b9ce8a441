// SPEC I1–I4: the attempt lifecycle, every edge; first-write outcomes; the progress deadline; restarts.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  ATTEMPT_STATES,
  BLOCKED_REASON_MAX,
  FIX_OUTCOMES,
  boundReason,
  isTerminalAttemptState,
  nextAttemptState,
  progressDeadline,
  progressDeadlinePassed,
  type AttemptEvent,
  type AttemptState,
  type AttemptTransition,
} from './attempt-state.js';
import { PROGRESS_KINDS } from './progress.js';

// Every event shape, named for the table.
const EVENTS = {
  dispatched: { kind: 'dispatched' },
  run_started: { kind: 'run_started' },
  action_taken: { kind: 'outcome_reported', outcome: 'action_taken' },
  non_actionable: { kind: 'outcome_reported', outcome: 'non_actionable' },
  blocked: { kind: 'outcome_reported', outcome: 'blocked', reason: 'needs a database migration approved by a person' },
  blocked_no_reason: { kind: 'outcome_reported', outcome: 'blocked' },
  blocked_blank_reason: { kind: 'outcome_reported', outcome: 'blocked', reason: ' \n\u200b\u0007 ' },
  ended_with_outcome: { kind: 'run_ended', hadOutcome: true },
  ended_without_outcome: { kind: 'run_ended', hadOutcome: false },
  progress: { kind: 'progress_seen', progress: ['new_head'] },
  no_progress: { kind: 'progress_seen', progress: [] },
  deadline_passed: { kind: 'deadline_passed' },
  restart_run_alive: { kind: 'restarted', runEnded: false, hadOutcome: false },
  restart_run_ended_no_outcome: { kind: 'restarted', runEnded: true, hadOutcome: false },
  restart_run_ended_with_outcome: { kind: 'restarted', runEnded: true, hadOutcome: true },
  restart_run_alive_with_outcome: { kind: 'restarted', runEnded: false, hadOutcome: true },
} as const satisfies Record<string, AttemptEvent>;
type EventName = keyof typeof EVENTS;

const stay: AttemptTransition = { kind: 'stay' };
const to = (state: AttemptState, why: Extract<AttemptTransition, { kind: 'move' }>['why']): AttemptTransition => ({
  kind: 'move',
  to: state,
  why,
});
const rej = (reason: Extract<AttemptTransition, { kind: 'reject' }>['reason']): AttemptTransition => ({
  kind: 'reject',
  reason,
});

// Before an outcome, queued and running answer outcomes and endings the same way.
const BEFORE_OUTCOME: Record<EventName, AttemptTransition> = {
  dispatched: stay,
  run_started: stay,
  action_taken: to('awaiting_progress', 'action_taken'),
  non_actionable: to('acknowledged', 'non_actionable'),
  blocked: to('acknowledged', 'blocked'),
  blocked_no_reason: rej('blocked_without_reason'),
  blocked_blank_reason: rej('blocked_without_reason'),
  ended_with_outcome: stay,
  ended_without_outcome: to('retryable', 'ended_without_outcome'),
  progress: stay,
  no_progress: stay,
  deadline_passed: stay,
  restart_run_alive: stay,
  restart_run_ended_no_outcome: stay,
  restart_run_ended_with_outcome: stay,
  restart_run_alive_with_outcome: stay,
};

const terminal = (outcome: AttemptTransition): Record<EventName, AttemptTransition> => ({
  dispatched: stay,
  run_started: stay,
  action_taken: outcome,
  non_actionable: outcome,
  blocked: outcome,
  blocked_no_reason: outcome,
  blocked_blank_reason: outcome,
  ended_with_outcome: stay,
  ended_without_outcome: stay,
  progress: stay,
  no_progress: stay,
  deadline_passed: stay,
  restart_run_alive: stay,
  restart_run_ended_no_outcome: stay,
  restart_run_ended_with_outcome: stay,
  restart_run_alive_with_outcome: stay,
});

const TABLE: Record<AttemptState, Record<EventName, AttemptTransition>> = {
  queued: {
    ...BEFORE_OUTCOME,
    dispatched: to('running', 'dispatched'), // the runner took it: never dispatched again
    run_started: to('running', 'run_started'), // the start report overtook the dispatch acknowledgement
    // I4: a queued attempt is kept across a restart, whatever is said of a run.
  },
  running: {
    ...BEFORE_OUTCOME,
    restart_run_ended_no_outcome: to('retryable', 'restart_ended_without_outcome'), // I4
  },
  awaiting_progress: {
    dispatched: stay,
    run_started: stay,
    action_taken: rej('outcome_already_reported'),
    non_actionable: rej('outcome_already_reported'),
    blocked: rej('outcome_already_reported'),
    blocked_no_reason: rej('outcome_already_reported'),
    blocked_blank_reason: rej('outcome_already_reported'),
    ended_with_outcome: stay, // the run ending after action_taken is normal
    ended_without_outcome: stay,
    progress: to('acknowledged', 'progress'),
    no_progress: stay,
    deadline_passed: to('retryable', 'no_progress_by_deadline'),
    restart_run_alive: stay,
    restart_run_ended_no_outcome: stay,
    restart_run_ended_with_outcome: stay,
    restart_run_alive_with_outcome: stay,
  },
  acknowledged: terminal(rej('outcome_already_reported')),
  retryable: terminal(rej('attempt_closed')),
};

describe('I1–I4: every edge of the attempt lifecycle', () => {
  for (const state of ATTEMPT_STATES) {
    for (const name of Object.keys(EVENTS) as EventName[]) {
      const want = TABLE[state][name];
      const shown =
        want.kind === 'move'
          ? `move to ${want.to} (${want.why})`
          : want.kind === 'reject'
            ? `reject ${want.reason}`
            : 'stay';
      test(`I1: ${state} + ${name} → ${shown}`, () => {
        assert.deepEqual(nextAttemptState(state, EVENTS[name]), want);
      });
    }
  }

  test('I3: each kind of progress acknowledges an attempt awaiting progress', () => {
    for (const kind of PROGRESS_KINDS) {
      assert.deepEqual(
        nextAttemptState('awaiting_progress', { kind: 'progress_seen', progress: [kind] }),
        to('acknowledged', 'progress'),
      );
    }
  });
});

describe('I2: the first outcome wins', () => {
  test('I2: a second outcome for the same attempt is rejected, whichever came first', () => {
    for (const first of FIX_OUTCOMES) {
      const t = nextAttemptState('running', { kind: 'outcome_reported', outcome: first, reason: 'why' });
      assert.equal(t.kind, 'move');
      const after = (t as Extract<AttemptTransition, { kind: 'move' }>).to;
      for (const second of FIX_OUTCOMES) {
        assert.deepEqual(
          nextAttemptState(after, { kind: 'outcome_reported', outcome: second, reason: 'why' }),
          rej('outcome_already_reported'),
          `${first} then ${second}`,
        );
      }
    }
  });

  test('I2: any sequence of events accepts at most one outcome', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...(Object.keys(EVENTS) as EventName[])), { maxLength: 30 }), (names) => {
        let state: AttemptState = 'queued';
        let accepted = 0;
        for (const name of names) {
          const event = EVENTS[name];
          const t = nextAttemptState(state, event);
          if (event.kind === 'outcome_reported' && t.kind === 'move') accepted++;
          if (t.kind === 'move') state = t.to;
        }
        assert.ok(accepted <= 1);
      }),
    );
  });
});

describe('I1: acknowledged and retryable are terminal', () => {
  test('I1: isTerminalAttemptState names exactly acknowledged and retryable', () => {
    assert.deepEqual(ATTEMPT_STATES.filter(isTerminalAttemptState), ['acknowledged', 'retryable']);
  });

  test('I1: no sequence of events moves a terminal attempt', () => {
    fc.assert(
      fc.property(
        fc.constantFrom<AttemptState>('acknowledged', 'retryable'),
        fc.array(fc.constantFrom(...Object.values(EVENTS)), { maxLength: 30 }),
        (state, events) => {
          for (const e of events) assert.notEqual(nextAttemptState(state, e).kind, 'move');
        },
      ),
    );
  });

  test('I1: no sequence of events moves an attempt back to queued', () => {
    fc.assert(
      fc.property(fc.constantFrom(...ATTEMPT_STATES), fc.constantFrom(...Object.values(EVENTS)), (state, e) => {
        const t = nextAttemptState(state, e);
        if (t.kind === 'move') assert.notEqual(t.to, 'queued');
      }),
    );
  });
});

describe('I3: the progress deadline is two poll intervals after action_taken (fake clock)', () => {
  const POLL = 2 * 60 * 1000;
  const TAKEN = '2026-12-01T10:00:00.000Z';
  const T = Date.parse(TAKEN);

  test('I3: progressDeadline is action_taken + 2 intervals, from ISO text or epoch ms', () => {
    assert.equal(progressDeadline(TAKEN, POLL), T + 2 * POLL);
    assert.equal(progressDeadline(T, POLL), T + 2 * POLL);
  });

  const CLOCK: ReadonlyArray<[string, number, boolean]> = [
    ['at action_taken', T, false],
    ['after one interval', T + POLL, false],
    ['one millisecond before two intervals', T + 2 * POLL - 1, false],
    ['at two intervals', T + 2 * POLL, true],
    ['long after', T + 60 * POLL, true],
  ];
  for (const [label, now, passed] of CLOCK) {
    test(`I3: ${label} → deadline ${passed ? 'passed' : 'not passed'}`, () => {
      assert.equal(progressDeadlinePassed(TAKEN, POLL, now), passed);
    });
  }

  test('I3: an unreadable time counts as passed (the attempt never blocks its pull request for ever)', () => {
    assert.equal(progressDeadlinePassed('garbled', POLL, T), true);
    assert.equal(progressDeadlinePassed(TAKEN, POLL, Number.NaN), true);
  });

  test('I3: a non-positive interval or an unreadable action time is a programming error', () => {
    assert.throws(() => progressDeadline(TAKEN, 0), RangeError);
    assert.throws(() => progressDeadline(TAKEN, -1), RangeError);
    assert.throws(() => progressDeadline('garbled', POLL), RangeError);
    assert.throws(() => progressDeadlinePassed(TAKEN, Number.POSITIVE_INFINITY, T), RangeError);
  });

  test('I3: action_taken with no progress becomes retryable once the fake clock passes two intervals', () => {
    let state: AttemptState = 'queued';
    const apply = (e: AttemptEvent) => {
      const t = nextAttemptState(state, e);
      if (t.kind === 'move') state = t.to;
      return t;
    };
    apply({ kind: 'dispatched' });
    apply({ kind: 'outcome_reported', outcome: 'action_taken' });
    apply({ kind: 'run_ended', hadOutcome: true });
    for (const now of [T + POLL, T + 2 * POLL - 1, T + 2 * POLL]) {
      if (progressDeadlinePassed(TAKEN, POLL, now)) apply({ kind: 'deadline_passed' });
      else apply({ kind: 'progress_seen', progress: [] });
      if (now < T + 2 * POLL) assert.equal(state, 'awaiting_progress');
    }
    assert.equal(state, 'retryable');
  });

  test('I3: progress seen before the deadline acknowledges; the deadline then changes nothing', () => {
    assert.deepEqual(
      nextAttemptState('awaiting_progress', { kind: 'progress_seen', progress: ['check_rerun'] }),
      to('acknowledged', 'progress'),
    );
    assert.deepEqual(nextAttemptState('acknowledged', { kind: 'deadline_passed' }), stay);
  });
});

describe('I4: a restart in the middle loses nothing', () => {
  const run = (events: AttemptEvent[]): AttemptState =>
    events.reduce<AttemptState>((s, e) => {
      const t = nextAttemptState(s, e);
      return t.kind === 'move' ? t.to : s;
    }, 'queued');

  test('I4: restart before dispatch keeps the attempt queued, and it can still be dispatched', () => {
    assert.equal(run([{ kind: 'restarted', runEnded: false, hadOutcome: false }]), 'queued');
    assert.equal(run([{ kind: 'restarted', runEnded: false, hadOutcome: false }, { kind: 'dispatched' }]), 'running');
  });

  test('I4: restart while its run is still alive keeps it running; the outcome that follows is taken', () => {
    assert.equal(
      run([
        { kind: 'dispatched' },
        { kind: 'restarted', runEnded: false, hadOutcome: false },
        { kind: 'outcome_reported', outcome: 'non_actionable' },
      ]),
      'acknowledged',
    );
  });

  test('I4: restart after its run ended without an outcome makes it retryable; a late outcome is refused', () => {
    let s = run([
      { kind: 'dispatched' },
      { kind: 'run_started' },
      { kind: 'restarted', runEnded: true, hadOutcome: false },
    ]);
    assert.equal(s, 'retryable');
    assert.deepEqual(nextAttemptState(s, { kind: 'outcome_reported', outcome: 'action_taken' }), rej('attempt_closed'));
    s = run([
      { kind: 'dispatched' },
      { kind: 'restarted', runEnded: true, hadOutcome: true },
      { kind: 'outcome_reported', outcome: 'blocked', reason: 'x' },
    ]);
    assert.equal(s, 'acknowledged', 'a recorded outcome is re-applied after the restart');
  });

  test('I4: restart while awaiting progress keeps waiting; the deadline still applies', () => {
    assert.equal(
      run([
        { kind: 'dispatched' },
        { kind: 'outcome_reported', outcome: 'action_taken' },
        { kind: 'restarted', runEnded: true, hadOutcome: true },
      ]),
      'awaiting_progress',
    );
    assert.equal(
      run([
        { kind: 'dispatched' },
        { kind: 'outcome_reported', outcome: 'action_taken' },
        { kind: 'restarted', runEnded: true, hadOutcome: true },
        { kind: 'deadline_passed' },
      ]),
      'retryable',
    );
  });
});

describe('I2: the blocked reason is bounded for people', () => {
  const CASES: ReadonlyArray<[string, string, string]> = [
    ['plain text is kept', 'needs a secret only a person has', 'needs a secret only a person has'],
    ['line breaks and tabs become single spaces', 'line one\r\nline two\tend', 'line one line two end'],
    ['C0, DEL and C1 controls are removed', 'bell\u0007 esc\u001b del\u007f c1\u0085\u009f', 'bell esc del c1'],
    ['ANSI escape sequences are removed whole', '\u001b[31mred\u001b[0m and \u009b1;2Hmoved', 'red and moved'],
    ['bidi controls are removed', 'abc\u202edcba\u2066x\u2069', 'abcdcbax'],
    ['zero-width and tag characters are removed', 'a\u200bb\u2060c\u{E0041}\u{E0042}d\ufeff', 'abcd'],
    ['runs of spaces collapse and the ends are trimmed', '   a    b   ', 'a b'],
    ['an unpaired surrogate is removed', 'a\ud800b', 'ab'],
  ];
  for (const [label, input, want] of CASES) {
    test(`I2: ${label}`, () => assert.equal(boundReason(input), want));
  }

  test('I2: the default bound is 500 characters, the cut ends with an ellipsis', () => {
    assert.equal(BLOCKED_REASON_MAX, 500);
    assert.equal(boundReason('x'.repeat(500)), 'x'.repeat(500));
    const cut = boundReason('x'.repeat(501));
    assert.equal([...cut].length, 500);
    assert.ok(cut.endsWith('x…'));
  });

  test('I2: the cut never splits a surrogate pair', () => {
    const cut = boundReason('😀'.repeat(10), 5);
    assert.equal(cut, '😀😀😀😀…');
  });

  test('I2: a bound below 1 is a programming error', () => {
    assert.throws(() => boundReason('x', 0), RangeError);
    assert.throws(() => boundReason('x', 1.5), RangeError);
  });

  test('I2: any text comes out within the bound and free of control and format characters', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 800 }), fc.integer({ min: 1, max: 600 }), (text, max) => {
        const out = boundReason(text, max);
        assert.ok([...out].length <= max);
        assert.doesNotMatch(out, /[\p{Cc}\p{Cf}\p{Cs}]/u);
        assert.equal(out, out.trim());
      }),
    );
  });
});
