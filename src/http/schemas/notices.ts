// What the Inbox and the outbox answer (G1, M4, P4): every notice filed, a page of what needs a person
// now, and the deliveries of notices to the configured sinks.
import { z } from 'zod';
import type { Notice as StoredNotice } from '../../core/types.js';
import type { InboxRow, OutboxDelivery } from '../../app/ledger-port.js';
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
