// Filing the one Inbox notice of a Task whose loop stopped (SPEC G1), from wherever the stop is
// found: an evaluation, or a reconciliation pass that settles a claim past the budget. The notice
// itself is a compare-and-set in the ledger, so whoever files second gets null and files nothing.
import { noticeMessage } from '../core/notice.js';
import type { Notice, StopReason, Task } from '../core/types.js';
import type { Ledger } from './ports.js';

export async function fileStopNotice(
  ledger: Ledger,
  task: Task,
  f: { maxAttempts: number; reason: StopReason; headSha: string | null; detail?: string | null },
): Promise<Notice | null> {
  const used = await ledger.countAttempts(task.id);
  return ledger.fileNotice({
    taskId: task.id,
    reason: f.reason,
    headSha: f.headSha,
    attemptsUsed: used,
    message: noticeMessage({
      repository: task.repository,
      pullRequest: task.pullRequest,
      headSha: f.headSha,
      attemptsUsed: used,
      // K5: approve-one grants one past the cap.
      maxAttempts: f.maxAttempts + task.extraAttempts,
      reason: f.reason,
      detail: f.detail ?? null,
    }),
  });
}
