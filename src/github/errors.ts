// Maps whatever Octokit throws to the port's ProviderError once, at the edge: the status, a message
// that names the request but never its headers (tokens), and whether trying again later may help
// (5xx, network failures, rate limits that outlasted the throttling plugin's patience). SPEC E4.
import { ProviderError } from '../app/provider-port.js';

interface RequestErrorLike {
  status: number;
  message: string;
  response?: { headers?: Record<string, string | number | undefined> } | undefined;
}

function isRequestErrorLike(err: unknown): err is RequestErrorLike {
  return err instanceof Error && typeof (err as { status?: unknown }).status === 'number';
}

function isRateLimited(
  status: number,
  headers: Record<string, string | number | undefined> | undefined,
  message: string,
): boolean {
  if (status === 429) return true;
  if (status !== 403) return false;
  return (
    String(headers?.['x-ratelimit-remaining'] ?? '') === '0' ||
    headers?.['retry-after'] !== undefined ||
    /rate limit/i.test(message)
  );
}

function isRetryable(
  status: number,
  headers: Record<string, string | number | undefined> | undefined,
  message: string,
): boolean {
  return status >= 500 || status === 408 || isRateLimited(status, headers, message);
}

/**
 * An HTTP answer (or a network failure, which Octokit reports as status 500) becomes a ProviderError;
 * anything else (a malformed private key, a bug) is unexpected and is returned unchanged.
 * `what` names the call (e.g. "GET /repos/acme/shop/pulls/7"); it must not carry credentials.
 */
export function toProviderError(err: unknown, what: string): unknown {
  if (err instanceof ProviderError || !isRequestErrorLike(err)) return err;
  const headers = err.response?.headers;
  return new ProviderError(
    err.status,
    `${what}: ${err.status} ${err.message}`,
    isRetryable(err.status, headers, err.message),
  );
}
