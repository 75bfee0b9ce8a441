// What the gate is given and what it answers (SPEC A–K): the deps `createEvaluator` accepts, the
// events it evaluates and its results. Each step under app/gate/ picks from these what it touches,
// so a step's signature tells the reader what it reads and writes.
import type { QueueEjection } from '../../core/merge-queue.js';
import type { LoopEvent } from '../../core/neutral-events.js';
import type { ClassifyDelivery } from '../../core/neutral-events.js';
import type { Refusal, StopReason } from '../../core/reasons.js';
import type { AttemptStatus, Task, Work } from '../../core/types.js';
import type { WordsOf } from '../../core/host-words.js';
import type { CommentCommand } from '../../core/comment-command.js';
import type { Logger } from '../ports.js';
import type { DecisionInput, Ledger } from '../ledger-port.js';
import type { DecisionWriter } from '../decision-writer.js';
import type { RequestRerun } from '../rerun.js';
import type { AgentLedger } from '../agent-port.js';

/** T1: the base branch's head and the checks failing on it, as last read from GitHub. */
export interface BaseChecks {
  ref: string;
  failing: readonly string[];
  /** The commit the base's checks ran on, where the host says (issue 36: the base notice names it). */
  sha?: string | null;
}

export type { LoopEvent };

/** A stored event waiting for evaluation, with the delivery that brought it (for the decision log). */
export interface StoredLoopEvent {
  /** null when the poll re-offers what it read from GitHub (no delivery was stored). */
  eventId: number | null;
  deliveryId: string | null;
  event: LoopEvent;
}

/**
 * The gate reads the Task, its runs, attempts and rejections, and writes only through the head's
 * compare-and-set, the claim and the notice: every write it makes is one the database arbitrates.
 */
export type EvaluateLedger = Pick<
  Ledger,
  | 'now'
  | 'setSkipLabel'
  | 'getTask'
  | 'findTaskByPullRequest'
  | 'findTaskWithClaim'
  | 'findTaskByBranch'
  | 'createTask'
  | 'markAdopted'
  | 'updatePullRequest'
  | 'advanceHead'
  | 'markRed'
  | 'readStopFlag'
  | 'latestRun'
  | 'listAttempts'
  | 'isClaimed'
  | 'claimAttempt'
  | 'consumeApproveOne'
  | 'settleOverBudget'
  | 'createRejection'
  | 'getRejection'
  | 'listRejections'
  | 'fileNotice'
  | 'getNotice'
  | 'headCheckEvents'
  | 'queueCommit'
  | 'reopenStop'
  | 'holdOnBase'
  | 'heldOnBase'
  | 'setAttemptStatus'
>;

export interface EvaluateDeps {
  ledger: EvaluateLedger;
  logger: Logger;
  works: readonly Work[];
  maxAttempts: number;
  /** How a head's stored deliveries read again (T2, T6): the host registry's, by the host of each event name. */
  classify: ClassifyDelivery;
  /**
   * Hands a claimed attempt to the runner (dispatch.ts's `dispatch`), declared here so the gate does not
   * import the dispatcher (which reaches the gate through settle-uncalled-run → progress-check).
   */
  dispatcher: { dispatch(attemptId: number, from?: AttemptStatus): Promise<boolean> };
  decisions: DecisionWriter;
  /** Attempt lifecycle, spend and the last time a person acted (I1, K6, K7, K9). */
  agent: AgentLedger;
  /** K9 caps (defaults: 5 wakes in 10 minutes, 20 since a person acted). */
  wakeCaps?: { perWindow?: number; windowMs?: number; sinceHuman?: number };
  /** K6: the Task's cost ceiling (null = none), the expected cost of an attempt before any was reported, the CI minute price. */
  cost?: { ceiling: number | null; expectedAttemptCost: number; ciMinutePrice: number };
  /** The push guard (K3, K4): true when it stopped the loop for the push that made this head. */
  judgePush?: (task: Task, headSha: string) => Promise<boolean>;
  /** Allow-listed reviewer bots (F1, F2), lower-case logins. */
  reviewBots?: readonly string[];
  /** Issue 36: a review's inline comments (path and text), for a bot round's fingerprint; absent: the body alone. */
  reviewComments?: (
    repository: string,
    number: number,
    reviewId: number,
  ) => Promise<ReadonlyArray<{ path: string; body: string }>>;
  /** B5 where a CI delivery names no head (GitLab): the pull request's head as the host reports it now. */
  pullRequestHead?: (repository: string, number: number) => Promise<string | null>;
  /**
   * F1/F2 where a delivery carries no author association (GitLab): the author's standing with the
   * repository, read from the host (member access level as an association); null when unreadable.
   */
  associationOf?: (repository: string, login: string) => Promise<string | null>;
  /**
   * F1/F2 on GitHub (decision 0042): the person's role on the repository (none, read, triage, write,
   * maintain, admin), kept briefly by the adapter; rejects when it cannot be read. Absent: unreadable.
   */
  permissionOf?: (repository: string, login: string) => Promise<string>;
  /** The words of a repository's host (issue 34): what could not be read of a person's standing. */
  wordsOf: WordsOf;
  /** fixloop's own login on the repository's host (F2); absent without host access. */
  selfLogin?: (repository?: string) => Promise<string | null>;
  /**
   * I3: a head the webhook moved is progress for an attempt awaiting it, poll or no poll (issue 35;
   * progress-check.ts progressWithoutPoll).
   */
  newHead?: (taskId: number, headSha: string) => Promise<unknown>;
  /** Test fault points around the claim (crash tests kill the process, race tests act there); production wiring passes nothing. */
  fault?(point: 'before_claim' | 'after_claim'): void | Promise<void>;
  /**
   * `/fixloop off|on|retry|status` from a person with standing (core/comment-command.ts), applied as
   * that person's action; resolves to null when done, else why it was not applied. Absent: refused.
   */
  command?(task: Task, command: CommentCommand, author: string): Promise<string | null>;
  /** T6: how long a new head's checks get to report before a failure still missing counts as changed (decision 0029). */
  matrixSettleMs?: number;
  /** T2: re-runs a head's failed jobs instead of an attempt (app/rerun.ts); absent: a transient failure goes to the agent. */
  requestRerun?: RequestRerun;
  /** T1: the pull request's base branch and what fails on its head; absent, or null, when not known. */
  baseChecks?(repository: string, pullRequest: number, baseRef: string | null): Promise<BaseChecks | null>;
  /**
   * Issue 35 with T3: approves the workflow runs of `headSha` that wait for a person's approval, and
   * says how many it approved; present only when the mention runner's `approveWorkflows` allows it.
   */
  approvePendingRuns?(repository: string, headSha: string): Promise<number>;
  /**
   * Issue 36: brings a pull request's branch up to date with its base through the host (GitHub's
   * update-branch, GitLab's rebase), expecting `expectedHeadSha`; rejects (a ProviderError) when the
   * host refuses. Absent (no host access): a branch behind its base is left to a person.
   */
  updateBranch?(repository: string, number: number, expectedHeadSha: string): Promise<void>;
  /**
   * Issue 36 item 4: the names of the failing jobs of a head as the host lists them now, so a suite or
   * workflow run that fails before its jobs are stored is judged by its jobs; null when not known.
   */
  failingJobsOf?(repository: string, sha: string): Promise<string[] | null>;
  /**
   * Decision 0075: why the host's merge queue let a pull request go when its queue run was cancelled
   * with no check failing; null when it is queued again or nothing says. Absent: no host access.
   */
  queueDropOf?(repository: string, number: number): Promise<{ reason: QueueEjection; said: string } | null>;
  /** Issue 36 item 4: a pull request held by a red base files the base's one notice or joins it (base-red-notice.ts). */
  baseRedHeld?(task: Task, base: BaseChecks, checks: readonly string[]): Promise<unknown>;
}

export type EvaluationResult =
  | { kind: 'refused'; reason: Refusal; taskId: number | null }
  | { kind: 'recorded'; taskId: number | null }
  | { kind: 'claimed'; taskId: number; attemptId: number }
  | { kind: 'noticed'; taskId: number; reason: StopReason };

/** One evaluation in progress: the decision row it will write, and its Task once a step found it. */
export interface Evaluation {
  base: DecisionInput;
  task: Task | null;
}

/** An evaluation whose Task is known. */
export type TaskEvaluation = Evaluation & { task: Task };

/** What a step came to: the evaluation's result already, or on to the next step with what it found. */
export type Step<T> = { kind: 'done'; result: EvaluationResult } | ({ kind: 'go' } & T);

/** The newest stored CI deliveries of a head read back to judge it: a matrix and its retries fit many times over. */
export const HEAD_EVENTS_MAX = 500;
