// Every path fixloop serves, declared in one place: each code host's webhook (SPEC A1, decision 0060) and MCP over streamable
// HTTP (M3) take the raw Node request — the webhook must cap and verify the exact bytes as they
// stream — Prometheus' /metrics (N2) too, and everything else is the JSON API's Hono app (M2:
// health, readiness, /api/*). The server's edge limits are set here too: slow headers and bodies
// are cut, open connections capped (a live-update stream never keeps a webhook out), and every body
// the Hono app serves is bounded by its route class before any route runs (body-limit.ts).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { getRequestListener } from '@hono/node-server';
import { Hono } from 'hono';
import type { Logger } from '../app/ports.js';
import { bodyClassOf, BODY_LIMITS, boundedBodies, tooLargeText } from './body-limit.js';
import { capConnections } from './connection-cap.js';
import type { WebhookRoutes } from './webhook.js';
import { RUNNER_WEBHOOK_PATH } from './runner-webhook.js';
/** Where a resumed agent's MCP client connects with its run token. */
const MCP_PATH = '/mcp';
/** Prometheus scrapes here (N2), with the API or the metrics token. */
const METRICS_PATH = '/metrics';
/** The dashboard's live-update stream (src/dashboard/live-streams.ts): open for as long as a page is. */
export const EVENTS_PATH = '/events';

const pathOf = (req: IncomingMessage) => (req.url ?? '/').split('?')[0]!;

export type NodeHandler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

/**
 * How long a client may take to send its headers, and its whole request (headers ≤ request, as Node
 * requires); how many connections may be open. Defaults and why: src/config/env-schema.ts.
 */
export interface EdgeLimits {
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  maxConnections: number;
}

export function createRouter(
  routes: {
    /** Each registered code host's webhook path and receiver (decision 0060). */
    webhooks: WebhookRoutes;
    mcp: NodeHandler;
    api: Hono;
    logger: Logger;
    metrics?: NodeHandler;
    /** R2: a `session` runner's vendor webhook (runner-webhook.ts), when the runner takes one. */
    runnerWebhook?: NodeHandler;
  },
  limits: EdgeLimits,
): Server {
  // Bodies are bounded in front of the whole app, so no route (nor its sign-in or token check) reads an unbounded one.
  const edge = new Hono();
  edge.use('*', boundedBodies());
  edge.all('*', (c) => routes.api.fetch(c.req.raw, c.env));
  const api = getRequestListener(edge.fetch);
  // The paths that take the raw request and bound its body themselves.
  const ownRaw = new Set([...routes.webhooks.paths, MCP_PATH, METRICS_PATH, RUNNER_WEBHOOK_PATH]);
  const raw = (handler: NodeHandler, what: string) => (req: IncomingMessage, res: ServerResponse) => {
    handler(req, res).catch((err: unknown) => {
      routes.logger.error({ err }, `${what} handler failed`);
      if (!res.headersSent) res.writeHead(500).end();
    });
  };
  const webhooks = new Map(
    routes.webhooks.paths.map((p) => [p, raw(routes.webhooks.receiverFor(p)!, `webhook ${p}`)] as const),
  );
  const mcp = raw(routes.mcp, 'mcp');
  const metrics = routes.metrics ? raw(routes.metrics, 'metrics') : null;
  const runnerWebhook = routes.runnerWebhook ? raw(routes.runnerWebhook, 'runner webhook') : null;
  const server = createServer(
    {
      // Node answers 408 and closes the connection; a connection that sends nothing is cut at the headers' bound.
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      // How often those bounds are checked: a slow client is cut within this much of its bound (default 30 s).
      connectionsCheckingInterval: Math.min(500, limits.headersTimeoutMs),
    },
    (req, res) => {
      const path = pathOf(req);
      const webhook = webhooks.get(path);
      if (webhook) return webhook(req, res);
      if (path === MCP_PATH) return mcp(req, res);
      if (path === METRICS_PATH && metrics) return metrics(req, res);
      if (path === RUNNER_WEBHOOK_PATH && runnerWebhook) return runnerWebhook(req, res);
      void api(req, res);
    },
  );
  // A client that asks before sending its body (`Expect: 100-continue`, as curl does past 1 MiB) is
  // told 413 before it sends a byte when the declared length is past its route's limit; a refusal
  // after the body started can only close the connection, which the client may see as a reset.
  server.on('checkContinue', (req, res) => {
    const path = pathOf(req);
    const max = ownRaw.has(path) ? Infinity : BODY_LIMITS[bodyClassOf(path)];
    if (Number(req.headers['content-length'] ?? 0) > max)
      return void res
        .writeHead(413, { 'content-type': 'text/plain; charset=UTF-8', connection: 'close' })
        .end(tooLargeText(max));
    res.writeContinue();
    server.emit('request', req, res);
  });
  // A live-update stream is a request that never ends: at the cap it gives way like an idle connection does.
  capConnections(server, limits.maxConnections, (req) => req.method === 'GET' && pathOf(req) === EVENTS_PATH);
  // Longer than the idle timeout of the proxies and load balancers in front (60 s is common).
  server.keepAliveTimeout = 65_000;
  return server;
}
