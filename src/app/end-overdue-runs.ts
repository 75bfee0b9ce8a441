// Issue 35 (SPEC I5): no run holds a loop forever. Every liveness pass, on every replica, finds the
// automatic runs past their window (core/run-window.ts), files the Task's one notice (run_timeout),
// then ends the run through the dispatcher — which stops its agent when it runs on this replica and
// settles its attempt as any run's end would. The notice goes first, so the run's end can never be
// read as an unreached agent's, and a replica that loses either compare-and-set does nothing twice.
import { runOverdue } from '../core/run-window.js';
import type { Run } from '../core/types.js';
import type { WordsOf } from '../core/host-words.js';
import { LOG_EVENTS } from '../core/events.js';
import type { Ledger } from './ledger-port.js';
import type { Logger } from './ports.js';
import { fileStopNotice } from './stop-notice.js';

export interface OverdueRunDeps {
  ledger: Pick<Ledger, 'pageRuns' | 'getTask' | 'fileNotice' | 'recordDecisions'>;
  logger: Logger;
  maxAttempts: number;
  runTimeoutMs: number;
  wordsOf?: WordsOf;
  /** Ends the run as failed (its agent stopped where this process runs it); true when this call ended it. */
  endRun(run: Run, why: string): Promise<boolean>;
  /** A run that ends with its agent's push is ended by a head the poll moved, too (dispatcher.pushSeen). */
  pushSeen?(taskId: number, headSha: string): Promise<void>;
}

/** Unfinished runs are few (one per pull request at most); a page this size holds them all. */
const PAGE = 200;

/** Ends every overdue automatic run; returns how many this pass ended. */
export async function endOverdueRuns(deps: OverdueRunDeps, now: string): Promise<number> {
  let ended = 0;
  for (const state of ['queued', 'running'] as const) {
    let before: number | undefined;
    for (;;) {
      const page = await deps.ledger.pageRuns({ state, limit: PAGE, ...(before !== undefined ? { before } : {}) });
      for (const run of page) {
        const why = runOverdue(run, deps.runTimeoutMs, now);
        if (why) {
          if (await endOne(deps, run, why)) ended++;
        } else if (deps.pushSeen && run.attemptId !== null) {
          const task = await deps.ledger.getTask(run.taskId);
          if (task?.ciHeadSha) await deps.pushSeen(task.id, task.ciHeadSha);
        }
      }
      if (page.length < PAGE) break;
      before = page.at(-1)!.id;
    }
  }
  return ended;
}

async function endOne(deps: OverdueRunDeps, run: Run, why: string): Promise<boolean> {
  const task = await deps.ledger.getTask(run.taskId);
  if (task && task.state === 'open' && task.prState === 'open') {
    const notice = await fileStopNotice(deps.ledger, task, {
      maxAttempts: deps.maxAttempts,
      reason: 'run_timeout',
      headSha: task.ciHeadSha,
      detail: why,
      words: deps.wordsOf?.(task.repository),
    });
    if (notice) {
      deps.logger.warn(
        { taskId: task.id, attemptId: run.attemptId, runId: run.id, reason: 'run_timeout' },
        LOG_EVENTS.CI_AUTOFIX_EXHAUSTED,
      );
      await deps.ledger.recordDecisions([
        {
          taskId: task.id,
          attemptId: run.attemptId,
          outcome: 'noticed',
          reason: 'run_timeout',
          detail: notice.message,
        },
      ]);
    }
  }
  return deps.endRun(run, why);
}
