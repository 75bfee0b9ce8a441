// `npm run bench`: fixloop's throughput, latency and memory as ratios against baselines measured
// in the same run, on the same machine, with the same load generator (bench/load.ts, its own process).
//
//   npm run bench [-- --only=b,c,e,f] [--rounds=5] [--warmup=1000] [--duration=2000]
//                    [--concurrency=16] [--warm-requests=12000] [--profile] [--diag]
//
// The machine is small (2 cores) and shared, so a baseline and its target are not measured once
// each but in interleaved rounds (base, target, target, base, …) against servers that stay up;
// each round is a fresh load-generator process (1 s warm-up + `duration` measured) with its own
// unique deliveries. Numbers are aggregated over the rounds; the per-round ratios show the spread.
// `--rounds=1 --duration=5000` is the single-shot form.
//
//   --profile  run the fixloop servers under `node --cpu-prof` and print their hot spots
//   --diag     preload bench/loop-probe.ts into the fixloop servers: event-loop utilization/delay
//
// It prints one table of every figure with each floor's verdict (the floors: bench/settings.ts,
// decision 0061) and exits 1 when a floor is missed or a scenario broke, 0 otherwise. The parts:
// settings.ts (options, floors), harness.ts (load bursts, rounds), scenarios-sqlite.ts (b, c, d),
// scenario-postgres.ts (e), scenario-storm.ts (f), report.ts (the table).
import { rmSync } from 'node:fs';
import { killAll } from './procs.js';
import { sized } from './harness.js';
import { details, f0, log, printProfiles, printTable, rows } from './report.js';
import { sqliteVsBare } from './scenarios-sqlite.js';
import { postgres } from './scenario-postgres.js';
import { stormToAgent } from './scenario-storm.js';
import { ONLY, PROFILE, TARGETS, TMP } from './settings.js';
const started = performance.now();
let aborted = false;
try {
  if (ONLY.has('b') || ONLY.has('d')) {
    log('b/d: fixloop on SQLite, all-red 12 KB, vs bare http+HMAC');
    await sqliteVsBare({
      id: 'b',
      name: 'fixloop SQLite all-red',
      payload: (seed) => ({ kind: 'allRed', bytes: 12 * 1024, count: sized(5000), seed }),
      seedBase: 10,
      target: TARGETS.bPctOfBare,
      withD: true,
    });
  }
  if (ONLY.has('c')) {
    log('c: fixloop on SQLite, storm mix with 20 % redeliveries, vs bare http+HMAC');
    await sqliteVsBare({
      id: 'c',
      name: 'fixloop SQLite storm mix',
      payload: (seed) => ({ kind: 'stormMix', redeliveryRatio: 0.2, count: sized(6000), seed }),
      seedBase: 20,
      target: TARGETS.cPctOfBare,
      withD: false,
    });
  }
  if (ONLY.has('e')) {
    log('e: two fixloop replicas on PostgreSQL vs bare INSERTs');
    await postgres();
  }
  if (ONLY.has('f')) {
    log('f: 76-delivery storm → agent start');
    await stormToAgent();
  }
} catch (err) {
  aborted = true;
  details.push(`benchmark aborted: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
} finally {
  killAll();
}
printTable();
if (PROFILE) printProfiles();
process.stdout.write(`\ntotal ${f0((performance.now() - started) / 1000)} s\n`);
rmSync(TMP, { recursive: true, force: true });
// A missed floor or a broken scenario (its row is a FAIL) is a failed benchmark.
const missed = rows.some((r) => r.pass === false);
if (aborted) process.stdout.write('the benchmark broke: see "benchmark aborted" above\n');
process.exit(missed || aborted ? 1 : 0);
