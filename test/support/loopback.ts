// Test servers on loopback: listen on a free port and give the base URL; close, dropping
// keep-alive connections so `after` hooks do not wait for them.
import type { AddressInfo, Server } from 'node:net';

export async function listenLoopback(server: Server, scheme: 'http' | 'https' = 'http'): Promise<string> {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `${scheme}://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

export async function closeServer(server: Server & { closeAllConnections?(): void }): Promise<void> {
  server.closeAllConnections?.();
  await new Promise<void>((r) => server.close(() => r()));
}
