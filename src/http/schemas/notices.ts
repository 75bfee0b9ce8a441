// What the Inbox and the outbox answer (G1, M4, P4): every notice filed, a page of what needs a person
// now, and the deliveries of notices to the configured sinks.
import { z } from 'zod';
import type { Notice as StoredNotice } from '../../core/types.js';
import type { InboxRow, OutboxDelivery } from '../../app/ledger-port.js';
import type { BaseRed } from '../../app/base-red-port.js';
import { OUTBOX_STATES } from '../../app/ledger-port.js';
import { STOP_REASONS } from '../../core/reasons.js';
import { count, describes, id, nullableTimestamp, timestamp } from './common.js';
import { noticeSummaryFields } from './task-view.js';

export const notice = z
  .object({ id, taskId: id, repository: z.string(), pullRequest: id, ...noticeSummaryFields })
  .describe('An Inbox notice: the loop stopped for a Task and why (G1).');

export const inboxRow = z
  .object({
    id,
    taskId: id,
    repository: z.string(),
    pullRequest: id,
    reason: z.enum(STOP_REASONS),
    headSha: z.string().nullable(),
    attemptsUsed: count,
    message: z.string(),
    createdAt: timestamp,
    parked: z.boolean(),
  })
  .describe("The notice of a Task's current stop: what needs a person now (M4).");

export const baseRed = z
  .object({
    id,
    repository: z.string(),
    baseRef: z.string().describe('The base branch that fails.'),
    round: id.describe("The branch's red round: 1 for its first, one more each time it turns red again."),
    checks: z.array(z.string()).describe('The checks failing on the base that held pull requests, sorted.'),
    baseSha: z.string().nullable().describe('The commit the base failed at, where the host said.'),
    message: z.string().describe('What fails, that the held agents are not woken, and what happens next.'),
    issueNumber: z
      .int()
      .nullable()
      .describe("The issue filed on the repository for it (the Work's `baseIssue`), or null."),
    openedAt: timestamp,
    closedAt: nullableTimestamp,
    pullRequests: z.array(id).describe('The pull requests (merge requests) it holds, in the order they joined.'),
  })
  .describe(
    'A base branch failing the checks its pull requests fail too, told once (the Inbox\'s "Base branches failing"); closed when the base passes them again.',
  );

/** The open base reds, as the Inbox lists them above the notices. */
export const baseReds = z
  .array(baseRed)
  .describe('The base branches failing now, each holding the pull requests that fail the same checks.');

export const outboxDelivery = z
  .object({
    id,
    noticeId: id,
    taskId: id,
    repository: z.string(),
    pullRequest: id,
    sink: z.string().describe('The configured sink (`notices.sinks[].name`, default its kind).'),
    state: z
      .enum(OUTBOX_STATES)
      .describe('`pending` until a 2xx answer (`delivered`) or the last configured try failed (`failed`).'),
    attempts: count.describe('Tries finished so far.'),
    nextAt: timestamp.describe('When a pending delivery is tried next.'),
    lastError: z.string().nullable().describe("The last failed try's error, or null."),
    createdAt: timestamp,
    updatedAt: timestamp,
    deliveredAt: nullableTimestamp,
  })
  .describe('One delivery of a notice to one configured notice sink (G1).');

describes<typeof notice, StoredNotice>(true);
describes<typeof inboxRow, InboxRow>(true);
describes<typeof outboxDelivery, OutboxDelivery>(true);
describes<typeof baseRed, BaseRed>(true);
