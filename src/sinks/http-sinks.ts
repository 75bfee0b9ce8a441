// Notice sinks over HTTP (SPEC G1, P4; decision 0025): a Slack incoming webhook, and a generic webhook
// signed like the http runner (`X-Fixloop-Signature-256`). Each try is one JSON POST with the same
// `Idempotency-Key`; any answer but 2xx, a timeout or no connection is a failed try, told as a value.
import type { NoticeSink, SendResult } from '../app/notice-sink-port.js';
import type { ChangeLinks } from '../core/change-link.js';
import { slackMessage, webhookBody } from '../core/notice-payload.js';
import { BASE_RED_EVENTS, slackBaseRedMessage, webhookBaseRedBody } from '../core/base-red-payload.js';
import { outboundUrlProblem, signBody } from '../core/signed-post.js';
import type { Notice } from '../core/types.js';

export interface HttpSinkOptions {
  name: string;
  /** https, or http only for a loopback host (checked here too, not only in the config). */
  url: string;
  /** Where each repository's changes live on the web, by its host (core/change-link.ts), for the link. */
  links: ChangeLinks;
  timeoutMs: number;
  fetch?: typeof fetch;
}

/** Retry-After in seconds or as an HTTP date, in ms from now; null when absent or unreadable. */
function retryAfterMs(value: string | null, nowMs: number): number | null {
  if (value === null) return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isFinite(at) ? Math.max(0, at - nowMs) : null;
}

async function postJson(
  opts: HttpSinkOptions,
  body: string,
  headers: Record<string, string>,
  signal: AbortSignal,
): Promise<SendResult> {
  const doFetch = opts.fetch ?? fetch;
  const timeout = AbortSignal.timeout(opts.timeoutMs);
  try {
    const res = await doFetch(opts.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': 'fixloop', ...headers },
      body,
      // A redirect would carry the signed body somewhere else; it counts as a failed try instead.
      redirect: 'manual',
      signal: AbortSignal.any([signal, timeout]),
    });
    const text = (await res.text()).slice(0, 300); // drained so the connection is freed
    if (res.status >= 200 && res.status <= 299) return { kind: 'delivered' };
    return {
      kind: 'failed',
      error: `HTTP ${res.status}${text ? `: ${text.replace(/\s+/g, ' ').trim()}` : ''}`,
      retryAfterMs: retryAfterMs(res.headers.get('retry-after'), Date.now()),
    };
  } catch (err) {
    if (signal.aborted) throw err; // shutdown: the worker gives the row back uncounted
    const error = timeout.aborted
      ? `no answer within ${opts.timeoutMs} ms`
      : `could not reach the sink: ${(err as Error).cause instanceof Error ? ((err as Error).cause as Error).message : (err as Error).message}`;
    return { kind: 'failed', error, retryAfterMs: null };
  }
}

function checked<O extends HttpSinkOptions>(opts: O): O {
  const problem = outboundUrlProblem(opts.url);
  if (problem) throw new Error(`notice sink ${opts.name}: url ${problem}`);
  return opts;
}

/** A Slack incoming webhook: the message of core/notice-payload.ts. Slack ignores the extra header. */
export function createSlackSink(options: HttpSinkOptions): NoticeSink {
  const opts = checked(options);
  return {
    name: opts.name,
    kind: 'slack',
    send: (notice: Notice, key: string, signal: AbortSignal) =>
      postJson(opts, JSON.stringify(slackMessage(notice, opts.links)), { 'idempotency-key': key }, signal),
    // Decision 0075: a red base's notice, opened or healed.
    sendBaseRed: (event, red, message, key, signal) =>
      postJson(
        opts,
        JSON.stringify(slackBaseRedMessage(event, red, message, opts.links)),
        { 'idempotency-key': key },
        signal,
      ),
  };
}

/** A signed JSON POST of the notice, for a receiver of your own (dedupe on `Idempotency-Key`). */
export function createWebhookSink(options: HttpSinkOptions & { secret: string }): NoticeSink {
  const opts = checked(options);
  if (!opts.secret) throw new Error(`notice sink ${opts.name}: a secret is required`);
  return {
    name: opts.name,
    kind: 'webhook',
    send(notice: Notice, key: string, signal: AbortSignal) {
      const body = JSON.stringify(webhookBody(notice, opts.links));
      return postJson(
        opts,
        body,
        {
          'idempotency-key': key,
          'x-fixloop-event': 'notice.filed',
          'x-fixloop-signature-256': signBody(opts.secret, body),
        },
        signal,
      );
    },
    sendBaseRed(event, red, message, key, signal) {
      const body = JSON.stringify(webhookBaseRedBody(event, red, message, opts.links));
      return postJson(
        opts,
        body,
        {
          'idempotency-key': key,
          'x-fixloop-event': BASE_RED_EVENTS[event],
          'x-fixloop-signature-256': signBody(opts.secret, body),
        },
        signal,
      );
    },
  };
}
