// GitHub's merge queue in fixloop's neutral words (issue 36 item 1): the queue's branch names the pull
// request its commit was built for (`gh-readonly-queue/<base>/pr-<n>-<head sha>`), and a `dequeued`
// pull request carries GitHub's reason, mapped onto core/merge-queue.ts's ejections. Pure.
import type { MergeQueueContext, QueueEjection } from '../core/merge-queue.js';

const QUEUE_REF = /^(?:refs\/heads\/)?gh-readonly-queue\/(.+)\/pr-(\d{1,10})-([0-9a-f]{40})$/;

/** The queue's commit a branch names, or null for any other branch. */
export function queueOfBranch(branch: string | null | undefined): MergeQueueContext | null {
  const m = branch ? QUEUE_REF.exec(branch) : null;
  if (!m) return null;
  const pullRequest = Number(m[2]);
  if (!Number.isSafeInteger(pullRequest) || pullRequest < 1) return null;
  return { baseRef: m[1]!, pullRequest, headSha: m[3]!, others: null };
}

/** GitHub's documented `dequeued` reasons; anything else is `unknown` and goes to a person. */
const EJECTIONS: Record<string, QueueEjection> = {
  CI_FAILURE: 'check_failed',
  MERGE_CONFLICT: 'conflict',
  CI_TIMEOUT: 'timeout',
  MANUAL: 'removed_by_person',
  QUEUE_CLEARED: 'queue_cleared',
  ROLL_BACK: 'rolled_back',
  BRANCH_PROTECTIONS: 'protections',
  GIT_TREE_INVALID: 'invalid_merge',
  INVALID_MERGE_COMMIT: 'invalid_merge',
  ALREADY_MERGED: 'merged',
};

export function ejectionOf(reason: string | null | undefined): QueueEjection {
  return (reason && Object.hasOwn(EJECTIONS, reason.toUpperCase()) && EJECTIONS[reason.toUpperCase()]) || 'unknown';
}
