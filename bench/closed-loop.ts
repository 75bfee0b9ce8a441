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
  return {
    measured,
    total,
    windowMs,
    perSecond: windowMs > 0 ? (measured * 1000) / windowMs : 0,
    p50Ms: percentile(sorted, 50),
    p99Ms: percentile(sorted, 99),
    maxMs: sorted.length ? sorted[sorted.length - 1]! : Number.NaN,
    results,
    resultsAll,
    exhausted,
    firstStartAt: epoch0,
    lastFinishAt: epoch0 + (lastFinish - t0),
  };
}
