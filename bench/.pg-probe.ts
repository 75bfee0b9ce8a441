import pg from 'pg';
import { writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFixloop, registerTask, runJson, createPgDatabase, killAll, cpuMs } from './procs.js';
const replicas = Number(process.argv[2] ?? 2);
const dir = mkdtempSync(join(tmpdir(), 'pgprobe-'));
const cfg = join(dir, 'c.json');
writeFileSync(cfg, JSON.stringify({ works: [{ name: 'acme', account: 'acme', repositories: [{ name: 'acme/shop', role: 'data' }] }] }));
const db = await createPgDatabase('probe');
const SECRET = 's';
try {
  const apps = [];
  for (let i = 0; i < replicas; i++) apps.push(await startFixloop({ databaseUrl: db.url, configFile: cfg, secret: SECRET, apiToken: 't', nodeArgs: ['--import', './bench/loop-probe.ts'], env: { BENCH_LOOP_PROBE_FILE: '/tmp/loop-'+i+'.jsonl' } }));
  await registerTask(apps[0]!.url, 't');
  const c = new pg.Client({ connectionString: db.url }); await c.connect();
  const waits = new Map<string, number>();
  let sampling = true;
  const sampler = (async () => { while (sampling) {
    const r = await c.query("select state, wait_event_type, wait_event, left(query, 70) q from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()");
    for (const row of r.rows) { if (row.state === 'idle') continue; const k = `${row.state} | ${row.wait_event_type}:${row.wait_event} | ${row.q}`; waits.set(k, (waits.get(k) ?? 0) + 1); }
    await new Promise(r => setTimeout(r, 20)); } })();
  const { readdirSync, readFileSync } = await import('node:fs');
  const threads = (pid: number) => Object.fromEntries(readdirSync(`/proc/${pid}/task`).map(t => { const s = readFileSync(`/proc/${pid}/task/${t}/stat`, 'utf8'); const name = s.slice(s.indexOf('(') + 1, s.lastIndexOf(')')); const f = s.slice(s.lastIndexOf(')') + 2).split(' '); return [`${t}:${name}`, [Number(f[11]) * 10, Number(f[12]) * 10]]; }));
  const th0 = threads(apps[0]!.pid);
  const { spawn } = await import('node:child_process');
  const perf = { kill() {}, on(_: string, r: any) { r(); } } as any;
  const c0 = apps.map(a => cpuMs(a.pid));
  const rep: any = await runJson('bench/load.ts', { targets: apps.map(a => a.url), secret: SECRET, payload: { kind: 'allRed', count: 6000, seed: 4 }, warmupMs: 1000, durationMs: 4000 }, 60000);
  console.log('cpu ms', apps.map((a, i) => cpuMs(a.pid) - c0[i]!));
  sampling = false; await sampler;
  perf.kill('SIGINT'); await new Promise(r => perf.on('exit', r));
  const th1 = threads(apps[0]!.pid);
  for (const [k, v] of Object.entries(th1)) { const a = th0[k] ?? [0, 0]; console.log('thread', k, 'user', v[0]! - a[0]!, 'sys', v[1]! - a[1]!); }
  console.log(JSON.stringify({ rps: rep.perSecond, p50: rep.p50Ms, p99: rep.p99Ms, res: rep.resultsAll }));
  for (const [k, n] of [...waits.entries()].sort((a, b) => b[1] - a[1]).slice(0, 25)) console.log(String(n).padStart(5), k);
  await c.end();
  for (const a of apps) { const o = a.output(); console.log("OUTPUT", o.length, o.slice(0, 600)); }
  await Promise.all(apps.map(a => a.stop()));
} finally { killAll(); await db.drop(); }
