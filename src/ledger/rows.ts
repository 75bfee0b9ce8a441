// Row → domain mappings shared by the ledger's adapters (one place, so the two never drift).
import type { Selectable } from 'kysely';
import type { AttemptState, FixOutcome } from '../core/attempt-state.js';
import type { Attempt, AttemptStatus, Notice, Rejection, RejectionSource, Run, RunState, Task } from '../core/types.js';
import type { AttemptsTable, NoticesTable, RejectionsTable, RunsTable, TasksTable } from './schema.js';
import type { Author } from '../core/standing.js';
import type { MergeQueueContext } from '../core/merge-queue.js';

export function attemptOf(r: Selectable<AttemptsTable>): Attempt {
  return {
    id: r.id,
    taskId: r.task_id,
    coordinate: r.coordinate,
    source: r.source as RejectionSource,
    headSha: r.head_sha,
    fingerprint: r.fingerprint,
    status: r.status as AttemptStatus,
    state: r.state as AttemptState,
    outcome: r.outcome as FixOutcome | null,
    outcomeReason: r.outcome_reason,
    rejectionId: r.rejection_id,
    runId: r.run_id,
    interruptions: r.interruptions ?? 0,
    createdAt: r.created_at,
  };
}

export function taskOf(r: Selectable<TasksTable>): Task {
  return {
    id: r.id,
    work: r.work,
    repository: r.repository,
    pullRequest: r.pr_number,
    branch: r.branch,
    state: r.state as Task['state'],
    prState: r.pr_state as Task['prState'],
    branchState: r.branch_state as Task['branchState'],
    isFork: r.is_fork === 1,
    ciHeadSha: r.ci_head_sha,
    ciHeadSeenAt: r.ci_head_seen_at,
    ciState: r.ci_state as Task['ciState'],
    noticeAt: r.notice_at,
    resumeRef: r.resume_ref,
    createdAt: r.created_at,
    polledAt: r.polled_at,
    stopRound: r.stop_round,
    extraAttempts: r.extra_attempts,
    approveOnePending: r.approve_one_pending === 1,
    parkedAt: r.parked_at,
    handoffAt: r.handoff_at,
    stateCommentId: r.state_comment_id,
    adopted: r.adopted === 1,
    gate: r.gate ? (JSON.parse(r.gate) as Task['gate']) : null,
    loopOff: r.loop_off === 1,
    skipLabel: r.skip_label === 1,
    commitStatus: r.commit_status,
    baseRef: r.base_ref,
    maxGrants: r.max_grants ?? null,
    prTitle: r.pr_title ?? null,
    prAuthor: r.pr_author ?? null,
  };
}

export function runOf(r: Selectable<RunsTable>): Run {
  return {
    id: r.id,
    taskId: r.task_id,
    action: r.action as Run['action'],
    autoResume: r.auto_resume === 1,
    state: r.state as RunState,
    attemptId: r.attempt_id,
    agentSeenAt: r.agent_seen_at ?? null,
    interruptedAt: r.interrupted_at ?? null,
    createdAt: r.created_at,
  };
}

export function rejectionOf(r: Selectable<RejectionsTable>): Rejection {
  return {
    id: r.id,
    taskId: r.task_id,
    source: r.source as RejectionSource,
    headSha: r.head_sha,
    checkName: r.check_name,
    body: r.body,
    author: authorOf(r.author),
    createdAt: r.created_at,
    ...(r.findings != null ? { findings: r.findings } : {}),
    ...(r.merge_queue ? { queue: mergeQueueOf(r.merge_queue) } : {}),
  };
}

/** A stored merge queue that cannot be read is none: the frame is then the plain CI frame. */
function mergeQueueOf(json: string): MergeQueueContext | null {
  try {
    const q = JSON.parse(json) as Partial<MergeQueueContext> | null;
    const text = (v: unknown) => (typeof v === 'string' ? v : null);
    if (!q || typeof q.pullRequest !== 'number') return null;
    const others = Array.isArray(q.others) ? q.others.filter((n): n is number => Number.isSafeInteger(n)) : null;
    return { baseRef: text(q.baseRef), pullRequest: q.pullRequest, headSha: text(q.headSha), others };
  } catch {
    return null;
  }
}

/** A stored author that cannot be read is no author at all: it has no standing (fail closed). */
function authorOf(json: string | null): Author | null {
  if (json === null) return null;
  try {
    const a = JSON.parse(json) as Partial<Record<keyof Author, unknown>> | null;
    const text = (v: unknown) => (typeof v === 'string' ? v : null);
    return a && typeof a === 'object'
      ? { login: text(a.login), type: text(a.type), association: text(a.association) }
      : null;
  } catch {
    return null;
  }
}

export function noticeOf(r: Selectable<NoticesTable> & { repository: string; pr_number: number }): Notice {
  return {
    id: r.id,
    taskId: r.task_id,
    reason: r.reason as Notice['reason'],
    headSha: r.head_sha,
    attemptsUsed: r.attempts_used,
    repository: r.repository,
    pullRequest: r.pr_number,
    message: r.message,
    createdAt: r.created_at,
  };
}
