// The app's side of the AgentOps port (SPEC M3, I1–I3, J1, K6): a run-scoped credential
// (FIXLOOP_RUN_TOKEN) resolves to the one run it was minted for, and every operation is about that
// run's own Task, pull request and attempt — none takes a task, run or pull request from the caller
// (I2). The same ops serve `/mcp` (src/mcp/http.ts) and the `/api/run/*` routes (src/http/api.ts).
//
// A run that has ended (completed, failed, cancelled) reports nothing more: its state is read again
// on every call, so a long-lived AgentOps stops working the moment its run ends.
import {
  boundReason,
  FIX_OUTCOMES,
  nextAttemptState,
  type AttemptEvent,
  type AttemptState,
  type FixOutcome,
} from '../core/attempt-state.js';
import type { ProgressSnapshot } from '../core/progress.js';
import type { Outcome } from '../core/reasons.js';
import type { Attempt, Run, RunState, Task } from '../core/types.js';
import { AgentOpsError, REASON_MAX, type AgentOps, type ResolveRun } from './agent-ops-port.js';
import type { AgentLedger, AttemptLife, SpendTotals } from './agent-port.js';
import type { DecisionWriter } from './decision-writer.js';
import { hashToken } from './dispatch.js';
import { DEFAULT_HOST_NAME, ProviderError, type ProviderPort } from './provider-port.js';
import { LOG_LINES_MAX, prChecks, type FetchLog, type PrChecksResult } from './pr-checks.js';
import type { Clock, Logger } from './ports.js';
import type { DecisionInput, Ledger } from './ledger-port.js';
import { taskView, type TaskViewLedger } from './task-view.js';
import { LOG_EVENTS } from '../core/events.js';

/** The run states after which a run's token reports nothing more. */

/**
 * A run token resolves to its run and Task, whose view the agent may read; its reports are decision
 * rows. Everything else of the agent's side is the AgentLedger.
 */
export type AgentOpsLedger = TaskViewLedger & Pick<Ledger, 'getRun' | 'recordDecisions'>;

const ENDED_RUN_STATES: readonly RunState[] = ['completed', 'failed', 'cancelled'];

/** The largest single amount `reportSpend` takes (US dollars), as the MCP tool's schema does. */
const SPEND_MAX = 1e9;

/** The decision-log outcome of a run's report: reason `outcome_<outcome>` for I2, `spend_reported` for K6. */
export const OUTCOME_DECISION: Outcome = 'reported';

/** How often a lifecycle move is tried again when another writer moved the attempt meanwhile. */
const MOVE_TRIES = 3;

export interface AgentOpsDeps {
  agent: AgentLedger;
  ledger: AgentOpsLedger;
  /** J1 reads; null when no host credentials are configured (checks are then `unavailable`). */
  host: Pick<ProviderPort, 'getPullRequest' | 'listCheckRuns' | 'listStatuses' | 'jobLogUrl' | 'readJobLog'> | null;
  fetchLog: FetchLog;
  clock: Clock;
  /**
   * I3: the baseline progress is measured against, stored with `action_taken` (e.g. snapshotOf from
   * progress-check.ts). Default, and when the read fails: the head the attempt was claimed for (else
   * the Task's CI head), no checks, nothing else known. Either way the baseline's head is the
   * attempt's, so a push made before the report still counts as a new head.
   */
  snapshot?: (task: Task, attempt: Attempt) => Promise<ProgressSnapshot>;
  /** Where the decision-log row of a reported outcome goes; default: written straight to the ledger. */
  decisions?: DecisionWriter;
  /** K1/C1: the Task budget shown by `loopState`; absent, the budget is shown as null. */
  maxAttempts?: number;
  logger?: Logger;
}

export interface OutcomeReport {
  attemptId: number;
  /** The attempt's lifecycle state after the report (I1). */
  state: AttemptState;
  outcome: FixOutcome;
}

export interface SpendReport extends SpendTotals {
  /** model + sandbox, in US dollars (CI minutes are counted apart). */
  totalSpend: number;
}

/** One attempt as the loop state shows it: the Task view's row plus its lifecycle (I1). */
export type LoopAttempt = NonNullable<Awaited<ReturnType<typeof taskView>>>['attempts'][number] & {
  state: AttemptState | null;
  outcome: FixOutcome | null;
  outcomeReason: string | null;
  outcomeAt: string | null;
  actionTakenAt: string | null;
  retryOf: number | null;
};

export type LoopState = Omit<NonNullable<Awaited<ReturnType<typeof taskView>>>, 'attempts'> & {
  attempts: LoopAttempt[];
  /** The run this token belongs to. */
  run: { id: number; state: RunState; attemptId: number | null };
  spend: SpendReport;
  /** Attempts counted against the Task's budget (C1, K5); null when the budget is not known here. */
  budget: { max: number; used: number; left: number } | null;
};

/** The ops every AgentOps call here returns, with their concrete answers. */
export interface RunOps extends AgentOps {
  checks(input: { failingOnly: boolean; logLines: number }): Promise<PrChecksResult>;
  reportOutcome(input: { outcome: FixOutcome; reason?: string }): Promise<OutcomeReport>;
  reportSpend(input: { model?: number; sandbox?: number; note?: string }): Promise<SpendReport>;
  loopState(): Promise<LoopState>;
}

export function createResolveRun(deps: AgentOpsDeps): ResolveRun {
  return async (token) => {
    if (typeof token !== 'string' || token === '') throw unknownToken();
    const found = await deps.agent.runByTokenHash(hashToken(token));
    if (!found) throw unknownToken();
    return bindRun(deps, found.run, found.task, found.attempt);
  };
}

function unknownToken(): AgentOpsError {
  return new AgentOpsError('unauthorized', "unknown run token: send this run's own FIXLOOP_RUN_TOKEN");
}

function bindRun(deps: AgentOpsDeps, bound: Run, boundTask: Task, attempt: Attempt | null): RunOps {
  const runId = bound.id;
  const taskId = boundTask.id;

  /** The run as it is now; refused once it has ended. */
  async function live(): Promise<Run> {
    const now = await deps.ledger.getRun(runId);
    if (!now)
      throw new AgentOpsError(
        'run_ended',
        `run ${runId} of Task ${taskId} no longer exists; its token reports nothing`,
      );
    if (ENDED_RUN_STATES.includes(now.state)) {
      throw new AgentOpsError(
        'run_ended',
        `run ${runId} of Task ${taskId} already ended (${now.state}); its token reports nothing more`,
      );
    }
    // I5: the agent reached fixloop — a tool call or an API call, not an MCP handshake, which a CLI
    // makes at start-up whether or not it can then sign in to its model. Written once, before what it
    // asks is checked, so a call that is refused still counts (its connection works).
    if (now.agentSeenAt === null) await deps.agent.markAgentSeen(runId, deps.clock.now().toISOString());
    const { tokenHash: _hidden, ...run } = now;
    return run;
  }

  async function task(): Promise<Task> {
    return (await deps.ledger.getTask(taskId)) ?? boundTask;
  }

  /** A decision-log row; its failure never undoes what was recorded. */
  async function decide(row: DecisionInput): Promise<void> {
    if (deps.decisions) deps.decisions.write(row);
    else
      await deps.ledger
        .recordDecisions([row])
        .catch((err: unknown) => deps.logger?.error({ err, taskId, runId }, 'decision log write failed'));
  }

  async function spendReport(): Promise<SpendReport> {
    const t = await deps.agent.spendTotals(taskId);
    return { totalSpend: t.model + t.sandbox, model: t.model, sandbox: t.sandbox, ciMinutes: t.ciMinutes };
  }

  return {
    async checks(input) {
      await live();
      if (typeof input?.failingOnly !== 'boolean')
        throw new AgentOpsError('invalid', 'failingOnly must be true or false');
      if (!Number.isInteger(input.logLines) || input.logLines < 0 || input.logLines > LOG_LINES_MAX) {
        throw new AgentOpsError('invalid', `logLines must be a whole number from 0 to ${LOG_LINES_MAX}`);
      }
      if (!deps.host)
        throw new AgentOpsError(
          'unavailable',
          `fixloop has no ${DEFAULT_HOST_NAME} credentials configured, so it cannot read the checks`,
        );
      const t = await task();
      try {
        return await prChecks(
          { host: deps.host, fetchLog: deps.fetchLog },
          { repository: t.repository, number: t.pullRequest, failingOnly: input.failingOnly, logLines: input.logLines },
        );
      } catch (err) {
        if (err instanceof ProviderError) {
          throw new AgentOpsError(
            'unavailable',
            `${err.host} answered ${err.status} for ${t.repository}#${t.pullRequest}: ${err.message}`,
          );
        }
        throw err;
      }
    },

    async reportOutcome(input) {
      await live();
      const outcome = input?.outcome;
      if (!(FIX_OUTCOMES as readonly unknown[]).includes(outcome))
        throw new AgentOpsError('invalid', `outcome must be one of ${FIX_OUTCOMES.join(', ')}`);
      if (input.reason !== undefined && typeof input.reason !== 'string')
        throw new AgentOpsError('invalid', 'reason must be text');
      const attemptId = attempt?.id ?? bound.attemptId;
      if (attemptId === null) {
        throw new AgentOpsError(
          'no_attempt',
          `run ${runId} answers no attempt (it is not an automatic resume of Task ${taskId}), so there is no outcome to report`,
        );
      }
      const life = await deps.agent.life(attemptId);
      if (!life) throw new AgentOpsError('no_attempt', `attempt ${attemptId} of run ${runId} is not in the ledger`);
      if (life.outcome !== null) throw alreadyReported(life);

      const reason = input.reason === undefined ? '' : boundReason(input.reason, REASON_MAX);
      const event: AttemptEvent = { kind: 'outcome_reported', outcome, reason };
      const first = nextAttemptState(life.state, event);
      if (first.kind === 'reject') throw refusal(first.reason, life, runId);
      if (first.kind === 'stay')
        throw new AgentOpsError('unavailable', `attempt ${attemptId} cannot take an outcome in state ${life.state}`);

      // I3: where progress is measured from, read before anything is written.
      let baseline: string | undefined;
      if (first.to === 'awaiting_progress') {
        const t = await task();
        const a = attempt ?? ({ id: attemptId, headSha: life.headSha } as Attempt);
        let snap: ProgressSnapshot;
        try {
          snap = deps.snapshot ? await deps.snapshot(t, a) : defaultSnapshot(t, a);
        } catch (err) {
          // The report matters more than a rich baseline: a lost outcome would cost a retry.
          deps.logger?.warn({ err, taskId, attemptId }, 'progress baseline could not be read; the head alone is kept');
          snap = defaultSnapshot(t, a);
        }
        baseline = JSON.stringify(pinnedToAttemptHead(snap, a.headSha));
      }

      const at = deps.clock.now().toISOString();
      if (!(await deps.agent.recordOutcome(attemptId, outcome, reason === '' ? null : reason, at))) {
        const now = (await deps.agent.life(attemptId)) ?? life;
        // I5: the run's end won the race and settled the attempt (retryable); a retry is a new attempt.
        if (now.outcome === null && now.state === 'retryable') throw refusal('attempt_closed', now, runId);
        throw alreadyReported(now);
      }

      // The lifecycle move, by compare-and-set on the state read; when another writer moved the
      // attempt meanwhile (the dispatch acknowledgement: queued → running), decide again from there.
      let from: AttemptState = life.state;
      let to: AttemptState = first.to;
      let state: AttemptState = life.state;
      for (let i = 0; ; i++) {
        const extra =
          to === 'awaiting_progress'
            ? { actionTakenAt: at, ...(baseline !== undefined ? { baseline } : {}) }
            : undefined;
        if (await deps.agent.moveAttempt(attemptId, [from], to, extra)) {
          state = to;
          break;
        }
        const now = await deps.agent.life(attemptId);
        if (!now) throw new AgentOpsError('no_attempt', `attempt ${attemptId} of run ${runId} is not in the ledger`);
        state = now.state;
        const next = nextAttemptState(now.state, event);
        if (next.kind === 'reject' && next.reason === 'attempt_closed') {
          // The run ended without an outcome just before this one was written: the attempt is
          // already retryable, and a retry is a new attempt with its own run and token.
          throw refusal('attempt_closed', now, runId);
        }
        if (next.kind !== 'move' || i + 1 >= MOVE_TRIES) break;
        from = now.state;
        to = next.to;
      }

      await decide({
        taskId,
        attemptId,
        outcome: OUTCOME_DECISION,
        reason: `outcome_${outcome}`,
        detail: reason === '' ? `run ${runId}` : `run ${runId}: ${reason}`,
      });
      deps.logger?.info({ taskId, attemptId, runId, outcome, state }, LOG_EVENTS.ATTEMPT_OUTCOME_REPORTED);
      return { attemptId, state, outcome };
    },

    async reportSpend(input) {
      await live();
      const amount = (name: string, v: unknown): number | undefined => {
        if (v === undefined) return undefined;
        if (typeof v !== 'number' || !Number.isFinite(v) || v < 0 || v > SPEND_MAX) {
          throw new AgentOpsError('invalid', `${name} must be a number from 0 to ${SPEND_MAX} (US dollars)`);
        }
        return v;
      };
      const model = amount('model', input?.model);
      const sandbox = amount('sandbox', input?.sandbox);
      if (model === undefined && sandbox === undefined)
        throw new AgentOpsError('invalid', 'give a model and/or a sandbox cost');
      if (input.note !== undefined && typeof input.note !== 'string')
        throw new AgentOpsError('invalid', 'note must be text');
      const note = input.note === undefined ? '' : boundReason(input.note, REASON_MAX);
      await deps.agent.addSpend({
        taskId,
        runId,
        model: model ?? 0,
        sandbox: sandbox ?? 0,
        note: note === '' ? null : note,
      });
      await decide({
        taskId,
        attemptId: attempt?.id ?? bound.attemptId,
        outcome: OUTCOME_DECISION,
        reason: 'spend_reported',
        detail: `run ${runId}: model ${model ?? 0}, sandbox ${sandbox ?? 0}${note === '' ? '' : ` (${note})`}`,
      });
      return spendReport();
    },

    async loopState() {
      const run = await live();
      const [view, lives, spend] = await Promise.all([
        taskView(deps.ledger, taskId),
        deps.agent.lives(taskId),
        spendReport(),
      ]);
      if (!view) throw new AgentOpsError('run_ended', `Task ${taskId} of run ${runId} no longer exists`);
      const byId = new Map<number, AttemptLife>(lives.map((l) => [l.attemptId, l]));
      const attempts: LoopAttempt[] = view.attempts.map((a) => {
        const l = byId.get(a.id);
        return {
          ...a,
          state: l?.state ?? a.state,
          outcome: l?.outcome ?? a.outcome,
          outcomeReason: l?.outcomeReason ?? a.outcomeReason,
          outcomeAt: l?.outcomeAt ?? null,
          actionTakenAt: l?.actionTakenAt ?? null,
          retryOf: l?.retryOf ?? null,
        };
      });
      const budget =
        deps.maxAttempts === undefined
          ? null
          : (() => {
              const max = deps.maxAttempts + view.extraAttempts;
              return { max, used: attempts.length, left: Math.max(0, max - attempts.length) };
            })();
      return { ...view, attempts, run: { id: run.id, state: run.state, attemptId: run.attemptId }, spend, budget };
    },
  };
}

/** I3's default baseline: the head the attempt was about, nothing else known. */
export function defaultSnapshot(task: Task, attempt: Pick<Attempt, 'headSha'> | null): ProgressSnapshot {
  return {
    headSha: attempt?.headSha ?? task.ciHeadSha ?? '',
    checks: [],
    reviewThreads: null,
    latestReviewId: null,
    mergeableState: null,
    inMergeQueue: false,
  };
}

/**
 * The baseline's head is the head the attempt was about: a push the agent made before reporting
 * action_taken is progress, not part of the baseline. A live snapshot already on a newer head keeps
 * what it read of reviews and merge state, with the attempt's head and no checks (checks count only
 * on the same head).
 */
function pinnedToAttemptHead(snap: ProgressSnapshot, attemptHead: string | null): ProgressSnapshot {
  if (attemptHead === null || attemptHead === '' || snap.headSha.toLowerCase() === attemptHead.toLowerCase())
    return snap;
  return { ...snap, headSha: attemptHead, checks: [] };
}

function alreadyReported(life: AttemptLife): AgentOpsError {
  const what = life.outcome === null ? 'an outcome' : `the outcome ${life.outcome}`;
  return new AgentOpsError(
    'outcome_already_reported',
    `attempt ${life.attemptId} already has ${what}; the first report is final`,
  );
}

function refusal(
  reason: 'outcome_already_reported' | 'attempt_closed' | 'blocked_without_reason',
  life: AttemptLife,
  runId: number,
): AgentOpsError {
  switch (reason) {
    case 'outcome_already_reported':
      return alreadyReported(life);
    case 'attempt_closed':
      return new AgentOpsError(
        'run_ended',
        `attempt ${life.attemptId} of run ${runId} is closed (retryable): its run ended without an outcome; a retry is a new attempt with its own run`,
      );
    case 'blocked_without_reason':
      return new AgentOpsError(
        'invalid',
        'blocked needs a reason: say what blocks the fix, for the person it is shown to',
      );
  }
}
