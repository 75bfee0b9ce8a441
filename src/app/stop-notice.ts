// The one Inbox notice of a Task whose loop stopped (SPEC G1), composed for wherever the stop is
// found: an evaluation, or a reconciliation pass that settles a claim past the budget. Filing is a
// compare-and-set in the ledger, so whoever files second gets null and files nothing. Its message
// speaks the words of the Task's host (issue 34), which the caller passes.
import { noticeMessage, type NoticeWords } from '../core/notice.js';
import type { Notice, Task } from '../core/types.js';
import type { StopReason } from '../core/reasons.js';
import type { NoticeInput, NoticeStore } from './ledger-port.js';

export interface StopFacts {
  maxAttempts: number;
  reason: StopReason;
  headSha: string | null;
  detail?: string | null;
  /**
   * The words of the Task's host (the caller's `wordsOf(task.repository)`). Absent only where a caller
   * is not wired with them yet (issue 34): the message then keeps the words every notice used before.
   */
  words?: NoticeWords | undefined;
}

/** The words of a notice whose caller passed none: those every notice used before issue 34. */
const UNWIRED_WORDS: NoticeWords = { changeRequest: 'pull request', referenceMark: '#', check: 'check' };

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
        words: f.words ?? UNWIRED_WORDS,
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
