// POST /api/gitlab/webhooks (issue 19, SPEC Q1; decisions 0032, 0036): GitLab's `X-Gitlab-Token` is
// compared in constant time with every configured secret (rotation) before a byte of the body is read,
// so an unauthenticated sender never makes fixloop hold its body; the body is then capped while it
// streams (413). Where signing tokens are configured, the body's HMAC signature (GitLab's signed
// webhooks, in the Standard Webhooks format) must verify too, within five minutes of its timestamp.
// Then it goes to the same ingest use-case as GitHub's, answered once its commit is done.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isUtf8 } from 'node:buffer';
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Ingestor } from '../app/ingest.js';
import type { Logger } from '../app/ports.js';
import { Webhook } from 'standardwebhooks';
import { HttpError, header, refuse, send } from '../hosts/webhook-edge.js';

export interface GitlabWebhookOptions {
  /** GITLAB_WEBHOOK_SECRET's entries; with no signing token either, the route answers 404. */
  secrets: readonly string[];
  /** GITLAB_WEBHOOK_SIGNING_TOKEN's entries (`whsec_…`): each body's signature must verify with one. */
  signingTokens?: readonly string[];
  maxBytes: number;
  /**
   * With signing tokens and no shared secret, bodies are held before anything authenticates them:
   * at most this many bytes at once across requests (WEBHOOK_MAX_INFLIGHT_BYTES), else 503.
   */
  maxInflightBytes?: number;
  ingestor: Pick<Ingestor, 'ingest'>;
  logger: Logger;
  /** Told how long each request took from reaching the handler to its answer being sent (metrics, N2). */
  observeAck?: (seconds: number, status: number) => void;
}

/** Longer delivery keys are replaced by their digest, so the ledger's delivery id stays short. */
const MAX_DELIVERY_ID_CHARS = 128;

const digest = (s: string | Buffer): Buffer => createHash('sha256').update(s).digest();

/**
 * Constant time per secret: both sides are hashed to the same length first (timingSafeEqual needs
 * equal lengths, and a length check would say how long the secret is); every secret is tried, so the
 * time does not say which one matched.
 */
function tokenMatches(given: string | undefined, secrets: readonly Buffer[]): boolean {
  if (given === undefined || given === '') return false;
  const g = digest(given);
  let ok = false;
  for (const s of secrets) ok = timingSafeEqual(g, s) || ok;
  return ok;
}

/** Read the whole body, refusing it as soon as it passes the cap (413) without reading the rest. */
function readCapped(req: IncomingMessage, maxBytes: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (req.headers['content-length'] !== undefined && Number.isFinite(declared) && declared > maxBytes) {
    return Promise.reject(
      new HttpError(413, 'payload_too_large', `body of ${declared} bytes is over the ${maxBytes}-byte cap`),
    );
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const fail = (e: unknown): void => {
      done = true;
      chunks.length = 0;
      req.pause();
      reject(e);
    };
    req.on('data', (c: Buffer) => {
      if (done) return;
      size += c.length;
      if (size > maxBytes)
        return fail(new HttpError(413, 'payload_too_large', `body is over the ${maxBytes}-byte cap`));
      chunks.push(c);
    });
    req.on('end', () => {
      if (done) return;
      done = true;
      resolve(Buffer.concat(chunks, size));
      chunks.length = 0;
    });
    req.on('error', (e) => !done && fail(e));
    req.on('close', () => !done && fail(new HttpError(400, 'bad_request', 'the body did not arrive')));
  });
}

/**
 * The delivery's dedupe key (A3 in spirit): GitLab's `Idempotency-Key`, the same on every retry of a
 * delivery; else `X-Gitlab-Event-UUID` (older GitLab); else a digest of the body, which a redelivery
 * repeats byte for byte.
 */
export function gitlabDeliveryId(req: IncomingMessage, raw: Buffer): string {
  const key = header(req, 'idempotency-key')?.trim() || header(req, 'x-gitlab-event-uuid')?.trim();
  if (!key) return `sha256:${digest(raw).toString('hex')}`;
  return key.length <= MAX_DELIVERY_ID_CHARS ? key : `sha256:${digest(key).toString('hex')}`;
}

/**
 * Why the body's signature does not hold under any signing token; null when one verifies it. The
 * library checks the timestamp (five minutes either way, so a captured delivery cannot be replayed
 * later) and compares signatures in constant time; every token is tried.
 */
function signatureProblem(req: IncomingMessage, raw: Buffer, signers: readonly Webhook[]): string | null {
  const headers = {
    'webhook-id': header(req, 'webhook-id') ?? '',
    'webhook-timestamp': header(req, 'webhook-timestamp') ?? '',
    'webhook-signature': header(req, 'webhook-signature') ?? '',
  };
  let problem = 'no signing token matched';
  for (const signer of signers) {
    try {
      signer.verify(raw, headers, { jsonParse: false });
      return null;
    } catch (err) {
      problem = (err as Error).message;
    }
  }
  return problem;
}

export function createGitlabWebhookHandler(opts: GitlabWebhookOptions) {
  const secrets = opts.secrets.map((s) => digest(s));
  const signers = (opts.signingTokens ?? []).map((t) => new Webhook(t));
  let unverified = 0;
  const maxUnverified = opts.maxInflightBytes ?? 32 * 1024 * 1024;
  const observeAck = opts.observeAck;
  return async function handleGitlabWebhook(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (observeAck) {
      const started = performance.now();
      res.once('finish', () => observeAck((performance.now() - started) / 1000, res.statusCode));
    }
    // Not configured: nothing is here to talk to (decision 0032), and no token is ever compared.
    if (secrets.length === 0 && signers.length === 0)
      return send(res, 404, {
        error: 'not_found',
        message: 'GitLab webhooks are not configured (GITLAB_WEBHOOK_SECRET or GITLAB_WEBHOOK_SIGNING_TOKEN)',
      });
    if (req.method !== 'POST') return send(res, 405, { error: 'method_not_allowed' });
    const event = header(req, 'x-gitlab-event');
    if (secrets.length > 0 && !tokenMatches(header(req, 'x-gitlab-token'), secrets)) {
      // Nothing read, nothing stored: an unauthenticated request must not be able to write to the database.
      opts.logger.warn({ event }, 'gitlab webhook token rejected');
      return refuse(
        req,
        res,
        new HttpError(
          401,
          'bad_token',
          "X-Gitlab-Token is missing or does not match: set the webhook's Secret token to GITLAB_WEBHOOK_SECRET",
        ),
      );
    }
    // Only a signature stands between this body and the sender: what may be held at once is capped.
    const declared = Number(req.headers['content-length']);
    const hold =
      secrets.length > 0
        ? 0
        : Number.isFinite(declared) && declared >= 0
          ? Math.min(declared, opts.maxBytes)
          : opts.maxBytes;
    if (hold > 0 && unverified + hold > maxUnverified)
      return refuse(req, res, new HttpError(503, 'busy', 'too many unverified webhook bytes are held; retry later'));
    unverified += hold;
    let raw: Buffer;
    try {
      raw = await readCapped(req, hold > 0 ? hold : opts.maxBytes);
    } catch (err) {
      if (req.socket.destroyed) return; // the request timed out or the client left: nobody to answer
      if (err instanceof HttpError) return refuse(req, res, err);
      return send(res, 400, { error: 'bad_request' });
    } finally {
      // The signature is checked synchronously below: once read, the body is judged before anything else runs.
      unverified -= hold;
    }
    if (signers.length > 0) {
      const problem = signatureProblem(req, raw, signers);
      if (problem !== null) {
        opts.logger.warn({ event, problem }, 'gitlab webhook signature rejected');
        return refuse(req, res, new HttpError(401, 'bad_signature', `webhook-signature does not verify: ${problem}`));
      }
    }
    if (!event) return send(res, 400, { error: 'missing_event_header', message: 'X-Gitlab-Event is required' });
    if (!isUtf8(raw)) {
      opts.logger.warn({ event }, 'gitlab webhook body is not UTF-8');
      return send(res, 400, {
        status: 400,
        outcome: 'rejected',
        reason: 'malformed_json',
        detail: 'body is not valid UTF-8',
      });
    }
    const deliveryId = gitlabDeliveryId(req, raw);
    try {
      const answer = await opts.ingestor.ingest({
        deliveryId,
        eventName: event,
        raw: raw.toString('utf8'),
        provider: 'gitlab',
      });
      send(res, answer.status, answer);
    } catch (err) {
      opts.logger.error({ err, deliveryId }, 'gitlab delivery not stored');
      send(res, 503, { error: 'not_stored', message: 'the delivery could not be stored; redeliver it' });
    }
  };
}
