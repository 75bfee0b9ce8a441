// Dispatch a claimed attempt to the Task's runner, at most once (SPEC C6, H1, H2, L1).
// The attempt moves claimed → dispatching by compare-and-set in the same transaction that writes
// the run row, so two processes can never both start it; the prompt is built from the stored
// rejection, so what the agent reads survives a failed dispatch.
import { createHash } from 'node:crypto';
import { protocolBlock } from '../core/prompt-protocol.js';
import type { WordsOf } from '../core/host-words.js';
import { nextAttemptState } from '../core/attempt-state.js';
import type { AttemptStatus, Run } from '../core/types.js';
import {
  ENDED_WATCHED,
  interruptedByShutdown,
  strandedRunEnd,
  strandedRunFate,
  strandedRunLogLine,
  type Liveness,
  type ProcessMark,
} from '../core/stranded-run.js';
import type { AgentLedger } from './agent-port.js';
import type { Clock, Logger, Random, Runner, RunExit, RunSpec } from './ports.js';
import type { Ledger } from './ledger-port.js';
import type { DecisionWriter } from './decision-writer.js';
import { settleUncalledRun, type UncalledRunDeps } from './settle-uncalled-run.js';
import { promptFor, type PromptDeps } from './prompt-for-attempt.js';
import type { ReadFailedJobLog } from './failed-job-log.js';
import { LOG_EVENTS } from '../core/events.js';

/** Dispatch moves one attempt by compare-and-set into a run, and keeps that run's state and log. */
export type DispatchLedger = Pick<
  Ledger,
  | 'appendRunLog'
  | 'beginDispatch'
  | 'failDispatch'
  | 'getRejection'
  | 'getTask'
  | 'listAttempts'
  | 'setAttemptStatus'
  | 'setRunState'
  | 'interruptRun'
  | 'renewDispatch'
  | 'setRunProcess'
  | 'getRun'
  | 'latestRun'
  | 'fileNotice'
  | 'createPersonRun'
>;

const RUN_LOG_MAX_CHARS = 256 * 1024;
/** A third of PostgreSQL's default reconcile grace (30 s, main.ts): two renewals may fail before it lapses. */
export const DISPATCH_LEASE_RENEW_MS = 10_000;

export interface DispatchDeps {
  ledger: DispatchLedger;
  logger: Logger;
  runner: Runner | null;
  random: Random;
  apiUrl: string;
  maxAttempts: number;
  decisions: DecisionWriter;
  /** The attempt lifecycle (I1): running on dispatch, then by the run's end and its outcome. */
  agent: AgentLedger;
  /** An operator's prompt template (trusted config); the protocol block is always appended. */
  promptTemplate?: string;
  /** The words of a Task's host (issue 34): what the prompt calls the change, its CI and its tools. */
  wordsOf: WordsOf;
  /**
   * A red stored with no output (a pipeline's result, a job's hook): the failed job and its log tail,
   * read from the host where it serves job logs itself (failed-job-log.ts); absent: nothing is read.
   */
  failedJobLog?: ReadFailedJobLog;
  /** Issue 36: the Works, whose rules per check may add instructions to the prompt (prompt-for-attempt.ts). */
  works?: PromptDeps['works'];
  clock: Clock;
  /** Issue 35: the pull request's head as the host has it now, for a run that ended without a call. */
  headNow?: UncalledRunDeps['headNow'];
  /** Fault injection for tests (FIXLOOP_FAULT); production wiring passes nothing. */
  fault?(point: 'before_start' | 'before_mark' | 'after_start'): void | Promise<void>;
  /** Whether a marked agent process still runs (runners/process-mark.ts); for stranded runs. */
  liveness?(mark: ProcessMark): Liveness;
  /** How often a stranded run's process is checked while it outlives the restart, in ms. */
  watchEveryMs?: number;
  /**
   * How often a dispatch in progress renews its lease (the attempt's updated_at), in ms: preparing
   * a workspace can outlast the reconcile grace of a replica that starts meanwhile (decision 0014).
   */
  leaseRenewMs?: number;
}

/** How a person's resume went: started, refused while a run is unfinished, or no runner to start it. */
export type PersonRunStart =
  { kind: 'started'; run: Run } | { kind: 'busy'; why: string } | { kind: 'unavailable'; why: string };

export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

export function createDispatcher(deps: DispatchDeps) {
  const { ledger, logger } = deps;
  // Run-state writes from runner callbacks, awaited on shutdown so none is lost.
  const writes = new Set<Promise<unknown>>();
  const track = (p: Promise<unknown>) => {
    writes.add(p);
    void p.finally(() => writes.delete(p));
  };

  async function decide(
    attemptId: number | null,
    taskId: number,
    outcome: 'dispatched' | 'failed' | 'noticed',
    reason: string | null,
    detail?: string,
  ) {
    deps.decisions.write({ taskId, attemptId, outcome, reason, detail: detail ?? null });
  }

  /** The run's end, however it was learnt: its state, then the attempt's (I3: no outcome → retryable). */
  async function runEnded(
    runId: number,
    attemptId: number | null,
    r: RunExit,
    interrupted = interrupting.has(runId),
  ): Promise<boolean> {
    await runnerReport(runId, r);
    if (interrupted) {
      // V4: a shutdown or a crash ended it, not its agent: the run ends marked interrupted and its
      // attempt stays as it is — running, to be offered again free by reconciliation (reconcile.ts),
      // or, when its agent reported an outcome, settled by that outcome as ever (applyRecordedOutcome
      // there). No agent_unreachable notice: the agent was cut short, not unreachable.
      interrupting.delete(runId);
      const moved = await ledger.setRunState(runId, ['queued', 'running'], r.state, {
        exitCode: r.exitCode,
        interrupted: true,
      });
      return moved !== null;
    }
    // Before the run is marked ended, so a crash in between leaves the run to be ended again, and
    // this asked again, rather than an ended run nobody was told about.
    if (attemptId !== null)
      await settleUncalledRun({ ...deps, runLogMaxChars: RUN_LOG_MAX_CHARS }, runId, attemptId, r);
    const moved = await ledger.setRunState(runId, ['queued', 'running'], r.state, { exitCode: r.exitCode });
    const life = attemptId !== null ? await deps.agent.life(attemptId) : null;
    // Only while no outcome is recorded: one the run reported meanwhile (to any process) settles it (I5).
    if (life) await advance(life.attemptId, { kind: 'run_ended', hadOutcome: life.outcome !== null }, true);
    return moved !== null;
  }

  /**
   * What a runner says of a run's end beside its state (a `session` runner, R2): its words in the run
   * log, and the vendor's spend (K6) — only while the run is open, so an end told twice counts once.
   */
  async function runnerReport(runId: number, r: RunExit): Promise<void> {
    if (r.detail === undefined && r.spend === undefined) return;
    const run = await ledger.getRun(runId);
    if (!run || (run.state !== 'queued' && run.state !== 'running')) return;
    if (r.detail !== undefined) await ledger.appendRunLog(runId, `\n[fixloop] ${r.detail}\n`, RUN_LOG_MAX_CHARS);
    if (r.spend !== undefined && r.spend.dollars > 0)
      await deps.agent.addSpend({
        taskId: run.taskId,
        runId,
        model: r.spend.dollars,
        sandbox: 0,
        note: r.spend.note.slice(0, 200),
      });
  }

  /**
   * Ends a run whose agent process nobody heard exit, exit status unknown: `completed` when its agent
   * reported its outcome (to this process or another), else `failed`; said so in its log (I5).
   */
  async function endStranded(run: Run, lost: string): Promise<void> {
    const life = run.attemptId !== null ? await deps.agent.life(run.attemptId) : null;
    const end = strandedRunEnd(lost, life?.outcome != null);
    // Only the writer that moved the run says why in its log: a replica on this host that did see
    // the agent exit may have ended the run first.
    // A run a shutdown had marked interrupted before its fixloop was killed stays interrupted.
    const interrupted = end.interrupted || (run.interruptedAt != null && life?.outcome == null);
    if (await runEnded(run.id, run.attemptId, { state: end.state, exitCode: null }, interrupted)) {
      await ledger.appendRunLog(run.id, strandedRunLogLine(end.detail), RUN_LOG_MAX_CHARS);
      await decide(run.attemptId, run.taskId, 'failed', 'run_lost', end.detail);
      logger.warn({ taskId: run.taskId, runId: run.id, detail: end.detail }, LOG_EVENTS.RUN_STRANDED_ENDED);
    }
  }

  /** Stranded runs this process watches, by run id: a later pass finds them again and must not watch twice. */
  const watching = new Map<number, NodeJS.Timeout>();
  /** Dispatches under way (from an evaluation or a reconciliation pass): shutdown waits for them. */
  const starting = new Set<Promise<unknown>>();
  /** V4: runs a shutdown stops after its grace; their end is an interruption, not the agent's own. */
  const interrupting = new Set<number>();
  let stopped = false;
  /** V4: shutting down: no new dispatch; what is claimed is left for the next start (reconcile.ts). */
  let draining = false;
  /**
   * L1, I4: a run whose agent was started by a fixloop process that is gone (start-up, and the
   * periodic pass). Its agent is checked now; if it still runs it is watched until it exits, then
   * the run ends like any other.
   */
  async function adoptStranded(run: Run, mark: ProcessMark): Promise<'ended' | 'watching' | 'left'> {
    // After stop() nothing new is watched: its timer would outlive the database it writes to.
    if (stopped) return 'left';
    if (watching.has(run.id)) return 'watching';
    const liveness = deps.liveness ?? (() => 'elsewhere' as const);
    const fate = strandedRunFate(liveness(mark));
    if (fate.kind === 'leave') return 'left';
    // The fixloop that started the agent is gone: if it died before it marked the attempt dispatched,
    // that is done now, whatever the reconcile grace (the mark proves the agent started).
    if (
      run.attemptId !== null &&
      (await ledger.listAttempts(run.taskId)).some((a) => a.id === run.attemptId && a.status === 'dispatching')
    ) {
      await confirmStarted(run.attemptId, run.taskId, run.id);
    }
    if (fate.kind === 'end') {
      await endStranded(run, fate.detail);
      return 'ended';
    }
    if (stopped) return 'left';
    if (watching.has(run.id)) return 'watching'; // another pass got here while this one awaited
    logger.warn({ taskId: run.taskId, runId: run.id, pid: mark.pid }, LOG_EVENTS.RUN_STRANDED_WATCHING);
    let ending = false;
    const timer = setInterval(() => {
      if (ending || liveness(mark) !== 'gone') return;
      ending = true;
      track(
        endStranded(run, ENDED_WATCHED).then(
          () => {
            clearInterval(timer);
            watching.delete(run.id);
          },
          // Tried again on the next tick: a run left running here would block its pull request (K7).
          (err) => {
            ending = false;
            logger.error({ err, runId: run.id }, 'run state write failed');
          },
        ),
      );
    }, deps.watchEveryMs ?? 2000);
    timer.unref();
    watching.set(run.id, timer);
    return 'watching';
  }

  /** The agent started: the attempt is dispatched, its run running, and the decision log says so. True when this call moved the attempt. */
  async function started(attemptId: number, taskId: number, runId: number, detail: string): Promise<boolean> {
    // Each step is a compare-and-set, so a reconciler and a slow dispatcher may both get here; only
    // the one that moved the attempt writes the decision.
    const moved = await ledger.setAttemptStatus(attemptId, ['dispatching'], 'dispatched');
    await advance(attemptId, { kind: 'dispatched' });
    await ledger.setRunState(runId, ['queued'], 'running');
    if (moved) await decide(attemptId, taskId, 'dispatched', null, detail);
    return moved;
  }

  /**
   * Start-up: an attempt left `dispatching` whose run carries a process mark reached its agent (the
   * mark is written as soon as the agent starts), so it is dispatched, not unknown.
   */
  async function confirmStarted(attemptId: number, taskId: number, runId: number): Promise<boolean> {
    return started(
      attemptId,
      taskId,
      runId,
      `run ${runId}: the agent had started when the process that dispatched it died`,
    );
  }

  /** I1: apply a lifecycle event to the attempt, by compare-and-set from the state it was read in. */
  async function advance(
    attemptId: number,
    event: Parameters<typeof nextAttemptState>[1],
    withoutOutcome = false,
  ): Promise<void> {
    const life = await deps.agent.life(attemptId);
    if (!life) return;
    const t = nextAttemptState(life.state, event);
    if (t.kind === 'move') await deps.agent.moveAttempt(attemptId, [life.state], t.to, { withoutOutcome });
  }

  /**
   * Dispatch the attempt if it is still in `from`; returns false when another process has it, or
   * when this one is shutting down (the claim is left for the next start's reconciliation, V4).
   */
  function dispatch(attemptId: number, from: AttemptStatus = 'claimed'): Promise<boolean> {
    if (draining) {
      logger.info({ attemptId }, 'shutting down: the attempt is left claimed for the next start to dispatch');
      return Promise.resolve(false);
    }
    const p = dispatchNow(attemptId, from);
    starting.add(p);
    void p.finally(() => starting.delete(p)).catch(() => undefined);
    return p;
  }

  async function dispatchNow(attemptId: number, from: AttemptStatus): Promise<boolean> {
    const token = deps.random.token(32);
    const began = await ledger.beginDispatch(attemptId, from, hashToken(token));
    if (!began) return false;
    const { attempt, run } = began;
    const task = await ledger.getTask(attempt.taskId);
    const rejection = attempt.rejectionId !== null ? await ledger.getRejection(attempt.rejectionId) : null;
    if (!task || !rejection) {
      await fail(attempt.id, run.id, task?.id ?? attempt.taskId, 'attempt without task or rejection');
      return true;
    }
    if (!deps.runner) {
      await fail(attempt.id, run.id, task.id, 'no runner configured');
      return true;
    }
    const attempts = await ledger.listAttempts(task.id);
    const attemptNumber = attempts.findIndex((a) => a.id === attempt.id) + 1;
    let prompt: string;
    let failure: NonNullable<RunSpec['failure']>;
    try {
      ({ prompt, failure } = await promptFor(deps, task, attempt.id, attempts, rejection, attemptNumber));
    } catch (err) {
      await fail(attempt.id, run.id, task.id, `prompt could not be built: ${(err as Error).message}`);
      return true;
    }
    await deps.fault?.('before_start');
    let mark: ProcessMark | void;
    // While the runner prepares and starts the agent, the dispatch's lease is kept fresh, so no
    // replica's start-up takes it for one whose process died.
    let renewing = false;
    const lease = setInterval(() => {
      if (renewing) return; // a renewal still waiting on the database: no pile-up behind it
      renewing = true;
      ledger
        .renewDispatch(attempt.id)
        .then((held) => {
          // Taken by a replica that found the lease lapsed: the attempt already says dispatch_unknown.
          if (!held)
            logger.warn(
              { taskId: task.id, attemptId: attempt.id },
              'dispatch lease lost while the agent was being started',
            );
        })
        .catch((err: unknown) => logger.warn({ err, attemptId: attempt.id }, 'dispatch lease not renewed'))
        .finally(() => {
          renewing = false;
        });
    }, deps.leaseRenewMs ?? DISPATCH_LEASE_RENEW_MS);
    lease.unref();
    try {
      mark = await deps.runner.start(
        {
          taskId: task.id,
          runId: run.id,
          attemptId: attempt.id,
          repository: task.repository,
          pullRequest: task.pullRequest,
          branch: task.branch,
          headSha: attempt.headSha,
          resumeRef: task.resumeRef,
          prompt,
          runToken: token,
          apiUrl: deps.apiUrl,
          failure,
          attempt: { number: attemptNumber, max: deps.maxAttempts + task.extraAttempts },
        },
        {
          onExit: (runId, r) => {
            track(
              runEnded(runId, attempt.id, r).catch((err) => logger.error({ err, runId }, 'run state write failed')),
            );
          },
          onOutput: (runId, chunk) => {
            track(ledger.appendRunLog(runId, chunk, RUN_LOG_MAX_CHARS).catch(() => undefined));
          },
        },
      );
    } catch (err) {
      clearInterval(lease);
      await fail(attempt.id, run.id, task.id, String((err as Error)?.message ?? err));
      return true;
    }
    clearInterval(lease);
    await deps.fault?.('before_mark');
    // First, before anything else: from here on a restart knows the agent started. The agent runs
    // whatever this write does, so its failure is logged, never taken for a failed start.
    if (mark)
      await ledger
        .setRunProcess(run.id, mark)
        .catch((err) => logger.error({ err, runId: run.id }, 'run process mark not written'));
    await deps.fault?.('after_start');
    await started(attempt.id, task.id, run.id, `run ${run.id} via ${deps.runner.kind}`);
    logger.info({ taskId: task.id, attemptId: attempt.id, runId: run.id }, LOG_EVENTS.DISPATCH_STARTED);
    return true;
  }

  async function fail(attemptId: number, runId: number, taskId: number, why: string) {
    // Never started: out of flight and retryable in the same write as its run's failure (I5: a
    // machine's failure is never final; the retry faces the budget and every guard).
    const t = nextAttemptState('queued', { kind: 'not_started' });
    const lifecycle = t.kind === 'move' ? t.to : 'acknowledged';
    if (!(await ledger.failDispatch(attemptId, runId, why.slice(0, 500), lifecycle))) {
      // A reconciliation pass took the lapsed lease first and settled it dispatch_unknown, with its run.
      logger.warn({ taskId, attemptId, why }, 'dispatch failed after reconciliation had settled it');
      return;
    }
    await decide(attemptId, taskId, 'failed', 'dispatch_failed', why.slice(0, 500));
    logger.warn({ taskId, attemptId, reason: 'dispatch_failed', why }, LOG_EVENTS.DISPATCH_DROPPED);
  }

  /**
   * Dispatch without waiting for the runner (which may prepare a workspace for minutes): for a
   * reconciliation pass that must go on with its other work. stop() waits for these.
   */
  function dispatchInBackground(attemptId: number, from: AttemptStatus): void {
    if (stopped || draining) return; // left claimed: the next process's start-up settles it
    void dispatch(attemptId, from).catch((err: unknown) => logger.error({ err, attemptId }, 'dispatch failed'));
  }

  /**
   * H1, M4: a person's resume. Their message is the prompt (with the protocol block, so the agent can
   * report); the run is `resume` with `autoResume: false` and answers no attempt, so it spends no
   * budget and is never taken for the machine's. Refused while a run of the Task is unfinished.
   */
  async function resumeByPerson(taskId: number, message: string): Promise<PersonRunStart> {
    if (!deps.runner) return { kind: 'unavailable', why: 'no runner is configured' };
    if (draining) return { kind: 'unavailable', why: 'fixloop is shutting down; try again once it is back' };
    const task = await ledger.getTask(taskId);
    if (!task) return { kind: 'busy', why: 'no such Task' };
    const token = deps.random.token(32);
    const run = await ledger.createPersonRun(task.id, hashToken(token));
    if (!run) return { kind: 'busy', why: 'a run of this Task is already queued or running' };
    let mark: ProcessMark | void;
    try {
      mark = await deps.runner.start(
        {
          taskId: task.id,
          runId: run.id,
          attemptId: null,
          repository: task.repository,
          pullRequest: task.pullRequest,
          branch: task.branch,
          headSha: task.ciHeadSha,
          resumeRef: task.resumeRef,
          prompt: `${message}\n\n${protocolBlock({ ...task, words: deps.wordsOf(task.repository) })}`,
          runToken: token,
          apiUrl: deps.apiUrl,
        },
        {
          onExit: (runId, r) => {
            track(runEnded(runId, null, r).catch((err) => logger.error({ err, runId }, 'run state write failed')));
          },
          onOutput: (runId, chunk) => {
            track(ledger.appendRunLog(runId, chunk, RUN_LOG_MAX_CHARS).catch(() => undefined));
          },
        },
      );
    } catch (err) {
      await ledger.setRunState(run.id, ['queued'], 'failed');
      return { kind: 'unavailable', why: `the runner could not start it: ${String((err as Error)?.message ?? err)}` };
    }
    if (mark)
      await ledger
        .setRunProcess(run.id, mark)
        .catch((err) => logger.error({ err, runId: run.id }, 'run process mark not written'));
    // A runner whose agent already ended (onExit first) leaves the run as it ended.
    const running = await ledger.setRunState(run.id, ['queued'], 'running');
    return { kind: 'started', run: running ?? run };
  }

  /** V4, first step of a shutdown: no new dispatch from here on (a person's resume is refused too). */
  function drain(): void {
    draining = true;
  }

  /**
   * Shutdown (V4): no new dispatch; the runner's agents get up to `graceMs` to end on their own
   * (their end is written as usual); those still running then are marked interrupted and stopped,
   * so their attempts are offered again, free, by the next start. Then every run-state write is waited for.
   */
  async function stop(graceMs = 0): Promise<void> {
    draining = true;
    // A watched stranded agent is not this process's child: it is left running, as it was found.
    stopped = true;
    for (const t of watching.values()) clearInterval(t);
    watching.clear();
    // Before the runner stops its agents: one of these may still be starting one. Within the grace:
    // a workspace that takes longer to prepare is left to the next start (found by its run's token).
    const began = performance.now();
    let graceTimer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.allSettled([...starting]),
      new Promise<void>((r) => {
        graceTimer = setTimeout(r, graceMs);
      }),
    ]);
    clearTimeout(graceTimer);
    const remaining = Math.max(0, graceMs - (performance.now() - began));
    const left = (await deps.runner?.waitForRuns?.(remaining)) ?? [];
    for (const runId of left) {
      interrupting.add(runId);
      const detail = interruptedByShutdown(graceMs);
      try {
        // Written before the agent is stopped: a fixloop killed in between leaves the mark to say so.
        await ledger.interruptRun(runId);
        await ledger.appendRunLog(runId, strandedRunLogLine(detail), RUN_LOG_MAX_CHARS);
        const run = await ledger.getRun(runId);
        if (run) await decide(run.attemptId, run.taskId, 'failed', 'run_interrupted', detail);
        logger.warn({ runId, taskId: run?.taskId, attemptId: run?.attemptId }, LOG_EVENTS.RUN_INTERRUPTED);
      } catch (err) {
        // The end's own write says interrupted too (runEnded), so a failure here loses nothing but words.
        logger.error({ err, runId }, 'run not marked interrupted before its agent was stopped');
      }
    }
    await deps.runner?.stopAll?.();
    while (writes.size > 0) await Promise.allSettled([...writes]);
  }

  /**
   * Issue 35: a run past its window (end-overdue-runs.ts) ends failed: its agent is stopped where this
   * process runs it, and its attempt settles as at any run's end. True when this call ended it.
   */
  async function endOverdue(run: Run, why: string): Promise<boolean> {
    const now = await ledger.getRun(run.id);
    if (!now || (now.state !== 'queued' && now.state !== 'running')) return false;
    // Said in its log before its agent is stopped: a stopped agent's exit may end the run first.
    await ledger.appendRunLog(run.id, `\n[fixloop] ${why}; fixloop stops it\n`, RUN_LOG_MAX_CHARS);
    const stopped = deps.runner?.kill?.(run.id) ?? false;
    await runEnded(run.id, run.attemptId, { state: 'failed', exitCode: null }, false);
    await decide(run.attemptId, run.taskId, 'failed', 'run_timeout', why);
    logger.warn({ taskId: run.taskId, runId: run.id, attemptId: run.attemptId, stopped }, LOG_EVENTS.RUN_TIMED_OUT);
    return true;
  }

  /**
   * Issue 35: for a runner whose agent never calls fixloop and whose run ends with its push (the
   * mention runner), a new head of the Task ends its automatic run; settling that end infers the
   * outcome from the push (settle-uncalled-run.ts). Nothing for any other runner, or an unmoved head.
   */
  async function pushSeen(taskId: number, headSha: string): Promise<void> {
    if (!deps.runner?.endsOnPush) return;
    const run = await ledger.latestRun(taskId);
    if (!run || run.attemptId === null || (run.state !== 'queued' && run.state !== 'running')) return;
    const life = await deps.agent.life(run.attemptId);
    if (!life?.headSha || life.headSha.toLowerCase() === headSha.toLowerCase()) return;
    await runEnded(run.id, run.attemptId, { state: 'completed', exitCode: null }, false);
  }

  return {
    dispatch,
    dispatchInBackground,
    runEnded,
    pushSeen,
    adoptStranded,
    confirmStarted,
    resumeByPerson,
    drain,
    stop,
    endOverdue,
  };
}

export type Dispatcher = ReturnType<typeof createDispatcher>;
