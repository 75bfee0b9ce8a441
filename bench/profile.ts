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

function areaOf(fn: string, where: string): string {
  if (fn.startsWith('(')) return fn;
  if (where.startsWith('nm/'))
    return where
      .split('/')
      .slice(1, where.startsWith('nm/@') ? 3 : 2)
      .join('/');
  if (where.startsWith('node:')) return 'node core';
  if (where === '(native)') return '(native)';
  return where.replace(/:\d+$/, '');
}

export interface ProfileSummary {
  totalMs: number;
  idlePct: number;
  /** Self time per function. */
  spots: HotSpot[];
  /** Self time per package / source file. */
  byArea: Array<{ area: string; pct: number }>;
  /** Inclusive (self + callees) time per function and per package / source file, idle excluded from the base. */
  inclusive: HotSpot[];
  inclusiveByArea: Array<{ area: string; pct: number }>;
}

export function summarizeProfile(file: string, root: string, top = 15): ProfileSummary {
  const prof = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(prof.nodes.map((n) => [n.id, n]));
  const self = new Map<number, number>();
  const samples = prof.samples ?? [];
  const deltas = prof.timeDeltas ?? [];
  for (let i = 0; i < samples.length; i++)
    self.set(samples[i]!, (self.get(samples[i]!) ?? 0) + (deltas[i] ?? 0) / 1000);
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
    const area = areaOf(fn, where);
    areas.set(area, (areas.get(area) ?? 0) + ms);
  }
  const spots = [...agg.values()].sort((a, b) => b.selfMs - a.selfMs).slice(0, top);
  for (const s of spots) s.pct = (100 * s.selfMs) / (total || 1);
  const byArea = [...areas.entries()]
    .map(([area, ms]) => ({ area, pct: (100 * ms) / (total || 1) }))
    .sort((a, b) => b.pct - a.pct)
    .slice(0, 12);
  // Inclusive: each node's subtree time, counted once per function (and per area) on a stack.
  const subtree = new Map<number, number>();
  const totalOf = (id: number): number => {
    const known = subtree.get(id);
    if (known !== undefined) return known;
    const n = byId.get(id);
    let t = self.get(id) ?? 0;
    for (const c of n?.children ?? []) t += totalOf(c);
    subtree.set(id, t);
    return t;
  };
  const incl = new Map<string, HotSpot>();
  const inclArea = new Map<string, number>();
  const busy = total - idle || 1;
  const walk = (id: number, onPath: Set<string>, areasOnPath: Set<string>): void => {
    const n = byId.get(id);
    if (!n) return;
    const fn = n.callFrame.functionName || '(anonymous)';
    if (fn === '(idle)' || fn === '(program)' || fn === '(root)') {
      for (const c of n.children ?? []) walk(c, onPath, areasOnPath);
      return;
    }
    const where = place(n.callFrame.url, n.callFrame.lineNumber, root);
    const key = `${fn} ${where}`;
    const area = areaOf(fn, where);
    const t = totalOf(id);
    const addKey = !onPath.has(key);
    const addArea = !areasOnPath.has(area);
    if (addKey) {
      const s = incl.get(key) ?? { fn, where, selfMs: 0, pct: 0 };
      s.selfMs += t;
      incl.set(key, s);
      onPath.add(key);
    }
    if (addArea) {
      inclArea.set(area, (inclArea.get(area) ?? 0) + t);
      areasOnPath.add(area);
    }
    for (const c of n.children ?? []) walk(c, onPath, areasOnPath);
    if (addKey) onPath.delete(key);
    if (addArea) areasOnPath.delete(area);
  };
  const rootNode = prof.nodes[0];
  if (rootNode) walk(rootNode.id, new Set(), new Set());
  const inclusive = [...incl.values()].sort((a, b) => b.selfMs - a.selfMs).slice(0, top);
  for (const s of inclusive) s.pct = (100 * s.selfMs) / busy;
  const inclusiveByArea = [...inclArea.entries()]
    .map(([area, ms]) => ({ area, pct: (100 * ms) / busy }))
    .sort((a, b) => b.pct - a.pct)
    .slice(0, 14);
  return { totalMs: total, idlePct: (100 * idle) / (total || 1), spots, byArea, inclusive, inclusiveByArea };
}
