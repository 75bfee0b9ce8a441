// The gate as an evaluation would apply it now, for a reconciliation pass settling an attempt it
// finds left behind (SPEC C3, I5): a person's stop, a closed pull request or a notice filed since.
import type { Task } from '../core/types.js';
import { refusalOf } from '../core/refusal.js';
import type { ReconcileLedger } from './reconcile-port.js';

/** The gate (core/refusal.ts) as an evaluation would apply it now, with the stop flag read fail-closed. */
export async function gateNow(
  ledger: Pick<ReconcileLedger, 'readStopFlag' | 'latestRun'>,
  task: Task,
  latestRun?: { state: 'failed'; attemptId: number },
) {
  let stopFlag: boolean | 'unreadable';
  try {
    stopFlag = await ledger.readStopFlag();
  } catch {
    stopFlag = 'unreadable';
  }
  return refusalOf({
    verdict: 'red',
    fork: false,
    task,
    latestRun: latestRun ?? (await ledger.latestRun(task.id)),
    stopFlag,
  });
}
