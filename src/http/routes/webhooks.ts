// The code hosts' webhooks (SPEC A1, Q1), served in front of the JSON API by router.ts: each is
// authenticated by its own signature or token, never by a bearer token.
import { z } from 'zod';
import { problem } from '../schemas/common.js';
import { webhookNotStored, webhookRejected, webhookStored } from '../schemas/webhook-answer.js';
import type { RouteDeclaration } from './route.js';

const open = [] as const;
const payload = z.looseObject({});

export const WEBHOOK_ROUTES: readonly RouteDeclaration[] = [
  {
    method: 'post',
    path: '/api/github/webhooks',
    operationId: 'receiveGitHubWebhook',
    summary: 'GitHub webhook',
    description:
      'Receives a GitHub delivery, verifies its HMAC signature over the exact bytes, and answers only once what it carries has been durably committed.',
    tag: 'webhooks',
    security: open,
    headers: [
      {
        name: 'X-GitHub-Event',
        in: 'header',
        required: true,
        description: 'The event name, e.g. `check_run` or `pull_request`.',
        schema: z.string().min(1),
      },
      {
        name: 'X-GitHub-Delivery',
        in: 'header',
        required: false,
        description: 'The delivery id, recorded with every decision about it.',
        schema: z.string(),
      },
      {
        name: 'X-Hub-Signature-256',
        in: 'header',
        required: true,
        description:
          'HMAC-SHA256 of the body under the webhook secret (any configured secret, for rotation); this, not a bearer token, authenticates the request.',
        schema: z.string().regex(/^sha256=[0-9a-fA-F]{64}$/),
      },
    ],
    body: { description: 'The event payload as GitHub sends it.', schema: payload },
    responses: {
      '200': {
        description: 'Accepted; nothing new stored (duplicate, dropped or ignored).',
        body: webhookNotStored,
      },
      '202': { description: 'Stored as a new event.', body: webhookStored },
      '400': {
        description:
          'Signed, but malformed JSON or a body that does not match the event (`rejected`), a missing X-GitHub-Event, or an unreadable body.',
        body: z.union([webhookRejected, problem, z.object({ error: z.literal('bad_request') })]),
      },
      '401': {
        description: 'X-Hub-Signature-256 is missing or does not match (`bad_signature`); nothing is stored.',
        body: problem,
      },
      '413': {
        description: 'The body is over the size cap (`payload_too_large`); the connection is closed.',
        headers: { Connection: { description: 'Always `close`.', schema: z.literal('close') } },
        body: problem,
      },
      '503': {
        description:
          'The delivery could not be stored (`not_stored`; GitHub should redeliver it), or too many bytes are waiting for their signature check (`busy`, with `Retry-After`; the connection is closed and the body not read), or GitHub is not connected yet — no webhook secret (`not_set_up`, with `Retry-After`; nothing is read; decision 0050).',
        headers: {
          'Retry-After': {
            description: 'With `busy` or `not_set_up`: seconds to wait before retrying.',
            schema: z.string(),
          },
        },
        body: problem,
      },
    },
  },
  {
    method: 'post',
    path: '/api/gitlab/webhooks',
    operationId: 'receiveGitLabWebhook',
    summary: 'GitLab webhook',
    description:
      "Receives a GitLab delivery (Pipeline, Job, Merge Request and Note hooks, SPEC Q1), checks its X-Gitlab-Token in constant time against GITLAB_WEBHOOK_SECRET (any configured secret, for rotation) before reading the body, then, where GITLAB_WEBHOOK_SIGNING_TOKEN is configured, the body's webhook-signature (HMAC-SHA256 over webhook-id, webhook-timestamp and the body, the timestamp within five minutes), and answers only once what it carries has been durably committed. 404 when neither is configured.",
    tag: 'webhooks',
    security: open,
    headers: [
      {
        name: 'X-Gitlab-Event',
        in: 'header',
        required: true,
        description: 'The hook, e.g. `Job Hook` or `Merge Request Hook`.',
        schema: z.string().min(1),
      },
      {
        name: 'X-Gitlab-Token',
        in: 'header',
        required: false,
        description:
          "The webhook's secret token; this (or the signature), not a bearer token, authenticates the request. Required when GITLAB_WEBHOOK_SECRET is set.",
        schema: z.string(),
      },
      {
        name: 'webhook-signature',
        in: 'header',
        required: false,
        description:
          '`v1,<base64 HMAC-SHA256>` (space-separated for several), with `webhook-id` and `webhook-timestamp`; required when GITLAB_WEBHOOK_SIGNING_TOKEN is set.',
        schema: z.string(),
      },
      {
        name: 'Idempotency-Key',
        in: 'header',
        required: false,
        description:
          'The same for every retry of one delivery (else `X-Gitlab-Event-UUID`): a redelivery is a duplicate.',
        schema: z.string(),
      },
    ],
    body: { description: 'The hook payload as GitLab sends it.', schema: payload },
    responses: {
      '200': {
        description: 'Accepted; nothing new stored (duplicate, dropped or ignored, an unknown hook included).',
        body: webhookNotStored,
      },
      '202': { description: 'Stored as a new event.', body: webhookStored },
      '400': {
        description: 'Malformed JSON, a body that does not match the hook, or a missing X-Gitlab-Event.',
        body: z.union([webhookRejected, problem]),
      },
      '401': {
        description:
          'X-Gitlab-Token is missing or matches no configured secret (nothing is read), or the signature does not verify; nothing is stored.',
        body: problem,
      },
      '404': { description: 'No GitLab secret is configured: the route is not set up.' },
      '413': { description: 'The body is over the size cap; the connection is closed.' },
      '503': { description: 'The delivery could not be stored (GitLab should retry it).' },
    },
  },
];
