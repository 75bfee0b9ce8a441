// The benchmark's report: the formatting of figures, the rows and details the scenarios add, and
// the one table printed at the end with each floor's verdict.
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './procs.js';
import { summarizeProfile } from './profile.js';
import { CONCURRENCY, DIAG, DURATION_MS, PROFILE, ROUNDS, WARMUP_MS, WARM_REQUESTS, opt } from './settings.js';

// ---------------------------------------------------------------- formatting
export const f0 = (n: number) => (Number.isFinite(n) ? n.toFixed(0) : '—');
export const f1 = (n: number) => (Number.isFinite(n) ? n.toFixed(1) : '—');
export const f2 = (n: number) => (Number.isFinite(n) ? n.toFixed(2) : '—');
export const pct = (n: number) => (Number.isFinite(n) ? `${(100 * n).toFixed(0)} %` : '—');
/** A ratio against its target in percent: one decimal where whole percents would hide the verdict (19.9 % is not 20 %). */
export const pctAgainst = (n: number, target: number) =>
  Number.isFinite(n) && Math.round(100 * n) === target ? `${(100 * n).toFixed(1)} %` : pct(n);
export const ms = (n: number) => (Number.isFinite(n) ? `${n.toFixed(1)} ms` : '—');
export const statuses = (r: Record<string, number>) =>
  Object.entries(r)
    .sort()
    .map(([k, v]) => `${k}×${v}`)
    .join(' ');

export function log(s: string): void {
  process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${s}\n`);
}

// ---------------------------------------------------------------- results
export interface Row {
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
export const rows: Row[] = [];
export const details: string[] = [];
export const profiles: Array<{ scenario: string; dir: string }> = [];

export function row(r: Partial<Row> & { id: string; scenario: string }): void {
  rows.push({
    value: '—',
    baseline: '—',
    ratio: '—',
    target: '—',
    pass: null,
    p50: '—',
    p99: '—',
    rss: '—',
    notes: '',
    ...r,
  });
}

export function failed(id: string, scenario: string, err: unknown): void {
  const msg = err instanceof Error ? (err.stack ?? err.message) : String(err);
  row({ id, scenario, value: 'ERROR', pass: false, notes: msg.split('\n')[0]!.slice(0, 140) });
  details.push(`${id} ${scenario} failed:\n${msg.slice(0, 4000)}`);
}

// ---------------------------------------------------------------- report
export function printTable(): void {
  const head = ['', 'scenario', 'result', 'baseline', 'ratio', 'target', 'pass', 'p50', 'p99', 'peak RSS', 'notes'];
  const body = rows.map((r) => [
    r.id,
    r.scenario,
    r.value,
    r.baseline,
    r.ratio,
    r.target,
    r.pass === null ? '' : r.pass ? 'PASS' : 'FAIL',
    r.p50,
    r.p99,
    r.rss,
    r.notes,
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!))).join(' | ');
  const rule = widths.map((w, i) => '-'.repeat(i === widths.length - 1 ? Math.max(5, w) : w)).join('-+-');
  const judged = rows.filter((r) => r.pass !== null);
  const passed = judged.filter((r) => r.pass).length;
  process.stdout.write(
    `\nfixloop benchmark — ${new Date().toISOString()} — node ${process.version}, ${CONCURRENCY} concurrent, ${ROUNDS} interleaved round(s) of ${WARMUP_MS} ms warm-up + ${DURATION_MS} ms measured per side, after ${WARM_REQUESTS} unmeasured deliveries per server process` +
      `${PROFILE ? ' — PROFILED (numbers not comparable)' : ''}${DIAG ? ' — with loop probe' : ''}\n\n` +
      `${[line(head), rule, ...body.map(line)].join('\n')}\n\n` +
      `${passed}/${judged.length} targets met${
        passed === judged.length
          ? ''
          : ` — FAILED: ${judged
              .filter((r) => !r.pass)
              .map((r) => r.id)
              .join(', ')}`
      }\n` +
      `ratio = req/s ÷ baseline, summed over the rounds; "rounds" = the ratio per round. "(= N %)" in notes is the same ratio from CPU time per request,\n` +
      `which holds up better when other work on this machine takes cores (see "everything else on the machine" below).\n\n` +
      `details:\n${details.map((d) => `  - ${d}`).join('\n')}\n`,
  );
}

export function printProfiles(): void {
  for (const p of profiles) {
    const files = existsSync(p.dir) ? readdirSync(p.dir).filter((f) => f.endsWith('.cpuprofile')) : [];
    if (files.length === 0) {
      process.stdout.write(`\nprofile ${p.scenario}: no .cpuprofile written\n`);
      continue;
    }
    const s = summarizeProfile(join(p.dir, files[0]!), ROOT, Number(opt('profile-top') ?? 20));
    process.stdout.write(
      `\nprofile ${p.scenario} (whole process life, start-up and idle waits included): ${f0(s.totalMs)} ms sampled, idle ${f0(s.idlePct)} %\n  self time by area: ${s.byArea.map((a) => `${a.area} ${a.pct.toFixed(1)}%`).join(', ')}\n`,
    );
    process.stdout.write('  top self time:\n');
    for (const h of s.spots)
      process.stdout.write(
        `  ${h.pct.toFixed(1).padStart(5)} %  ${f0(h.selfMs).padStart(6)} ms  ${h.fn}  ${h.where}\n`,
      );
    process.stdout.write(
      `  inclusive time, % of non-idle — by area: ${s.inclusiveByArea.map((a) => `${a.area} ${a.pct.toFixed(0)}%`).join(', ')}\n`,
    );
    for (const h of s.inclusive)
      process.stdout.write(
        `  ${h.pct.toFixed(1).padStart(5)} %  ${f0(h.selfMs).padStart(6)} ms  ${h.fn}  ${h.where}\n`,
      );
  }
}
