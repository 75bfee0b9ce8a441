// Optional preload for a server child (`node --import ./bench/loop-probe.ts …`): samples the event
// loop's utilization and delay and appends one JSON line per interval to $BENCH_LOOP_PROBE_FILE.
// It reads the process from outside the application code; nothing in src/ is touched.
import { appendFileSync } from 'node:fs';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';

const file = process.env.BENCH_LOOP_PROBE_FILE;
if (file) {
  const intervalMs = Number(process.env.BENCH_LOOP_PROBE_MS ?? 500);
  const h = monitorEventLoopDelay({ resolution: 1 });
  h.enable();
  let last = performance.eventLoopUtilization();
  let cpu = process.cpuUsage();
  const t = setInterval(() => {
    const now = performance.eventLoopUtilization();
    const elu = performance.eventLoopUtilization(now, last);
    last = now;
    const c = process.cpuUsage(cpu);
    cpu = process.cpuUsage();
    appendFileSync(
      file,
      `${JSON.stringify({ at: Date.now(), elu: elu.utilization, cpuMs: (c.user + c.system) / 1000, delayP50Ms: h.percentile(50) / 1e6, delayP99Ms: h.percentile(99) / 1e6, delayMaxMs: h.max / 1e6, rssMb: process.memoryUsage.rss() / 2 ** 20, heapMb: process.memoryUsage().heapUsed / 2 ** 20 })}\n`,
    );
    h.reset();
  }, intervalMs);
  t.unref();
}
