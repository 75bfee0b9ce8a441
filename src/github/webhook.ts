// GitHub's webhook receiver, POST /api/github/webhooks (SPEC A1; decision 0060: GitHub's half of the route): the body is capped while it streams (413 before it is
// buffered); the bytes held for bodies not yet verified are bounded across requests (503 with
// Retry-After beyond it), so forged traffic cannot grow memory. The HMAC runs over the exact bytes
// as they arrive, for every configured secret (rotation); only a verified body is decoded, and it
// is answered once the ingest use-case committed what it carries.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isUtf8 } from 'node:buffer';
import { createHmac, timingSafeEqual, type Hmac } from 'node:crypto';
import type { Ingestor } from '../app/ingest.js';
import type { Logger } from '../app/ports.js';
import { header, HttpError, refuse, send } from '../hosts/webhook-edge.js';

/** The same as WEBHOOK_MAX_INFLIGHT_BYTES' default (src/config/env-schema.ts), for callers that set none. */
export const DEFAULT_MAX_INFLIGHT_BYTES = 32 * 1024 * 1024;
/** What a refused sender is told to wait: by then the bodies held now were verified or timed out. */
const RETRY_AFTER_SECONDS = 10;

export interface WebhookOptions {
  secrets: readonly string[];
  maxBytes: number;
  /** Bytes held at once, across requests, for bodies whose signature is not yet checked. */
  maxInflightBytes?: number;
  ingestor: Pick<Ingestor, 'ingest'>;
  logger: Logger;
  /** Told how long each request took from reaching the handler to its answer being sent (metrics, N2). */
  observeAck?: (seconds: number, status: number) => void;
}

/**
 * The shared allowance for unverified bytes. A body takes its declared length up front (or, sent
 * chunked, each chunk as it comes) and gives it back once its signature is checked or it failed.
 */
function createAllowance(max: number) {
  let held = 0;
  return {
    take(n: number): boolean {
      if (held + n > max) return false;
      held += n;
      return true;
    },
    give(n: number): void {
      held -= n;
    },
  };
}
type Allowance = ReturnType<typeof createAllowance>;

const busy = () =>
  new HttpError(503, 'busy', 'too many webhook bytes are waiting for their signature check; retry later');

/** `sha256=<64 hex>` as bytes; null for anything else (then there is nothing to check the body against). */
function signatureBytes(header: string | undefined): Buffer | null {
  const m = header === undefined ? null : /^sha256=([0-9a-f]{64})$/i.exec(header);
  return m ? Buffer.from(m[1]!, 'hex') : null;
}

/** Constant-time per secret; every secret is tried, so the time does not say which one matched. */
function matchesAny(hmacs: Hmac[], signature: Buffer): boolean {
  let ok = false;
  for (const h of hmacs) ok = timingSafeEqual(h.digest(), signature) || ok;
  return ok;
}

/**
 * Read the body while every secret's HMAC runs over it, refusing it as soon as it passes the cap
 * (413) or the allowance (503), without buffering the rest. Resolves to the bytes and whether the
 * signature matched; the allowance is given back either way. With no signature to check against,
 * the body is only counted for the cap, never kept.
 */
function readVerified(
  req: IncomingMessage,
  o: { maxBytes: number; allowance: Allowance; secrets: readonly string[]; signature: Buffer | null },
): Promise<{ raw: Buffer; valid: boolean }> {
  const declared = Number(req.headers['content-length']);
  const known = req.headers['content-length'] !== undefined && Number.isFinite(declared);
  if (known && declared > o.maxBytes) {
    return Promise.reject(
      new HttpError(413, 'payload_too_large', `body of ${declared} bytes is over the ${o.maxBytes}-byte cap`),
    );
  }
  const keep = o.signature !== null;
  if (keep && known && !o.allowance.take(declared)) return Promise.reject(busy());
  let taken = keep && known ? declared : 0;
  const hmacs = keep ? o.secrets.map((s) => createHmac('sha256', s)) : [];
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = (): void => {
      done = true;
      o.allowance.give(taken);
      taken = 0;
    };
    const fail = (e: unknown): void => {
      finish();
      chunks.length = 0;
      req.pause();
      reject(e);
    };
    req.on('data', (c: Buffer) => {
      if (done) return;
      size += c.length;
      if (size > o.maxBytes)
        return fail(new HttpError(413, 'payload_too_large', `body is over the ${o.maxBytes}-byte cap`));
      if (!keep) return;
      if (!known) {
        if (!o.allowance.take(c.length)) return fail(busy());
        taken += c.length;
      }
      for (const h of hmacs) h.update(c);
      chunks.push(c);
    });
    req.on('end', () => {
      if (done) return;
      finish();
      const valid = o.signature !== null && size > 0 && matchesAny(hmacs, o.signature);
      // Joined only once verified: a forged body is never copied.
      const raw = valid ? (chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size)) : Buffer.alloc(0);
      // Let go of the pieces now: these listeners live as long as the connection does.
      chunks.length = 0;
      resolve({ raw, valid });
    });
    // A client gone mid-body, or the server's request timeout: the bytes are let go.
    req.on('error', (e) => !done && fail(e));
    req.on('close', () => !done && fail(new HttpError(400, 'bad_request', 'the body did not arrive')));
  });
}

/** What a form-encoded delivery is told: the one setting on the webhook that fixes it. */
export const FORM_ENCODED_DETAIL =
  "the webhook sends its body form-encoded (application/x-www-form-urlencoded, GitHub's default): set the webhook's Content type to application/json (the repository's or App's webhook settings), then redeliver";

function isFormEncoded(contentType: string | undefined): boolean {
  return contentType?.split(';')[0]?.trim().toLowerCase() === 'application/x-www-form-urlencoded';
}

export function createWebhookHandler(opts: WebhookOptions) {
  if (opts.secrets.length === 0) throw new Error('at least one webhook secret is required');
  const allowance = createAllowance(opts.maxInflightBytes ?? DEFAULT_MAX_INFLIGHT_BYTES);

  const observeAck = opts.observeAck;
  return async function handleWebhook(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (observeAck) {
      // 'finish': the whole answer is handed to the socket. A listener, so no answer path waits on it.
      const started = performance.now();
      res.once('finish', () => observeAck((performance.now() - started) / 1000, res.statusCode));
    }
    if (req.method !== 'POST') return send(res, 405, { error: 'method_not_allowed' });
    const delivery = { delivery: header(req, 'x-github-delivery'), event: header(req, 'x-github-event') };
    const signature = signatureBytes(header(req, 'x-hub-signature-256'));
    let read: { raw: Buffer; valid: boolean };
    try {
      read = await readVerified(req, { maxBytes: opts.maxBytes, allowance, secrets: opts.secrets, signature });
    } catch (err) {
      if (req.socket.destroyed) return; // the request timed out or the client left: nobody to answer
      if (err instanceof HttpError) {
        if (err.status === 503) opts.logger.warn(delivery, 'webhook refused: unverified bytes at their bound');
        return refuse(req, res, err, err.status === 503 ? { 'retry-after': String(RETRY_AFTER_SECONDS) } : {});
      }
      return send(res, 400, { error: 'bad_request' });
    }
    if (!read.valid) {
      // Nothing stored: an unauthenticated request must not be able to write to the database.
      opts.logger.warn(delivery, 'webhook signature rejected');
      return send(res, 401, {
        error: 'bad_signature',
        message: "X-Hub-Signature-256 is missing or does not match: set the webhook's Secret to WEBHOOK_SECRET",
      });
    }
    // Issue 32: GitHub's default content type is form-encoded (`payload=…`); say which setting to change.
    if (isFormEncoded(header(req, 'content-type'))) {
      opts.logger.warn(delivery, 'webhook body is form-encoded: the webhook must send application/json');
      return send(res, 400, {
        status: 400,
        outcome: 'rejected',
        reason: 'malformed_json',
        detail: FORM_ENCODED_DETAIL,
      });
    }
    const eventName = header(req, 'x-github-event');
    if (!eventName) return send(res, 400, { error: 'missing_event_header', message: 'X-GitHub-Event is required' });
    const deliveryId = header(req, 'x-github-delivery') ?? '';
    // JSON travels as UTF-8 (RFC 8259 §8.1): a signed body that is not is refused, not repaired,
    // since a repaired text would no longer be the bytes GitHub signed.
    if (!isUtf8(read.raw)) {
      opts.logger.warn(delivery, 'webhook body is not UTF-8');
      return send(res, 400, {
        status: 400,
        outcome: 'rejected',
        reason: 'malformed_json',
        detail: 'body is not valid UTF-8',
      });
    }
    try {
      const answer = await opts.ingestor.ingest({ deliveryId, eventName, raw: read.raw.toString('utf8') });
      send(res, answer.status, answer);
    } catch (err) {
      opts.logger.error({ err, deliveryId }, 'delivery not stored');
      send(res, 503, { error: 'not_stored', message: 'the delivery could not be stored; redeliver it' });
    }
  };
}
