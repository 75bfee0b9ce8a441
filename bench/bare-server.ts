// The HTTP baseline: a bare node:http server that reads the body, verifies X-Hub-Signature-256
// with @octokit/webhooks-methods `verify` and answers 200 — the least any webhook receiver does.
//   BENCH_SECRET=… node --import tsx bench/bare-server.ts   → prints {"port":N} once listening
import { createServer } from 'node:http';
import { verify } from '@octokit/webhooks-methods';

const secret = process.env.BENCH_SECRET;
if (!secret) throw new Error('BENCH_SECRET is required');

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const body = Buffer.concat(chunks).toString('utf8');
    const sig = req.headers['x-hub-signature-256'];
    verify(secret, body, typeof sig === 'string' ? sig : '').then(
      (ok) => {
        const text = ok ? '{"ok":true}' : '{"error":"bad_signature"}';
        res.writeHead(ok ? 200 : 401, { 'content-type': 'application/json', 'content-length': text.length });
        res.end(text);
      },
      () => res.writeHead(401).end(),
    );
  });
});
server.keepAliveTimeout = 65_000;
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  const a = server.address();
  process.stdout.write(`${JSON.stringify({ port: typeof a === 'object' && a ? a.port : 0 })}\n`);
});
const stop = () => server.close(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
