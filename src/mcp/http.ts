// `/mcp` over streamable HTTP (SPEC M3), stateless: each POST gets a fresh server and transport
// bound to the run its `Authorization: Bearer <FIXLOOP_RUN_TOKEN>` resolves to, so nothing is kept
// between requests and any replica can answer. The credential is checked before any MCP handling
// (401 JSON); the body is capped by the transport (413); GET and DELETE are 405 (no sessions).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { AGENT_OPS_ERROR_STATUS, AgentOpsError, type AgentOps, type ResolveRun } from '../app/agent-ops-port.js';
import { createMcpServer, type McpServerOptions } from './server.js';

/** Default cap on a request body: a tool call here is a few hundred bytes. */
const MCP_MAX_BODY_BYTES = 64 * 1024;

export interface McpHttpOptions {
  /** Largest request body read, in bytes (default MCP_MAX_BODY_BYTES); larger is 413. */
  maxBodyBytes?: number;
  /** Told about unexpected failures: of the resolver, the transport, or a tool. */
  onError?: (err: unknown, where: string) => void;
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
  const serverOpts: McpServerOptions = opts.onError
    ? { onError: (err, tool) => opts.onError?.(err, `tool ${tool}`) }
    : {};

  return async (req, res) => {
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
