// FIXLOOP_TRUST_PROXY made into the one question the drivers ask (issue 31, decision 0046): how many
// proxies in front of this request's peer are believed (0: none, forwarded headers are ignored). An
// address list is matched with node's BlockList, IPv4-mapped IPv6 peers as their IPv4 address.
import { BlockList, isIP } from 'node:net';
import type { TrustProxySetting } from '../config/trust-proxy.js';

/** How many proxies are trusted for a request from `peer`. */
export type ProxyTrust = (peer: string | undefined) => number;

export function proxyTrust(setting: TrustProxySetting | null): ProxyTrust {
  if (setting === null) return () => 0;
  const { hops, addresses } = setting;
  if (addresses === null) return () => hops;
  const list = new BlockList();
  for (const a of addresses) {
    const [ip, prefix] = a.split('/') as [string, string | undefined];
    const type = isIP(ip) === 6 ? 'ipv6' : 'ipv4';
    if (prefix === undefined) list.addAddress(ip, type);
    else list.addSubnet(ip, Number(prefix), type);
  }
  return (peer) => {
    if (!peer) return 0;
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(peer)?.[1];
    const address = mapped ?? peer;
    const type = isIP(address);
    if (type === 0) return 0;
    return list.check(address, type === 6 ? 'ipv6' : 'ipv4') ? hops : 0;
  };
}
