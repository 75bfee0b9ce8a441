// The poll's writes to GitHub (labels, the state comment: the hand-off, K5/K8) on a queue of their
// own, so a tick never waits on them (SPEC N3; decision 0031). One job at a time, in the order the
// Tasks were read: GitHub asks that writes are not sent concurrently, and the Octokit throttling
// plugin spaces them (1 s, 3 s for ones that notify). A Task has at most one job waiting (a newer
// read replaces it), and a job still waiting when its Task's poll lease runs out is dropped: another
// replica may poll that pull request now, and the next tick here enqueues it again.
// The `fixloop` commit status has a queue of its own built here (commit-status.ts), so a status write
// never waits in front of another Task's hand-off (issue 31; decision 0047).
import type { Clock, Logger } from './ports.js';

export interface WriteQueue {
  /** Queue `job` for Task `taskId`, to run only before `until` (ISO, the Task's poll lease). */
  enqueue(taskId: number, until: string, job: () => Promise<void>): void;
  /** Resolves once nothing is waiting or running. */
  drain(): Promise<void>;
  readonly waiting: number;
}

export function createWriteQueue(deps: {
  clock: Clock;
  logger: Logger;
  /** What the log lines call this queue (default `poll`). */
  lane?: string;
}): WriteQueue {
  const lane = deps.lane ?? 'poll';
  const waiting = new Map<number, { until: string; job: () => Promise<void> }>();
  let pumping: Promise<void> | null = null;

  async function pump(): Promise<void> {
    for (let next = waiting.entries().next(); !next.done; next = waiting.entries().next()) {
      const [taskId, item] = next.value;
      waiting.delete(taskId);
      if (deps.clock.now().toISOString() >= item.until) {
        deps.logger.debug({ taskId }, `${lane}: a write job outlived its lease; the next tick queues it again`);
        continue;
      }
      try {
        await item.job();
      } catch (err) {
        deps.logger.warn({ err, taskId }, `${lane}: writing to the pull request failed`);
      }
    }
  }

  function start(): void {
    pumping ??= pump().finally(() => {
      pumping = null;
      // Queued after the pump's last look and before it ended: start again.
      if (waiting.size > 0) start();
    });
  }

  return {
    enqueue(taskId, until, job) {
      waiting.delete(taskId);
      waiting.set(taskId, { until, job });
      start();
    },
    async drain() {
      while (pumping) await pumping;
    },
    get waiting() {
      return waiting.size;
    },
  };
}
