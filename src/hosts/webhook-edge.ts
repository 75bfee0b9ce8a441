// What every host's webhook receiver answers with, the same way (SPEC A1): a JSON answer, and a
// refusal that reads nothing more of the body (413, 401, 503). Node only, no project import, so every
// host folder may use it (test/boundaries.test.ts: a leaf).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/** An edge refusal with its HTTP status (every host's receiver). */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export function send(res: ServerResponse, status: number, body: object, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    ...headers,
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(text)),
  });
  res.end(text);
}

/** How long a refused connection stays half-closed, unread, before it is let go. */
const LINGER_MS = 1_000;

/**
 * Answer, then read nothing more of the body. Node ends a `connection: close` answer with
 * destroySoon(), and a socket destroyed with unread bytes sends a reset, which can cost the sender
 * an answer it has not read yet: so the socket stops reading, half-closes, and is let go a moment later.
 */
export function refuse(
  req: IncomingMessage,
  res: ServerResponse,
  e: HttpError,
  headers: Record<string, string> = {},
): void {
  const socket = req.socket;
  socket.destroySoon = () => {
    // Marked as paused by the server itself (Node 18–22), or Node resumes it to drain the unread body.
    (socket as Socket & { _paused?: boolean })._paused = true;
    socket.pause();
    socket.end();
    // Not unref'd: a paused socket does not keep the process alive, and server.close() waits for it.
    setTimeout(() => socket.destroy(), LINGER_MS);
  };
  send(res, e.status, { error: e.code, message: e.message }, { ...headers, connection: 'close' });
}

export function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}
