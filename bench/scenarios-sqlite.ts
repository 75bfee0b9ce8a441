// Scenarios b (with d1, d2) and c: fixloop on SQLite against the bare http+HMAC server, in interleaved rounds.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { PayloadSpec } from './payloads.js';
import { peakRssMb, registerTask, rssMb, startBare, startFixloop, type Proc } from './procs.js';
import {
  aggregate,
  describe,
  drain,
  fixedCount,
  fixloopOptions,
  httpBurst,
  interleave,
  loopDiag,
  roundRatios,
  serverErrors,
  spread,
  sqlitePending,
  warmUp,
  writeConfig,
} from './harness.js';
import { details, f0, f1, f2, failed, ms, pct, pctAgainst, row } from './report.js';
import { API_TOKEN, CONCURRENCY, SECRET, TARGETS, TMP, WARM_REQUESTS } from './settings.js';

// ---------------------------------------------------------------- scenarios b + d, c: SQLite against the bare HTTP baseline
export async function sqliteVsBare(o: {
  id: string;
  name: string;
  payload: (seed: number) => PayloadSpec;
  seedBase: number;
  target: number;
  withD: boolean;
}): Promise<void> {
  const dir = join(TMP, o.id);
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'fixloop.sqlite');
  let bare: Proc | undefined;
  let app: Proc | undefined;
  try {
    bare = await startBare(SECRET);
    app = await startFixloop(fixloopOptions(o.id, `sqlite:${file}`, writeConfig(o.id)));
    await registerTask(app.url, API_TOKEN);
    const idleRss = rssMb(app.pid);
    const b = bare;
    const f = app;
    await warmUp(o.id, [
      () => httpBurst([b.url], { ...o.payload(89), ...{ count: WARM_REQUESTS } }, [b.pid], fixedCount()),
      async () => {
        await httpBurst([f.url], { ...o.payload(o.seedBase - 1), ...{ count: WARM_REQUESTS } }, [f.pid], fixedCount());
        await drain(sqlitePending(file));
      },
    ]);
    const res = await interleave(
      (r) => httpBurst([b.url], { ...o.payload(90 + r), ...{ count: 2000 } }, [b.pid], { cycle: true }),
      async (r) => {
        const burst = await httpBurst([f.url], o.payload(o.seedBase + r), [f.pid]);
        Object.assign(burst, await drain(sqlitePending(file)));
        return burst;
      },
      o.id,
    );
    const peak = peakRssMb(f.pid);
    const bareRss = peakRssMb(b.pid);
    const base = aggregate(res.base);
    const fix = aggregate(res.target);
    const ratio = fix.perSecond / base.perSecond;
    details.push(describe(`${o.id} baseline (bare http+HMAC, same payloads)`, base));
    details.push(describe(`${o.id} ${o.name}`, fix));
    loopDiag(o.id, res.target);
    row({
      id: `${o.id}0`,
      scenario: `bare http+HMAC (${o.id === 'b' ? 'all-red 12KB' : 'storm mix'})`,
      value: `${f0(base.perSecond)} req/s`,
      p50: ms(base.p50Ms),
      p99: ms(base.p99Ms),
      rss: `${f0(bareRss)} MB`,
      notes: `baseline for ${o.id}`,
    });
    row({
      id: o.id,
      scenario: o.name,
      value: `${f0(fix.perSecond)} req/s`,
      baseline: `${f0(base.perSecond)} req/s`,
      ratio: pctAgainst(ratio, o.target),
      target: `≥ ${o.target} % of bare`,
      pass: ratio >= o.target / 100 && fix.allOk,
      p50: ms(fix.p50Ms),
      p99: ms(fix.p99Ms),
      rss: `${f0(peak)} MB`,
      notes: `${fix.allOk ? '' : 'NON-2xx! '}${spread(roundRatios(res.target, res.base))}; server CPU/req ${f2(fix.serverMsPerReq)} ms vs bare ${f2(base.serverMsPerReq)} (= ${pct(base.serverMsPerReq / fix.serverMsPerReq)}); 202×${fix.results['202'] ?? 0} 200×${fix.results['200'] ?? 0}`,
    });
    if (o.withD) {
      row({
        id: 'd1',
        scenario: `  b: p99 ack latency @${CONCURRENCY}`,
        value: ms(fix.p99Ms),
        baseline: ms(base.p99Ms),
        target: `≤ ${TARGETS.d1P99Ms} ms`,
        pass: fix.p99Ms <= TARGETS.d1P99Ms,
        p50: ms(fix.p50Ms),
        p99: ms(fix.p99Ms),
        notes: `max ${ms(fix.maxMs)}${CONCURRENCY === TARGETS.d1Concurrency ? '' : `; the floor is set at ${TARGETS.d1Concurrency} concurrent`}`,
      });
      row({
        id: 'd2',
        scenario: '  b: fixloop peak RSS (VmHWM)',
        value: `${f1(peak)} MB`,
        baseline: `${f0(bareRss)} MB`,
        target: `≤ ${TARGETS.d2PeakRssMb} MB`,
        pass: peak <= TARGETS.d2PeakRssMb,
        rss: `${f0(peak)} MB`,
        notes: `idle after start-up ${f0(idleRss)} MB`,
      });
    }
  } catch (err) {
    failed(o.id, o.name, err);
  } finally {
    await Promise.all([bare?.stop(), app?.stop()]);
    if (app) serverErrors(o.id, app);
  }
}
