// Task rows for a batch of evaluations, read with one query instead of one per event: on
// PostgreSQL that read was most of what evaluating a storm's delivery cost (bench/).
// A row read at the start of the batch answers the events after it only until the evaluator
// writes anything at all; from then on every lookup reads afresh. So each event sees what a read
// of its own would have shown had it been evaluated when the batch began — a view that was already
// as old as the evaluation itself. No rule rests on it: the head CAS, the claim's unique index and
// the gate's own fresh read still decide (decision 0003).
import type { Task } from '../core/types.js';
import type { Ledger } from './ports.js';

/** Ledger methods that only read; any other call counts as a write and ends every snapshot. */
const READS = new Set<keyof Ledger>([
  'now',
  'listDecisions',
  'pendingEvents',
  'getTask',
  'findTaskByPullRequest',
  'findTasksByPullRequests',
  'findTaskByBranch',
  'listTasks',
  'latestRun',
  'listRuns',
  'getRun',
  'getRunLog',
  'countAttempts',
  'listAttempts',
  'lastAttempt',
  'attemptsWithStatus',
  'getRejection',
  'listRejections',
  'getNotice',
  'listNotices',
  'readStopFlag',
]);

export interface TaskReads {
  /** The ledger to evaluate with: it tells the snapshots about every write made through it. */
  ledger: Ledger;
  /** One read of every Task these pull requests may resolve to; valid until the next write. */
  snapshot(keys: ReadonlyArray<{ repository: string; number: number }>): Promise<TaskSnapshot>;
}

export interface TaskSnapshot {
  /** As `Ledger.findTaskByPullRequest`, from the snapshot while it is valid. */
  byPullRequest(repository: string, numbers: number[]): Promise<Task | null>;
}

export function createTaskReads(base: Ledger): TaskReads {
  // Bumped by every write; a snapshot taken at another count is stale.
  let writes = 0;
  const ledger = new Proxy(base, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver) as unknown;
      if (typeof value !== 'function') return value;
      if (READS.has(key as keyof Ledger)) return value.bind(target);
      // Counted when it starts and again when it ends: a snapshot read while a write was in
      // flight may not show it.
      return (...args: unknown[]) => {
        writes++;
        return Promise.resolve((value as (...a: unknown[]) => unknown).apply(target, args)).finally(() => writes++);
      };
    },
  });

  return {
    ledger,
    async snapshot(keys) {
      const at = writes;
      const known = new Set(keys.map((k) => `${k.repository}#${k.number}`));
      const rows = known.size > 0 ? await base.findTasksByPullRequests(keys) : [];
      return {
        async byPullRequest(repository, numbers) {
          if (numbers.length === 0) return null;
          if (writes !== at || !numbers.every((n) => known.has(`${repository}#${n}`)))
            return ledger.findTaskByPullRequest(repository, numbers);
          // Rows are in id order, like the single read's `order by id`.
          return rows.find((t) => t.repository === repository && numbers.includes(t.pullRequest)) ?? null;
        },
      };
    },
  };
}
