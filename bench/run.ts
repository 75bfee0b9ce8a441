// `npm run bench`: fixloop's throughput, latency and memory as ratios against baselines measured
// in the same run, on the same machine, with the same load generator (a separate process).
//
//   npm run bench [-- --only=a,b,c,e,f] [--profile] [--duration=5000] [--warmup=1000] [--concurrency=16]
//
// It is a report, not a test: it always exits 0 (unless the benchmark itself cannot run).
import { mkdtempSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import type { LoadReport, LoadSpec } from './load.js';
import type { LoopResult } from './closed-loop.js';
import type { PayloadSpec } from './payloads.js';
import type { PgBareSpec } from './pg-bare.js';
import { ROOT, createPgDatabase, cpuMs, killAll, peakRssMb, registerTask, runJson, startBare, startFixloop, type Proc } from './procs.js';
import { summarizeProfile } from './profile.js';

// ---------------------------------------------------------------- options
const argv = process.argv.slice(2);
const opt = (name: string): string | undefined => argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1];
const flag = (name: string): boolean => argv.includes(`--${name}`);
const ONLY = new Set((opt('only') ?? 'a,b,c,d,e,f').split(','));
const PROFILE = flag('profile');
const WARMUP_MS = Number(opt('warmup') ?? 1000);
const DURATION_MS = Number(opt('duration') ?? 5000);
const CONCURRENCY = Number(opt('concurrency') ?? 16);
const SECRET = "It's a Secret to Everybody";
const API_TOKEN = 'bench-api-token';
const RUN_SECONDS = (WARMUP_MS + DURATION_MS) / 1000;
const LOAD_TIMEOUT = WARMUP_MS + DURATION_MS + 120_000;

const TMP = mkdtempSync(join(tmpdir(), 'fixloop-bench-'));
const cleanups: Array<() => Promise<void> | void> = [() => rmSync(TMP, { recursive: true, force: true })];

// ---------------------------------------------------------------- results
interface Row {
  id: string;
  scenario: string;
  value: string;
  baseline: string;
  ratio: string;
  target: string;
  pass: boolean | null;
  p50: string;
  p99: string;
  rss: string;
  notes: string;
}
const rows: Row[] = [];
const details: string[] = [];
const profiles: Array<{ scenario: string; dir: string }> = [];

const f0 = (n: number) => (Number.isFinite(n) ? n.toFixed(0) : '—');
const f1 = (n: number) => (Number.isFinite(n) ? n.toFixed(1) : '—');
const pct = (n: number) => (Number.isFinite(n) ? `${(100 * n).toFixed(0)} %` : '—');
const ms = (n: number) => (Number.isFinite(n) ? `${n.toFixed(1)} ms` : '—');
const statuses = (r: Record<string, number>) =>
  Object.entries(r)
    .sort()
    .map(([k, v]) => `${k}×${v}`)
    .join(' ');

function row(r: Partial<Row> & { id: string; scenario: string }): void {
  rows.push({ value: '—', baseline: '—', ratio: '—', target: '—', pass: null, p50: '—', p99: '—', rss: '—', notes: '', ...r });
}

function failed(id: string, scenario: string, err: unknown): void {
  const msg = err instanceof Error ? err.message : String(err);
  row({ id, scenario, value: 'ERROR', pass: false, notes: msg.split('\n')[0]!.slice(0, 120) });
  details.push(`${id} ${scenario} failed:\n${msg.slice(0, 4000)}`);
}

function log(s: string): void {
  process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${s}\n`);
}

// ---------------------------------------------------------------- helpers
function load(targets: string[], payload: PayloadSpec, extra: Partial<LoadSpec> = {}): Promise<LoadReport> {
  const spec: LoadSpec = { targets, secret: SECRET, payload, concurrency: CONCURRENCY, warmupMs: WARMUP_MS, durationMs: DURATION_MS, ...extra };
  return runJson<LoadReport>('bench/load.ts', spec, LOAD_TIMEOUT);
}

function writeConfig(name: string, runner?: unknown): string {
  const file = join(TMP, `${name}.json`);
  writeFileSync(file, JSON.stringify({ works: [{ name: 'acme', account: 'acme', repositories: [{ name: 'acme/shop', role: 'data' }] }], ...(runner ? { runner } : {}) }));
  return file;
}

function profDir(scenario: string): string | undefined {
  if (!PROFILE) return undefined;
  const dir = join(TMP, `prof-${scenario}`);
  mkdirSync(dir, { recursive: true });
  profiles.push({ scenario, dir });
  return dir;
}

/** Poll until no stored event waits for evaluation; returns ms waited (NaN on timeout) and the backlog at the start. */
async function drain(pending: () => Promise<number>, maxMs = 30_000): Promise<{ backlog: number; drainMs: number }> {
  const t0 = performance.now();
  const backlog = await pending();
  let left = backlog;
  while (left > 0) {
    if (performance.now() - t0 > maxMs) return { backlog, drainMs: Number.NaN };
    await new Promise((r) => setTimeout(r, 50));
    left = await pending();
  }
  return { backlog, drainMs: performance.now() - t0 };
}

function sqlitePending(file: string): () => Promise<number> {
  return async () => {
    const db = new BetterSqlite3(file, { readonly: true, fileMustExist: true });
    try {
      return (db.prepare("SELECT count(*) AS n FROM events WHERE eval_state = 'pending'").get() as { n: number }).n;
    } finally {
      db.close();
    }
  };
}

function pgPending(url: string): () => Promise<number> {
  return async () => {
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    try {
      const r = await c.query<{ n: string }>("SELECT count(*) AS n FROM events WHERE eval_state = 'pending'");
      return Number(r.rows[0]?.n ?? 0);
    } finally {
      await c.end();
    }
  };
}

/** Enough unique deliveries for warm-up + measurement at `maxRate`/s (a list that runs out ends the run early; that is reported). */
const sized = (maxRate: number) => Math.ceil(RUN_SECONDS * maxRate);

interface Measured {
  load: LoadReport;
  rssMb: number;
  cpuPct: number;
  backlog?: number;
  drainMs?: number;
}

async function measureBare(payload: PayloadSpec): Promise<Measured> {
  const bare = await startBare(SECRET);
  try {
    const c0 = cpuMs(bare.pid);
    const report = await load([bare.url], payload, { cycle: true });
    const cpu = cpuMs(bare.pid) - c0;
    return { load: report, rssMb: peakRssMb(bare.pid), cpuPct: (100 * cpu) / (WARMUP_MS + DURATION_MS) };
  } finally {
    await bare.stop();
  }
}

async function measureFixloopSqlite(name: string, payload: PayloadSpec): Promise<Measured> {
  const dir = join(TMP, name);
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'fixloop.sqlite');
  const prof = profDir(name);
  const app = await startFixloop({ databaseUrl: `sqlite:${file}`, configFile: writeConfig(name), secret: SECRET, apiToken: API_TOKEN, env: { FIXLOOP_WORK_DIR: join(dir, 'runs') }, ...(prof ? { cpuProfDir: prof } : {}) });
  try {
    await registerTask(app.url, API_TOKEN);
    const c0 = cpuMs(app.pid);
    const report = await load([app.url], payload);
    const cpu = cpuMs(app.pid) - c0;
    const { backlog, drainMs } = await drain(sqlitePending(file));
    return { load: report, rssMb: peakRssMb(app.pid), cpuPct: (100 * cpu) / (WARMUP_MS + DURATION_MS), backlog, drainMs };
  } finally {
    await app.stop();
    checkCrash(name, app);
  }
}

function checkCrash(name: string, app: Proc): void {
  const errors = app
    .output()
    .split('\n')
    .filter((l) => /"level":(50|60)|Error|error/.test(l))
    .slice(0, 3);
  if (errors.length) details.push(`${name}: server logged errors, e.g.\n  ${errors.map((l) => l.slice(0, 300)).join('\n  ')}`);
}

function describeLoad(name: string, m: Measured): void {
  const l = m.load;
  details.push(
    `${name}: ${l.measured} measured of ${l.total} sent (${l.requests} pre-built, ${(l.bodyBytes / l.requests / 1024).toFixed(1)} KB avg, built in ${f0(l.buildMs)} ms)` +
      ` in ${f0(l.windowMs)} ms${l.exhausted ? ' [list used up]' : ''}; statuses ${statuses(l.results)}; all ${statuses(l.resultsAll)}; max ${ms(l.maxMs)}; server CPU ${f0(m.cpuPct)} %` +
      (m.backlog !== undefined ? `; evaluation backlog after load ${m.backlog}, drained in ${m.drainMs !== undefined && Number.isFinite(m.drainMs) ? `${f0(m.drainMs)} ms` : '>30 s'}` : ''),
  );
}

const okStatuses = (l: LoopResult) => Object.entries(l.resultsAll).every(([k]) => k === '200' || k === '202');

// ---------------------------------------------------------------- scenarios
async function scenarioAllRed(): Promise<void> {
  const payload = { kind: 'allRed', bytes: 12 * 1024 } as const;
  let bare: Measured | undefined;
  try {
    log('a1: bare node:http + HMAC, all-red 12 KB payloads');
    bare = await measureBare({ ...payload, count: 2000, seed: 91 });
    describeLoad('a1 bare', bare);
    row({ id: 'a1', scenario: 'bare http+HMAC (all-red 12KB)', value: `${f0(bare.load.perSecond)} req/s`, p50: ms(bare.load.p50Ms), p99: ms(bare.load.p99Ms), rss: `${f0(bare.rssMb)} MB`, notes: 'baseline for b, d' });
  } catch (err) {
    failed('a1', 'bare http+HMAC (all-red 12KB)', err);
  }
  if (!ONLY.has('b') && !ONLY.has('d')) return;
  try {
    log('b: fixloop on SQLite, all-red');
    const m = await measureFixloopSqlite('b-sqlite-allred', { ...payload, count: sized(4000), seed: 1 });
    describeLoad('b fixloop sqlite all-red', m);
    const ratio = bare ? m.load.perSecond / bare.load.perSecond : Number.NaN;
    const ok = okStatuses(m.load);
    row({
      id: 'b',
      scenario: 'fixloop SQLite all-red',
      value: `${f0(m.load.perSecond)} req/s`,
      baseline: bare ? `${f0(bare.load.perSecond)} req/s` : '—',
      ratio: pct(ratio),
      target: '≥ 20 % of bare',
      pass: ratio >= 0.2 && ok,
      p50: ms(m.load.p50Ms),
      p99: ms(m.load.p99Ms),
      rss: `${f0(m.rssMb)} MB`,
      notes: `${ok ? '' : 'NON-2xx! '}${m.load.results['202'] ?? 0} stored; backlog ${m.backlog}${m.load.exhausted ? '; list used up' : ''}`,
    });
    row({ id: 'd1', scenario: `  b: p99 ack latency @${CONCURRENCY}`, value: ms(m.load.p99Ms), baseline: bare ? ms(bare.load.p99Ms) : '—', target: '≤ 20 ms', pass: m.load.p99Ms <= 20, p50: ms(m.load.p50Ms), p99: ms(m.load.p99Ms) });
    row({ id: 'd2', scenario: '  b: fixloop peak RSS (VmHWM)', value: `${f1(m.rssMb)} MB`, baseline: bare ? `${f0(bare.rssMb)} MB` : '—', target: '≤ 150 MB', pass: m.rssMb <= 150, rss: `${f0(m.rssMb)} MB` });
  } catch (err) {
    failed('b', 'fixloop SQLite all-red', err);
  }
}

async function scenarioStormMix(): Promise<void> {
  const payload = { kind: 'stormMix', redeliveryRatio: 0.2 } as const;
  let bare: Measured | undefined;
  try {
    log('a2: bare node:http + HMAC, storm-mix payloads');
    bare = await measureBare({ ...payload, count: 2000, seed: 92 });
    describeLoad('a2 bare', bare);
    row({ id: 'a2', scenario: 'bare http+HMAC (storm mix)', value: `${f0(bare.load.perSecond)} req/s`, p50: ms(bare.load.p50Ms), p99: ms(bare.load.p99Ms), rss: `${f0(bare.rssMb)} MB`, notes: 'baseline for c' });
  } catch (err) {
    failed('a2', 'bare http+HMAC (storm mix)', err);
  }
  try {
    log('c: fixloop on SQLite, storm mix (20 % redeliveries)');
    const m = await measureFixloopSqlite('c-sqlite-mix', { ...payload, count: sized(5000), seed: 2 });
    describeLoad('c fixloop sqlite storm-mix', m);
    const ratio = bare ? m.load.perSecond / bare.load.perSecond : Number.NaN;
    const ok = okStatuses(m.load);
    row({
      id: 'c',
      scenario: 'fixloop SQLite storm mix',
      value: `${f0(m.load.perSecond)} req/s`,
      baseline: bare ? `${f0(bare.load.perSecond)} req/s` : '—',
      ratio: pct(ratio),
      target: '≥ 35 % of bare',
      pass: ratio >= 0.35 && ok,
      p50: ms(m.load.p50Ms),
      p99: ms(m.load.p99Ms),
      rss: `${f0(m.rssMb)} MB`,
      notes: `${ok ? '' : 'NON-2xx! '}202×${m.load.results['202'] ?? 0} 200×${m.load.results['200'] ?? 0}; backlog ${m.backlog}${m.load.exhausted ? '; list used up' : ''}`,
    });
  } catch (err) {
    failed('c', 'fixloop SQLite storm mix', err);
  }
}

async function scenarioPostgres(): Promise<void> {
  const payload = { kind: 'allRed', bytes: 12 * 1024 } as const;
  let bare: (LoopResult & { rows: number }) | undefined;
  try {
    log('e0: bare PostgreSQL INSERT per payload, pool 10');
    const db = await createPgDatabase('bare');
    try {
      const spec: PgBareSpec = { url: db.url, payload: { ...payload, count: sized(6000), seed: 93 }, poolSize: 10, concurrency: CONCURRENCY, warmupMs: WARMUP_MS, durationMs: DURATION_MS };
      bare = await runJson<LoopResult & { rows: number }>('bench/pg-bare.ts', spec, LOAD_TIMEOUT);
    } finally {
      await db.drop();
    }
    details.push(`e0 pg bare: ${bare.measured} inserts measured of ${bare.total} (${bare.rows} pre-built) in ${f0(bare.windowMs)} ms${bare.exhausted ? ' [list used up]' : ''}; ${statuses(bare.resultsAll)}`);
    row({ id: 'e0', scenario: 'bare PG INSERT (pool 10)', value: `${f0(bare.perSecond)} ins/s`, p50: ms(bare.p50Ms), p99: ms(bare.p99Ms), notes: 'baseline for e' });
  } catch (err) {
    failed('e0', 'bare PG INSERT (pool 10)', err);
  }
  try {
    log('e: two fixloop replicas on one PostgreSQL database, all-red, alternating');
    const db = await createPgDatabase('fixloop');
    const apps: Proc[] = [];
    try {
      const config = writeConfig('e-pg');
      const env = { FIXLOOP_WORK_DIR: join(TMP, 'e-pg-runs') };
      // One after the other: the first one migrates the fresh database.
      const profA = profDir('e-pg-replica-a');
      apps.push(await startFixloop({ databaseUrl: db.url, configFile: config, secret: SECRET, apiToken: API_TOKEN, env, ...(profA ? { cpuProfDir: profA } : {}) }));
      const profB = profDir('e-pg-replica-b');
      apps.push(await startFixloop({ databaseUrl: db.url, configFile: config, secret: SECRET, apiToken: API_TOKEN, env, ...(profB ? { cpuProfDir: profB } : {}) }));
      await registerTask(apps[0]!.url, API_TOKEN);
      const c0 = apps.map((a) => cpuMs(a.pid));
      const report = await load(
        apps.map((a) => a.url),
        { ...payload, count: sized(4000), seed: 3 },
      );
      const cpu = apps.map((a, i) => cpuMs(a.pid) - c0[i]!);
      const { backlog, drainMs } = await drain(pgPending(db.url));
      const rss = apps.map((a) => peakRssMb(a.pid));
      const m: Measured = { load: report, rssMb: Math.max(...rss), cpuPct: (100 * (cpu[0]! + cpu[1]!)) / (WARMUP_MS + DURATION_MS), backlog, drainMs };
      describeLoad('e fixloop pg ×2 all-red', m);
      const ratio = bare ? report.perSecond / bare.perSecond : Number.NaN;
      const ok = okStatuses(report);
      row({
        id: 'e',
        scenario: 'fixloop PG ×2 replicas all-red',
        value: `${f0(report.perSecond)} req/s`,
        baseline: bare ? `${f0(bare.perSecond)} ins/s` : '—',
        ratio: pct(ratio),
        target: '≥ 50 % of bare',
        pass: ratio >= 0.5 && ok,
        p50: ms(report.p50Ms),
        p99: ms(report.p99Ms),
        rss: rss.map((r) => `${f0(r)}`).join('+') + ' MB',
        notes: `${ok ? '' : 'NON-2xx! '}${report.results['202'] ?? 0} stored; backlog ${backlog}${report.exhausted ? '; list used up' : ''}`,
      });
    } finally {
      await Promise.all(apps.map((a) => a.stop()));
      apps.forEach((a, i) => checkCrash(`e replica ${i}`, a));
      await db.drop();
    }
  } catch (err) {
    failed('e', 'fixloop PG ×2 replicas all-red', err);
  }
}

async function scenarioStormToAgent(): Promise<void> {
  try {
    log('f: 76-delivery matrix storm → agent start (command runner)');
    const dir = join(TMP, 'f-storm');
    mkdirSync(dir, { recursive: true });
    const file = join(dir, 'fixloop.sqlite');
    const starts = join(dir, 'agent-starts.txt');
    const agent = "require('node:fs').appendFileSync(process.env.BENCH_AGENT_FILE, Date.now() + '\\n')";
    const config = writeConfig('f-storm', { kind: 'command', command: [process.execPath, '-e', agent], envAllow: ['BENCH_AGENT_FILE'] });
    const app = await startFixloop({ databaseUrl: `sqlite:${file}`, configFile: config, secret: SECRET, apiToken: API_TOKEN, env: { FIXLOOP_WORK_DIR: join(dir, 'runs'), BENCH_AGENT_FILE: starts } });
    try {
      await registerTask(app.url, API_TOKEN);
      const report = await load([app.url], { kind: 'matrixStorm', seed: 5 }, { warmupMs: 0, durationMs: 30_000 });
      const t0 = Date.now();
      while (!existsSync(starts) && Date.now() - t0 < 10_000) await new Promise((r) => setTimeout(r, 10));
      // Give a second start (which must not happen) time to show itself.
      await new Promise((r) => setTimeout(r, 1500));
      const lines = existsSync(starts) ? readFileSync(starts, 'utf8').trim().split('\n').filter(Boolean) : [];
      const firstStart = lines.length ? Number(lines[0]) : Number.NaN;
      const delay = firstStart - report.lastFinishAt;
      const ok = okStatuses(report);
      details.push(
        `f storm: ${report.total} deliveries acknowledged in ${f0(report.lastFinishAt - report.firstStartAt)} ms (statuses ${statuses(report.resultsAll)}); agent started ${lines.length}×, ` +
          `${Number.isFinite(firstStart) ? `${f0(firstStart - report.firstStartAt)} ms after the first send, ${f0(delay)} ms after the last ack` : 'never'}`,
      );
      row({
        id: 'f',
        scenario: 'storm 76 → agent start (SQLite)',
        value: Number.isFinite(delay) ? `${f0(delay)} ms` : 'never',
        target: '< 1000 ms, 1 start',
        pass: Number.isFinite(delay) && delay < 1000 && lines.length === 1 && ok,
        p50: ms(report.p50Ms),
        p99: ms(report.p99Ms),
        rss: `${f0(peakRssMb(app.pid))} MB`,
        notes: `agent started ${lines.length}×; ${report.total} acks in ${f0(report.lastFinishAt - report.firstStartAt)} ms${ok ? '' : '; NON-2xx!'}${delay < 0 ? ' (started before the last ack)' : ''}`,
      });
    } finally {
      await app.stop();
      checkCrash('f', app);
    }
  } catch (err) {
    failed('f', 'storm 76 → agent start (SQLite)', err);
  }
}

// ---------------------------------------------------------------- report
function printTable(): void {
  const head = ['', 'scenario', 'result', 'baseline', 'ratio', 'target', 'pass', 'p50', 'p99', 'peak RSS', 'notes'];
  const body = rows.map((r) => [r.id, r.scenario, r.value, r.baseline, r.ratio, r.target, r.pass === null ? '' : r.pass ? 'PASS' : 'FAIL', r.p50, r.p99, r.rss, r.notes]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!))).join(' | ');
  const out = [line(head), widths.map((w, i) => (i === widths.length - 1 ? '-'.repeat(Math.max(5, w)) : '-'.repeat(w))).join('-+-'), ...body.map(line)];
  const judged = rows.filter((r) => r.pass !== null);
  const passed = judged.filter((r) => r.pass).length;
  process.stdout.write(
    `\nfixloop benchmark — ${new Date().toISOString()} — node ${process.version}, ${CONCURRENCY} concurrent, ${WARMUP_MS} ms warm-up + ${DURATION_MS} ms measured${PROFILE ? ' — PROFILED (numbers not comparable)' : ''}\n\n` +
      `${out.join('\n')}\n\n${passed}/${judged.length} targets met${passed === judged.length ? '' : `; FAILED: ${judged.filter((r) => !r.pass).map((r) => r.id).join(', ')}`}\n\n` +
      `details:\n${details.map((d) => `  - ${d}`).join('\n')}\n`,
  );
}

function printProfiles(): void {
  for (const p of profiles) {
    const files = existsSync(p.dir) ? readdirSync(p.dir).filter((f) => f.endsWith('.cpuprofile')) : [];
    if (files.length === 0) {
      process.stdout.write(`\nprofile ${p.scenario}: no .cpuprofile written\n`);
      continue;
    }
    const s = summarizeProfile(join(p.dir, files[0]!), ROOT, 20);
    process.stdout.write(`\nprofile ${p.scenario}: ${f0(s.totalMs)} ms sampled, idle ${f0(s.idlePct)} %\n  by area: ${s.byArea.map((a) => `${a.area} ${a.pct.toFixed(1)}%`).join(', ')}\n`);
    for (const h of s.spots) process.stdout.write(`  ${h.pct.toFixed(1).padStart(5)} %  ${f0(h.selfMs).padStart(6)} ms  ${h.fn}  ${h.where}\n`);
  }
}

const started = performance.now();
try {
  if (ONLY.has('a') || ONLY.has('b') || ONLY.has('d')) await scenarioAllRed();
  if (ONLY.has('c')) await scenarioStormMix();
  if (ONLY.has('e')) await scenarioPostgres();
  if (ONLY.has('f')) await scenarioStormToAgent();
} catch (err) {
  details.push(`benchmark aborted: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
} finally {
  killAll();
}
printTable();
if (PROFILE) printProfiles();
process.stdout.write(`\ntotal ${f0((performance.now() - started) / 1000)} s\n`);
for (const c of cleanups) await c();
process.exit(0);
