// GET /metrics (SPEC N2): the Prometheus exposition, behind a bearer token — the API token or the
// metrics-only FIXLOOP_METRICS_TOKEN, so a scraper need not hold the whole API. Every configured
// token is compared, each in constant time, so the time says neither whether nor which one matched.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { bearerOf, sameSecret } from './auth.js';

export interface MetricsRouteOptions {
  /** The exposition text, read now (src/metrics/metrics.ts, wired by main.ts). */
  scrape(): Promise<{ contentType: string; body: string }>;
  apiToken: string | null;
  metricsToken: string | null;
}

export function createMetricsHandler(opts: MetricsRouteOptions) {
  const tokens = [opts.apiToken, opts.metricsToken].filter((t): t is string => t !== null);
  const allowed = (header: string | undefined): boolean => {
    // No token at all: a loopback-only install, open like the API (config refuses it off loopback).
    if (tokens.length === 0) return true;
    const given = bearerOf(header);
    if (given === null) return false;
    let ok = false;
    for (const t of tokens) ok = sameSecret(given, t) || ok;
    return ok;
  };

  return async function handleMetrics(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain' }).end('method not allowed\n');
      return;
    }
    if (!allowed(req.headers.authorization)) {
      res
        .writeHead(401, { 'www-authenticate': 'Bearer realm="fixloop-metrics"', 'content-type': 'text/plain' })
        .end('Authorization: Bearer <FIXLOOP_METRICS_TOKEN or FIXLOOP_API_TOKEN> is required\n');
      return;
    }
    const { contentType, body } = await opts.scrape();
    res.writeHead(200, { 'content-type': contentType, 'content-length': String(Buffer.byteLength(body)) });
    res.end(req.method === 'HEAD' ? undefined : body);
  };
}
