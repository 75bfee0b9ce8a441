// An open-loop driver: item i is sent at start + i / rate whatever the server is doing, so a slow
// answer does not slow the arrivals (a closed loop would wait, and hide the queue it causes). Each
// latency runs from the item's scheduled send time, not from when it actually left: a send that
// is late because the process or its connections were busy counts against the server it waited on.
import { loopResult, type LoopResult } from './closed-loop.js';

export interface OpenLoopOptions {
  /** Arrivals per second. */
  ratePerSecond: number;
  warmupMs: number;
  durationMs: number;
  /** Number of pre-built items; the schedule wraps around them when `cycle`, otherwise ends with them. */
  items: number;
  cycle: boolean;
  exec(i: number): Promise<string>;
}

export async function openLoop(o: OpenLoopOptions): Promise<LoopResult> {
  const interval = 1000 / o.ratePerSecond;
  const latencies: number[] = [];
  const results: Record<string, number> = {};
  const resultsAll: Record<string, number> = {};
  const inFlight = new Set<Promise<void>>();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const epoch0 = Date.now();
  const warmEnd = t0 + o.warmupMs;
  const deadline = warmEnd + o.durationMs;
  let total = 0;
  let measured = 0;
  let lastFinish = t0;
  let exhausted = false;

  const fire = (i: number, scheduled: number): void => {
    const p = o
      .exec(i % o.items)
      .catch((err: unknown) => `error:${(err as NodeJS.ErrnoException).code ?? (err as Error).message ?? 'unknown'}`)
      .then((label) => {
        const finished = performance.now();
        if (finished > lastFinish) lastFinish = finished;
        total++;
        resultsAll[label] = (resultsAll[label] ?? 0) + 1;
        // Measured by when it was due: an arrival inside the window counts however late it is answered.
        if (scheduled >= warmEnd) {
          latencies.push(finished - scheduled);
          measured++;
          results[label] = (results[label] ?? 0) + 1;
        }
      });
    const tracked = p.finally(() => inFlight.delete(tracked));
    inFlight.add(tracked);
  };

  for (let i = 0; ; i++) {
    const due = t0 + i * interval;
    if (due >= deadline) break;
    if (!o.cycle && i >= o.items) {
      exhausted = true;
      break;
    }
    const wait = due - performance.now();
    if (wait > 1) await new Promise((r) => setTimeout(r, wait));
    fire(i, due);
  }
  await Promise.all([...inFlight]);

  const windowMs = exhausted ? Math.max(0, Math.min(deadline, lastFinish) - warmEnd) : o.durationMs;
  const sorted = Float64Array.from(latencies).sort();
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
