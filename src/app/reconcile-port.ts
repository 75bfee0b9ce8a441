// What the reconciliation passes read and write of the ledger, and how they find an agent whose start
// was never marked (SPEC C3, C4, I4, L1). One file so each pass (app/settle-*.ts) and the passes' driver
// (app/reconcile.ts) name the same port.
import type { Ledger } from './ledger-port.js';
import type { ProcessMark } from '../core/stranded-run.js';

/** Reconciliation reads unsettled attempts and unfinished runs and settles each by compare-and-set. */
export type ReconcileLedger = Pick<
  Ledger,
  | 'attemptsWithStatus'
  | 'expireDispatchNoticed'
  | 'fileNotice'
  | 'getRun'
  | 'getTask'
  | 'latestRun'
  | 'listAttempts'
  | 'markFoundAgent'
  | 'readStopFlag'
  | 'recordDecisions'
  | 'reofferInterrupted'
  | 'runProcess'
  | 'setAttemptStatus'
  | 'settleOverBudget'
  | 'unfinishedRunsOn'
>;

/**
 * The agent process running on this host for a run, found without its mark (runners/process-mark.ts
 * findAgentProcess), as a mark to store; null when none runs here.
 */
export type FindAgent = (runId: number, tokenHash: string) => ProcessMark | null;
