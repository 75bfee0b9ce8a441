// `fixloop mcp` (SPEC M3): the MCP server over stdio for an agent the command runner started. The
// runner hands the agent FIXLOOP_API_URL and FIXLOOP_RUN_TOKEN; this process serves the tools by
// calling fixloop's `/api/run/*` routes with that token, so it holds no state and chooses no run.
// stdout belongs to MCP: every log line goes to stderr.
import type { Readable, Writable } from 'node:stream';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { Logger } from '../app/ports.js';
import { createApiOps } from './api-ops.js';
import { createMcpServer } from './server.js';

/** The environment is unusable: `fixloop mcp` cannot start (the CLI exits 2). */
export class McpStartupError extends Error {
  override readonly name = 'McpStartupError';
}

export interface McpEnv {
  apiUrl: string;
  token: string;
}

/** FIXLOOP_API_URL and FIXLOOP_RUN_TOKEN, or McpStartupError naming what is missing or wrong. */
function readMcpEnv(env: NodeJS.ProcessEnv): McpEnv {
  const token = env.FIXLOOP_RUN_TOKEN?.trim() ?? '';
  const apiUrl = env.FIXLOOP_API_URL?.trim() ?? '';
  const missing = [...(apiUrl === '' ? ['FIXLOOP_API_URL'] : []), ...(token === '' ? ['FIXLOOP_RUN_TOKEN'] : [])];
  if (missing.length > 0) {
    throw new McpStartupError(
      `${missing.join(' and ')} ${missing.length > 1 ? 'are' : 'is'} not set: \`fixloop mcp\` serves one agent run and ` +
        'needs the URL and run token fixloop gives the agent it resumes',
    );
  }
  let url: URL;
  try {
    url = new URL(apiUrl);
  } catch {
    throw new McpStartupError(`FIXLOOP_API_URL is not a URL: ${JSON.stringify(apiUrl)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new McpStartupError(`FIXLOOP_API_URL must be http(s), got ${url.protocol}`);
  return { apiUrl, token };
}

export interface McpStdioOptions {
  env: NodeJS.ProcessEnv;
  fetch?: typeof fetch;
  stdin?: Readable;
  stdout?: Writable;
  /** Where logs go: stderr, never stdout (stdout is the MCP channel). */
  logger: Logger;
}

/** Serve MCP on stdin/stdout until the client closes stdin. Throws McpStartupError before serving. */
export async function serveMcpStdio(opts: McpStdioOptions): Promise<void> {
  const { apiUrl, token } = readMcpEnv(opts.env);
  const { logger } = opts;
  const ops = createApiOps({ apiUrl, token, ...(opts.fetch ? { fetch: opts.fetch } : {}) });
  const server = createMcpServer(ops, { onError: (err, tool) => logger.error({ err, tool }, 'mcp tool failed') });
  const stdin = opts.stdin ?? process.stdin;
  const transport = new StdioServerTransport(stdin, opts.stdout ?? process.stdout);

  const closed = new Promise<void>((resolve) => {
    server.server.onclose = () => resolve();
  });
  transport.onerror = (err) => logger.warn({ err }, 'mcp stdio transport error');
  // The SDK's transport does not watch for the end of stdin: the client going away ends the server.
  const onEnd = (): void => void server.close();
  stdin.once('end', onEnd);
  stdin.once('close', onEnd);

  await server.connect(transport);
  logger.info({ apiUrl }, 'fixloop mcp serving one run over stdio');
  await closed;
  stdin.off('end', onEnd);
  stdin.off('close', onEnd);
  logger.info({}, 'fixloop mcp: client closed stdin, exiting');
}
