// How a request was addressed when a proxy stands in front (issue 31; SPEC M3, M4): the scheme and
// host the browser or agent used, and the client's address. X-Forwarded-Proto/-Host/-For (or, when
// none of those is sent, RFC 7239 `Forwarded`) are believed only from a trusted proxy, and then only
// the value the outermost trusted proxy wrote, counted from the right; otherwise the request's own
// URL and peer. Pure: the caller says how many proxies it trusts for this peer (FIXLOOP_TRUST_PROXY).

export interface RequestAddress {
  /** The request's URL as the server saw it: the socket's scheme and the Host header. */
  url: string;
  /** A request header, by lower-case name. */
  header(name: string): string | undefined;
  /** The socket's peer address. */
  peer: string | undefined;
  /** How many proxies in front are trusted for this request: 0 ignores every forwarded header. */
  trustedHops: number;
}

export interface SeenAs {
  /** `https:` or `http:`, as the client used it. */
  protocol: 'http:' | 'https:';
  /** host[:port] as the client addressed it. */
  host: string;
  /** `${protocol}//${host}`: what a browser sends as its Origin. */
  origin: string;
  /** The client's address: the peer, or the one the outermost trusted proxy saw. */
  client: string | undefined;
}

// A host[:port] as a Host header carries it: a name, an IPv4 address or a bracketed IPv6 one.
const HOST = /^(?:[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

/** The list a header carries, split on commas, trimmed, blanks dropped. */
function list(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((v) => v.trim())
    .filter((v) => v !== '');
}

/** The entry the outermost of `hops` trusted proxies wrote: proxies append, so it is counted from the right. */
function outermost<T>(values: readonly T[], hops: number): T | undefined {
  return values.length === 0 ? undefined : values[Math.max(0, values.length - hops)];
}

/** RFC 7239 elements: `for=…;proto=…;host=…, for=…`, each a map of lower-case keys to unquoted values. */
export function parseForwarded(value: string | undefined): Map<string, string>[] {
  const elements: Map<string, string>[] = [];
  // Commas and semicolons inside quoted strings do not separate.
  for (const element of (value ?? '').match(/(?:[^,"]|"(?:[^"\\]|\\.)*")+/g) ?? []) {
    const pairs = new Map<string, string>();
    for (const pair of element.match(/(?:[^;"]|"(?:[^"\\]|\\.)*")+/g) ?? []) {
      const eq = pair.indexOf('=');
      if (eq <= 0) continue;
      const key = pair.slice(0, eq).trim().toLowerCase();
      let v = pair.slice(eq + 1).trim();
      if (v.startsWith('"') && v.endsWith('"') && v.length >= 2) v = v.slice(1, -1).replace(/\\(.)/g, '$1');
      pairs.set(key, v);
    }
    if (pairs.size > 0) elements.push(pairs);
  }
  return elements;
}

/** How the request was addressed and by whom, believing forwarded headers only from trusted proxies. */
export function seenAs(req: RequestAddress): SeenAs {
  const own = new URL(req.url);
  let protocol: SeenAs['protocol'] = own.protocol === 'https:' ? 'https:' : 'http:';
  let host = own.host;
  let client = req.peer;
  const hops = req.trustedHops;
  if (hops > 0) {
    const xProto = list(req.header('x-forwarded-proto'));
    const xHost = list(req.header('x-forwarded-host'));
    const xFor = list(req.header('x-forwarded-for'));
    let proto: string | undefined;
    let fwdHost: string | undefined;
    let fwdFor: string | undefined;
    if (xProto.length > 0 || xHost.length > 0 || xFor.length > 0) {
      proto = outermost(xProto, hops);
      fwdHost = outermost(xHost, hops);
      fwdFor = outermost(xFor, hops);
    } else {
      const element = outermost(parseForwarded(req.header('forwarded')), hops);
      proto = element?.get('proto');
      fwdHost = element?.get('host');
      fwdFor = element?.get('for');
    }
    const p = proto?.toLowerCase();
    if (p === 'https' || p === 'http') protocol = `${p}:`;
    if (fwdHost !== undefined && HOST.test(fwdHost)) host = fwdHost.toLowerCase();
    if (fwdFor !== undefined && fwdFor !== '') client = fwdFor.replace(/^\[([^\]]+)\](?::\d+)?$/, '$1');
  }
  // A default port is not part of an origin: https://x:443 is https://x.
  let url: URL;
  try {
    url = new URL(`${protocol}//${host}`);
  } catch {
    url = new URL(`${protocol}//${own.host}`); // a forwarded port out of range: the request's own host
  }
  return { protocol, host: url.host, origin: url.origin, client };
}
