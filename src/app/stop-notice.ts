// The one Inbox notice of a Task whose loop stopped (SPEC G1), composed for wherever the stop is
// found: an evaluation, or a reconciliation pass that settles a claim past the budget. Filing is a
// compare-and-set in the ledger, so whoever files second gets null and files nothing.
import { noticeMessage } from '../core/notice.js';
import type { Notice, Task } from '../core/types.js';
import type { StopReason } from '../core/reasons.js';
import type { NoticeInput, NoticeStore } from './ledger-port.js';

export interface StopFacts {
  maxAttempts: number;
  reason: StopReason;
  headSha: string | null;
  detail?: string | null;
}

/** The notice to file: its message is written for the attempts the ledger counts as it files it. */
export function stopNoticeInput(task: Task, f: StopFacts): NoticeInput {
  return {
    taskId: task.id,
    reason: f.reason,
    headSha: f.headSha,
    message: (attemptsUsed) =>
      noticeMessage({
        repository: task.repository,
        pullRequest: task.pullRequest,
        headSha: f.headSha,
        attemptsUsed,
        // K5: approve-one grants one past the cap.
        maxAttempts: f.maxAttempts + task.extraAttempts,
        reason: f.reason,
        detail: f.detail ?? null,
      }),
  };
}

export function fileStopNotice(
  ledger: Pick<NoticeStore, 'fileNotice'>,
  task: Task,
  f: StopFacts,
): Promise<Notice | null> {
  return ledger.fileNotice(stopNoticeInput(task, f));
}
