// The PostgreSQL baseline, run as its own process by bench/run.ts:
//   node --import tsx bench/pg-bare.ts '<PgBareSpec JSON>'
// Inserts the same raw payloads the load generator would post, one INSERT per payload, into a
// table (id serial, identity text unique, payload text) through a pool of the same size as
// fixloop's, at the same concurrency and for the same time; prints one JSON line (inserts/s).
import pg from 'pg';
import { buildDeliveries, type PayloadSpec } from './payloads.js';
import { closedLoop } from './closed-loop.js';

export interface PgBareSpec {
  url: string;
  payload: PayloadSpec;
  poolSize?: number;
  concurrency?: number;
  warmupMs?: number;
  durationMs?: number;
}

const spec = JSON.parse(process.argv[2] ?? '{}') as PgBareSpec;
const warmupMs = spec.warmupMs ?? 1000;
const durationMs = spec.durationMs ?? 5000;
const hardStop = setTimeout(
  () => {
    process.stdout.write(`${JSON.stringify({ kind: 'pg-bare', error: 'hard timeout' })}\n`);
    process.exit(2);
  },
  warmupMs + durationMs + 60_000,
);
hardStop.unref();

const rows = buildDeliveries(spec.payload).map((d) => [d.identity, d.body] as const);
const pool = new pg.Pool({ connectionString: spec.url, max: spec.poolSize ?? 10 });
await pool.query(
  'CREATE TABLE IF NOT EXISTS bench_raw (id serial PRIMARY KEY, identity text UNIQUE NOT NULL, payload text NOT NULL)',
);
// Connections are opened before the clock starts, as fixloop's are by the time it is ready.
const warm = await Promise.all(Array.from({ length: spec.poolSize ?? 10 }, () => pool.connect()));
for (const c of warm) c.release();

process.stdout.write(`${JSON.stringify({ phase: 'start' })}\n`);
const result = await closedLoop({
  concurrency: spec.concurrency ?? 16,
  warmupMs,
  durationMs,
  items: rows.length,
  cycle: false,
  exec: async (i) => {
    const [identity, payload] = rows[i]!;
    await pool.query('INSERT INTO bench_raw (identity, payload) VALUES ($1, $2)', [identity, payload]);
    return 'ok';
  },
});
process.stdout.write(`${JSON.stringify({ phase: 'end' })}\n`);
await pool.end();
process.stdout.write(`${JSON.stringify({ kind: 'pg-bare', rows: rows.length, ...result })}\n`);
clearTimeout(hardStop);
