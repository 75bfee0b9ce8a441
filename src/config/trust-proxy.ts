// FIXLOOP_TRUST_PROXY (issue 31, decision 0046): which proxy in front is believed about scheme, host
// and client — none by default, a hop count, or the proxies' addresses and CIDR ranges.
import { isIP } from 'node:net';
import { z } from 'zod';

/**
 * FIXLOOP_TRUST_PROXY as read (issue 31, decision 0046): null believes no proxy; otherwise how many
 * proxies stand in front (hops), and the peer addresses or CIDR ranges they are seen from (null: any).
 */
export interface TrustProxySetting {
  readonly hops: number;
  readonly addresses: readonly string[] | null;
}

/** `false` (default), `true` (one proxy), a hop count, or a comma-separated list of proxy addresses / CIDR ranges. */
export const trustProxy = z.string().transform((raw, ctx): TrustProxySetting | null => {
  const v = raw.trim().toLowerCase();
  if (v === '' || v === 'false' || v === '0') return null;
  if (v === 'true') return { hops: 1, addresses: null };
  if (/^\d+$/.test(v)) {
    const hops = Number(v);
    if (hops <= 10) return { hops, addresses: null };
    ctx.addIssue({ code: 'custom', message: 'must be at most 10 hops' });
    return z.NEVER;
  }
  const addresses = v
    .split(',')
    .map((a) => a.trim())
    .filter((a) => a !== '');
  const bad = addresses.filter((a) => !isAddressOrRange(a));
  if (bad.length > 0 || addresses.length === 0) {
    ctx.addIssue({
      code: 'custom',
      message: `must be false, true, a hop count or proxy addresses (IP or CIDR, comma-separated); not ${bad.join(', ') || raw}`,
    });
    return z.NEVER;
  }
  return { hops: 1, addresses };
});

function isAddressOrRange(a: string): boolean {
  const [ip, prefix, ...rest] = a.split('/');
  const family = isIP(ip ?? '');
  if (family === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128);
}
