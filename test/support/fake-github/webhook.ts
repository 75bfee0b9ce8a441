// The fake GitHub as a webhook sender: POSTs the exact bytes it signed (HMAC-SHA256 with
// @octokit/webhooks-methods `sign`) with the headers GitHub sends, so fixloop verifies a delivery
// end to end without re-serialisation. SPEC A1 (ingress), E3 (contrast: poll-only has none).
import { randomUUID } from 'node:crypto';
import { sign } from '@octokit/webhooks-methods';

export interface SentWebhook {
  status: number;
  body: string;
  deliveryId: string;
}

export interface WebhookOptions {
  deliveryId?: string;
  /** Send these bytes instead of JSON.stringify(payload) (e.g. pretty-printed, as GitHub may). */
  rawBody?: string;
  /** Extra or overriding headers (e.g. a wrong signature). */
  headers?: Record<string, string>;
}

export async function sendWebhook(
  url: string,
  event: string,
  payload: unknown,
  secret: string,
  opts: WebhookOptions = {},
): Promise<SentWebhook> {
  const body = opts.rawBody ?? JSON.stringify(payload);
  const deliveryId = opts.deliveryId ?? randomUUID();
  const res = await fetch(url, {
    method: 'POST',
    body,
    headers: {
      'content-type': 'application/json',
      'user-agent': 'GitHub-Hookshot/fake',
      'x-github-event': event,
      'x-github-delivery': deliveryId,
      'x-github-hook-id': '1',
      'x-hub-signature-256': await sign(secret, body),
      ...opts.headers,
    },
  });
  return { status: res.status, body: await res.text(), deliveryId };
}
