// The load generator, run as its own process by bench/run.ts:
//   node --import tsx bench/load.ts '<LoadSpec JSON>'
// Builds every request (body, headers, signature) before the clock starts, then drives the
// targets over keep-alive connections at a fixed concurrency (closed loop) or at a fixed arrival
// rate (open loop, `ratePerSecond`) for a fixed time (or until a fixed list is used up), and prints one JSON line: req/s, p50/p99 acknowledgement latency, status counts.
import http from 'node:http';
import { buildDeliveries, signature, type PayloadSpec } from './payloads.js';
import { closedLoop, type LoopResult } from './closed-loop.js';
import { openLoop } from './open-loop.js';

export interface LoadSpec {
  /** Base URLs; request i goes to targets[i % targets.length]. */
  targets: string[];
  path?: string;
  secret: string;
  payload: PayloadSpec;
  concurrency?: number;
  /** Open loop: this many arrivals per second, however long each answer takes (`concurrency` ignored). */
  ratePerSecond?: number;
  warmupMs?: number;
  durationMs?: number;
  /** Reuse the list from the start when it runs out (only for targets that do not dedupe). */
  cycle?: boolean;
  /** Per-request timeout (GitHub gives 10 s). */
  timeoutMs?: number;
}

export interface LoadReport extends LoopResult {
  kind: 'load';
  requests: number;
  bodyBytes: number;
  buildMs: number;
}

const spec = JSON.parse(process.argv[2] ?? '{}') as LoadSpec;
const concurrency = spec.concurrency ?? 16;
const warmupMs = spec.warmupMs ?? 1000;
const durationMs = spec.durationMs ?? 5000;
const timeoutMs = spec.timeoutMs ?? 10_000;
const path = spec.path ?? '/api/github/webhooks';

// Bounded whatever happens: the process ends itself after the run plus a grace period.
const hardStop = setTimeout(
  () => {
    process.stdout.write(`${JSON.stringify({ kind: 'load', error: 'hard timeout' })}\n`);
    process.exit(2);
  },
  warmupMs + durationMs + timeoutMs + 60_000,
);
hardStop.unref();

const built = performance.now();
const deliveries = buildDeliveries(spec.payload);
const requests = deliveries.map((d) => {
  const body = Buffer.from(d.body);
  return {
    body,
    headers: {
      'content-type': 'application/json',
      'content-length': String(body.length),
      'x-github-event': d.event,
      'x-github-delivery': d.id,
      'x-hub-signature-256': signature(spec.secret, d.body),
      'user-agent': 'GitHub-Hookshot/bench',
    } as http.OutgoingHttpHeaders,
  };
});
const bodyBytes = requests.reduce((n, r) => n + r.body.length, 0);
const buildMs = performance.now() - built;

const sockets = spec.ratePerSecond ? 256 : concurrency;
const targets = spec.targets.map((base) => {
  const u = new URL(base);
  return {
    hostname: u.hostname,
    port: Number(u.port),
    // Open loop: enough sockets that arrivals are not queued behind the agent's own limit.
    agent: new http.Agent({ keepAlive: true, maxSockets: sockets, maxFreeSockets: sockets }),
  };
});

function send(i: number): Promise<string> {
  const r = requests[i]!;
  const t = targets[i % targets.length]!;
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        hostname: t.hostname,
        port: t.port,
        path,
        method: 'POST',
        agent: t.agent,
        headers: r.headers,
        timeout: timeoutMs,
      },
      (res) => {
        res.on('data', () => undefined);
        res.on('end', () => resolve(String(res.statusCode)));
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(Object.assign(new Error('timeout'), { code: 'TIMEOUT' })));
    req.on('error', reject);
    req.end(r.body);
  });
}

// The parent snapshots machine CPU when it reads this line: the drive starts now.
process.stdout.write(`${JSON.stringify({ phase: 'start' })}\n`);
const loop = { warmupMs, durationMs, items: requests.length, cycle: spec.cycle ?? false, exec: send };
const result = spec.ratePerSecond
  ? await openLoop({ ...loop, ratePerSecond: spec.ratePerSecond })
  : await closedLoop({ ...loop, concurrency });
process.stdout.write(`${JSON.stringify({ phase: 'end' })}\n`);
for (const t of targets) t.agent.destroy();
const report: LoadReport = { kind: 'load', requests: requests.length, bodyBytes, buildMs, ...result };
process.stdout.write(`${JSON.stringify(report)}\n`);
clearTimeout(hardStop);
