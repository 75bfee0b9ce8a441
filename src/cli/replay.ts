// `fixloop replay FILE` (SPEC M1, A1): sign a saved delivery with the first WEBHOOK_SECRET and post
// it to a running server's webhook route, as GitHub would. The signed bytes are exactly the bytes
// sent: a raw payload file goes out unchanged, a wrapped `{event, delivery, payload}` file as
// JSON.stringify(payload). A raw file must be UTF-8 (GitHub's own bodies are) so `sign` sees them.
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { sign } from '@octokit/webhooks-methods';
import { callApi } from './api-client.js';
import { resolveConnection } from './connection.js';
import { CliError, prettyBody, type CliIo } from './io.js';

export const WEBHOOK_PATH = '/api/github/webhooks';

export interface ReplayOptions {
  event?: string;
  delivery?: string;
  url?: string;
}

interface Delivery {
  event: string;
  delivery: string;
  body: Uint8Array<ArrayBuffer>;
  text: string;
}

export async function replay(file: string, opts: ReplayOptions, io: CliIo): Promise<number> {
  const secret = io.env.WEBHOOK_SECRET?.split(',')
    .map((s) => s.trim())
    .find((s) => s !== '');
  if (secret === undefined) throw new CliError(2, 'WEBHOOK_SECRET is not set: replay signs with its first secret');
  const { baseUrl } = resolveConnection({ url: opts.url }, io.env);
  const delivery = readDelivery(file, opts);
  const res = await callApi({
    baseUrl,
    method: 'POST',
    path: WEBHOOK_PATH,
    body: delivery.body,
    headers: {
      'content-type': 'application/json',
      'user-agent': 'GitHub-Hookshot/fixloop-replay',
      'x-github-event': delivery.event,
      'x-github-delivery': delivery.delivery,
      'x-hub-signature-256': await sign(secret, delivery.text),
    },
    fetch: io.fetch,
  });
  io.stdout.write(`${res.status} ${res.statusText}\n${prettyBody(res.body)}`);
  return res.ok ? 0 : 1;
}

/** Flags win over the wrapped file's own `event` and `delivery`. */
function readDelivery(file: string, opts: Pick<ReplayOptions, 'event' | 'delivery'>): Delivery {
  let bytes: Uint8Array<ArrayBuffer>;
  try {
    bytes = new Uint8Array(readFileSync(file));
  } catch (err) {
    throw new CliError(2, `cannot read ${file}: ${(err as Error).message}`, { cause: err });
  }
  let text: string;
  try {
    // ignoreBOM keeps a BOM in the text, so signing the text signs exactly these bytes.
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch (err) {
    throw new CliError(2, `${file} is not UTF-8`, { cause: err });
  }
  const parsed = parseJson(text.replace(/^\uFEFF/, ''));
  if (isWrapped(parsed)) {
    const payload = JSON.stringify(parsed.payload);
    return {
      event: opts.event ?? parsed.event,
      delivery: opts.delivery ?? (typeof parsed.delivery === 'string' ? parsed.delivery : randomUUID()),
      body: new TextEncoder().encode(payload),
      text: payload,
    };
  }
  if (opts.event === undefined) {
    throw new CliError(2, `${file} is a raw payload (not {"event", "payload"}): --event NAME is required`);
  }
  return { event: opts.event, delivery: opts.delivery ?? randomUUID(), body: bytes, text };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined; // sent as is with --event: replaying a malformed body is a legitimate test of A1
  }
}

function isWrapped(value: unknown): value is { event: string; delivery?: unknown; payload: object } {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const v = value as Record<string, unknown>;
  return (
    typeof v.event === 'string' && v.payload !== null && typeof v.payload === 'object' && !Array.isArray(v.payload)
  );
}
