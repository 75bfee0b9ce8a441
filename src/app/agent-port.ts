// The part of the ledger the agent's side needs (SPEC I1–I4, K6, K9): attempt lifecycle states, the
// first-write outcome, spend, CI minutes, and run lookup by run token. Declared by its users (the
// agent ops, the progress check, the guards); implemented in src/ledger/agent-ledger.ts.
import type { AttemptState, FixOutcome } from '../core/attempt-state.js';
import type { Attempt, Run, Task } from '../core/types.js';

export interface AttemptLife {
  attemptId: number;
  taskId: number;
  state: AttemptState;
  outcome: FixOutcome | null;
  outcomeReason: string | null;
  outcomeAt: string | null;
  actionTakenAt: string | null;
  baseline: string | null; // JSON ProgressSnapshot
  diffHash: string | null;
  retryOf: number | null;
  headSha: string | null;
  createdAt: string;
  /** When the attempt row last moved (a dispatch's lease is renewed here); absent where not known. */
  updatedAt?: string;
}

export interface SpendTotals {
  model: number;
  sandbox: number;
  ciMinutes: number;
}

export interface AgentLedger {
  /** The run a run token belongs to (the token's sha256), with its Task and attempt. */
  runByTokenHash(tokenHash: string): Promise<{ run: Run; task: Task; attempt: Attempt | null } | null>;
  /** I5: the run's agent called fixloop; only the first call is kept (compare-and-set on null). */
  markAgentSeen(runId: number, at: string): Promise<void>;
  life(attemptId: number): Promise<AttemptLife | null>;
  lives(taskId: number): Promise<AttemptLife[]>;
  livesInState(states: readonly AttemptState[]): Promise<AttemptLife[]>;
  /**
   * Compare-and-set on the lifecycle state; extra columns written with it. `withoutOutcome`: only
   * while no outcome is recorded, so a run's end never overrides the outcome its run reported (I5).
   */
  moveAttempt(
    attemptId: number,
    from: readonly AttemptState[],
    to: AttemptState,
    extra?: { actionTakenAt?: string; baseline?: string; withoutOutcome?: boolean },
  ): Promise<boolean>;
  /**
   * I2: first write wins — false when an outcome was already recorded, or when the attempt is no
   * longer queued or running (its run ended first and it was settled: I5, one or the other wins).
   */
  recordOutcome(attemptId: number, outcome: FixOutcome, reason: string | null, at: string): Promise<boolean>;
  setDiffHash(attemptId: number, hash: string): Promise<void>;
  /** I3: this attempt retries that one (a new row, the same budget). */
  markRetry(attemptId: number, retryOf: number): Promise<void>;
  addSpend(s: {
    taskId: number;
    runId: number | null;
    model: number;
    sandbox: number;
    note: string | null;
  }): Promise<void>;
  spendTotals(taskId: number): Promise<SpendTotals>;
  /** Spend per attempt (by its run), for the expected cost of the next one. */
  spendPerAttempt(taskId: number): Promise<number[]>;
  setCiMinutes(taskId: number, headSha: string, minutes: number): Promise<void>;
  markHuman(taskId: number, at: string): Promise<void>;
  humanAt(taskId: number): Promise<string | null>;
}
