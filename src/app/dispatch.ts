// Dispatch a claimed attempt to the Task's runner, at most once (SPEC C6, H1, H2, L1).
// The attempt moves claimed → dispatching by compare-and-set in the same transaction that writes
// the run row, so two processes can never both start it; the prompt is built from the stored
// rejection, so what the agent reads survives a failed dispatch.
import { createHash } from 'node:crypto';
import { ciFailurePrompt } from '../core/prompt.js';
import { reviewPrompt } from '../core/review-prompt.js';
import type { AttemptStatus } from '../core/types.js';
import type { Ledger, Logger, Random, Runner } from './ports.js';
import type { DecisionWriter } from './decision-writer.js';

export const RUN_LOG_MAX_CHARS = 256 * 1024;

export interface DispatchDeps {
  ledger: Ledger;
  logger: Logger;
  runner: Runner | null;
  random: Random;
  apiUrl: string;
  maxAttempts: number;
  decisions: DecisionWriter;
  /** Fault injection for crash tests (FIXLOOP_FAULT); production wiring passes nothing. */
  fault?(point: 'before_start'): void;
}

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

  async function decide(attemptId: number, taskId: number, outcome: 'dispatched' | 'failed', reason: string | null, detail?: string) {
    deps.decisions.write({ taskId, attemptId, outcome, reason, detail: detail ?? null });
  }

  /** Dispatch the attempt if it is still in `from`; returns false when another process has it. */
  async function dispatch(attemptId: number, from: AttemptStatus = 'claimed'): Promise<boolean> {
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
    const attemptNumber = (await ledger.listAttempts(task.id)).findIndex((a) => a.id === attempt.id) + 1;
    const nonce = deps.random.token(12);
    const prompt =
      rejection.source === 'gate'
        ? ciFailurePrompt({
            repository: task.repository,
            pullRequest: task.pullRequest,
            headSha: rejection.headSha ?? attempt.headSha ?? 'unknown',
            checkName: rejection.checkName ?? 'unknown check',
            conclusion: null,
            url: null,
            output: rejection.body,
            attemptNumber,
            maxAttempts: deps.maxAttempts,
            nonce,
          })
        : reviewPrompt({ repository: task.repository, pullRequest: task.pullRequest, body: rejection.body, attemptNumber, maxAttempts: deps.maxAttempts, nonce });
    deps.fault?.('before_start');
    try {
      await deps.runner.start(
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
        },
        {
          onExit: (runId, r) => {
            track(ledger.setRunState(runId, ['queued', 'running'], r.state, { exitCode: r.exitCode }).catch((err) => logger.error({ err, runId }, 'run state write failed')));
          },
          onOutput: (runId, chunk) => {
            track(ledger.appendRunLog(runId, chunk, RUN_LOG_MAX_CHARS).catch(() => undefined));
          },
        },
      );
    } catch (err) {
      await fail(attempt.id, run.id, task.id, String((err as Error)?.message ?? err));
      return true;
    }
    await ledger.setAttemptStatus(attempt.id, ['dispatching'], 'dispatched');
    await ledger.setRunState(run.id, ['queued'], 'running');
    await decide(attempt.id, task.id, 'dispatched', null, `run ${run.id} via ${deps.runner.kind}`);
    logger.info({ taskId: task.id, attemptId: attempt.id, runId: run.id }, 'dispatch.started');
    return true;
  }

  async function fail(attemptId: number, runId: number, taskId: number, why: string) {
    await ledger.setAttemptStatus(attemptId, ['dispatching'], 'dispatch_failed', why.slice(0, 500));
    await ledger.setRunState(runId, ['queued'], 'failed');
    await decide(attemptId, taskId, 'failed', 'dispatch_failed', why.slice(0, 500));
    logger.warn({ taskId, attemptId, why }, 'dispatch.dropped');
  }

  /** Shutdown: stop the runner's agents, then wait for their end to be written. */
  async function stop(): Promise<void> {
    await deps.runner?.stopAll?.();
    while (writes.size > 0) await Promise.allSettled([...writes]);
  }

  return { dispatch, stop };
}

export type Dispatcher = ReturnType<typeof createDispatcher>;
