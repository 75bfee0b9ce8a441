// A cap on the server's open connections (SPEC A1: a hardened edge). At the cap, a new connection
// takes the place of the one that has been idle longest — no request in progress, or one whose
// headers are still trickling in — so idle or slow sockets cannot lock GitHub out. Next to give way
// is the oldest long-lived request (a dashboard's live-update stream, which its page reopens): a
// stream never holds a place a webhook or a health check needs. Only when every connection is busy
// with an ordinary request is the new one turned away.
import type { IncomingMessage, Server } from 'node:http';
import type { Socket } from 'node:net';

export function capConnections(
  server: Server,
  max: number,
  longLived: (req: IncomingMessage) => boolean = () => false,
): void {
  const open = new Set<Socket>();
  // Sockets with no request in progress, oldest-idle first (a Set keeps insertion order).
  const idle = new Set<Socket>();
  // Sockets whose request is a long-lived stream, oldest first.
  const streaming = new Set<Socket>();
  const forget = (s: Socket) => {
    open.delete(s);
    idle.delete(s);
    streaming.delete(s);
  };
  server.on('connection', (socket: Socket) => {
    if (open.size >= max) {
      const giveWay = idle.values().next().value ?? streaming.values().next().value;
      if (giveWay === undefined) return void socket.destroy();
      forget(giveWay);
      giveWay.destroy();
    }
    open.add(socket);
    idle.add(socket);
    socket.once('close', () => forget(socket));
  });
  server.on('request', (req: IncomingMessage, res) => {
    const socket = req.socket;
    idle.delete(socket);
    if (longLived(req)) streaming.add(socket);
    res.once('close', () => {
      streaming.delete(socket);
      if (open.has(socket) && !socket.destroyed) idle.add(socket);
    });
  });
}
