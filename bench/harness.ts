// The load side of the benchmark: one burst of load from a fresh load-generator process with the
// CPU it cost, bursts aggregated over rounds, baseline and target interleaved, and the fixloop
// servers' configuration, backlog and error log.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import type { LoadReport, LoadSpec } from './load.js';
import { histPercentile, type LoopResult } from './closed-loop.js';
import type { PayloadSpec } from './payloads.js';
import type { PgBareSpec } from './pg-bare.js';
import { cpuBetween, cpuSnapshot, runJson, type CpuSnapshot, type FixloopOptions, type Proc } from './procs.js';
import { details, f0, f2, log, ms, pct, profiles, statuses } from './report.js';
import {
  API_TOKEN,
  CONCURRENCY,
  DIAG,
  DRIVE_S,
  DURATION_MS,
  LOAD_TIMEOUT,
  PROFILE,
  ROUNDS,
  SECRET,
  TMP,
  WARMUP_MS,
  WARM_LIMIT_MS,
  WARM_REQUESTS,
} from './settings.js';

// ---------------------------------------------------------------- one burst of load
export interface Burst {
  load: LoopResult & Partial<Pick<LoadReport, 'requests' | 'bodyBytes' | 'buildMs'>>;
  /** Cores used during the drive (warm-up + measured): the measured server(s), PostgreSQL, the load generator, the rest of the machine. */
  cpu: {
    server: number;
    postgres: number;
    loadgen: number;
    other: number;
    machine: number;
    cores: number;
    wallMs: number;
  };
  backlog?: number;
  drainMs?: number;
}

export async function drive(
  script: 'bench/load.ts' | 'bench/pg-bare.ts',
  spec: LoadSpec | PgBareSpec,
  serverPids: number[],
): Promise<Burst> {
  let a: CpuSnapshot | undefined;
  let e: CpuSnapshot | undefined;
  const load = await runJson<Burst['load']>(script, spec, LOAD_TIMEOUT, (phase) => {
    if (phase === 'start') a = cpuSnapshot(serverPids);
    else e = cpuSnapshot(serverPids);
  });
  const b = e ?? cpuSnapshot(serverPids);
  const c = cpuBetween(a ?? b, b, serverPids);
  const server = c.procs.reduce((x, y) => x + y, 0);
  const loadgen = load.cpuMs / (c.wallMs || 1);
  return {
    load,
    cpu: {
      server,
      postgres: c.postgres,
      loadgen,
      other: Math.max(0, c.machine - server - c.postgres - loadgen),
      machine: c.machine,
      cores: c.cores,
      wallMs: c.wallMs,
    },
  };
}

export function httpBurst(
  targets: string[],
  payload: PayloadSpec,
  serverPids: number[],
  extra: Partial<LoadSpec> = {},
): Promise<Burst> {
  const spec: LoadSpec = {
    targets,
    secret: SECRET,
    payload,
    concurrency: CONCURRENCY,
    warmupMs: WARMUP_MS,
    durationMs: DURATION_MS,
    ...extra,
  };
  return drive('bench/load.ts', spec, serverPids);
}

export interface Aggregate {
  perSecond: number;
  measured: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  rounds: number[];
  results: Record<string, number>;
  resultsAll: Record<string, number>;
  allOk: boolean;
  exhausted: boolean;
  cpu: Omit<Burst['cpu'], 'wallMs'>;
  /** CPU ms the measured server(s) / PostgreSQL spent per request sent during the drive (warm-up included). */
  serverMsPerReq: number;
  postgresMsPerReq: number;
  loadgenMsPerReq: number;
  backlog: number;
  drainMs: number;
}

export function aggregate(bursts: Burst[]): Aggregate {
  const sum = (f: (b: Burst) => number) => bursts.reduce((n, b) => n + f(b), 0);
  const merge = (pick: (b: Burst) => Record<string, number>) => {
    const out: Record<string, number> = {};
    for (const b of bursts) for (const [k, v] of Object.entries(pick(b))) out[k] = (out[k] ?? 0) + v;
    return out;
  };
  const windowMs = sum((b) => b.load.windowMs);
  const measured = sum((b) => b.load.measured);
  const avg = (f: (c: Burst['cpu']) => number) => sum((b) => f(b.cpu)) / (bursts.length || 1);
  const resultsAll = merge((b) => b.load.resultsAll);
  return {
    perSecond: windowMs > 0 ? (measured * 1000) / windowMs : 0,
    measured,
    p50Ms: histPercentile(
      bursts.map((b) => b.load.hist),
      50,
    ),
    p99Ms: histPercentile(
      bursts.map((b) => b.load.hist),
      99,
    ),
    maxMs: Math.max(...bursts.map((b) => b.load.maxMs)),
    rounds: bursts.map((b) => b.load.perSecond),
    results: merge((b) => b.load.results),
    resultsAll,
    allOk: Object.keys(resultsAll).every((k) => k === '200' || k === '202' || k === 'ok'),
    exhausted: bursts.some((b) => b.load.exhausted),
    cpu: {
      server: avg((c) => c.server),
      postgres: avg((c) => c.postgres),
      loadgen: avg((c) => c.loadgen),
      other: avg((c) => c.other),
      machine: avg((c) => c.machine),
      cores: bursts[0]?.cpu.cores ?? 0,
    },
    serverMsPerReq: sum((b) => b.cpu.server * b.cpu.wallMs) / (sum((b) => b.load.total) || 1),
    postgresMsPerReq: sum((b) => b.cpu.postgres * b.cpu.wallMs) / (sum((b) => b.load.total) || 1),
    loadgenMsPerReq: sum((b) => b.load.cpuMs) / (sum((b) => b.load.total) || 1),
    backlog: Math.max(0, ...bursts.map((b) => b.backlog ?? 0)),
    drainMs: Math.max(0, ...bursts.map((b) => b.drainMs ?? 0)),
  };
}

export function describe(name: string, g: Aggregate, unit = 'req/s'): string {
  const c = g.cpu;
  return (
    `${name}: ${f0(g.perSecond)} ${unit} over ${ROUNDS} round(s) [${g.rounds.map(f0).join(', ')}], ${g.measured} measured; ` +
    `statuses ${statuses(g.results)} (all incl. warm-up: ${statuses(g.resultsAll)}); p50 ${ms(g.p50Ms)} p99 ${ms(g.p99Ms)} max ${ms(g.maxMs)}` +
    `${g.exhausted ? '; a delivery list ran out before its deadline (window shortened)' : ''}` +
    `; cores used: server ${f2(c.server)}, postgres ${f2(c.postgres)}, load generator ${f2(c.loadgen)}, everything else on the machine ${f2(c.other)} — busy ${f2(c.machine)} of ${c.cores}` +
    `; CPU per request: server ${f2(g.serverMsPerReq)} ms${g.postgresMsPerReq > 0 ? `, postgres ${f2(g.postgresMsPerReq)} ms` : ''}` +
    (g.backlog > 0
      ? `; evaluation backlog after a round up to ${g.backlog} events, drained in ≤ ${f0(g.drainMs)} ms`
      : '')
  );
}

/** Alternate base and target: B T, T B, B T, … so drift in the machine's load hits both alike. */
export async function interleave(
  base: (round: number) => Promise<Burst>,
  target: (round: number) => Promise<Burst>,
  label: string,
): Promise<{ base: Burst[]; target: Burst[] }> {
  const out = { base: [] as Burst[], target: [] as Burst[] };
  for (let r = 0; r < ROUNDS; r++) {
    log(`${label}: round ${r + 1}/${ROUNDS}`);
    if (r % 2 === 0) {
      out.base.push(await base(r));
      out.target.push(await target(r));
    } else {
      out.target.push(await target(r));
      out.base.push(await base(r));
    }
  }
  return out;
}

/** The unmeasured warm-up: `WARM_REQUESTS` deliveries per server process, then the backlog drained. */
export async function warmUp(label: string, sides: Array<() => Promise<unknown>>): Promise<void> {
  if (WARM_REQUESTS === 0) return;
  log(`${label}: warm-up, ${WARM_REQUESTS} deliveries per server process (not measured)`);
  for (const side of sides) await side();
}

/** A drive of exactly `count` deliveries, as fast as the server answers them (the warm-up). */
export const fixedCount = (): { warmupMs: number; durationMs: number; cycle: false } => ({
  warmupMs: 0,
  durationMs: WARM_LIMIT_MS,
  cycle: false,
});

export const roundRatios = (t: Burst[], b: Burst[]) =>
  t.map((x, i) => x.load.perSecond / (b[i]?.load.perSecond ?? Number.NaN));
export const spread = (rs: number[]) => `rounds ${rs.map((r) => (100 * r).toFixed(0)).join('/')} %`;

// ---------------------------------------------------------------- fixloop helpers
export function writeConfig(name: string, runner?: unknown): string {
  const file = join(TMP, `${name}.json`);
  writeFileSync(
    file,
    JSON.stringify({
      works: [{ name: 'acme', account: 'acme', repositories: [{ name: 'acme/shop', role: 'data' }] }],
      ...(runner ? { runner } : {}),
    }),
  );
  return file;
}

export function fixloopOptions(
  name: string,
  databaseUrl: string,
  configFile: string,
  env: Record<string, string> = {},
): FixloopOptions {
  const o: FixloopOptions = {
    databaseUrl,
    configFile,
    secret: SECRET,
    apiToken: API_TOKEN,
    env: { FIXLOOP_WORK_DIR: join(TMP, `${name}-runs`), ...env },
  };
  if (PROFILE) {
    const dir = join(TMP, `prof-${name}`);
    mkdirSync(dir, { recursive: true });
    profiles.push({ scenario: name, dir });
    o.cpuProfDir = dir;
  }
  if (DIAG) {
    o.nodeArgs = ['--import', './bench/loop-probe.ts'];
    o.env = { ...o.env, BENCH_LOOP_PROBE_FILE: join(TMP, `loop-${name}.jsonl`), BENCH_LOOP_PROBE_MS: '250' };
  }
  return o;
}

export function loopDiag(name: string, bursts: Burst[]): void {
  if (!DIAG) return;
  const file = join(TMP, `loop-${name}.jsonl`);
  if (!existsSync(file)) return;
  const samples = readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map(
      (l) =>
        JSON.parse(l) as {
          at: number;
          elu: number;
          cpuMs: number;
          delayP99Ms: number;
          delayMaxMs: number;
          heapMb: number;
        },
    );
  const inside = samples.filter((s) =>
    bursts.some((b) => s.at > b.load.firstStartAt + 300 && s.at <= b.load.lastFinishAt),
  );
  if (inside.length === 0) return;
  const mean = (f: (s: (typeof inside)[number]) => number) => inside.reduce((n, s) => n + f(s), 0) / inside.length;
  details.push(
    `${name} event loop during load (${inside.length} samples): utilization ${pct(mean((s) => s.elu))}, on-CPU ${pct(mean((s) => s.cpuMs / 250))} of wall; loop delay p99 avg ${ms(mean((s) => s.delayP99Ms))}, max ${ms(Math.max(...inside.map((s) => s.delayMaxMs)))}; heap used ≤ ${f0(Math.max(...inside.map((s) => s.heapMb)))} MB` +
      ' (utilization well above on-CPU = the loop was runnable but not scheduled: the machine is short of cores)',
  );
}

export async function drain(
  pending: () => Promise<number>,
  maxMs = 30_000,
): Promise<{ backlog: number; drainMs: number }> {
  const t0 = performance.now();
  const backlog = await pending();
  let left = backlog;
  while (left > 0) {
    if (performance.now() - t0 > maxMs) return { backlog, drainMs: Number.NaN };
    await new Promise((r) => setTimeout(r, 25));
    left = await pending();
  }
  return { backlog, drainMs: performance.now() - t0 };
}

export function sqlitePending(file: string): () => Promise<number> {
  return async () => {
    const db = new BetterSqlite3(file, { readonly: true, fileMustExist: true });
    try {
      return (db.prepare('SELECT count(*) AS n FROM pending_events').get() as { n: number }).n;
    } finally {
      db.close();
    }
  };
}

export function pgPending(url: string): () => Promise<number> {
  return async () => {
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    try {
      const r = await c.query<{ n: string }>('SELECT count(*) AS n FROM pending_events');
      return Number(r.rows[0]?.n ?? 0);
    } finally {
      await c.end();
    }
  };
}

export function serverErrors(name: string, app: Proc): void {
  const lines = app
    .output()
    .split('\n')
    .filter((l) => /"level":(50|60)|Error/.test(l));
  if (lines.length)
    details.push(
      `${name}: server logged ${lines.length} error line(s), e.g.\n      ${lines
        .slice(0, 3)
        .map((l) => l.slice(0, 300))
        .join('\n      ')}`,
    );
}

/** Enough unique deliveries for one drive at up to `maxRate`/s; a list that runs out ends its round early (reported). */
export const sized = (maxRate: number) => Math.ceil(DRIVE_S * maxRate);
