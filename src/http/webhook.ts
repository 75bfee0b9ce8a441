// POST /api/github/webhooks (SPEC A1): the body is capped while it streams (413 before it is
// buffered), verified with GitHub's HMAC over the exact bytes against every configured secret
// (rotation), and answered only after the ingest use-case committed what it carries.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { verifyWithFallback } from '@octokit/webhooks-methods';
import type { Ingestor } from '../app/ingest.js';
import type { Logger } from '../app/ports.js';

export interface WebhookOptions {
  secrets: readonly string[];
  maxBytes: number;
  ingestor: Ingestor;
  logger: Logger;
}

class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

function send(res: ServerResponse, status: number, body: object): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/** Read the body, refusing it as soon as it passes the cap, without buffering the rest. */
function readCapped(req: IncomingMessage, maxBytes: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) {
    return Promise.reject(
      new HttpError(413, 'payload_too_large', `body of ${declared} bytes is over the ${maxBytes}-byte cap`),
    );
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    req.on('data', (c: Buffer) => {
      if (done) return;
      size += c.length;
      if (size > maxBytes) {
        done = true;
        chunks.length = 0;
        req.pause();
        reject(new HttpError(413, 'payload_too_large', `body is over the ${maxBytes}-byte cap`));
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => {
      if (!done) {
        done = true;
        resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
      }
    });
    req.on('error', (e) => {
      if (!done) {
        done = true;
        reject(e);
      }
    });
  });
}

function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

export function createWebhookHandler(opts: WebhookOptions) {
  const [primary, ...others] = opts.secrets;
  if (!primary) throw new Error('at least one webhook secret is required');

  return async function handleWebhook(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.method !== 'POST') return send(res, 405, { error: 'method_not_allowed' });
    let raw: Buffer;
    try {
      raw = await readCapped(req, opts.maxBytes);
    } catch (err) {
      if (err instanceof HttpError) {
        res.setHeader('connection', 'close');
        send(res, err.status, { error: err.code, message: err.message });
        // Stop reading the oversize body; the connection is closed after the answer.
        req.destroy();
        return;
      }
      return send(res, 400, { error: 'bad_request' });
    }
    const signature = header(req, 'x-hub-signature-256');
    const body = raw.toString('utf8');
    let valid = false;
    if (signature && body.length > 0) {
      try {
        valid = Boolean(await verifyWithFallback(primary, body, signature, others));
      } catch {
        valid = false;
      }
    }
    if (!valid) {
      // Nothing stored: an unauthenticated request must not be able to write to the database.
      opts.logger.warn(
        { delivery: header(req, 'x-github-delivery'), event: header(req, 'x-github-event') },
        'webhook signature rejected',
      );
      return send(res, 401, { error: 'bad_signature', message: 'X-Hub-Signature-256 is missing or does not match' });
    }
    const eventName = header(req, 'x-github-event');
    if (!eventName) return send(res, 400, { error: 'missing_event_header', message: 'X-GitHub-Event is required' });
    const deliveryId = header(req, 'x-github-delivery') ?? '';
    try {
      const answer = await opts.ingestor.ingest({ deliveryId, eventName, raw: body });
      send(res, answer.status, answer);
    } catch (err) {
      opts.logger.error({ err, deliveryId }, 'delivery not stored');
      send(res, 503, { error: 'not_stored', message: 'the delivery could not be stored; redeliver it' });
    }
  };
}
