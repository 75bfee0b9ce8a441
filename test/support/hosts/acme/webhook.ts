// POST /api/acme/webhooks (a fake third code host, test-only): Acme Forge signs each body with
// HMAC-SHA256 under the shared secret (`X-Acme-Signature: sha256=<hex>`), names its event in
// `X-Acme-Event` and its delivery in `X-Acme-Delivery`. The body is capped while it streams (413),
// the signature compared in constant time (401), then the delivery goes to ingest as this host's.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { WebhookReceiver, WebhookReceiverDeps } from '../../../../src/app/hosts.js';
import { HttpError, header, refuse, send } from '../../../../src/hosts/webhook-edge.js';
import { ACME_HOST_ID } from './classify.js';

/** The signature header Acme Forge sends for `raw` under `secret`. */
export function acmeSignature(secret: string, raw: string | Buffer): string {
  return `sha256=${createHmac('sha256', secret).update(raw).digest('hex')}`;
}

function readCapped(req: IncomingMessage, maxBytes: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > maxBytes) {
        req.pause();
        reject(new HttpError(413, 'payload_too_large', `body is over the ${maxBytes}-byte cap`));
      } else chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks, size)));
    req.on('error', reject);
  });
}

export function createAcmeReceiver(secret: string, deps: WebhookReceiverDeps): WebhookReceiver {
  let held = 0; // bytes of bodies read and not yet verified, across requests
  return async (req: IncomingMessage, res: ServerResponse) => {
    if (req.method !== 'POST') return send(res, 405, { error: 'method_not_allowed' });
    // The signature covers the whole body: until it verifies, what may be held at once is capped.
    const declared = Number(req.headers['content-length']);
    const hold = Number.isFinite(declared) && declared >= 0 ? Math.min(declared, deps.maxBytes) : deps.maxBytes;
    if (held + hold > deps.maxInflightBytes)
      return refuse(req, res, new HttpError(503, 'busy', 'too many unverified webhook bytes are held; retry later'));
    held += hold;
    let raw: Buffer;
    try {
      if (declared > deps.maxBytes)
        throw new HttpError(
          413,
          'payload_too_large',
          `body of ${declared} bytes is over the ${deps.maxBytes}-byte cap`,
        );
      raw = await readCapped(req, hold);
    } catch (err) {
      return err instanceof HttpError ? refuse(req, res, err) : send(res, 400, { error: 'bad_request' });
    } finally {
      held -= hold;
    }
    const given = Buffer.from(header(req, 'x-acme-signature') ?? '');
    const expected = Buffer.from(acmeSignature(secret, raw));
    if (given.length !== expected.length || !timingSafeEqual(given, expected))
      return send(res, 401, { error: 'bad_signature', message: 'X-Acme-Signature does not verify' });
    const event = header(req, 'x-acme-event');
    const deliveryId = header(req, 'x-acme-delivery');
    if (!event || !deliveryId) return send(res, 400, { error: 'missing_event_header' });
    const answer = await deps.ingestor.ingest({
      deliveryId,
      eventName: event,
      raw: raw.toString('utf8'),
      provider: ACME_HOST_ID,
    });
    send(res, answer.status, answer);
  };
}
