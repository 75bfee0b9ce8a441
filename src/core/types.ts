// The domain's plain data: what a Task, Run, Attempt, Rejection and Notice are.
// Everything in core/ is a pure function over these shapes; adapters map rows onto them.
// SPEC: "Words".
import type { AttemptState, FixOutcome } from './attempt-state.js';
import type { CheckRule } from './check-rules.js';

export const TASK_STATES = ['open', 'done', 'cancelled'] as const;
export type TaskState = (typeof TASK_STATES)[number];

export const PR_STATES = ['open', 'merged', 'closed'] as const;
export type PrState = (typeof PR_STATES)[number];

export const CI_STATES = ['unknown', 'pending', 'red', 'passing'] as const;
export type CiState = (typeof CI_STATES)[number];

export const RUN_STATES = ['queued', 'running', 'question', 'completed', 'failed', 'cancelled'] as const;
export type RunState = (typeof RUN_STATES)[number];

/** What became of a claimed attempt's dispatch (C3, crash safety). */
export const ATTEMPT_STATUSES = [
  'claimed', // row written, dispatch not begun
  'dispatching', // a process took the dispatch; if it died here, fate is unknown
  'dispatched', // the runner accepted the run
  'over_budget', // the claim pushed the Task past its budget: kept, never dispatched (C3)
  'dispatch_failed', // the runner refused or errored
  'not_dispatched', // found claimed-but-not-dispatched after a crash and not sent (visible, never retried)
  'dispatch_unknown', // the process died while dispatching: never sent again
] as const;
export type AttemptStatus = (typeof ATTEMPT_STATUSES)[number];
/**
 * Statuses of an attempt that will never run. Settling one takes the attempt out of flight (its
 * lifecycle `queued` → `acknowledged`, K7) in the same write, so no crash between two writes can
 * leave a pull request's one in-flight slot held by an attempt that never runs.
 */
export const NEVER_RUN_STATUSES = [
  'over_budget',
  'dispatch_failed',
  'not_dispatched',
  'dispatch_unknown',
] as const satisfies readonly AttemptStatus[];
/** An attempt not yet dispatched nor settled otherwise: what reconciliation looks for. */
export type UnsettledStatus = Extract<AttemptStatus, 'claimed' | 'dispatching'>;

// Issue 36: `conflict` (the head conflicts with its base; the agent resolves it) and `branch_update`
// (the head is only behind; fixloop updates it through the host, no model run).
export const REJECTION_SOURCES = ['gate', 'review', 'bot', 'conflict', 'branch_update'] as const;
export type RejectionSource = (typeof REJECTION_SOURCES)[number];

export interface Task {
  id: number;
  work: string;
  repository: string; // owner/name, lower-case
  pullRequest: number;
  branch: string;
  state: TaskState;
  prState: PrState;
  branchState: 'present' | 'deleted';
  isFork: boolean;
  ciHeadSha: string | null;
  ciHeadSeenAt: string | null; // ISO-8601
  ciState: CiState;
  noticeAt: string | null; // the G1 marker; non-null = the loop stopped for this Task
  resumeRef: string | null; // how to resume the agent (a session id, opaque to fixloop)
  createdAt: string;
  polledAt: string | null;
  /** Bumped each time a person grants one more attempt (K5); a notice is unique per round. */
  stopRound: number;
  /** Attempts granted past the budget by approve-one (K5). */
  extraAttempts: number;
  /** The next claim was approved by a person: the unchanged-failure stop does not apply to it. */
  approveOnePending: boolean;
  /** Parked after no answer to the hand-off (K5): never re-enters the loop on its own. */
  parkedAt: string | null;
  /** When the hand-off (label + state comment) was posted for the current stop. */
  handoffAt: string | null;
  stateCommentId: string | null;
  adopted: boolean;
  /** The poll's green-gate verdict for the head, with its reasons (B4). */
  gate: {
    headSha: string;
    at: string;
    verdict: string;
    reasons: Array<{ check: string; why: string; seen: string | null; decider?: string }>;
    failing: string[];
  } | null;
  /** M4: a person turned the loop off for this Task; the gate refuses `loop_off` until they turn it on. */
  loopOff: boolean;
  /** The pull request carries `fixloop:skip` (core/skip-label.ts); the gate refuses `skip_label`. */
  skipLabel: boolean;
  /** P3: the `fixloop` commit status last written (`sha state:description`); null before any. */
  commitStatus: string | null;
  /** T1: the branch the pull request merges into, as last seen; null before the poll or a webhook told. */
  baseRef: string | null;
  /** V4: the Task's own cap on a person's grants of one more attempt, set by a person; null = the configured cap. */
  maxGrants: number | null;
  /** Issue 33 (migration 0024): the pull request's title and author as the poll last read them; null before. */
  prTitle?: string | null;
  prAuthor?: string | null;
}

export interface Run {
  id: number;
  taskId: number;
  action: 'start' | 'resume';
  autoResume: boolean;
  state: RunState;
  attemptId: number | null;
  /** I5: when its agent first called fixloop with the run token; null while it never has. */
  agentSeenAt: string | null;
  /** V4: when a shutdown or a crash interrupted it (its attempt is offered again once, free); null: it was not. */
  interruptedAt: string | null;
  createdAt: string;
}

export interface Attempt {
  id: number;
  taskId: number;
  coordinate: string; // CI: head sha; review: "review:<rejection id>"
  source: RejectionSource;
  headSha: string | null;
  fingerprint: string;
  status: AttemptStatus;
  /** I1: the lifecycle, next to the dispatch fate in `status`. */
  state: AttemptState;
  /** I2: the run's first-write outcome, and the reason it gave (shown to people). */
  outcome: FixOutcome | null;
  outcomeReason: string | null;
  rejectionId: number | null;
  runId: number | null;
  /** V4: how often its run was interrupted by a restart and offered again free (0 or 1). */
  interruptions: number;
  createdAt: string;
}

export interface Rejection {
  id: number;
  taskId: number;
  source: RejectionSource;
  headSha: string | null;
  checkName: string | null;
  body: string;
  /** F1: who wrote the review, so a later wake re-checks their standing; null for a gate row (or one stored before). */
  author: Author | null;
  createdAt: string;
  /** Issue 36: for an allow-listed bot's round, the fingerprint of its findings (bot-findings.ts). */
  findings?: string;
  /** Issue 36: the merge queue a red of the queue's commit failed in; absent for any other row. */
  queue?: MergeQueueContext | null;
}

export interface Notice {
  id: number;
  taskId: number;
  reason: StopReason;
  headSha: string | null;
  attemptsUsed: number;
  repository: string;
  pullRequest: number;
  message: string;
  createdAt: string;
}

import type { StopReason } from './reasons.js';
import type { MergeQueueContext } from './merge-queue.js';
import type { Author, AuthorAssociation, MinimumPermission } from './standing.js';

export interface RepositoryRef {
  name: string; // owner/name
  role: 'data' | 'website' | 'other';
  requiredChecks?: readonly string[] | undefined;
  skipDeciders?: Readonly<Record<string, string>> | undefined;
  adopt?: { branches: readonly string[]; authors: readonly string[] } | undefined;
}

/**
 * A Work's code host, by id: a built-in one (the config's PROVIDERS) or the id of a host registered
 * beyond them (decision 0060), which the config accepts once it is told of it (config.ts `hosts`) and
 * the host registry checks. Every repository of a Work is on its one host (issue 19).
 */
export type Provider = string;

export interface Work {
  name: string;
  account: string;
  /** Absent = the default host (GitHub). A GitLab Work's repositories are its projects' `path_with_namespace`. */
  provider?: Provider | undefined;
  repositories: RepositoryRef[];
  /** F1/F2: whose reviews and comments count; absent = OWNER, MEMBER, COLLABORATOR (standing.ts). */
  trustedAssociations?: readonly AuthorAssociation[] | undefined;
  /** F1/F2 on GitHub: the least repository permission a person needs; absent = write (standing.ts, decision 0042). */
  minimumPermission?: MinimumPermission | undefined;
  /** Issue 36: rules per check (check-rules.ts); the first whose glob matches a check's name applies. */
  checks?: readonly CheckRule[] | undefined;
  /** Issue 36: a branch only behind its base is updated through the host, no model run; absent = on. */
  updateBranch?: boolean | undefined;
  /** Issue 36: the bound on the agent's diff growth; absent (or a count absent) = DEFAULT_DIFF_BOUND (diff-bound.ts). */
  diffBound?: { lines?: number | undefined; files?: number | undefined } | undefined;
  /** Issue 36 item 4: a red base that holds pull requests files one issue on the repository too. */
  baseIssue?: boolean | undefined;
  /** Issue 36: put the pull request back in the merge queue once the fix of its queue failure is green. */
  requeueAfterFix?: boolean | undefined;
}
