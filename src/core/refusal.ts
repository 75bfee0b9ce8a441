// What refuses to resume (SPEC D, G2, I5): every situation in which a red result must not spend a run.
// Pure: it reads a snapshot of the Task, its latest run and the stop flag; the caller records the reason.
// Only a person's stop is final (I5): a failed run of an automatic attempt (a lost run, a spawn that
// failed, an agent that exited non-zero) is a machine's failure, left to that attempt's lifecycle.
import type { Refusal } from './reasons.js';
import type { Run, Task } from './types.js';
import type { Verdict } from './verdict.js';

export interface GateSnapshot {
  verdict: Verdict;
  fork: boolean;
  task: Pick<Task, 'state' | 'prState' | 'branchState' | 'isFork' | 'noticeAt'> & {
    parkedAt?: string | null;
    loopOff?: boolean;
    skipLabel?: boolean;
  };
  /** `attemptId`: the automatic attempt the run answers; null or absent for a person's run. */
  latestRun: (Pick<Run, 'state'> & Partial<Pick<Run, 'attemptId'>>) | null;
  /** The global stop flag; `unreadable` when it could not be read (fail closed). */
  stopFlag: boolean | 'unreadable';
}

export type GateVerdict = { kind: 'proceed' } | { kind: 'refuse'; reason: Refusal };

/** Only a completed failure is actionable: the refusal for every other verdict (D, first row). */
export function verdictRefusal(verdict: Verdict): Refusal | null {
  switch (verdict) {
    case 'green':
      return 'result_green';
    case 'inconclusive':
      return 'result_not_actionable';
    case 'unsettled':
      return 'result_unsettled';
    case 'red':
      return null;
  }
}

export function refusalOf(s: GateSnapshot): GateVerdict {
  const refuse = (reason: Refusal): GateVerdict => ({ kind: 'refuse', reason });
  const notRed = verdictRefusal(s.verdict);
  if (notRed) return refuse(notRed);
  // G2: once the notice marker is claimed, every later delivery is a read and nothing else.
  if (s.task.parkedAt) return refuse('task_parked');
  if (s.task.noticeAt !== null) return refuse('notice_filed');
  if (s.stopFlag === 'unreadable') return refuse('stop_flag_unreadable');
  if (s.stopFlag) return refuse('stop_flag');
  // M4: a person's per-Task switch, the Task's own stop flag.
  if (s.task.loopOff) return refuse('loop_off');
  if (s.task.skipLabel) return refuse('skip_label');
  if (s.fork || s.task.isFork) return refuse('fork_pull_request');
  if (s.task.state === 'done') return refuse('task_done');
  if (s.task.state === 'cancelled') return refuse('task_cancelled');
  // From the pull request's own state, not the Task's done-transition, which lags.
  if (s.task.prState === 'merged') return refuse('pr_merged');
  if (s.task.prState === 'closed') return refuse('pr_closed');
  if (s.task.branchState === 'deleted') return refuse('branch_deleted');
  switch (s.latestRun?.state) {
    case 'queued':
    case 'running':
      return refuse('run_in_flight');
    case 'question':
      return refuse('run_question');
    case 'failed':
      // A machine's failure: the attempt is retryable (I3, I4) and the budget bounds the retries.
      if (s.latestRun.attemptId != null) break;
      return refuse('run_failed');
    case 'cancelled':
      return refuse('run_cancelled');
    case 'completed':
    case undefined:
      break;
  }
  return { kind: 'proceed' };
}
