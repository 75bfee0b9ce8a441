// What needs a person (G1, M4, P4): the Inbox, the notice deliveries not done, and the decision log.
import { z } from 'zod';
import { deliveriesQuery, inboxQuery, outboxQuery } from '../api-requests.js';
import { id, problem } from '../schemas/common.js';
import { baseReds, inboxRow, notice, outboxDelivery } from '../schemas/notices.js';
import { decision } from '../schemas/decision.js';
import type { RouteDeclaration } from './route.js';

const deliveries = z.object({ deliveries: z.array(outboxDelivery) });

export const INBOX_ROUTES: readonly RouteDeclaration[] = [
  {
    method: 'get',
    path: '/api/inbox',
    operationId: 'listNotices',
    summary: 'The Inbox',
    description:
      'Without parameters, lists every notice the loop filed for people when it stopped for a Task, newest first. ' +
      "With `limit` or `after`, a keyset page of what needs a person now (each Task's current stop), oldest first (M4). " +
      'Either way `baseReds` lists the base branches failing now, as the Inbox shows them above the notices (issue 36).',
    tag: 'inbox',
    query: inboxQuery,
    invalid: 'invalid_query',
    responses: {
      '200': {
        description: 'The notices, or a page of them.',
        body: z.xor([
          z.strictObject({ notices: z.array(notice), baseReds }),
          z.strictObject({
            notices: z.array(inboxRow),
            baseReds,
            nextAfter: z.int().nullable().describe('The `after` of the next page; null on the last.'),
          }),
        ]),
      },
      '400': 'BadRequest',
      '401': 'Unauthorized',
    },
  },
  {
    method: 'get',
    path: '/api/outbox',
    operationId: 'listOutbox',
    summary: 'Notice deliveries not done',
    description:
      'Lists the deliveries of notices to the configured sinks (Slack, webhooks) that are still pending or were given up, newest first, with their last error.',
    tag: 'inbox',
    query: outboxQuery,
    invalid: 'invalid_query',
    responses: {
      '200': { description: 'The deliveries.', body: deliveries },
      '400': 'BadRequest',
      '401': 'Unauthorized',
    },
  },
  {
    method: 'post',
    path: '/api/outbox/{id}/resend',
    pathParams: [
      {
        name: 'id',
        in: 'path',
        required: true,
        description: 'The notice delivery id (`id` of an OutboxDelivery).',
        schema: id,
      },
    ],
    operationId: 'resendNotice',
    summary: 'Send a given-up notice delivery again',
    description:
      "A `failed` delivery becomes `pending` with its tries counted afresh, and the outbox sends it on its next pass. Recorded as a person's (`resend_notice`).",
    tag: 'inbox',
    responses: {
      '200': { description: 'The delivery, pending again.', body: deliveries },
      '401': 'Unauthorized',
      '404': 'NotFound',
      '409': { description: 'The delivery is not `failed` (`conflict`).', body: problem },
    },
  },
  {
    method: 'get',
    path: '/api/deliveries',
    operationId: 'listDecisions',
    summary: 'The decision log',
    description:
      'Pages backwards through the decision log, newest first, showing what became of each delivery and evaluation step and why.',
    tag: 'deliveries',
    query: deliveriesQuery,
    invalid: 'invalid_query',
    responses: {
      '200': { description: 'The decisions.', body: z.object({ decisions: z.array(decision) }) },
      '400': 'BadRequest',
      '401': 'Unauthorized',
    },
  },
];
