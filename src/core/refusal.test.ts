// SPEC D, G2: every situation in which a red result must not spend a run.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { refusalOf, type GateSnapshot } from './refusal.js';
import { REFUSALS, type Refusal } from './reasons.js';
import { RUN_STATES, TASK_STATES, PR_STATES, type RunState } from './types.js';
import type { Verdict } from './verdict.js';

const ok: GateSnapshot = {
  verdict: 'red',
  fork: false,
  task: { state: 'open', prState: 'open', branchState: 'present', isFork: false, noticeAt: null },
  latestRun: { state: 'completed' },
  stopFlag: false,
};

type Change = (s: GateSnapshot) => GateSnapshot;
const task =
  (t: Partial<GateSnapshot['task']>): Change =>
  (s) => ({ ...s, task: { ...s.task, ...t } });
const run =
  (state: RunState | null): Change =>
  (s) => ({ ...s, latestRun: state === null ? null : { state } });
const verdict =
  (v: Verdict): Change =>
  (s) => ({ ...s, verdict: v });

/** [SPEC D row, change to a proceeding snapshot, expected refusal]. */
const ROWS: ReadonlyArray<[string, Change, Refusal]> = [
  ['D: a green result', verdict('green'), 'result_green'],
  ['D: a cancelled, neutral, skipped or stale (inconclusive) result', verdict('inconclusive'), 'result_not_actionable'],
  [
    'A4/D: a completed result with no conclusion (unsettled) is never a pass nor a failure',
    verdict('unsettled'),
    'result_unsettled',
  ],
  [
    'G2: the notice marker is set (the marker is the stop flag)',
    task({ noticeAt: '2024-01-01T00:00:00.000Z' }),
    'notice_filed',
  ],
  ['D: the global stop flag is set', (s) => ({ ...s, stopFlag: true }), 'stop_flag'],
  ['M4: a person turned the loop off for this Task', task({ loopOff: true }), 'loop_off'],
  ['the pull request carries fixloop:skip', task({ skipLabel: true }), 'skip_label'],
  [
    'D/C4: the global stop flag is unreadable (fail closed)',
    (s) => ({ ...s, stopFlag: 'unreadable' }),
    'stop_flag_unreadable',
  ],
  ['D: the delivery says the pull request is from a fork', (s) => ({ ...s, fork: true }), 'fork_pull_request'],
  ['D: the Task is a fork pull request', task({ isFork: true }), 'fork_pull_request'],
  ['D: a done Task', task({ state: 'done' }), 'task_done'],
  ['D: a cancelled Task', task({ state: 'cancelled' }), 'task_cancelled'],
  ['D: a merged pull request (from prState)', task({ prState: 'merged' }), 'pr_merged'],
  ['D: a closed pull request (from prState)', task({ prState: 'closed' }), 'pr_closed'],
  ['D: the branch was deleted (from branchState)', task({ branchState: 'deleted' }), 'branch_deleted'],
  ['D: a run queued for the Task', run('queued'), 'run_in_flight'],
  ['D: a run running for the Task', run('running'), 'run_in_flight'],
  ['D: a run parked on a question', run('question'), 'run_question'],
  ['D: a failed run (a webhook never undoes that stop)', run('failed'), 'run_failed'],
  ["D: a cancelled run (a person's cancel is never undone by a webhook)", run('cancelled'), 'run_cancelled'],
];

describe('D: what refuses to resume', () => {
  test('D: a red result on an open, healthy Task with its last run completed proceeds', () => {
    assert.deepEqual(refusalOf(ok), { kind: 'proceed' });
  });

  for (const [what, change, reason] of ROWS) {
    test(`${what} → refused ${reason}`, () => {
      assert.ok(REFUSALS.includes(reason));
      assert.deepEqual(refusalOf(change(ok)), { kind: 'refuse', reason });
    });
  }

  test('D: a completed latest run proceeds', () => {
    assert.deepEqual(refusalOf(run('completed')(ok)), { kind: 'proceed' });
  });

  test('D: no run at all proceeds', () => {
    assert.deepEqual(refusalOf(run(null)(ok)), { kind: 'proceed' });
  });

  test('D: a merged pull request is refused even though the Task is still open (done-transition lags)', () => {
    assert.deepEqual(refusalOf(task({ state: 'open', prState: 'merged' })(ok)), {
      kind: 'refuse',
      reason: 'pr_merged',
    });
  });
});

describe('D/G2: precedence', () => {
  const notice = task({ noticeAt: '2024-01-01T00:00:00.000Z' });
  const others = ROWS.filter(([, , r]) => !r.startsWith('result_') && r !== 'notice_filed');
  for (const [what, change] of others) {
    test(`G2: once the verdict is red the notice marker beats "${what}"`, () => {
      assert.deepEqual(refusalOf(notice(change(ok))), { kind: 'refuse', reason: 'notice_filed' });
    });
  }

  for (const v of ['green', 'inconclusive', 'unsettled'] as const) {
    test(`D: a ${v} result is refused for its verdict before anything else (even with the notice filed and the stop flag set)`, () => {
      const s = notice({ ...verdict(v)(ok), stopFlag: true, fork: true, latestRun: { state: 'running' } });
      assert.equal(refusalOf(s).kind, 'refuse');
      assert.notEqual((refusalOf(s) as { reason: Refusal }).reason, 'notice_filed');
    });
  }

  test('C4: an unreadable stop flag is refused as unreadable, before the Task is looked at', () => {
    assert.deepEqual(refusalOf({ ...task({ state: 'done' })(ok), stopFlag: 'unreadable' }), {
      kind: 'refuse',
      reason: 'stop_flag_unreadable',
    });
  });

  test('D: the stop flag beats a run in flight and a fork', () => {
    assert.deepEqual(refusalOf({ ...run('running')(ok), fork: true, stopFlag: true }), {
      kind: 'refuse',
      reason: 'stop_flag',
    });
  });

  test('D: a done Task beats a merged pull request and a failed run', () => {
    assert.deepEqual(refusalOf(run('failed')(task({ state: 'done', prState: 'merged' })(ok))), {
      kind: 'refuse',
      reason: 'task_done',
    });
  });
});

describe('D: exhaustively, proceed only when nothing refuses', () => {
  test('D: over every combination of verdict, marker, stop flag, fork, Task, pull request, branch and run state, refusalOf proceeds exactly when every condition allows it', () => {
    const verdicts: Verdict[] = ['red', 'green', 'inconclusive', 'unsettled'];
    const stops: GateSnapshot['stopFlag'][] = [false, true, 'unreadable'];
    const runs: (RunState | null)[] = [null, ...RUN_STATES];
    let n = 0;
    for (const v of verdicts)
      for (const noticeAt of [null, '2024-01-01T00:00:00.000Z'])
        for (const stopFlag of stops)
          for (const fork of [false, true])
            for (const isFork of [false, true])
              for (const state of TASK_STATES)
                for (const prState of PR_STATES)
                  for (const branchState of ['present', 'deleted'] as const)
                    for (const r of runs) {
                      const s: GateSnapshot = {
                        verdict: v,
                        fork,
                        task: { state, prState, branchState, isFork, noticeAt },
                        latestRun: r === null ? null : { state: r },
                        stopFlag,
                      };
                      const allowed =
                        v === 'red' &&
                        noticeAt === null &&
                        stopFlag === false &&
                        !fork &&
                        !isFork &&
                        state === 'open' &&
                        prState === 'open' &&
                        branchState === 'present' &&
                        (r === null || r === 'completed');
                      const got = refusalOf(s);
                      assert.equal(got.kind, allowed ? 'proceed' : 'refuse', JSON.stringify(s));
                      if (got.kind === 'refuse') assert.ok(REFUSALS.includes(got.reason));
                      n++;
                    }
    assert.equal(n, 4 * 2 * 3 * 2 * 2 * 3 * 3 * 2 * 7);
  });
});
