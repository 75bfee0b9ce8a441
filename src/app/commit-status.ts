// The `fixloop` commit status on the pull request's head (SPEC P3; words in core/commit-status.ts).
// Written when the loop's state changes, and only then: the ledger keeps the last status written
// per Task, so a poll tick that finds nothing new writes nothing. Two paths reach it: every Task the
// poll reads (the safety net, and the first status of a new head), and a watch over the decision log,
// so a claim, a dispatch, a stop or a person's action shows within seconds, not a poll interval.
// Both go through one lane of their own (`schedule`), one write at a time, so a status never waits in
// front of another Task's labels and comments; and a host that refuses the write (403/404: a token
// without `statuses: write`) holds it back per repository, 1 min → 1 h, told once (decision 0047).
import { COMMIT_STATUS_CONTEXT, commitStatusKey, commitStatusOf } from '../core/commit-status.js';
import {
  afterRefusal,
  heldBack,
  isPermissionRefusal,
  type HostBackoff,
  type HostBackoffPolicy,
} from '../core/host-backoff.js';
import type { WordsOf } from '../core/host-words.js';
import { ProviderError, type ProviderPort } from './provider-port.js';
import type { Ledger } from './ledger-port.js';
import type { Clock, Logger } from './ports.js';
import { createWriteQueue } from './write-queue.js';

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
  host: Pick<ProviderPort, 'createCommitStatus'>;
  /** The words of a repository's host (issue 34): the permission a refused write lacks. */
  wordsOf: WordsOf;
  logger: Logger;
  maxAttempts: number;
  /** Where the status links: the dashboard's origin (FIXLOOP_PUBLIC_URL); null links nowhere. */
  dashboardUrl: string | null;
  clock: Clock;
  /** How long a refused write is held back (default 1 min, doubling to 1 h). */
  backoff?: HostBackoffPolicy;
  /** Told once per episode of refusals (the metric fixloop_host_write_backoffs_total). */
  onBackoff?: (repository: string) => void;
}

export type PublishResult = 'written' | 'unchanged' | 'nothing_to_say' | 'failed' | 'held_back';

/** A lease no write outlives: the status lane has no poll lease to honour. */
const NO_LEASE = '9999-12-31T23:59:59.999Z';

export function createCommitStatusPublisher(deps: CommitStatusDeps) {
  const { ledger, logger } = deps;
  // Per repository: the writes the host refuses for lack of permission, held back (decision 0047).
  const refused = new Map<string, HostBackoff>();
  // The status's own lane: one write at a time, the newest request per Task, behind nothing else.
  const lane = createWriteQueue({ clock: deps.clock, logger, lane: 'commit status' });

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
    const repo = task.repository.toLowerCase();
    const now = deps.clock.now().getTime();
    // Held back: the next poll or decision after the wait tries again, once.
    if (heldBack(refused.get(repo), now)) return 'held_back';
    try {
      await deps.host.createCommitStatus(task.repository, sha, {
        context: COMMIT_STATUS_CONTEXT,
        state: status.state,
        description: status.description,
        targetUrl: deps.dashboardUrl ? `${deps.dashboardUrl}/tasks/${task.id}` : null,
      });
    } catch (err) {
      if (err instanceof ProviderError && isPermissionRefusal(err.status)) {
        const next = afterRefusal(refused.get(repo), now, deps.backoff);
        refused.set(repo, next.state);
        if (next.report) {
          deps.onBackoff?.(repo);
          logger.warn(
            { repository: repo, status: err.status, retryInMs: next.state.delayMs },
            `${err.host} refused the fixloop commit status on ${repo} (${err.status}): the token needs ${deps.wordsOf(repo).statusPermission ?? 'the permission to write commit statuses'}. ` +
              `The status is not written there for ${Math.round(next.state.delayMs / 60_000)} min, then tried once again, ` +
              'waiting longer each time it is refused; the loop goes on without it',
          );
        }
        return 'failed';
      }
      // A status is a view of the ledger: the next change or tick writes it again; the loop goes on.
      logger.warn({ err, taskId, sha }, 'could not write the fixloop commit status');
      return 'failed';
    }
    if (refused.delete(repo)) logger.info({ repository: repo }, 'the fixloop commit status is written again');
    await ledger.setCommitStatus(taskId, written);
    return 'written';
  }

  /** Queue `publish` on the status's own lane: returns at once; a newer request for the Task replaces it. */
  function schedule(taskId: number, headSha?: string): void {
    lane.enqueue(taskId, NO_LEASE, async () => {
      await publish(taskId, headSha);
    });
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
        for (const id of taskIds) schedule(id);
        cursor = latest;
      } catch (err) {
        logger.warn({ err }, 'commit status watch failed; trying again');
      }
    };
    // One round at a time: a slow ledger skips beats rather than piling them up; the writes wait in the lane.
    const timer = setInterval(() => {
      if (stopped || running) return;
      running = round().finally(() => (running = null));
    }, everyMs);
    timer.unref();
    return async () => {
      stopped = true;
      clearInterval(timer);
      await running;
      await lane.drain();
    };
  }

  return { publish, schedule, watch, drain: () => lane.drain() };
}
