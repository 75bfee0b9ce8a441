// `npm run bench`'s command-line options and the floors it judges against, read once for every part of it.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// ---------------------------------------------------------------- options
export const argv = process.argv.slice(2);
export const opt = (name: string): string | undefined =>
  argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
export const flag = (name: string): boolean => argv.includes(`--${name}`);
export const ONLY = new Set((opt('only') ?? 'b,c,d,e,f').split(',').map((s) => s.trim()));
// The baselines (a) are measured inside the scenarios they are baselines for.
if (ONLY.has('a')) ['b', 'c'].forEach((s) => ONLY.add(s));
export const PROFILE = flag('profile');
export const DIAG = flag('diag');
export const ROUNDS = Math.max(1, Number(opt('rounds') ?? 5));
export const WARMUP_MS = Number(opt('warmup') ?? 1000);
// Deliveries each server process takes, unmeasured, before the rounds (both sides; for e the
// baseline's side warms PostgreSQL, its client being a fresh process each round): fixloop's
// cost per request keeps falling for its first few thousand requests while the JIT compiles its
// hot paths (bench/README.md); a long-running service is measured in its steady state.
export const WARM_REQUESTS = Math.max(0, Number(opt('warm-requests') ?? 12000));
export const WARM_LIMIT_MS = 90_000;
export const DURATION_MS = Number(opt('duration') ?? 2000);
export const CONCURRENCY = Number(opt('concurrency') ?? 16);
// e's steady phase: the arrival rate (the floor's) and how long it is held, measured, after a 1 s ramp.
export const STEADY_RATE = Number(opt('steady-rate') ?? 100);
export const STEADY_MS = Number(opt('steady-duration') ?? 10_000);
export const SECRET = "It's a Secret to Everybody";
export const API_TOKEN = 'bench-api-token';
export const DRIVE_S = (WARMUP_MS + DURATION_MS) / 1000;
export const LOAD_TIMEOUT = WARMUP_MS + DURATION_MS + 120_000;

export const TMP = mkdtempSync(join(tmpdir(), 'fixloop-bench-'));

// ---------------------------------------------------------------- targets
// The floors each scenario is judged against, in one place; bench/README.md has the runs measured against them.
export const TARGETS = {
  /** b: fixloop on SQLite, all-red 12 KB deliveries, in % of the bare http+HMAC server's req/s. */
  bPctOfBare: 15,
  /** c: fixloop on SQLite, the storm mix, in % of the bare server's req/s. */
  cPctOfBare: 20,
  /** d1: b's p99 acknowledgement latency, at `d1Concurrency` deliveries in flight. */
  d1P99Ms: 25,
  d1Concurrency: 16,
  /** d2: b's fixloop peak RSS (VmHWM). */
  d2PeakRssMb: 150,
  /** e: two fixloop replicas on PostgreSQL hold this many deliveries a second, open loop (decision 0061)… */
  eRatePerSecond: 100,
  /** …with this p99 acknowledgement latency, from each delivery's due time. Their throughput ratio is reported only. */
  eP99Ms: 50,
  /** f: the 76-delivery storm: the agent starts this soon after the last ack, exactly once. */
  fStartMs: 1000,
} as const;
