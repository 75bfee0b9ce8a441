// Child processes of the benchmark: every one is tracked and killed when the orchestrator ends,
// also on an error or a signal. fixloop itself runs exactly as `npm start` runs it in production: the
// same node flags and environment, read from package.json (serveCommand).
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { freePort, waitReady } from '../test/support/server-process.js';

export const ROOT = fileURLToPath(new URL('../', import.meta.url));
export const PG_ADMIN_URL = process.env.FIXLOOP_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

const children = new Set<ChildProcess>();

export function killAll(): void {
  for (const c of children) {
    if (c.exitCode === null && c.signalCode === null) {
      try {
        c.kill('SIGKILL');
      } catch {
        /* already gone */
      }
    }
  }
  children.clear();
}

process.on('exit', killAll);
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.on(sig, () => {
    killAll();
    process.exit(130);
  });
}

function track(child: ChildProcess): ChildProcess {
  children.add(child);
  child.on('exit', () => children.delete(child));
  return child;
}

/** `npm start`'s command line, from package.json: its environment assignments, node flags, entry and arguments. */
export interface ServeCommand {
  env: Record<string, string>;
  nodeFlags: string[];
  entry: string;
  args: string[];
}

export function serveCommand(): ServeCommand {
  const start = (
    JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { scripts: { start: string } }
  ).scripts.start;
  const words = start.split(/\s+/).filter(Boolean);
  const env: Record<string, string> = {};
  let i = 0;
  for (; i < words.length && /^[A-Z_][A-Z0-9_]*=/.test(words[i]!); i++) {
    const [name, value] = [words[i]!.slice(0, words[i]!.indexOf('=')), words[i]!.slice(words[i]!.indexOf('=') + 1)];
    // `${NAME:-default}`: the benchmark takes the default, as a shell without NAME set does.
    env[name] = value.replace(/^\$\{[A-Z_][A-Z0-9_]*:-(.*)\}$/, '$1');
  }
  if (words[i++] !== 'node') throw new Error(`package.json's start script does not run node: ${start}`);
  const nodeFlags: string[] = [];
  while (i < words.length && words[i]!.startsWith('-')) nodeFlags.push(words[i++]!);
  const entry = words[i++];
  if (!entry) throw new Error(`package.json's start script names no entry: ${start}`);
  return { env, nodeFlags, entry, args: words.slice(i) };
}

function tsxArgs(extra: string[], script: string, args: string[]): string[] {
  return [...extra, '--import', 'tsx', script, ...args];
}

/** Run a bench script to completion and parse the JSON line it prints last; `onPhase` fires on its {"phase":"start"|"end"} lines. */
export function runJson<T>(
  script: string,
  arg: unknown,
  timeoutMs: number,
  onPhase?: (phase: 'start' | 'end') => void,
): Promise<T> {
  return new Promise((resolve, reject) => {
    const child = track(
      spawn(process.execPath, tsxArgs([], script, [JSON.stringify(arg)]), {
        cwd: ROOT,
        stdio: ['ignore', 'pipe', 'pipe'],
      }),
    );
    let out = '';
    let err = '';
    let scanned = 0;
    child.stdout!.on('data', (c) => {
      out += c;
      for (let nl = out.indexOf('\n', scanned); nl >= 0; nl = out.indexOf('\n', scanned)) {
        const line = out.slice(scanned, nl);
        if (line.startsWith('{"phase":"start"')) onPhase?.('start');
        else if (line.startsWith('{"phase":"end"')) onPhase?.('end');
        scanned = nl + 1;
      }
    });
    child.stderr!.on('data', (c) => (err += c));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      const line = out.trim().split('\n').pop() ?? '';
      try {
        const parsed = JSON.parse(line) as T & { error?: string };
        if (code !== 0 || parsed.error)
          return reject(new Error(`${script} failed (${code ?? signal}): ${parsed.error ?? ''}\n${err.slice(-2000)}`));
        resolve(parsed);
      } catch {
        reject(
          new Error(
            `${script} exited ${code ?? signal} without a JSON line:\n${out.slice(-1000)}\n${err.slice(-2000)}`,
          ),
        );
      }
    });
  });
}

export interface Proc {
  url: string;
  pid: number;
  child: ChildProcess;
  output(): string;
  stop(): Promise<void>;
}

async function stopChild(child: ChildProcess, graceMs: number): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}

export async function startBare(secret: string): Promise<Proc> {
  const child = track(
    spawn(process.execPath, tsxArgs([], 'bench/bare-server.ts', []), {
      cwd: ROOT,
      env: { ...process.env, BENCH_SECRET: secret },
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  );
  let out = '';
  child.stderr!.on('data', (c) => (out += c));
  const port = await new Promise<number>((resolve, reject) => {
    let buf = '';
    const timer = setTimeout(() => reject(new Error(`bare server did not start:\n${out}`)), 20_000);
    child.stdout!.on('data', (c) => {
      buf += c;
      const line = buf.split('\n')[0];
      if (buf.includes('\n') && line) {
        clearTimeout(timer);
        resolve((JSON.parse(line) as { port: number }).port);
      }
    });
    child.on('exit', (code) => reject(new Error(`bare server exited (${code}):\n${out}`)));
  });
  return {
    url: `http://127.0.0.1:${port}`,
    pid: child.pid!,
    child,
    output: () => out,
    stop: () => stopChild(child, 5000),
  };
}

export interface FixloopOptions {
  databaseUrl: string;
  configFile: string;
  secret: string;
  apiToken: string;
  env?: Record<string, string>;
  /** Write a V8 CPU profile of the server into this directory (on graceful exit). */
  cpuProfDir?: string;
  /** Extra node flags, placed after tsx's loader (e.g. --perf-basic-prof, --import ./bench/loop-probe.ts). */
  nodeArgs?: string[];
}

export async function startFixloop(o: FixloopOptions): Promise<Proc> {
  const port = await freePort();
  const start = serveCommand();
  const node = [...start.nodeFlags, ...(o.cpuProfDir ? ['--cpu-prof', `--cpu-prof-dir=${o.cpuProfDir}`] : [])];
  const child = track(
    // Extra flags come after tsx's loader, so they may --import TypeScript files.
    // Without diagnostics fixloop runs as `npm start` runs it in production: the build in dist/.
    spawn(
      process.execPath,
      o.nodeArgs?.length
        ? [...node, '--import', 'tsx', ...o.nodeArgs, 'src/cli/main.ts', ...start.args]
        : [...node, start.entry, ...start.args],
      {
        cwd: ROOT,
        env: {
          ...start.env,
          PATH: process.env.PATH ?? '',
          HOME: process.env.HOME ?? '/root',
          HOST: '127.0.0.1',
          PORT: String(port),
          LOG_LEVEL: 'warn',
          DATABASE_URL: o.databaseUrl,
          WEBHOOK_SECRET: o.secret,
          FIXLOOP_API_TOKEN: o.apiToken,
          FIXLOOP_CONFIG: o.configFile,
          ...o.env,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    ),
  );
  let out = '';
  // Keep only the tail: a warn-level log under load can be long.
  const keep = (c: Buffer) => {
    out += c;
    if (out.length > 200_000) out = out.slice(-100_000);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const url = `http://127.0.0.1:${port}`;
  await waitReady(url, child, () => out, 30_000);
  return { url, pid: child.pid!, child, output: () => out, stop: () => stopChild(child, 20_000) };
}

export async function registerTask(url: string, apiToken: string): Promise<number> {
  const r = await fetch(`${url}/api/tasks`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ repository: 'acme/shop', pullRequest: 12, branch: 'agent/fix' }),
  });
  const body = (await r.json()) as { id?: number };
  if (r.status !== 201 || typeof body.id !== 'number')
    throw new Error(`POST /api/tasks answered ${r.status}: ${JSON.stringify(body)}`);
  return body.id;
}

/** Peak resident set size (VmHWM) of a live process, in MB. */
export function peakRssMb(pid: number): number {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : Number.NaN;
}

/** Current resident set size (VmRSS) of a live process, in MB. */
export function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : Number.NaN;
}

/** CPU time (user + system) a live process has used, in ms. */
export function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // After the command: state is field 3, utime 14, stime 15 (1-based in proc(5)).
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

export async function createPgDatabase(tag: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `fixloop_bench_${tag}_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  return {
    url: PG_ADMIN_URL.replace(/\/[^/]*$/, `/${name}`),
    async drop() {
      const c = new pg.Client({ connectionString: PG_ADMIN_URL });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

/** Where the machine's CPU went between two snapshots. */
export interface CpuSnapshot {
  at: number;
  busy: number;
  total: number;
  procs: Map<number, number>;
  /** CPU ticks of every live `postgres` process by pid. */
  postgres: Map<number, number>;
}

const TICK_MS = 10; // USER_HZ is 100 on Linux

function procTicks(pid: number | string): { comm: string; ticks: number } | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { comm, ticks: Number(f[11]) + Number(f[12]) };
  } catch {
    return null;
  }
}

export function cpuSnapshot(pids: number[]): CpuSnapshot {
  const line = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  const total = line.slice(0, 8).reduce((a, b) => a + b, 0);
  const idle = (line[3] ?? 0) + (line[4] ?? 0);
  const procs = new Map<number, number>();
  for (const pid of pids) procs.set(pid, procTicks(pid)?.ticks ?? 0);
  const postgres = new Map<number, number>();
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    const t = procTicks(d);
    if (t && t.comm === 'postgres') postgres.set(Number(d), t.ticks);
  }
  return { at: performance.now(), busy: total - idle, total, procs, postgres };
}

/** Cores used (1.0 = one core busy for the whole interval) by the given pids, by PostgreSQL, and by the whole machine. */
export function cpuBetween(
  a: CpuSnapshot,
  b: CpuSnapshot,
  pids: number[],
): { wallMs: number; procs: number[]; postgres: number; machine: number; cores: number } {
  const wallMs = b.at - a.at;
  const cores = ((b.total - a.total) * TICK_MS) / (wallMs || 1);
  const per = (ticks: number) => (ticks * TICK_MS) / (wallMs || 1);
  return {
    wallMs,
    procs: pids.map((p) => per((b.procs.get(p) ?? 0) - (a.procs.get(p) ?? 0))),
    // A backend that ended in between is lost; one that started in between counts from zero.
    postgres: per([...b.postgres].reduce((n, [pid, t]) => n + t - (a.postgres.get(pid) ?? 0), 0)),
    machine: per(b.busy - a.busy),
    cores: Math.round(cores),
  };
}
