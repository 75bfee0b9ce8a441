// Scenario e: two fixloop replicas on one PostgreSQL database. The floor is a steady arrival rate
// (open loop, `STEADY_RATE`/s for `STEADY_MS`) answered with a bounded p99 and the evaluation
// keeping up; the closed-loop throughput against bare INSERTs is measured after it and reported
// only (decision 0061).
import type { LoadSpec } from './load.js';
import type { PgBareSpec } from './pg-bare.js';
import { createPgDatabase, peakRssMb, registerTask, startFixloop, type Proc } from './procs.js';
import {
  aggregate,
  describe,
  drain,
  drive,
  fixedCount,
  fixloopOptions,
  httpBurst,
  interleave,
  loopDiag,
  pgPending,
  roundRatios,
  serverErrors,
  sized,
  spread,
  warmUp,
  writeConfig,
} from './harness.js';
import { details, f0, f2, failed, ms, pct, row, statuses } from './report.js';
import {
  API_TOKEN,
  CONCURRENCY,
  DURATION_MS,
  STEADY_MS,
  STEADY_RATE,
  TARGETS,
  WARMUP_MS,
  WARM_REQUESTS,
} from './settings.js';

export async function postgres(): Promise<void> {
  const name = 'fixloop PG ×2 replicas all-red';
  const dbs: Array<{ drop(): Promise<void> }> = [];
  const apps: Proc[] = [];
  try {
    const bareDb = await createPgDatabase('bare');
    dbs.push(bareDb);
    const db = await createPgDatabase('fixloop');
    dbs.push(db);
    const config = writeConfig('e');
    // One after the other: the first migrates the fresh database.
    apps.push(await startFixloop(fixloopOptions('e-replica-a', db.url, config)));
    apps.push(await startFixloop(fixloopOptions('e-replica-b', db.url, config)));
    await registerTask(apps[0]!.url, API_TOKEN);
    const pids = apps.map((a) => a.pid);
    const urls = apps.map((a) => a.url);
    await warmUp('e', [
      () =>
        drive(
          'bench/pg-bare.ts',
          {
            url: bareDb.url,
            payload: { kind: 'allRed', count: WARM_REQUESTS, seed: 99 },
            poolSize: 10,
            concurrency: CONCURRENCY,
            ...fixedCount(),
          },
          [],
        ),
      async () => {
        await httpBurst(urls, { kind: 'allRed', count: WARM_REQUESTS * urls.length, seed: 29 }, pids, fixedCount());
        await drain(pgPending(db.url));
      },
    ]);
    await steady(urls, pids, db.url);
    const res = await interleave(
      (r) => {
        const spec: PgBareSpec = {
          url: bareDb.url,
          payload: { kind: 'allRed', count: sized(8000), seed: 60 + r },
          poolSize: 10,
          concurrency: CONCURRENCY,
          warmupMs: WARMUP_MS,
          durationMs: DURATION_MS,
        };
        return drive('bench/pg-bare.ts', spec, []);
      },
      async (r) => {
        const burst = await httpBurst(urls, { kind: 'allRed', count: sized(3000), seed: 30 + r }, pids);
        Object.assign(burst, await drain(pgPending(db.url)));
        return burst;
      },
      'e',
    );
    const rss = apps.map((a) => peakRssMb(a.pid));
    const base = aggregate(res.base);
    const fix = aggregate(res.target);
    const ratio = fix.perSecond / base.perSecond;
    details.push(describe('e baseline (bare PG, one INSERT per payload, pool 10)', base, 'inserts/s'));
    details.push(describe(`e ${name}`, fix));
    loopDiag('e-replica-a', res.target);
    row({
      id: 'e0',
      scenario: 'bare PG INSERT (pool 10)',
      value: `${f0(base.perSecond)} ins/s`,
      p50: ms(base.p50Ms),
      p99: ms(base.p99Ms),
      notes: 'baseline for e',
    });
    row({
      id: 'e-max',
      scenario: `  ${name}, closed-loop max`,
      value: `${f0(fix.perSecond)} req/s`,
      baseline: `${f0(base.perSecond)} ins/s`,
      ratio: pct(ratio),
      target: 'reported',
      pass: fix.allOk ? null : false,
      p50: ms(fix.p50Ms),
      p99: ms(fix.p99Ms),
      rss: `${rss.map(f0).join('+')} MB`,
      notes: `${fix.allOk ? '' : 'NON-2xx! '}${spread(roundRatios(res.target, res.base))}; CPU/req fixloop ${f2(fix.serverMsPerReq)} + pg ${f2(fix.postgresMsPerReq)} ms vs client ${f2(base.loadgenMsPerReq)} + pg ${f2(base.postgresMsPerReq)} (= ${pct((base.loadgenMsPerReq + base.postgresMsPerReq) / (fix.serverMsPerReq + fix.postgresMsPerReq))}); 202×${fix.results['202'] ?? 0}`,
    });
  } catch (err) {
    failed('e', name, err);
  } finally {
    await Promise.all(apps.map((a) => a.stop()));
    apps.forEach((a, i) => serverErrors(`e replica ${i}`, a));
    for (const d of dbs)
      await d.drop().catch((e: unknown) => details.push(`could not drop a bench database: ${String(e)}`));
  }
}

/**
 * The floor: `STEADY_RATE` deliveries a second, alternated between the replicas, for `STEADY_MS`
 * after a 1 s ramp. Held = every arrival answered 2xx, the answered rate within 2 % of the offered
 * one, p99 from each delivery's due time within the floor, and the evaluation backlog drained
 * within a second of the last arrival (acknowledging fast while falling behind is not holding it).
 */
async function steady(urls: string[], pids: number[], dbUrl: string): Promise<void> {
  const label = `  PG ×2: steady ${STEADY_RATE}/s, open loop`;
  const spec: Partial<LoadSpec> = { ratePerSecond: STEADY_RATE, warmupMs: 1000, durationMs: STEADY_MS };
  const count = Math.ceil(((1000 + STEADY_MS) / 1000) * STEADY_RATE) + 1;
  const burst = await httpBurst(urls, { kind: 'allRed', count, seed: 70 }, pids, spec);
  Object.assign(burst, await drain(pgPending(dbUrl)));
  const g = aggregate([burst]);
  const ok = g.allOk && !g.exhausted;
  const heldRate = g.perSecond >= 0.98 * STEADY_RATE;
  const drained = Number.isFinite(g.drainMs) && g.drainMs <= 1000;
  details.push(
    `e steady: ${g.measured} deliveries offered at ${STEADY_RATE}/s over ${f0(STEADY_MS)} ms (open loop, after a 1 s ramp), answered ${f0(g.perSecond)}/s; ` +
      `statuses ${statuses(g.results)}; p50 ${ms(g.p50Ms)} p99 ${ms(g.p99Ms)} max ${ms(g.maxMs)} (from each delivery's due time); ` +
      `evaluation backlog at the end ${g.backlog}, drained in ${f0(g.drainMs)} ms; cores used: fixloop ×2 ${f2(g.cpu.server)}, postgres ${f2(g.cpu.postgres)}, load generator ${f2(g.cpu.loadgen)}, everything else ${f2(g.cpu.other)}`,
  );
  row({
    id: 'e',
    scenario: label,
    value: `${f0(g.perSecond)} req/s`,
    target: `${TARGETS.eRatePerSecond}/s held, p99 ≤ ${TARGETS.eP99Ms} ms`,
    pass: STEADY_RATE >= TARGETS.eRatePerSecond && ok && heldRate && drained && g.p99Ms <= TARGETS.eP99Ms,
    p50: ms(g.p50Ms),
    p99: ms(g.p99Ms),
    notes: `${ok ? '' : 'NON-2xx or list ran out! '}${heldRate ? '' : 'fell behind the arrivals! '}backlog ${g.backlog}, drained in ${f0(g.drainMs)} ms${drained ? '' : ' (over 1 s!)'}; max ${ms(g.maxMs)}${STEADY_RATE === TARGETS.eRatePerSecond ? '' : `; the floor is set at ${TARGETS.eRatePerSecond}/s`}`,
  });
}
