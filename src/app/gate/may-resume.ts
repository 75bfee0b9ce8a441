// D: whether the loop may resume the Task's agent at all — the global stop flag, a stop notice, a
// parked or closed pull request, a run still going (core/refusal.ts). The one place the gate reads
// the stop flag, once per evaluation, failing closed when it cannot be read.
import { refusalOf } from '../../core/refusal.js';
import type { Refusal } from '../../core/reasons.js';
import type { Task } from '../../core/types.js';
import type { Verdict } from '../../core/verdict.js';
import type { EvaluateLedger } from './ports.js';

export type MayResumeLedger = Pick<EvaluateLedger, 'readStopFlag' | 'latestRun'>;

/** The refusal that holds the agent back, or null when it may be resumed. */
export async function resumeRefusal(
  ledger: MayResumeLedger,
  facts: { verdict: Verdict; fork: boolean; task: Task },
): Promise<Refusal | null> {
  let stopFlag: boolean | 'unreadable';
  try {
    stopFlag = await ledger.readStopFlag();
  } catch {
    stopFlag = 'unreadable'; // fail closed: a flag nobody can read may be set
  }
  const gate = refusalOf({ ...facts, latestRun: await ledger.latestRun(facts.task.id), stopFlag });
  return gate.kind === 'refuse' ? gate.reason : null;
}
