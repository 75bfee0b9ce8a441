// The `fixloop` commit status on the pull request's head (SPEC P3; words in core/commit-status.ts).
// Written when the loop's state changes, and only then: the ledger keeps the last status written
// per Task, so a poll tick that finds nothing new writes nothing. Two paths reach it: every Task the
// poll reads (the safety net, and the first status of a new head), and a watch over the decision log,
// so a claim, a dispatch, a stop or a person's action shows within seconds, not a poll interval.
import { COMMIT_STATUS_CONTEXT, commitStatusKey, commitStatusOf } from '../core/commit-status.js';
import type { ProviderPort } from './provider-port.js';
import type { Ledger } from './ledger-port.js';
import type { Logger } from './ports.js';

/** It reads the Task's board row, its notice and the stop flag, and writes only its own column. */
export type CommitStatusLedger = Pick<
  Ledger,
  | 'getTask'
  | 'getNotice'
  | 'boardPage'
  | 'readStopFlag'
  | 'setCommitStatus'
  | 'taskIdsDecidedAfter'
  | 'latestDecisionId'
>;

export interface CommitStatusDeps {
  ledger: CommitStatusLedger;
  github: Pick<ProviderPort, 'createCommitStatus'>;
  logger: Logger;
  maxAttempts: number;
  /** Where the status links: the dashboard's origin (FIXLOOP_PUBLIC_URL); null links nowhere. */
  dashboardUrl: string | null;
}

export type PublishResult = 'written' | 'unchanged' | 'nothing_to_say' | 'failed';

export function createCommitStatusPublisher(deps: CommitStatusDeps) {
  const { ledger, logger } = deps;

  /** Writes the Task's status on `headSha` (default: the head the ledger holds) when it changed. */
  async function publish(taskId: number, headSha?: string): Promise<PublishResult> {
    const task = await ledger.getTask(taskId);
    const sha = headSha ?? task?.ciHeadSha ?? null;
    if (!task || !sha) return 'nothing_to_say';
    const [page, notice, globalStop] = await Promise.all([
      ledger.boardPage({ taskId, limit: 1 }),
      task.noticeAt !== null ? ledger.getNotice(taskId) : Promise.resolve(null),
      ledger.readStopFlag(),
    ]);
    const row = page.rows[0];
    if (!row) return 'nothing_to_say';
    const status = commitStatusOf({
      loopState: row.loopState,
      attemptsUsed: row.attemptsUsed,
      attemptsAllowed: deps.maxAttempts + row.extraAttempts,
      stopReason: notice?.reason ?? null,
      skipLabel: task.skipLabel,
      globalStop,
    });
    if (!status) return 'nothing_to_say';
    const written = `${sha} ${commitStatusKey(status)}`;
    if (task.commitStatus === written) return 'unchanged';
    try {
      await deps.github.createCommitStatus(task.repository, sha, {
        context: COMMIT_STATUS_CONTEXT,
        state: status.state,
        description: status.description,
        targetUrl: deps.dashboardUrl ? `${deps.dashboardUrl}/tasks/${task.id}` : null,
      });
    } catch (err) {
      // A status is a view of the ledger: the next change or tick writes it again; the loop goes on.
      logger.warn({ err, taskId, sha }, 'could not write the fixloop commit status');
      return 'failed';
    }
    await ledger.setCommitStatus(taskId, written);
    return 'written';
  }

  /**
   * Watches the decision log: every Task with a new decision gets its status written. Returns a
   * stop function. Missed decisions (a restart, a failed write) are caught by the poll's publish.
   */
  function watch(everyMs: number): () => Promise<void> {
    let stopped = false;
    let cursor: number | null = null;
    let running: Promise<void> | null = null;
    const round = async () => {
      try {
        if (cursor === null) {
          cursor = await ledger.latestDecisionId();
          return;
        }
        const { taskIds, latest } = await ledger.taskIdsDecidedAfter(cursor, 200);
        for (const id of taskIds) await publish(id);
        cursor = latest;
      } catch (err) {
        logger.warn({ err }, 'commit status watch failed; trying again');
      }
    };
    // One round at a time: a slow GitHub skips beats rather than piling them up.
    const timer = setInterval(() => {
      if (stopped || running) return;
      running = round().finally(() => (running = null));
    }, everyMs);
    timer.unref();
    return async () => {
      stopped = true;
      clearInterval(timer);
      await running;
    };
  }

  return { publish, watch };
}
