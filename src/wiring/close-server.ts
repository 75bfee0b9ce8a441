// Shutdown's last word to the HTTP server (V4): whatever a client holds open, it ends in time.
import type { Server } from 'node:http';

/** After the shutdown's grace, how long open connections (live streams, MCP sessions, keep-alive) get before they are cut. */
export const SERVER_CLOSE_FORCE_MS = 1_000;

/**
 * Stops listening and resolves once every connection is closed: idle ones at once, the rest (a
 * request still being answered, a live stream, an MCP session's stream) cut after `forceAfterMs`,
 * so whatever a client holds open, shutdown ends in time (V4).
 */
export function closeServer(server: Server, forceAfterMs: number = SERVER_CLOSE_FORCE_MS): Promise<void> {
  return new Promise<void>((resolve) => {
    const force = setTimeout(() => server.closeAllConnections?.(), forceAfterMs);
    force.unref();
    server.close(() => {
      clearTimeout(force);
      resolve();
    });
    server.closeIdleConnections?.();
  });
}
