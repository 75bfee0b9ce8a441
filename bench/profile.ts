// Summarize a V8 .cpuprofile: self time per function (name + file:line), top N.
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples?: number[];
  timeDeltas?: number[];
}

export interface HotSpot {
  fn: string;
  where: string;
  selfMs: number;
  pct: number;
}

function place(url: string, line: number, root: string): string {
  if (!url) return '(native)';
  let p = url.replace(/^file:\/\//, '');
  if (p.startsWith(root)) p = relative(root, p);
  p = p.replace(/^node_modules\//, 'nm/');
  return `${p}:${line + 1}`;
}

export function summarizeProfile(file: string, root: string, top = 15): { totalMs: number; idlePct: number; spots: HotSpot[]; byArea: Array<{ area: string; pct: number }> } {
  const prof = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(prof.nodes.map((n) => [n.id, n]));
  const self = new Map<number, number>();
  const samples = prof.samples ?? [];
  const deltas = prof.timeDeltas ?? [];
  for (let i = 0; i < samples.length; i++) self.set(samples[i]!, (self.get(samples[i]!) ?? 0) + (deltas[i] ?? 0) / 1000);
  const total = [...self.values()].reduce((a, b) => a + b, 0);
  const agg = new Map<string, HotSpot>();
  const areas = new Map<string, number>();
  let idle = 0;
  for (const [id, ms] of self) {
    const n = byId.get(id);
    if (!n) continue;
    const fn = n.callFrame.functionName || '(anonymous)';
    if (fn === '(idle)') idle += ms;
    const where = place(n.callFrame.url, n.callFrame.lineNumber, root);
    const key = `${fn} ${where}`;
    const s = agg.get(key) ?? { fn, where, selfMs: 0, pct: 0 };
    s.selfMs += ms;
    agg.set(key, s);
    const area = fn.startsWith('(') ? fn : where.startsWith('nm/') ? where.split('/').slice(1, where.includes('/@') ? 3 : 2).join('/') : where.startsWith('node:') ? 'node core' : where.split('/').slice(0, 2).join('/').replace(/:\d+$/, '');
    areas.set(area, (areas.get(area) ?? 0) + ms);
  }
  const spots = [...agg.values()].sort((a, b) => b.selfMs - a.selfMs).slice(0, top);
  for (const s of spots) s.pct = (100 * s.selfMs) / (total || 1);
  const byArea = [...areas.entries()].map(([area, ms]) => ({ area, pct: (100 * ms) / (total || 1) })).sort((a, b) => b.pct - a.pct).slice(0, 12);
  return { totalMs: total, idlePct: (100 * idle) / (total || 1), spots, byArea };
}
