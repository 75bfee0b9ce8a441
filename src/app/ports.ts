// The small ports of the edges every use-case shares: the runner, the logger, the clock and
// randomness. The ledger's aggregates are in ledger-port.ts, the providers' in provider-port.ts, the
// agent's side in agent-port.ts; each use-case picks what it calls.
import type { ProcessMark } from '../core/stranded-run.js';

/** What a runner is given to resume the Task's agent (L1). */
export interface RunSpec {
  taskId: number;
  runId: number;
  attemptId: number | null;
  repository: string;
  pullRequest: number;
  branch: string;
  headSha: string | null;
  resumeRef: string | null;
  prompt: string;
  runToken: string;
  apiUrl: string;
  /**
   * What failed, for a runner that tells the agent in words people read too (the mention runner,
   * issue 35): a check's name or a review's author, and its text — both untrusted. Absent for a person's run.
   */
  failure?: { what: string; text: string };
  /** This attempt's number and the Task's budget; absent for a person's run. */
  attempt?: { number: number; max: number };
}

/** A run's end as its runner saw it (command: the process exited; session: the vendor's session ended). */
export interface RunExit {
  state: 'completed' | 'failed';
  exitCode: number | null;
  /** The runner's own words on why it ended (a vendor's state, a timeout), for the run log and a notice. */
  detail?: string;
  /** R2: the session waits for its user — the loop hands the pull request to a person (agent_needs_person). */
  needsPerson?: boolean;
  /** K6: what the run cost where its vendor reports it, in US dollars, recorded as model spend. */
  spend?: { dollars: number; note: string };
}

export interface RunnerCallbacks {
  /** The runner reports the run's end. */
  onExit(runId: number, result: RunExit): void;
  onOutput(runId: number, chunk: string): void;
}

export interface Runner {
  readonly kind: string;
  /**
   * Start the run; resolves once the agent has been handed the run, rejects when it could not be.
   * A runner whose agent is a local process resolves with where it lives, so that a later fixloop
   * process can tell whether it is still running (stranded-run.ts).
   */
  start(spec: RunSpec, callbacks: RunnerCallbacks): Promise<ProcessMark | void>;
  /** Stop what this process started, on shutdown (runners whose runs outlive the process omit it). */
  stopAll?(): Promise<void>;
  /**
   * V4: on shutdown, wait up to `graceMs` for the agents this process started to end on their own;
   * resolves with the runs still running then (stopAll stops them). Runners whose runs outlive the
   * process omit it.
   */
  waitForRuns?(graceMs: number): Promise<number[]>;
  /**
   * R2: a vendor's status webhook for the runs this runner follows (a `session` runner), its exact
   * bytes and its headers (lower-case names); answers 401 to a bad signature, changing nothing.
   * Runners whose agents report through fixloop's API omit it.
   */
  receiveWebhook?(raw: Buffer, headers: Readonly<Record<string, string | undefined>>): Promise<RunnerWebhookAnswer>;
  /**
   * Stop one run's agent (its window ended, a person cancelled it); true when this process was running
   * or following it. Runners with nothing of a run's to stop in this process omit it.
   */
  kill?(runId: number): boolean;
  /**
   * Issue 35: the run's agent never calls fixloop, and a new head of the Task is its end (the mention
   * runner); the outcome is then inferred from the push.
   */
  readonly endsOnPush?: boolean;
}

/** A runner webhook's answer: its HTTP status and a short text for the sender's delivery log. */
export interface RunnerWebhookAnswer {
  status: number;
  body: string;
}

export interface Logger {
  debug(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

export interface Clock {
  now(): Date;
}

export interface Random {
  token(bytes: number): string;
}
