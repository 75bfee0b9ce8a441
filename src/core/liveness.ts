// No silent stall, as one rule (SPEC I5, with I3, I4, K7): for every open Task whose head is red,
// within a bounded time an attempt is progressing inside its deadline, a run is active, a notice has
// been filed, or the loop is off. Pure: a snapshot of each Task (its attempts and runs) in, the
// Tasks that break the rule out, each with why. The periodic reconciliation pass acts on the answer
// (app/reconcile.ts) and the kill -9 trials assert that it is empty (test/scenarios/liveness.test.ts).
import type { AttemptState, FixOutcome } from './attempt-state.js';
import { progressDeadlinePassed } from './attempt-state.js';
import type { Instant } from './handoff.js';
import { refusalOf } from './refusal.js';
import type { Refusal } from './reasons.js';
import type { AttemptStatus, RejectionSource, Run, RunState, Task } from './types.js';

/** One attempt of the Task, with what its lifecycle and its run say now. */
export interface LivenessAttempt {
  id: number;
  source: RejectionSource;
  headSha: string | null;
  status: AttemptStatus;
  state: AttemptState;
  outcome: FixOutcome | null;
  actionTakenAt: string | null;
  /** When the attempt last moved (a dispatch's lease is renewed here). */
  since: string;
  /** The state of the attempt's run; null when it has none. */
  runState: RunState | null;
}

export interface LivenessTask {
  task: Pick<
    Task,
    | 'id'
    | 'state'
    | 'prState'
    | 'branchState'
    | 'isFork'
    | 'noticeAt'
    | 'parkedAt'
    | 'ciHeadSha'
    | 'ciHeadSeenAt'
    | 'ciState'
    | 'extraAttempts'
  >;
  latestRun: Pick<Run, 'state' | 'attemptId'> | null;
  /** Every attempt of the Task, oldest first. */
  attempts: readonly LivenessAttempt[];
}

export interface LivenessContext {
  now: Instant;
  stopFlag: boolean | 'unreadable';
  maxAttempts: number;
  /** The poll's interval: I3's deadline is two of them after action_taken, and a retry is due one after the attempt settled. */
  pollIntervalMs: number;
  /** How long a claim may wait for its dispatch before reconciliation takes it (the reconcile grace). */
  claimGraceMs: number;
  /**
   * How long a passing state may outlast its due time before it is a stall: a red waiting to be
   * claimed, a deadline or a retry not yet acted on. A few reconciliation periods (or poll ticks).
   */
  settleMs: number;
}

/** Why the rule holds for a Task: the loop is working on it, it was handed to a person, or it is off. */
export type LiveBecause =
  | 'head_not_red'
  | 'dispatching' // claimed or dispatching, within the bound
  | 'run_active'
  | 'awaiting_progress' // action_taken, inside its deadline
  | 'retry_due' // retryable (or never ran), within a poll interval of settling: the retry is on its way
  | 'answered' // the head's attempt was settled by its outcome (non_actionable, blocked, progress seen)
  | 'loop_off' // budget 0 (C1)
  | Exclude<Refusal, 'run_in_flight'>; // the gate's own stops: notice filed, stop flag, a person's cancel, …

/** Why the rule is broken, each with what undoes it (app/keep-loops-alive.ts). */
export const STALL_WHYS = [
  'claim_unsettled', // claimed or dispatching past the bound: reconciliation settles it
  'attempt_outlived_run', // the attempt still says running, its run has ended: the run's end is applied (I4)
  'progress_unseen', // awaiting progress while the head has moved: a new head is progress (I3)
  'deadline_passed', // awaiting progress past its deadline: retryable (I3)
  'retry_not_offered', // the head's attempt is retryable, or never ran, and nothing retried it
  'dispatch_unconfirmed', // the head's dispatch died unconfirmed (never re-sent) and no notice says so
  'red_unclaimed', // the head is red and no attempt answers it
] as const;
export type StallWhy = (typeof STALL_WHYS)[number];

export type LivenessVerdict =
  { kind: 'live'; because: LiveBecause } | { kind: 'stalled'; why: StallWhy; attemptId: number | null; detail: string };

export interface Stall {
  taskId: number;
  why: StallWhy;
  attemptId: number | null;
  detail: string;
}

/** I5: the Tasks that break the rule, with why. */
export function stalledTasks(tasks: readonly LivenessTask[], ctx: LivenessContext): Stall[] {
  const out: Stall[] = [];
  for (const t of tasks) {
    const v = livenessOf(t, ctx);
    if (v.kind === 'stalled') out.push({ taskId: t.task.id, why: v.why, attemptId: v.attemptId, detail: v.detail });
  }
  return out;
}

/** I5 for one Task. */
export function livenessOf(t: LivenessTask, ctx: LivenessContext): LivenessVerdict {
  const live = (because: LiveBecause): LivenessVerdict => ({ kind: 'live', because });
  const stalled = (why: StallWhy, attemptId: number | null, detail: string): LivenessVerdict => ({
    kind: 'stalled',
    why,
    attemptId,
    detail,
  });
  // The gate's own stops are the loop being off: a notice, the stop flag, a closed pull request, a
  // person's cancel. A run in flight is not a stop: it is looked at with the attempts below.
  const gate = refusalOf({ verdict: 'red', fork: false, task: t.task, latestRun: t.latestRun, stopFlag: ctx.stopFlag });
  if (gate.kind === 'refuse' && gate.reason !== 'run_in_flight') return live(gate.reason);

  const now = toMs(ctx.now);
  const older = (since: string, bound: number) => !(Date.parse(since) + bound > now); // unreadable = old

  // K7: an attempt in flight holds the pull request; it must be moving.
  for (const a of t.attempts) {
    switch (a.state) {
      case 'queued':
        if (a.status === 'claimed' || a.status === 'dispatching') {
          if (older(a.since, ctx.claimGraceMs + ctx.settleMs))
            return stalled('claim_unsettled', a.id, `attempt ${a.id} is ${a.status} since ${a.since}`);
          return live('dispatching');
        }
        break; // dispatched: the move to running follows
      case 'running':
        if (a.runState === 'queued' || a.runState === 'running') return live('run_active');
        return stalled(
          'attempt_outlived_run',
          a.id,
          `attempt ${a.id} is running, its run is ${a.runState ?? 'absent'}`,
        );
      case 'awaiting_progress': {
        const head = t.task.ciHeadSha;
        if (head && a.headSha && head.toLowerCase() !== a.headSha.toLowerCase())
          return stalled('progress_unseen', a.id, `the head moved to ${head} after attempt ${a.id}'s action_taken`);
        const since = a.actionTakenAt ?? a.since;
        // Past the deadline by more than the bound: the move to retryable is overdue.
        if (progressDeadlinePassed(since, ctx.pollIntervalMs, now - ctx.settleMs))
          return stalled('deadline_passed', a.id, `attempt ${a.id} took action at ${since}; nothing moved since`);
        return live('awaiting_progress');
      }
      case 'acknowledged':
      case 'retryable':
        break;
    }
  }
  if (t.latestRun?.state === 'queued' || t.latestRun?.state === 'running') return live('run_active');

  const head = t.task.ciHeadSha;
  if (t.task.ciState !== 'red' || !head) return live('head_not_red');
  if (ctx.maxAttempts + t.task.extraAttempts <= 0) return live('loop_off');

  // The newest attempt answering the red head (a retry carries the head it retried on).
  const last = [...t.attempts]
    .reverse()
    .find((a) => a.source === 'gate' && a.headSha !== null && a.headSha.toLowerCase() === head.toLowerCase());
  if (!last) {
    if (t.task.ciHeadSeenAt && !older(t.task.ciHeadSeenAt, ctx.settleMs)) return live('dispatching');
    return stalled('red_unclaimed', null, `head ${head} is red and no attempt answers it`);
  }
  if (last.outcome !== null && last.state === 'acknowledged') return live('answered');
  if (last.status === 'dispatch_unknown' && last.outcome === null)
    return stalled('dispatch_unconfirmed', last.id, `attempt ${last.id} died mid-dispatch and nobody was told`);
  // Retried at the poll's cadence, poll or no poll: due one interval after the attempt settled.
  if (!older(last.since, ctx.pollIntervalMs + ctx.settleMs)) return live('retry_due');
  return stalled('retry_not_offered', last.id, `attempt ${last.id} is ${last.state} (${last.status}); not retried`);
}

function toMs(t: Instant): number {
  return typeof t === 'number' ? t : Date.parse(t);
}
