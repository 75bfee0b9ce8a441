// `/mcp` for agents (SPEC M3), loaded on first use: the MCP SDK is the largest part of a fresh
// process's memory and only agents use it, so it is imported with the first request to /mcp, not at
// start-up (the webhook path never needs it).
import type { ResolveRun } from '../app/agent-ops-port.js';
import type { Logger } from '../app/ports.js';
import type { McpHttpHandler, McpHttpOptions } from '../mcp/http.js';

export function lazyMcpHandler(
  resolveRun: ResolveRun,
  opts: { logger: Logger } & Required<Pick<McpHttpOptions, 'addresses' | 'proxyTrust'>>,
): McpHttpHandler {
  let mcp: Promise<McpHttpHandler> | null = null;
  return async (req, res) => {
    mcp ??= import('../mcp/http.js').then(
      (m) =>
        m.createMcpHttpHandler(resolveRun, {
          onError: (err, where) => opts.logger.error({ err, where }, 'mcp error'),
          // M3 (issue 31): Host and Origin must name fixloop, or a rebound DNS name could reach /mcp.
          addresses: opts.addresses,
          proxyTrust: opts.proxyTrust,
        }),
      (err: unknown) => {
        // Not cached: the next request tries the import again.
        mcp = null;
        throw err;
      },
    );
    return (await mcp)(req, res);
  };
}
