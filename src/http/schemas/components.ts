// The answer schemas the API document names (`#/components/schemas/<name>`), in the document's order.
// A schema listed here is referenced wherever a route answers it; any other is written in place.
import type { z } from 'zod';
import { problem } from './common.js';
import { attempt, grants, noticeSummary, rejection, runSummary, task, taskExists, taskSummary } from './task-view.js';
import { run, runDetail } from './run-view.js';
import { baseRed, inboxRow, notice, outboxDelivery } from './notices.js';
import { decision } from './decision.js';
import { boardRow } from './board-row.js';
import { checkRunEntry, pullRequestChecks, statusEntry } from './pr-checks.js';
import { loopAttempt, loopState, outcomeRecorded, runProblem, spendTotals } from './loop-state.js';
import { webhookNotStored, webhookRejected, webhookStored } from './webhook-answer.js';
import { results, resultsFigures } from './results.js';
import { stopFlagUnreadable } from './stop-flag.js';

export const RESPONSE_COMPONENTS: Readonly<Record<string, z.ZodType>> = {
  Problem: problem,
  TaskSummary: taskSummary,
  Task: task,
  Grants: grants,
  Attempt: attempt,
  RunSummary: runSummary,
  Run: run,
  RunDetail: runDetail,
  Rejection: rejection,
  NoticeSummary: noticeSummary,
  Notice: notice,
  OutboxDelivery: outboxDelivery,
  Decision: decision,
  TaskExists: taskExists,
  BoardRow: boardRow,
  InboxRow: inboxRow,
  BaseRed: baseRed,
  PullRequestChecks: pullRequestChecks,
  CheckRunEntry: checkRunEntry,
  StatusEntry: statusEntry,
  RunProblem: runProblem,
  OutcomeRecorded: outcomeRecorded,
  SpendTotals: spendTotals,
  LoopAttempt: loopAttempt,
  LoopState: loopState,
  StopFlagUnreadable: stopFlagUnreadable,
  WebhookStored: webhookStored,
  WebhookNotStored: webhookNotStored,
  WebhookRejected: webhookRejected,
  ResultsFigures: resultsFigures,
  Results: results,
};
