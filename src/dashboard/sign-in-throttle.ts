// Sign-in guesses, throttled per client (SPEC M4, A1; issue 31): after a handful of wrong tokens
// within a minute, a client's sign-ins are refused (429 with Retry-After) until its minute is over.
// Held in memory, per process: it is a rate limit, not an exactly-once rule — a restart or another
// replica starts afresh, which grants a few more guesses of a long token, nothing more. Time is a
// parameter, so the rule is tested without a clock. Decision 0045.
import { isIPv4, isIPv6 } from 'node:net';

/** Wrong tokens a client may send within one window before it is refused. */
export const SIGN_IN_FAILURES_ALLOWED = 10;
/** The window: a person who mistyped ten times waits at most this long. */
export const SIGN_IN_WINDOW_MS = 60_000;
/** Clients remembered at once: past it the one remembered longest is forgotten, so a spray of addresses cannot grow memory. */
export const SIGN_IN_CLIENTS_REMEMBERED = 10_000;

export type ThrottleVerdict = { kind: 'allow' } | { kind: 'refuse'; retryAfterSeconds: number };

export interface SignInThrottle {
  /** May `client` try a sign-in now? */
  check(client: string, nowMs: number): ThrottleVerdict;
  /** `client` sent a wrong token: its failures in this window, and whether this one is the failure that starts its refusal. */
  failed(client: string, nowMs: number): { failures: number; throttledNow: boolean };
}

export function createSignInThrottle(
  o: { allowed?: number; windowMs?: number; remembered?: number } = {},
): SignInThrottle {
  const allowed = o.allowed ?? SIGN_IN_FAILURES_ALLOWED;
  const windowMs = o.windowMs ?? SIGN_IN_WINDOW_MS;
  const remembered = o.remembered ?? SIGN_IN_CLIENTS_REMEMBERED;
  // Per client: when its window began and its failures since. Insertion order is window order, so
  // the first entries are the oldest and expired ones are dropped from the front.
  const clients = new Map<string, { since: number; failures: number }>();
  const current = (client: string, nowMs: number) => {
    const entry = clients.get(client);
    if (entry && nowMs - entry.since < windowMs) return entry;
    if (entry) clients.delete(client);
    return null;
  };
  const forgetExpired = (nowMs: number) => {
    for (const [client, entry] of clients) {
      if (nowMs - entry.since < windowMs && clients.size < remembered) return;
      clients.delete(client);
    }
  };
  return {
    check(client, nowMs) {
      const entry = current(client, nowMs);
      if (!entry || entry.failures < allowed) return { kind: 'allow' };
      return { kind: 'refuse', retryAfterSeconds: Math.max(1, Math.ceil((entry.since + windowMs - nowMs) / 1000)) };
    },
    failed(client, nowMs) {
      const entry = current(client, nowMs);
      if (entry) {
        entry.failures++;
        return { failures: entry.failures, throttledNow: entry.failures === allowed };
      }
      forgetExpired(nowMs);
      clients.set(client, { since: nowMs, failures: 1 });
      return { failures: 1, throttledNow: allowed === 1 };
    },
  };
}

/**
 * The client a socket address stands for: an IPv4 address (also when IPv4-mapped), or an IPv6
 * address's /64 — one host is usually given a whole /64, so counting single addresses would let it
 * guess from 2^64 of them.
 */
export function clientOfAddress(address: string | undefined): string {
  if (!address) return 'unknown';
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped && isIPv4(mapped[1]!)) return mapped[1]!;
  if (!isIPv6(address)) return address;
  const [head = '', tail = ''] = address.split('%')[0]!.split('::');
  const left = head ? head.split(':') : [];
  const right = address.includes('::') && tail ? tail.split(':') : [];
  const groups = address.includes('::')
    ? [...left, ...Array(8 - left.length - right.length).fill('0'), ...right]
    : left;
  return `${groups
    .slice(0, 4)
    .map((g) => Number.parseInt(g, 16).toString(16))
    .join(':')}::/64`;
}
