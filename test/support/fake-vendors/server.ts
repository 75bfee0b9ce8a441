// What the fake vendors share: a real loopback HTTP server that routes by method and path pattern,
// checks the API key the vendor's way, and records anything it was not told to expect as a violation
// (a strict double: a request it does not know fails the test at close).
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { closeServer, listenLoopback } from '../loopback.js';

export interface FakeRequest {
  method: string;
  path: string;
  params: Record<string, string>;
  headers: IncomingMessage['headers'];
  body: unknown;
}

export interface FakeRoute {
  method: 'GET' | 'POST';
  /** `/v1/sessions/:id/message`: each `:name` matches one path segment. */
  pattern: string;
  answer(req: FakeRequest): { status: number; body?: unknown };
}

export interface FakeVendorServer {
  url: string;
  requests: FakeRequest[];
  violations: string[];
  close(): Promise<void>;
}

export async function startFakeVendor(
  routes: FakeRoute[],
  authorized: (authorization: string | undefined) => boolean,
): Promise<FakeVendorServer> {
  const requests: FakeRequest[] = [];
  const violations: string[] = [];
  const compiled = routes.map((r) => ({
    ...r,
    re: new RegExp(`^${r.pattern.replace(/:([a-z]+)/g, '(?<$1>[^/]+)')}$`),
  }));
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => {
      const path = (req.url ?? '/').split('?')[0]!;
      const text = Buffer.concat(parts).toString('utf8');
      const send = (status: number, body?: unknown) =>
        res
          .writeHead(status, { 'content-type': 'application/json' })
          .end(body === undefined ? '' : JSON.stringify(body));
      if (!authorized(req.headers.authorization)) return send(401, { detail: 'Invalid API key' });
      for (const r of compiled) {
        const m = r.re.exec(path);
        if (!m || r.method !== req.method) continue;
        let body: unknown = null;
        try {
          body = text === '' ? null : JSON.parse(text);
        } catch {
          violations.push(`${req.method} ${path}: body is not JSON`);
        }
        const params = Object.fromEntries(Object.entries(m.groups ?? {}).map(([k, v]) => [k, decodeURIComponent(v)]));
        const fr = { method: req.method, path, params, headers: req.headers, body };
        requests.push(fr);
        const a = r.answer(fr);
        return send(a.status, a.body);
      }
      violations.push(`unexpected ${req.method} ${path}`);
      send(404, { detail: 'Not Found' });
    });
  });
  const url = await listenLoopback(server);
  return { url, requests, violations, close: () => closeServer(server) };
}
