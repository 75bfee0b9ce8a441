// A cap on the server's open connections (SPEC A1: a hardened edge). At the cap, a new connection
// takes the place of the one that has been idle longest — no request in progress, or one whose
// headers are still trickling in — so idle or slow sockets cannot lock GitHub out; only when every
// connection is busy with a request is the new one turned away.
import type { Server } from 'node:http';
import type { Socket } from 'node:net';

export function capConnections(server: Server, max: number): void {
  const open = new Set<Socket>();
  // Sockets with no request in progress, oldest-idle first (a Set keeps insertion order).
  const idle = new Set<Socket>();
  const forget = (s: Socket) => {
    open.delete(s);
    idle.delete(s);
  };
  server.on('connection', (socket: Socket) => {
    if (open.size >= max) {
      const oldest = idle.values().next().value;
      if (oldest === undefined) return void socket.destroy();
      forget(oldest);
      oldest.destroy();
    }
    open.add(socket);
    idle.add(socket);
    socket.once('close', () => forget(socket));
  });
  server.on('request', (req, res) => {
    const socket = req.socket;
    idle.delete(socket);
    res.once('close', () => {
      if (open.has(socket) && !socket.destroyed) idle.add(socket);
    });
  });
}
