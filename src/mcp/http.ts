// `/mcp` over streamable HTTP (SPEC M3), stateless: each POST gets a fresh server and transport
// bound to the run its `Authorization: Bearer <FIXLOOP_RUN_TOKEN>` resolves to, so nothing is kept
// between requests and any replica can answer. The credential is checked before any MCP handling
// (401 JSON); the body is capped by the transport (413); GET and DELETE are 405 (no sessions).
// Before all of that, Host and Origin must name fixloop (the transport spec's DNS-rebinding rule,
// issue 31): a page on another site whose name was rebound to fixloop's address gets a 403.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { seenAs } from '../core/forwarded.js';
import { AGENT_OPS_ERROR_STATUS, AgentOpsError, type AgentOps, type ResolveRun } from '../app/agent-ops-port.js';
import { createMcpServer, type McpServerOptions } from './server.js';

/** Default cap on a request body: a tool call here is a few hundred bytes. */
const MCP_MAX_BODY_BYTES = 64 * 1024;

export interface McpHttpOptions {
  /** Largest request body read, in bytes (default MCP_MAX_BODY_BYTES); larger is 413. */
  maxBodyBytes?: number;
  /** Told about unexpected failures: of the resolver, the transport, or a tool. */
  onError?: (err: unknown, where: string) => void;
  /**
   * The addresses fixloop is reached at (FIXLOOP_AGENT_URL, FIXLOOP_PUBLIC_URL) and HOST: their host
   * names, and loopback's, are the only ones a request's Host and Origin may name. Default: loopback only.
   */
  addresses?: { urls: readonly string[]; listenHost: string };
  /** How many proxies in front of a peer are believed (FIXLOOP_TRUST_PROXY): then the forwarded host is checked. */
  proxyTrust?: (peer: string | undefined) => number;
}

/** Names that always mean this machine. URL.hostname writes IPv6 in brackets. */
const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]'];

/**
 * The host names a request to /mcp may carry in Host or Origin (port-agnostic, as the SDK's own
 * hostHeaderValidation): loopback, the configured URLs' hosts, and HOST unless it is a wildcard.
 */
export function allowedHostnames(addresses: McpHttpOptions['addresses']): Set<string> {
  const names = new Set(LOOPBACK_NAMES);
  for (const url of addresses?.urls ?? []) names.add(new URL(url).hostname.toLowerCase());
  const host = addresses?.listenHost.toLowerCase();
  if (host && host !== '0.0.0.0' && host !== '::' && host !== '[::]')
    names.add(host.includes(':') ? `[${host}]` : host);
  return names;
}

function hostnameOf(url: string): string | null {
  try {
    return new URL(url).hostname.toLowerCase();
  } catch {
    return null;
  }
}

/** Why a request's Host or Origin is refused, or null when both name fixloop. */
function foreignAddress(
  req: IncomingMessage,
  allowed: ReadonlySet<string>,
  trust: (peer: string | undefined) => number,
): string | null {
  const host = req.headers.host;
  if (!host) return 'the request has no Host header';
  const peer = req.socket.remoteAddress;
  let seen: string;
  try {
    seen = seenAs({
      url: `http://${host}/`,
      header: (name) => {
        const v = req.headers[name];
        return Array.isArray(v) ? v.join(',') : v;
      },
      peer,
      trustedHops: trust(peer),
    }).host;
  } catch {
    return `the Host header ${JSON.stringify(host)} is not a host name`;
  }
  const name = hostnameOf(`http://${seen}`);
  if (name === null || !allowed.has(name))
    return `the Host ${JSON.stringify(seen)} is not one of fixloop's addresses (set FIXLOOP_AGENT_URL to the address agents use)`;
  const origin = req.headers.origin;
  if (origin !== undefined) {
    const o = /^https?:\/\//i.test(origin) ? hostnameOf(origin) : null;
    if (o === null || !allowed.has(o)) return `the Origin ${JSON.stringify(origin)} is not one of fixloop's addresses`;
  }
  return null;
}

export type McpHttpHandler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

const MISSING_TOKEN = "send this run's FIXLOOP_RUN_TOKEN as 'Authorization: Bearer <token>'";

/**
 * RFC 6750 §3: the error and its description in the challenge itself. An MCP client that finds no
 * error there takes the 401 for "OAuth required" and shows that instead of why fixloop refused.
 */
export function bearerChallenge(error: 'invalid_request' | 'invalid_token', description: string): string {
  // error_description is a quoted-string of printable ASCII other than '"' and '\\'.
  const text = description.replace(/[^\x20-\x7e]|["\\]/g, "'");
  return `Bearer realm="fixloop-mcp", error="${error}", error_description="${text}"`;
}

export function createMcpHttpHandler(resolve: ResolveRun, opts: McpHttpOptions = {}): McpHttpHandler {
  const maxBodyBytes = opts.maxBodyBytes ?? MCP_MAX_BODY_BYTES;
  if (!(Number.isInteger(maxBodyBytes) && maxBodyBytes > 0))
    throw new RangeError(`maxBodyBytes must be a positive integer, got ${maxBodyBytes}`);
  const allowed = allowedHostnames(opts.addresses);
  const trust = opts.proxyTrust ?? (() => 0);
  const serverOpts: McpServerOptions = opts.onError
    ? { onError: (err, tool) => opts.onError?.(err, `tool ${tool}`) }
    : {};

  return async (req, res) => {
    // DNS rebinding (MCP transport spec): checked before the token, like a wrong door before a wrong key.
    const foreign = foreignAddress(req, allowed, trust);
    if (foreign !== null) {
      sendJson(res, 403, { jsonrpc: '2.0', error: { code: -32000, message: `Forbidden: ${foreign}` }, id: null });
      return;
    }
    const token = bearerToken(req.headers.authorization);
    if (token === null) {
      sendJson(
        res,
        401,
        { error: 'unauthorized', message: MISSING_TOKEN },
        { 'www-authenticate': bearerChallenge('invalid_request', MISSING_TOKEN) },
      );
      return;
    }
    let ops: AgentOps;
    try {
      ops = await resolve(token);
    } catch (err) {
      if (err instanceof AgentOpsError) {
        const extra =
          err.code === 'unauthorized'
            ? { 'www-authenticate': bearerChallenge('invalid_token', err.message) }
            : undefined;
        sendJson(res, AGENT_OPS_ERROR_STATUS[err.code], { error: err.code, message: err.message }, extra);
      } else {
        opts.onError?.(err, 'resolve run token');
        sendJson(res, 503, {
          error: 'unavailable',
          message: 'fixloop cannot check the run token just now; try again later',
        });
      }
      return;
    }
    if (req.method !== 'POST') {
      // Stateless: no standalone SSE stream (GET) and no session to delete (DELETE).
      sendJson(
        res,
        405,
        {
          jsonrpc: '2.0',
          error: { code: -32000, message: 'Method not allowed: this MCP endpoint is stateless, POST only' },
          id: null,
        },
        { allow: 'POST' },
      );
      return;
    }

    const server = createMcpServer(ops, serverOpts);
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
      maxRequestBodySize: maxBodyBytes,
    });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    try {
      await server.connect(transport);
      await transport.handleRequest(req, res);
    } catch (err) {
      opts.onError?.(err, 'mcp request');
      if (!res.headersSent)
        sendJson(res, 500, { jsonrpc: '2.0', error: { code: -32603, message: 'Internal error' }, id: null });
      else res.end();
    }
  };
}

/** The token of `Authorization: Bearer <token>`, or null when there is none. */
function bearerToken(header: string | undefined): string | null {
  const m = /^Bearer[ \t]+([^\s]+)[ \t]*$/i.exec(header ?? '');
  return m?.[1] ?? null;
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    'cache-control': 'no-store',
    ...headers,
  });
  res.end(text);
}
