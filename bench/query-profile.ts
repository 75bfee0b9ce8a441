// Where fixloop's SQLite time goes, per SQL statement: an in-process fixloop (no HTTP) ingests a
// delivery list 16 at a time and evaluates it; every better-sqlite3 prepare and every statement
// execution is timed by wrapping better-sqlite3's own methods (nothing in src/ is touched).
//
// With `postgres` it runs on a fresh PostgreSQL database instead and times pg's Client#query
// (round-trip time, which includes waiting for the connection's turn).
//
//   node --import tsx bench/query-profile.ts [allRed|stormMix] [count] [sqlite|postgres]
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../src/config/config.js';
import { createFixloop } from '../src/main.js';
import { createLogger } from '../src/logging.js';
import { buildDeliveries } from './payloads.js';
import { createPgDatabase } from './procs.js';

const kind = process.argv[2] === 'stormMix' ? 'stormMix' : 'allRed';
const count = Number(process.argv[3] ?? 3000);
const onPostgres = process.argv[4] === 'postgres';

const stats = new Map<string, { n: number; ms: number }>();
let prepares = 0;
let prepareMs = 0;
type Stmt = Record<string, unknown>;
const proto = (BetterSqlite3 as unknown as { prototype: { prepare(this: unknown, sql: string): Stmt } }).prototype;
const originalPrepare = proto.prepare;
const shape = (sql: string) =>
  sql
    .replace(/\(\?(, \?)*\)(, \(\?(, \?)*\))*/g, '(?…)')
    .replace(/ in \((\?,? ?)+\)/g, ' in (?…)')
    .slice(0, 120);
proto.prepare = function (this: unknown, sql: string) {
  const t = performance.now();
  const stmt = originalPrepare.call(this, sql);
  prepareMs += performance.now() - t;
  prepares++;
  const key = shape(sql);
  for (const m of ['all', 'run', 'get']) {
    const f = stmt[m];
    if (typeof f !== 'function') continue;
    stmt[m] = (...args: unknown[]) => {
      const t0 = performance.now();
      try {
        return (f as (...a: unknown[]) => unknown).apply(stmt, args);
      } finally {
        const s = stats.get(key) ?? { n: 0, ms: 0 };
        s.n++;
        s.ms += performance.now() - t0;
        stats.set(key, s);
      }
    };
  }
  return stmt;
};

type Query = (this: unknown, ...args: unknown[]) => unknown;
const clientProto = (pg.Client as unknown as { prototype: { query: Query } }).prototype;
const originalQuery = clientProto.query;
clientProto.query = function (this: unknown, ...args: unknown[]) {
  const first = args[0];
  const text = typeof first === 'string' ? first : ((first as { text?: string } | null)?.text ?? '?');
  const key = shape(text.replace(/\$\d+/g, '?'));
  const t0 = performance.now();
  const done = () => {
    const st = stats.get(key) ?? { n: 0, ms: 0 };
    st.n++;
    st.ms += performance.now() - t0;
    stats.set(key, st);
  };
  const r = originalQuery.apply(this, args);
  if (r && typeof (r as Promise<unknown>).then === 'function') (r as Promise<unknown>).then(done, done);
  return r;
};

const pgDb = onPostgres ? await createPgDatabase('qprof') : null;
const dir = mkdtempSync(join(tmpdir(), 'fixloop-qprof-'));
const configFile = join(dir, 'fixloop.json');
writeFileSync(
  configFile,
  JSON.stringify({ works: [{ name: 'acme', account: 'acme', repositories: [{ name: 'acme/shop', role: 'data' }] }] }),
);
const config = loadConfig({
  env: {
    DATABASE_URL: pgDb?.url ?? `sqlite:${join(dir, 'fixloop.sqlite')}`,
    WEBHOOK_SECRET: 'bench',
    FIXLOOP_CONFIG: configFile,
    LOG_LEVEL: 'silent',
  },
});
const app = await createFixloop(config, { logger: createLogger('silent') });
await app.ledger.createTask({
  work: 'acme',
  repository: 'acme/shop',
  pullRequest: 12,
  branch: 'agent/fix',
  resumeRef: null,
});
const deliveries = buildDeliveries(kind === 'allRed' ? { kind, count } : { kind, count });

stats.clear();
prepares = 0;
prepareMs = 0;
const cpu0 = process.cpuUsage();
const t0 = performance.now();
for (let i = 0; i < deliveries.length; i += 16) {
  await Promise.all(
    deliveries.slice(i, i + 16).map((d) => app.ingestor.ingest({ deliveryId: d.id, eventName: d.event, raw: d.body })),
  );
}
await app.settle();
const wall = performance.now() - t0;
const cpu = process.cpuUsage(cpu0);
const rows = [...stats.entries()].sort((a, b) => b[1].ms - a[1].ms);
const execMs = rows.reduce((n, [, s]) => n + s.ms, 0);
const executions = rows.reduce((n, [, s]) => n + s.n, 0);
const per = (x: number) => (x / deliveries.length).toFixed(3);
console.log(
  `${kind}: ${deliveries.length} deliveries ingested + evaluated in ${wall.toFixed(0)} ms (${((deliveries.length * 1000) / wall).toFixed(0)}/s, CPU ${((cpu.user + cpu.system) / 1000).toFixed(0)} ms)\n` +
    `per delivery: ${per(wall)} ms wall, ${(executions / deliveries.length).toFixed(2)} statements, ${(prepares / deliveries.length).toFixed(2)} prepares; ` +
    `${onPostgres ? 'PostgreSQL round trips (overlapping)' : 'SQLite execution'} ${per(execMs)} ms (${((100 * execMs) / wall).toFixed(0)} %), better-sqlite3 prepare ${per(prepareMs)} ms (${((100 * prepareMs) / wall).toFixed(0)} %), ` +
    `everything else (kysely, JSON, classify, evaluate, promises) ${per(wall - execMs - prepareMs)} ms\n`,
);
console.log('calls    ms total  µs/call  statement');
for (const [sql, s] of rows.slice(0, 20))
  console.log(
    `${String(s.n).padStart(6)} ${s.ms.toFixed(0).padStart(9)} ${((1000 * s.ms) / s.n).toFixed(0).padStart(8)}  ${sql}`,
  );
await app.close();
rmSync(dir, { recursive: true, force: true });
await pgDb?.drop();
