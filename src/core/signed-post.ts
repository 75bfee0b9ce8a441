// The two rules every JSON POST fixloop sends outward follows (L1 runner, G1/P4 notice sinks): the
// body is signed `sha256=<hex HMAC-SHA256 of the exact body>` for `X-Fixloop-Signature-256`, and
// the URL is https, or plain http only to this machine (nothing secret crosses a network in clear).
import { createHmac } from 'node:crypto';

export const LOOPBACK_HOSTS: ReadonlySet<string> = new Set(['127.0.0.1', '[::1]', 'localhost']);

export function signBody(secret: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(body, 'utf8').digest('hex')}`;
}

/** Why `raw` may not receive a POST from fixloop; null when it may. */
export function outboundUrlProblem(raw: string): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return `is not a URL: ${JSON.stringify(raw)}`;
  }
  if (url.protocol === 'https:') return null;
  if (url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname)) return null;
  return `must be https (plain http is allowed only for 127.0.0.1, ::1 or localhost): ${url.origin}`;
}
