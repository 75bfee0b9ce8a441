// SPEC I5 (with I3, I4, K7, D): no silent stall. The rule as a table: every state an open Task with
// a red head can be in, and whether the loop is working on it, handed to a person, off — or stalled,
// and why. Beside it, the pieces the rule leans on: a machine's failed run is no stop, a spawn that
// failed leaves its attempt retryable, a stranded run ends by its outcome, a new head is progress.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  STALL_WHYS,
  livenessOf,
  stalledTasks,
  type LivenessAttempt,
  type LivenessContext,
  type LivenessTask,
  type LivenessVerdict,
} from './liveness.js';
import { nextAttemptState, type AttemptState } from './attempt-state.js';
import { refusalOf, type GateSnapshot } from './refusal.js';
import { ENDED_UNSEEN, strandedRunEnd } from './stranded-run.js';
import { headProgress } from './progress.js';

const HEAD = 'a'.repeat(40);
const OLD_HEAD = 'b'.repeat(40);
const NOW = Date.parse('2026-12-01T12:00:00.000Z');
const POLL = 120_000;
const ago = (ms: number) => new Date(NOW - ms).toISOString();

const ctx: LivenessContext = {
  now: NOW,
  stopFlag: false,
  maxAttempts: 2,
  pollIntervalMs: POLL,
  claimGraceMs: 60_000,
  settleMs: 60_000,
};

/** An open Task whose head has been red for an hour, its opening run completed, no attempt yet. */
const base: LivenessTask = {
  task: {
    id: 7,
    state: 'open',
    prState: 'open',
    branchState: 'present',
    isFork: false,
    noticeAt: null,
    parkedAt: null,
    ciHeadSha: HEAD,
    ciHeadSeenAt: ago(3_600_000),
    ciState: 'red',
    extraAttempts: 0,
  },
  latestRun: { state: 'completed', attemptId: null },
  attempts: [],
};

function attempt(over: Partial<LivenessAttempt> = {}): LivenessAttempt {
  return {
    id: 1,
    source: 'gate',
    headSha: HEAD,
    status: 'dispatched',
    state: 'running',
    outcome: null,
    actionTakenAt: null,
    since: ago(1_000),
    runState: 'running',
    ...over,
  };
}

type Change = (t: LivenessTask) => LivenessTask;
const task =
  (over: Partial<LivenessTask['task']>): Change =>
  (t) => ({ ...t, task: { ...t.task, ...over } });
const with_ =
  (
    a: LivenessAttempt,
    run: LivenessTask['latestRun'] = { state: a.runState ?? 'completed', attemptId: a.id },
  ): Change =>
  (t) => ({ ...t, attempts: [...t.attempts, a], latestRun: a.runState === null ? t.latestRun : run });

const live = (because: Extract<LivenessVerdict, { kind: 'live' }>['because']) => ({ kind: 'live', because });

/** [situation, change to the base Task, context change, expected verdict kind and reason]. */
const ROWS: ReadonlyArray<[string, Change, Partial<LivenessContext>, string]> = [
  // The loop is off, or the Task is a person's: nothing is owed.
  ['G1: the notice was filed', task({ noticeAt: ago(10) }), {}, 'live:notice_filed'],
  ['K5: the Task is parked', task({ parkedAt: ago(10) }), {}, 'live:task_parked'],
  ['D: the global stop flag is set', (t) => t, { stopFlag: true }, 'live:stop_flag'],
  [
    'D/C4: the stop flag cannot be read (fail closed)',
    (t) => t,
    { stopFlag: 'unreadable' },
    'live:stop_flag_unreadable',
  ],
  ['D: the Task is done', task({ state: 'done' }), {}, 'live:task_done'],
  ['D: a person cancelled the Task', task({ state: 'cancelled' }), {}, 'live:task_cancelled'],
  ['D: the pull request was merged', task({ prState: 'merged' }), {}, 'live:pr_merged'],
  ['D: the pull request was closed', task({ prState: 'closed' }), {}, 'live:pr_closed'],
  ['D: the branch was deleted', task({ branchState: 'deleted' }), {}, 'live:branch_deleted'],
  ['D: a fork pull request', task({ isFork: true }), {}, 'live:fork_pull_request'],
  [
    "I5: a person's cancel of the automatic run is final",
    with_(attempt({ state: 'retryable', runState: 'cancelled', since: ago(3 * POLL) })),
    {},
    'live:run_cancelled',
  ],
  [
    "D: a person's own run failed (no automatic attempt answers it)",
    (t) => ({ ...t, latestRun: { state: 'failed', attemptId: null } }),
    {},
    'live:run_failed',
  ],
  [
    'D: a run parked on a question to a person',
    (t) => ({ ...t, latestRun: { state: 'question', attemptId: null } }),
    {},
    'live:run_question',
  ],
  ['C1: budget 0 switches the loop off', (t) => t, { maxAttempts: 0 }, 'live:loop_off'],
  // The loop is working on it.
  ['B2: the head is not red', task({ ciState: 'pending' }), {}, 'live:head_not_red'],
  ['the red is fresh, its evaluation still to come', task({ ciHeadSeenAt: ago(1_000) }), {}, 'live:dispatching'],
  [
    'C2: claimed moments ago, not yet dispatched',
    with_(attempt({ status: 'claimed', state: 'queued', runState: null, since: ago(5_000) })),
    {},
    'live:dispatching',
  ],
  [
    'decision 0014: dispatching, its lease renewed within the grace',
    with_(attempt({ status: 'dispatching', state: 'queued', runState: 'queued', since: ago(90_000) })),
    {},
    'live:dispatching',
  ],
  ['L1: the resumed run is running', with_(attempt()), {}, 'live:run_active'],
  [
    'I3: action_taken, inside its deadline',
    with_(
      attempt({ state: 'awaiting_progress', outcome: 'action_taken', actionTakenAt: ago(POLL), runState: 'completed' }),
    ),
    {},
    'live:awaiting_progress',
  ],
  [
    'I2: the agent answered non_actionable for this head',
    with_(attempt({ state: 'acknowledged', outcome: 'non_actionable', runState: 'completed' })),
    {},
    'live:answered',
  ],
  [
    'I2: the agent answered blocked, with its reason shown to people',
    with_(attempt({ state: 'acknowledged', outcome: 'blocked', runState: 'failed' })),
    {},
    'live:answered',
  ],
  [
    'I3: progress was seen after action_taken (the attempt is settled by its outcome)',
    with_(attempt({ state: 'acknowledged', outcome: 'action_taken', runState: 'completed' })),
    {},
    'live:answered',
  ],
  [
    'I3: the run ended without an outcome a moment ago: the retry is due within a poll interval',
    with_(attempt({ state: 'retryable', runState: 'completed', since: ago(POLL / 2) })),
    {},
    'live:retry_due',
  ],
  [
    'I5: a lost run (failed, exit status unknown) left its attempt retryable, retry due',
    with_(attempt({ state: 'retryable', runState: 'failed', since: ago(1_000) })),
    {},
    'live:retry_due',
  ],
  // Stalled: something that should have happened by now has not.
  [
    'C3/C4: a claim never dispatched, long past the grace',
    with_(attempt({ status: 'claimed', state: 'queued', runState: null, since: ago(600_000) })),
    {},
    'stalled:claim_unsettled',
  ],
  [
    'I4: the attempt still says running but its run ended',
    with_(attempt({ runState: 'failed' })),
    {},
    'stalled:attempt_outlived_run',
  ],
  [
    'I3: action_taken on an older head, and the head has moved since (a new head is progress)',
    with_(
      attempt({
        headSha: OLD_HEAD,
        state: 'awaiting_progress',
        outcome: 'action_taken',
        actionTakenAt: ago(1_000),
        runState: 'completed',
      }),
    ),
    {},
    'stalled:progress_unseen',
  ],
  [
    'I3: action_taken, no progress, two poll intervals and the bound gone by (webhook-only installs too)',
    with_(
      attempt({
        state: 'awaiting_progress',
        outcome: 'action_taken',
        actionTakenAt: ago(2 * POLL + 60_000),
        runState: 'completed',
      }),
    ),
    {},
    'stalled:deadline_passed',
  ],
  [
    'I3: just past the deadline, within the bound: the move to retryable is on its way',
    with_(
      attempt({
        state: 'awaiting_progress',
        outcome: 'action_taken',
        actionTakenAt: ago(2 * POLL),
        runState: 'completed',
      }),
    ),
    {},
    'live:awaiting_progress',
  ],
  [
    'I5: a retryable attempt nobody retried for a poll interval and the bound',
    with_(attempt({ state: 'retryable', runState: 'failed', since: ago(POLL + 60_000) })),
    {},
    'stalled:retry_not_offered',
  ],
  [
    'I5: a spawn that failed after the claim, not retried',
    with_(attempt({ status: 'dispatch_failed', state: 'retryable', runState: 'failed', since: ago(2 * POLL) })),
    {},
    'stalled:retry_not_offered',
  ],
  [
    'I5: a claim settled not_dispatched while the stop flag was set, the flag since cleared',
    with_(attempt({ status: 'not_dispatched', state: 'acknowledged', runState: null, since: ago(2 * POLL) })),
    {},
    'stalled:retry_not_offered',
  ],
  [
    'I5/decision 0014: a dispatch that died unconfirmed, never re-sent, and no notice tells a person',
    with_(attempt({ status: 'dispatch_unknown', state: 'acknowledged', runState: 'failed', since: ago(1_000) })),
    {},
    'stalled:dispatch_unconfirmed',
  ],
  ['E2/I5: the head is red and nothing claimed it', (t) => t, {}, 'stalled:red_unclaimed'],
  [
    'E2/I5: the head moved past an attempt that was settled; its red was refused at a bad moment and never offered again',
    with_(attempt({ headSha: OLD_HEAD, state: 'acknowledged', outcome: 'action_taken', runState: 'completed' })),
    {},
    'stalled:red_unclaimed',
  ],
];

const verdictText = (v: LivenessVerdict) => (v.kind === 'live' ? `live:${v.because}` : `stalled:${v.why}`);

describe('I5: no silent stall, state by state', () => {
  for (const [what, change, c, want] of ROWS) {
    test(`I5: ${what} → ${want}`, () => {
      assert.equal(verdictText(livenessOf(change(base), { ...ctx, ...c })), want);
    });
  }

  test('I5: every reason a Task can stall is in the table', () => {
    const seen = new Set(ROWS.map(([, , , w]) => w).filter((w) => w.startsWith('stalled:')));
    assert.deepEqual([...seen].map((w) => w.slice('stalled:'.length)).sort(), [...STALL_WHYS].sort());
  });

  test('I5: a stop (here the notice) wins over every stall', () => {
    for (const [what, change, c, want] of ROWS) {
      if (!want.startsWith('stalled:')) continue;
      assert.deepEqual(
        livenessOf(task({ noticeAt: ago(10) })(change(base)), { ...ctx, ...c }),
        live('notice_filed'),
        what,
      );
    }
  });

  test('I5: a stalled verdict names the attempt it is about', () => {
    const a = attempt({ id: 42, state: 'retryable', since: ago(2 * POLL), runState: 'completed' });
    const v = livenessOf(with_(a)(base), ctx);
    assert.equal(v.kind, 'stalled');
    assert.equal(v.kind === 'stalled' && v.attemptId, 42);
  });

  test('I5: a retry answers its head: the newest attempt on the head decides, not the one it retried', () => {
    const first = attempt({ id: 1, state: 'retryable', runState: 'failed', since: ago(3 * POLL) });
    const retry = attempt({ id: 2, state: 'running', runState: 'running' });
    assert.deepEqual(livenessOf(with_(retry)(with_(first)(base)), ctx), live('run_active'));
  });

  test('I5: a review attempt does not answer a red head', () => {
    const review = attempt({
      source: 'review',
      state: 'acknowledged',
      outcome: 'non_actionable',
      runState: 'completed',
    });
    assert.equal(verdictText(livenessOf(with_(review)(base), ctx)), 'stalled:red_unclaimed');
  });

  test('I5: the time an attempt settled is unreadable → it counts as old (never waits for ever)', () => {
    const a = attempt({ state: 'retryable', runState: 'completed', since: 'garbled' });
    assert.equal(verdictText(livenessOf(with_(a)(base), ctx)), 'stalled:retry_not_offered');
  });

  test('I5: stalledTasks returns exactly the stalled Tasks, with their ids', () => {
    const running = { ...with_(attempt())(base), task: { ...base.task, id: 1 } };
    const unclaimed = { ...base, task: { ...base.task, id: 2 } };
    const off = { ...base, task: { ...base.task, id: 3, noticeAt: ago(5) } };
    assert.deepEqual(
      stalledTasks([running, unclaimed, off], ctx).map((s) => [s.taskId, s.why]),
      [[2, 'red_unclaimed']],
    );
  });
});

describe('I5: only a person stops the loop for good', () => {
  const gate: GateSnapshot = {
    verdict: 'red',
    fork: false,
    task: { state: 'open', prState: 'open', branchState: 'present', isFork: false, noticeAt: null },
    latestRun: null,
    stopFlag: false,
  };

  test('I5/D: a failed run of an automatic attempt is a machine failure: the gate proceeds, and the attempt decides', () => {
    assert.deepEqual(refusalOf({ ...gate, latestRun: { state: 'failed', attemptId: 9 } }), { kind: 'proceed' });
  });

  test("D: a failed run that answers no automatic attempt (a person's) still refuses (run_failed)", () => {
    for (const latestRun of [{ state: 'failed' as const }, { state: 'failed' as const, attemptId: null }])
      assert.deepEqual(refusalOf({ ...gate, latestRun }), { kind: 'refuse', reason: 'run_failed' });
  });

  test("I5/D: a person's cancel of an automatic run stays final (run_cancelled)", () => {
    assert.deepEqual(refusalOf({ ...gate, latestRun: { state: 'cancelled', attemptId: 9 } }), {
      kind: 'refuse',
      reason: 'run_cancelled',
    });
  });

  test('I5/I1: a spawn that failed after the claim leaves a queued attempt retryable (not_started)', () => {
    assert.deepEqual(nextAttemptState('queued', { kind: 'not_started' }), {
      kind: 'move',
      to: 'retryable',
      why: 'not_started',
    });
  });

  test('I5/I1: not_started moves nothing that has moved on (the run reported first) or is terminal', () => {
    for (const state of ['running', 'awaiting_progress', 'acknowledged', 'retryable'] as AttemptState[])
      assert.deepEqual(nextAttemptState(state, { kind: 'not_started' }), { kind: 'stay' }, state);
  });

  test('I5/L1: a stranded run whose agent reported its outcome ends completed, the outcome standing', () => {
    const end = strandedRunEnd(ENDED_UNSEEN, true);
    assert.equal(end.state, 'completed');
    assert.match(end.detail, /exit status is unknown; it had reported its outcome, which stands/);
  });

  test('I4/L1/V4: a stranded run found gone with no outcome ends failed, exit status unknown, and interrupted', () => {
    const end = strandedRunEnd(ENDED_UNSEEN, false);
    assert.equal(end.state, 'failed');
    assert.equal(end.interrupted, true, 'its agent died with its fixloop: offered again, free');
    assert.ok(end.detail.startsWith(ENDED_UNSEEN));
    assert.match(end.detail, /interrupted by a restart, and its attempt is offered again once, free/);
  });
});

describe('I3: a new head seen without the poll is progress', () => {
  test('I3: a head other than the attempt’s is new_head, whatever the case of the hex', () => {
    assert.deepEqual(headProgress(OLD_HEAD, HEAD), ['new_head']);
    assert.deepEqual(headProgress(HEAD, HEAD.toUpperCase()), []);
  });

  test('I3: an unknown head on either side says nothing', () => {
    assert.deepEqual(headProgress(null, HEAD), []);
    assert.deepEqual(headProgress(HEAD, null), []);
    assert.deepEqual(headProgress('', HEAD), []);
  });
});
