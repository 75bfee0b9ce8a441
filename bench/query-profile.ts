import BetterSqlite3 from 'better-sqlite3';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../src/config/config.js';
import { createFixloop } from '../src/main.js';
import { createLogger } from '../src/logging.js';
import { buildDeliveries } from './payloads.js';
const stats = new Map<string, {n:number, ms:number}>();
let prepares = 0, prepMs = 0;
const proto: any = (BetterSqlite3 as any).prototype;
const origPrepare = proto.prepare;
proto.prepare = function (sql: string) {
  const t = performance.now();
  const st = origPrepare.call(this, sql);
  prepMs += performance.now() - t; prepares++;
  for (const m of ['all','run','get']) {
    const f = st[m];
    if (typeof f !== 'function') continue;
    st[m] = function (...a: any[]) { const t0 = performance.now(); try { return f.apply(st, a); } finally { const key = sql.replace(/\(\?(, \?)*\)(, \(\?(, \?)*\))*/g,'(?..)').replace(/in \((\?,? ?)+\)/g,'in (?..)').slice(0,110); const s = stats.get(key) ?? {n:0,ms:0}; s.n++; s.ms += performance.now()-t0; stats.set(key,s);} };
  }
  return st;
};
const dir = mkdtempSync(join(tmpdir(), 'fxdiag-'));
const cfg = join(dir,'c.json');
writeFileSync(cfg, JSON.stringify({ works: [{ name: 'acme', account: 'acme', repositories: [{ name: 'acme/shop', role: 'data' }] }] }));
const config = loadConfig({ env: { DATABASE_URL: `sqlite:${join(dir,'db.sqlite')}`, WEBHOOK_SECRET: 's', FIXLOOP_CONFIG: cfg, LOG_LEVEL: 'silent' } });
const app = await createFixloop(config, { logger: createLogger('silent') });
await app.ledger.createTask({ work: 'acme', repository: 'acme/shop', pullRequest: 12, branch: 'agent/fix' } as any);
const kind = process.argv[2] ?? 'allRed';
const N = 3000;
const ds = buildDeliveries(kind === 'allRed' ? { kind: 'allRed', count: N } : { kind: 'stormMix', count: N });
stats.clear(); prepares = 0; prepMs = 0;
const t0 = performance.now();
for (let i = 0; i < N; i += 16) {
  await Promise.all(ds.slice(i, i+16).map(d => app.ingestor.ingest({ deliveryId: d.id, eventName: d.event, raw: d.body })));
}
const tIngest = performance.now() - t0;
await app.settle();
const total = performance.now() - t0;
console.log({ kind, N, ingestMs: tIngest.toFixed(0), totalMs: total.toFixed(0), prepares, prepMs: prepMs.toFixed(0) });
const rows = [...stats.entries()].sort((a,b)=>b[1].ms-a[1].ms);
let sum=0; for (const [,s] of rows) sum+=s.ms;
console.log('sqlite exec total ms', sum.toFixed(0));
for (const [k,s] of rows.slice(0,25)) console.log(s.n.toString().padStart(6), s.ms.toFixed(0).padStart(6), 'ms', k);
await app.close();
