// A closed-loop driver: `concurrency` workers each take the next pre-built item and wait for it
// before taking another. Items finished inside [warm-up end, deadline] are measured; after the
// deadline nothing new is started. Shared by the HTTP load generator and the bare PostgreSQL script.

export interface LoopOptions {
  concurrency: number;
  warmupMs: number;
  durationMs: number;
  /** Number of pre-built items. */
  items: number;
  /** Wrap around the list (baselines that do not dedupe); otherwise stop when it is used up. */
  cycle: boolean;
  /** Perform item `i`; resolves to a result label (HTTP status, "ok", …). */
  exec(i: number): Promise<string>;
}

export interface LoopResult {
  /** Items measured (finished inside the window). */
  measured: number;
  /** Items performed in all, warm-up included. */
  total: number;
  windowMs: number;
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** Result labels of measured items. */
  results: Record<string, number>;
  /** Result labels of every item, warm-up included. */
  resultsAll: Record<string, number>;
  /** The list ran out before the deadline. */
  exhausted: boolean;
  /** Wall clock (epoch ms) of the first start and of the last finish. */
  firstStartAt: number;
  lastFinishAt: number;
  /** Latencies of measured items as a sparse histogram (bucket → count; see bucketOf), for merging runs. */
  hist: Record<string, number>;
  /** CPU time of this process during the run, ms. */
  cpuMs: number;
}

/** Log-spaced latency buckets, 1 % wide, from 10 µs: merging runs keeps percentiles within 1 %. */
const BUCKET_BASE = 0.01;
const BUCKET_GROWTH = Math.log(1.01);
export function bucketOf(ms: number): number {
  return ms <= BUCKET_BASE ? 0 : Math.ceil(Math.log(ms / BUCKET_BASE) / BUCKET_GROWTH);
}
export function bucketUpperMs(b: number): number {
  return BUCKET_BASE * Math.exp(b * BUCKET_GROWTH);
}
/** Percentile of merged histograms (upper edge of the bucket holding it). */
export function histPercentile(hists: Array<Record<string, number>>, p: number): number {
  const merged = new Map<number, number>();
  for (const h of hists)
    for (const [k, v] of Object.entries(h)) merged.set(Number(k), (merged.get(Number(k)) ?? 0) + v);
  const total = [...merged.values()].reduce((a, b) => a + b, 0);
  if (total === 0) return Number.NaN;
  const rank = Math.max(1, Math.ceil((p / 100) * total));
  let seen = 0;
  for (const b of [...merged.keys()].sort((x, y) => x - y)) {
    seen += merged.get(b)!;
    if (seen >= rank) return bucketUpperMs(b);
  }
  return Number.NaN;
}

export function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i]!;
}

export async function closedLoop(o: LoopOptions): Promise<LoopResult> {
  const latencies = new Float64Array(Math.max(16, o.cycle ? 1 << 20 : o.items));
  let measured = 0;
  let total = 0;
  let next = 0;
  let exhausted = false;
  const results: Record<string, number> = {};
  const resultsAll: Record<string, number> = {};
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const epoch0 = Date.now();
  const warmEnd = t0 + o.warmupMs;
  const deadline = warmEnd + o.durationMs;
  let lastFinish = t0;

  async function worker(): Promise<void> {
    for (;;) {
      if (performance.now() >= deadline) return;
      const i = next++;
      if (!o.cycle && i >= o.items) {
        exhausted = true;
        return;
      }
      const started = performance.now();
      let label: string;
      try {
        label = await o.exec(i % o.items);
      } catch (err) {
        label = `error:${(err as NodeJS.ErrnoException).code ?? (err as Error).message ?? 'unknown'}`;
      }
      const finished = performance.now();
      if (finished > lastFinish) lastFinish = finished;
      total++;
      resultsAll[label] = (resultsAll[label] ?? 0) + 1;
      if (started >= warmEnd && finished <= deadline) {
        if (measured < latencies.length) latencies[measured] = finished - started;
        measured++;
        results[label] = (results[label] ?? 0) + 1;
      }
    }
  }

  await Promise.all(Array.from({ length: o.concurrency }, () => worker()));
  const windowEnd = exhausted ? Math.min(deadline, lastFinish) : deadline;
  const windowMs = Math.max(0, windowEnd - warmEnd);
  const sorted = latencies.slice(0, Math.min(measured, latencies.length)).sort();
  return loopResult({
    sorted,
    measured,
    total,
    windowMs,
    results,
    resultsAll,
    exhausted,
    epoch0,
    t0,
    lastFinish,
    cpu0,
  });
}

/** What both load generators report from their measured latencies and counters (closed and open loop). */
export function loopResult(m: {
  sorted: Float64Array;
  measured: number;
  total: number;
  windowMs: number;
  results: LoopResult['results'];
  resultsAll: LoopResult['resultsAll'];
  exhausted: boolean;
  epoch0: number;
  t0: number;
  lastFinish: number;
  cpu0: NodeJS.CpuUsage;
}): LoopResult {
  const hist: Record<string, number> = {};
  for (const l of m.sorted) {
    const b = bucketOf(l);
    hist[b] = (hist[b] ?? 0) + 1;
  }
  const cpu = process.cpuUsage(m.cpu0);
  return {
    measured: m.measured,
    total: m.total,
    windowMs: m.windowMs,
    perSecond: m.windowMs > 0 ? (m.measured * 1000) / m.windowMs : 0,
    p50Ms: percentile(m.sorted, 50),
    p99Ms: percentile(m.sorted, 99),
    maxMs: m.sorted.length ? m.sorted[m.sorted.length - 1]! : Number.NaN,
    results: m.results,
    resultsAll: m.resultsAll,
    exhausted: m.exhausted,
    firstStartAt: m.epoch0,
    lastFinishAt: m.epoch0 + (m.lastFinish - m.t0),
    hist,
    cpuMs: (cpu.user + cpu.system) / 1000,
  };
}
