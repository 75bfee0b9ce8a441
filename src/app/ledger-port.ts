// The ledger port: fixloop's durable state as the use-cases see it, one interface per aggregate
// (deliveries, tasks, runs, attempts, rejections, notices, the stop flag). Implemented by
// src/ledger/ (one file per aggregate); each use-case picks the few methods it needs.
import type { QueueCommit } from '../core/queue-ahead.js';
import type { BaseRedStore } from './base-red-port.js';
import type { OutboxStore } from './outbox-port.js';
import type {
  Attempt,
  AttemptStatus,
  Notice,
  Rejection,
  RejectionSource,
  Run,
  RunState,
  Task,
  TaskState,
  UnsettledStatus,
} from '../core/types.js';
import type { StopReason } from '../core/reasons.js';
import type { Outcome } from '../core/reasons.js';
import type { ProcessMark } from '../core/stranded-run.js';
import type { AttemptState } from '../core/attempt-state.js';
import type { HeadMove } from '../core/head-order.js';
import type { MergeQueueContext } from '../core/merge-queue.js';
import type { Author } from '../core/standing.js';
import type { CiState } from '../core/types.js';
import type { LoopState } from '../core/loop-state.js';
import type { EtagStore, PollStateStore } from './poll-state-port.js';

/** A stored event, or the reason it was not stored, for one delivery in a group commit. */
export interface IncomingDelivery {
  deliveryId: string;
  eventName: string;
  identity: string;
  kind: string;
  repository: string | null;
  sha: string | null;
  verdict: string | null;
  /** The classified event as JSON, without its failure text (that stays in the payload). */
  summary: string;
  /** The body exactly as signed. */
  payload: string;
}

export type StoreResult = { kind: 'stored'; eventId: number } | { kind: 'duplicate' };

export interface DecisionInput {
  deliveryId?: string | null;
  eventName?: string | null;
  identity?: string | null;
  eventId?: number | null;
  taskId?: number | null;
  attemptId?: number | null;
  outcome: Outcome;
  reason?: string | null;
  detail?: string | null;
}

export interface Decision extends Required<DecisionInput> {
  id: number;
  at: string;
}

/** A stored event still pending evaluation: the delivery as signed, to classify again (pure). */
export interface StoredEvent {
  id: number;
  identity: string;
  kind: string;
  eventName: string;
  deliveryId: string;
  payload: string;
}

/** A stored CI event with what the ledger kept beside it: its verdict and when it arrived (T6). */
export interface StoredCheckEvent extends StoredEvent {
  verdict: string | null;
  receivedAt: string;
}

export interface NewTask {
  work: string;
  repository: string;
  pullRequest: number;
  branch: string;
  resumeRef: string | null;
}

export interface ClaimInput {
  taskId: number;
  coordinate: string;
  source: RejectionSource;
  headSha: string | null;
  fingerprint: string;
  rejection:
    | {
        checkName: string | null;
        body: string;
        eventId: number | null;
        /** Issue 36: the merge queue a red of the queue's commit failed in. */
        queue?: MergeQueueContext;
      }
    | { existingId: number };
  /**
   * Issue 36: an attempt no agent runs for (fixloop's update of a branch behind its base): written
   * `dispatched` and out of flight in the claim itself, so no reconciliation pass ever hands it to a runner.
   */
  noRun?: true;
}

/**
 * `taken`: another delivery claimed this coordinate (C2). `in_flight`: another attempt of this pull
 * request is in flight, refused by the partial unique index across every replica (K7).
 */
export type ClaimResult =
  { kind: 'claimed'; attempt: Attempt; attemptsCounted: number } | { kind: 'taken' } | { kind: 'in_flight' };

export interface NoticeInput {
  taskId: number;
  reason: StopReason;
  headSha: string | null;
  /** The notice's text for the attempts the ledger counts in the transaction that files it. */
  message(attemptsUsed: number): string;
}

/** The delivery log (A1–A4, H1): stored events, the decision rows, and what still waits for evaluation. */
export interface DeliveryLog {
  /**
   * One transaction: the events (deduped on identity), a decision row for each (`stored` with its
   * event id, or `duplicate` / `identity_seen`), and any decision-only rows; the events in
   * `evaluated` (finished by some of those rows) are marked evaluated in it too.
   */
  storeDeliveries(batch: IncomingDelivery[], alsoRecord: DecisionInput[], evaluated?: number[]): Promise<StoreResult[]>;
  /** One transaction: the rows, and the events whose evaluation they finish marked evaluated. */
  recordDecisions(rows: DecisionInput[], evaluated?: number[]): Promise<void>;
  listDecisions(filter: {
    taskId?: number;
    deliveryId?: string;
    limit: number;
    beforeId?: number;
  }): Promise<Decision[]>;
  pendingEvents(limit: number, afterId: number): Promise<StoredEvent[]>;
  /** The newest stored red CI event of `sha` in `repository`, evaluated or not (I5: offered again without a poll). */
  lastRedEvent(repository: string, sha: string): Promise<StoredEvent | null>;
  /**
   * T6: the stored CI events of `sha` in `repository`, oldest first, evaluated or not, at most the
   * newest `limit`: a head's whole matrix, as far as it has reported.
   */
  headCheckEvents(repository: string, sha: string, limit: number): Promise<StoredCheckEvent[]>;
  /** Issue 36: the merge queue's commit at `sha` (a stored `queue.group` event); null when none is kept. */
  queueCommit(repository: string, sha: string): Promise<QueueCommit | null>;
}

/** Tasks: one per pull request, its CI head (B1, B2) and what the poll and the hand-off write on it (E1, K5, K8). */
export interface TaskStore {
  createTask(t: NewTask): Promise<{ task: Task; run: Run } | { kind: 'exists'; task: Task }>;
  getTask(id: number): Promise<Task | null>;
  findTaskByPullRequest(repository: string, numbers: number[]): Promise<Task | null>;
  /**
   * The same Task, read with whether `coordinate` is claimed on it (C2): a storm's later results for
   * a claimed commit are told so from this one read.
   */
  findTaskWithClaim(
    repository: string,
    numbers: number[],
    coordinate: string,
  ): Promise<{ task: Task; claimed: boolean } | null>;
  findTaskByBranch(repository: string, branch: string): Promise<Task | null>;
  /** In creation order; with `limit`, at most that many with an id above `after` (a keyset page). */
  listTasks(filter: { state?: TaskState; repository?: string; after?: number; limit?: number }): Promise<Task[]>;
  setTaskState(id: number, state: TaskState): Promise<Task | null>;
  updatePullRequest(
    id: number,
    p: {
      prState: Task['prState'];
      branchState?: Task['branchState'];
      isFork: boolean;
      baseRef?: string | null;
      /** Issue 33: the title and author as last read (written only when given). */
      title?: string | null;
      author?: string | null;
    },
  ): Promise<void>;
  /** B1: move the head forward only, ordered as `move` says (default: by the clock); false when another writer got there first. */
  advanceHead(
    id: number,
    sha: string,
    seenAt: string | null,
    ciState: Task['ciState'],
    move?: HeadMove,
  ): Promise<boolean>;
  /** B2: the webhook writes red only, and only for the commit that is still the head. */
  markRed(id: number, sha: string): Promise<void>;
  /** Issue 36: the right to put `headSha` back in the merge queue, won once per head; false when taken. */
  claimRequeue(taskId: number, headSha: string): Promise<boolean>;
  /** Take the per-PR poll lease until `until` if nobody holds it; false when another replica does. */
  leasePoll(taskId: number, until: string): Promise<boolean>;
  markPolled(taskId: number): Promise<void>;
  /** B2: the poll's verdict for the head it read, written only while that commit is still the head. */
  setCiStateForHead(taskId: number, sha: string, state: Task['ciState']): Promise<void>;
  /**
   * K5/V4: a person's grant of one more attempt, one per stop `round` and at most the Task's cap across
   * its life (its own `maxGrants`, else `configuredCap`), in one compare-and-set: `changed` when another
   * grant (or answer) won the round, `capped` when the Task's grants are used.
   */
  grantApproveOne(taskId: number, round: number, configuredCap: number): Promise<GrantResult>;
  /** V4: a person sets the Task's own grant cap (null: the configured one); the cap before, or null when there is no such Task. */
  setMaxGrants(taskId: number, maxGrants: number | null): Promise<{ before: number | null } | null>;
  consumeApproveOne(taskId: number): Promise<void>;
  /** T3: the stop of `round` is answered without a grant (an approval given on GitHub); false when another did it. */
  reopenStop(taskId: number, round: number): Promise<boolean>;
  park(taskId: number, round: number): Promise<boolean>;
  setHandoff(taskId: number, round: number, commentId: string | null): Promise<void>;
  setStateCommentId(taskId: number, commentId: string): Promise<void>;
  markAdopted(taskId: number): Promise<void>;
  /** B4: the green gate's last verdict and reasons for the Task's head. */
  setGate(taskId: number, gate: NonNullable<Task['gate']>): Promise<void>;
  /** M4: a person's per-Task switch; false when there is no such Task or it already was. */
  setLoopOff(taskId: number, off: boolean): Promise<boolean>;
  /** The `fixloop:skip` label as the pull request shows it now; true when that changed the Task. */
  setSkipLabel(taskId: number, on: boolean): Promise<boolean>;
  /** P3: the `fixloop` commit status just written to GitHub (`sha state:description`). */
  setCommitStatus(taskId: number, written: string): Promise<void>;
  /** M4: a person parks (or unparks) the Task, whatever its stop; false when it already was. */
  setParked(taskId: number, parked: boolean): Promise<boolean>;
}

/** What became of a person's grant of one more attempt (K5, V4). */
export type GrantResult =
  { kind: 'granted' } | { kind: 'changed' } | { kind: 'capped'; used: number; ownCap: number | null };

/** One line of the dashboard's board (M4). */
export interface BoardRow {
  id: number;
  repository: string;
  pullRequest: number;
  branch: string;
  state: TaskState;
  ciState: CiState;
  attemptsUsed: number;
  /** K5/V4: attempts a person granted past the budget, one per grant: the grants used. */
  extraAttempts: number;
  /** V4: the Task's own grant cap, set by a person; null = the configured cap. */
  maxGrants: number | null;
  /** What the Task's runs reported spending (model + sandbox). */
  spend: number;
  loopState: LoopState;
  /** The newest rejection's check and first line; null before any. */
  lastFailure: string | null;
  /** Why triage holds the newest red back (T1, T2, T6: "test is failing on main too"); null when it does not. */
  triage: string | null;
  /** When the Task was registered (its age, M1). */
  createdAt: string;
  /** Issue 33: when the Task's row last changed (its last activity on the board). */
  updatedAt?: string;
  /** Issue 33: the Work the Task belongs to. */
  work?: string;
  /** Issue 33 (migration 0024): the pull request's title and author as the poll last read them. */
  prTitle?: string | null;
  prAuthor?: string | null;
}

/** Issue 33: the board's summary strip: Tasks by what they need, and what the runs spent. */
export interface BoardSummary {
  needsYou: number;
  beingFixed: number;
  redWaiting: number;
  parkedOrOff: number;
  spendToday: number;
  spendMonth: number;
}

/** Issue 33: what a Task page shows of each run besides the run itself: its last change and spend. */
export interface RunFacts {
  runId: number;
  updatedAt: string;
  exitCode: number | null;
  spend: number;
}

export interface BoardFilter {
  /** One Task's row (the commit status, `/fixloop status`). */
  taskId?: number;
  state?: TaskState;
  loop?: LoopState;
  repository?: string;
  /** A pull request number, or part of a repository or branch name. */
  search?: string;
  limit: number;
  /** Keyset: Tasks with a smaller id (newest first). */
  before?: number;
  /** Issue 33: the board's order: the Tasks that need a person first, then by last activity (paged by offset). */
  attention?: { offset: number };
}

/** A notice of a Task's current stop, as the Inbox lists it (G1, M4). */
export interface InboxRow {
  id: number;
  taskId: number;
  repository: string;
  pullRequest: number;
  reason: StopReason;
  headSha: string | null;
  attemptsUsed: number;
  message: string;
  createdAt: string;
  parked: boolean;
}

/** The dashboard's bounded reads (M4): pages of the board and the Inbox, and what the live stream watches. */
export interface BoardStore {
  boardPage(f: BoardFilter): Promise<{ rows: BoardRow[]; nextBefore: number | null }>;
  inboxPage(f: { limit: number; after?: number }): Promise<{ rows: InboxRow[]; nextAfter: number | null }>;
  /** The newest decision row's id: it moves whenever the loop or a person did something. */
  latestDecisionId(): Promise<number>;
  /** The Tasks with a decision after `afterId` (at most `limit` decisions read), and the last id read. */
  taskIdsDecidedAfter(afterId: number, limit: number): Promise<{ taskIds: number[]; latest: number }>;
  /** Issue 33: the summary strip; `dayStart`/`monthStart` are ISO instants (spend since then). */
  boardSummary(f: { dayStart: string; monthStart: string }): Promise<BoardSummary>;
  /** Issue 33: who set the global stop and when: the newest `stop_all` decision. */
  stopSetBy(): Promise<{ at: string; detail: string | null } | null>;
  /** Issue 33: each run's last change, exit code and spend, for the Task page. */
  runFacts(taskId: number): Promise<RunFacts[]>;
  /** Issue 33: moves whenever a decision, a Task or a run is written (the live stream's mark). */
  liveMark(): Promise<string>;
}

/** Runs (L1): the agent runs of a Task, their state, where their process lives, their log. */
export interface RunStore {
  latestRun(taskId: number): Promise<Run | null>;
  listRuns(taskId: number): Promise<Run[]>;
  /** M2: a keyset page of runs, newest first (id below `before`), without their logs. */
  pageRuns(filter: { taskId?: number; state?: RunState; before?: number; limit: number }): Promise<Run[]>;
  getRun(id: number): Promise<(Run & { tokenHash: string | null }) | null>;
  /** Compare-and-set on the run's state; returns the run when it moved. */
  setRunState(
    id: number,
    from: readonly RunState[],
    to: RunState,
    /** `interrupted`: V4, the run's end is a shutdown's or a crash's, said in the same write. */
    extra?: { exitCode?: number | null; interrupted?: boolean },
  ): Promise<Run | null>;
  /**
   * V4: a shutdown is about to stop the run's agent (its grace is over): the run is marked interrupted
   * while it is still queued or running, so its end is not taken for the agent's own. True when marked.
   */
  interruptRun(id: number): Promise<boolean>;
  /** Where the run's agent process lives (stranded-run.ts); written once it started, while the run is unfinished. */
  setRunProcess(id: number, mark: ProcessMark): Promise<void>;
  /**
   * Records the mark of an agent found running for a run that has none, only while its attempt is
   * still `dispatching` with a lease last renewed at or before `olderThan` (compare-and-set: a live
   * dispatcher that renewed, or wrote its own mark, keeps its run). True when it was written.
   */
  markFoundAgent(runId: number, attemptId: number, mark: ProcessMark, olderThan: string): Promise<boolean>;
  runProcess(id: number): Promise<ProcessMark | null>;
  /** Runs still `queued` or `running` whose agent process was started on `host`. */
  unfinishedRunsOn(host: string): Promise<Array<{ run: Run; process: ProcessMark }>>;
  /**
   * H1, M4: a person's run (`resume`, not automatic, no attempt), queued; null while another run of
   * the Task is queued or running.
   */
  createPersonRun(taskId: number, tokenHash: string): Promise<Run | null>;
  appendRunLog(id: number, text: string, maxChars: number): Promise<void>;
  getRunLog(id: number): Promise<string | null>;
  /**
   * Issue 35: what the run is called where it runs (a remote runner's own id for it), written once
   * while the run is queued or running. True when written.
   */
  setRunExternalRef(id: number, ref: string): Promise<boolean>;
  runExternalRef(id: number): Promise<string | null>;
  /** The queued or running run with this external reference, with its Task's repository; null: none. */
  unfinishedRunByExternalRef(ref: string): Promise<{ run: Run; repository: string } | null>;
  /** Runs still queued or running that carry an external reference (a restart follows them again). */
  unfinishedExternalRuns(): Promise<Array<{ run: Run; ref: string; repository: string }>>;
  /**
   * Issue 35: a new run token replaces the run's old one (its sha256), only while the run is queued or
   * running. True when replaced.
   */
  replaceRunToken(id: number, tokenHash: string): Promise<boolean>;
}

/** Attempts (C2–C5, K7): the claim, the dispatch's compare-and-sets and lease, and the budget's count. */
export interface AttemptStore {
  countAttempts(taskId: number): Promise<number>;
  listAttempts(taskId: number): Promise<Attempt[]>;
  /** C2: whether the coordinate was claimed already (one index lookup: a storm's losers read only this). */
  isClaimed(taskId: number, coordinate: string): Promise<boolean>;
  lastAttempt(taskId: number, source: RejectionSource): Promise<Attempt | null>;
  claimAttempt(c: ClaimInput): Promise<ClaimResult>;
  /** CAS of an attempt's dispatch state; on `dispatching` a run row is created in the same transaction. */
  beginDispatch(
    attemptId: number,
    from: AttemptStatus,
    tokenHash: string,
  ): Promise<{ attempt: Attempt; run: Run } | null>;
  /** CAS of an attempt's dispatch status; one under which it never runs also takes it out of flight (NEVER_RUN_STATUSES). */
  setAttemptStatus(id: number, from: readonly AttemptStatus[], to: AttemptStatus, detail?: string): Promise<boolean>;
  attemptsWithStatus(statuses: readonly UnsettledStatus[], olderThan: string): Promise<Attempt[]>;
  /** The dispatching process is still at it (preparing a workspace can take a while): its lease is renewed. */
  renewDispatch(id: number): Promise<boolean>;
  /** dispatching → dispatch_unknown (and out of flight), only if its lease was last renewed at or before `olderThan`. */
  expireDispatch(id: number, olderThan: string, detail: string): Promise<boolean>;
  /**
   * I5: the runner could not start the run: dispatching → dispatch_failed and its run `failed`, in
   * one transaction; the lifecycle, if still `queued`, becomes `lifecycle` (retryable). False when a
   * reconciliation pass settled the attempt first.
   */
  failDispatch(id: number, runId: number, detail: string, lifecycle: AttemptState): Promise<boolean>;
  /**
   * expireDispatch, with the attempt's run `failed` and, if `notice` is given and the attempt has no
   * outcome, the Task's one notice filed, in one transaction (I5: never re-sent, so a person is told).
   */
  expireDispatchNoticed(
    id: number,
    olderThan: string,
    detail: string,
    notice: NoticeInput | null,
  ): Promise<{ expired: boolean; notice: Notice | null }>;
  /**
   * C3, G1: a claim past the budget settled `over_budget` by compare-and-set and, if `notice` is
   * given, the Task's one notice filed, in one transaction: a crash between the two can't leave the
   * budget spent with nobody told. `settled` false: someone else settled the claim first.
   */
  settleOverBudget(
    id: number,
    detail: string,
    notice: NoticeInput | null,
  ): Promise<{ settled: boolean; notice: Notice | null }>;
  /**
   * V4: the same attempt row offered again, free, after its run `runId` was interrupted: back to
   * `claimed`/`queued` with `interruptions` 1, by compare-and-set — only while it is still `running`
   * with no outcome, `runId` is its run, that run has ended interrupted, and it was never re-offered.
   * The budget counts rows (C3), so a re-offer spends nothing. True for the one writer that moved it.
   */
  reofferInterrupted(attemptId: number, runId: number): Promise<boolean>;
}

/** Rejections (F1, H2): the failing output or review text an attempt answers, durable before any dispatch. */
export interface RejectionStore {
  getRejection(id: number): Promise<Rejection | null>;
  createRejection(r: {
    taskId: number;
    source: RejectionSource;
    headSha: string | null;
    checkName: string | null;
    body: string;
    eventId: number | null;
    /** F1: the review's author, re-checked for standing whenever the row is offered again. */
    author: Author | null;
    /** Issue 36: a bot round's findings fingerprint (core/bot-findings.ts). */
    findings?: string | null;
  }): Promise<Rejection>;
  listRejections(taskId: number): Promise<Rejection[]>;
}

/** Notices (G1): one per stop of a Task, filed by compare-and-set on its marker. */
export interface NoticeStore {
  fileNotice(n: NoticeInput): Promise<Notice | null>;
  getNotice(taskId: number): Promise<Notice | null>;
  listNotices(): Promise<Notice[]>;
}

export { OUTBOX_STATES } from './outbox-port.js';
export type { OutboxState, OutboxDelivery, OutboxClaim, OutboxResult, OutboxStore } from './outbox-port.js';

/**
 * `claimed`: its holder is asking GitHub now; `waiting`: claimed, but the head's Actions jobs were still
 * running (GitHub re-runs only a finished workflow run), so not asked yet; then settled `requested`,
 * `refused` or `unconfirmed` (asked, no answer: never asked again).
 */
export const RERUN_STATUSES = ['claimed', 'waiting', 'requested', 'refused', 'unconfirmed'] as const;
export type RerunStatus = (typeof RERUN_STATUSES)[number];

/** One re-run of a head's failed jobs (issue 17, decision 0030): claimed, then asked of GitHub once. */
export interface Rerun {
  id: number;
  taskId: number;
  headSha: string;
  /** 1 for the head's first re-run, up to the per-head budget. */
  ordinal: number;
  checkRunIds: number[];
  reason: string;
  status: RerunStatus;
  workflowRunIds: number[] | null;
  httpStatus: number | null;
  detail: string | null;
  createdAt: string;
  updatedAt: string;
}

/**
 * Re-runs (issue 17): the claim is the unique (task, head, ordinal) index, so one claim wins each of a
 * head's re-runs across every replica; `taken` when another won it. Settled once, by compare-and-set.
 */
export interface RerunStore {
  /** The head's re-runs, oldest first. */
  listReruns(taskId: number, headSha: string): Promise<Rerun[]>;
  claimRerun(c: {
    taskId: number;
    headSha: string;
    ordinal: number;
    checkRunIds: readonly number[];
    reason: string;
  }): Promise<{ kind: 'claimed'; rerun: Rerun } | { kind: 'taken' }>;
  /** waiting → claimed by compare-and-set: the caller now holds it; null when another evaluation does. */
  resumeRerun(id: number): Promise<Rerun | null>;
  /** claimed → `to`, with what GitHub said; false when it was no longer `claimed`. */
  settleRerun(
    id: number,
    to: Exclude<RerunStatus, 'claimed'>,
    result: { workflowRunIds: readonly number[]; httpStatus: number | null; detail: string | null },
  ): Promise<boolean>;
}

/**
 * T1: the red results triage held back because the base failed their check too, by result (a check
 * and its run): offered again (the poll's re-offer, a redelivery) a held result stays held, whatever
 * the base does later, since it was produced against the failing base; a new run decides again.
 */
export interface BaseHoldStore {
  holdOnBase(taskId: number, headSha: string, resultKey: string, baseRef: string): Promise<void>;
  heldOnBase(taskId: number, headSha: string): Promise<string[]>;
}

export type { BaseRed, BaseRedStore } from './base-red-port.js';

/** The global stop flag (D): read fail-closed by the gate, written by a person. */
export interface StopFlag {
  readStopFlag(): Promise<boolean>;
  writeStopFlag(stopped: boolean): Promise<void>;
}

/**
 * The durable store, every aggregate together: what main.ts builds and hands out. A use-case never
 * takes all of it; it declares the methods it calls (a `Pick` with a line saying why). Every
 * exactly-once rule lives in the database's constraints and compare-and-sets, never here.
 */
export interface Ledger
  extends
    DeliveryLog,
    TaskStore,
    RunStore,
    AttemptStore,
    RejectionStore,
    NoticeStore,
    OutboxStore,
    RerunStore,
    BaseHoldStore,
    BaseRedStore,
    StopFlag,
    BoardStore,
    PollStateStore,
    EtagStore {
  /** The ledger's clock, as an ISO string: what it stamps rows with. */
  now(): string;
}
