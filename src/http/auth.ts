// Bearer-token checks for the API (SPEC M2): constant-time, over digests so lengths never leak.
import { createHash, timingSafeEqual } from 'node:crypto';

export function bearerOf(header: string | undefined | null): string | null {
  if (!header) return null;
  const m = /^Bearer\s+(.+)$/i.exec(header.trim());
  return m ? m[1]!.trim() : null;
}

export function sameSecret(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

/** Compare a presented token with a stored sha256 hex digest. */
export function matchesHash(given: string, hashHex: string): boolean {
  const a = createHash('sha256').update(given).digest();
  const b = Buffer.from(hashHex, 'hex');
  return b.length === a.length && timingSafeEqual(a, b);
}
