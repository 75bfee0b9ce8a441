// Marks for agent processes (core/stranded-run.ts): written when the command runner starts one, so
// that a later fixloop process — after a crash or a SIGKILL, when the child handle is gone — can
// tell whether that same process still runs, and whether the fixloop that started it does. A pid
// alone is not enough, because pids are reused: on Linux a mark adds the boot id and the process's
// start time (field 22 of /proc/<pid>/stat), which together name one process for good; elsewhere
// only the pid is compared. Pids are read in this process's PID namespace: replicas that share a
// host name must share one (processes on one machine do; a restarted container gets a fresh
// namespace, where the old processes are all gone, and so are found gone).
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import type { Liveness, ProcessMark } from '../core/stranded-run.js';

let bootId: string | null | undefined;
function currentBootId(): string | null {
  if (bootId === undefined) {
    try {
      bootId = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
    } catch {
      bootId = null;
    }
  }
  return bootId;
}

/** This machine as marks name it. */
export function thisHost(): string {
  return hostname();
}

/** State (field 3), parent (field 4) and start time (field 22) from /proc/<pid>/stat, or null where /proc cannot tell. */
function procStat(pid: number): { state: string; parent: number; startTime: string } | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces and parentheses: fields are counted after its last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const [state, parent, startTime] = [fields[3 - 3], fields[4 - 3], fields[22 - 3]];
    return state && startTime ? { state, parent: Number(parent), startTime } : null;
  } catch {
    return null;
  }
}

/** The boot id with a start time from procStat, or '' where /proc cannot tell (not Linux, or no such process). */
function sinceFrom(stat: { startTime: string } | null): string {
  const boot = currentBootId();
  return boot !== null && stat ? `${boot}:${stat.startTime}` : '';
}

/** This fixloop process, beyond its pid (which a later process may be given). */
const INSTANCE = randomUUID();

/** The mark of an agent process this fixloop process just started. */
export function markOf(pid: number, host: string = thisHost()): ProcessMark {
  return {
    host,
    pid,
    since: sinceFrom(procStat(pid)),
    owner: { pid: process.pid, since: sinceFrom(procStat(process.pid)), instance: INSTANCE },
  };
}

function exists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists, owned by someone else.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Is the process (pid, start mark) on this host still running? */
function running(pid: number, since: string): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0 || !exists(pid)) return false;
  // An agent orphaned by a dead fixloop is reaped by whoever inherits it; until then (or forever,
  // under a PID 1 that never reaps) it is a zombie: exited, though its pid still answers.
  const stat = procStat(pid);
  if (stat && (stat.state === 'Z' || stat.state === 'X')) return false;
  // A different start time is another process that was given the same pid.
  return since === '' || sinceFrom(stat) === since;
}

/** What this host can say about a marked agent: see core/stranded-run.ts. */
export function livenessOf(mark: ProcessMark, host: string = thisHost()): Liveness {
  if (mark.host !== host) return 'elsewhere';
  // The fixloop that started it still runs (this process, or a replica beside it): its child handle
  // hears the exit. A previous process that had this process's pid is not this process.
  const owned =
    mark.owner.pid === process.pid ? mark.owner.instance === INSTANCE : running(mark.owner.pid, mark.owner.since);
  if (owned) return 'owned';
  return running(mark.pid, mark.since) ? 'alive' : 'gone';
}

/**
 * The owner of a mark written for an agent found by its environment whose fixloop process died
 * before writing a mark: nothing names that process now. pid 0 is never running, so the agent is
 * nobody's to watch until a stranded-run pass adopts it.
 */
const FOUND_OWNER = { pid: 0, since: '', instance: 'found-by-environment' } as const;

/** Errors that only mean this process is not one to look at: gone meanwhile, or another user's. */
const NOT_READABLE = new Set(['ENOENT', 'ESRCH', 'EACCES', 'EPERM']);

/**
 * The agent process a command runner started for run `runId`, found by the FIXLOOP_RUN_ID and
 * FIXLOOP_RUN_TOKEN it put in the agent's environment: for a fixloop killed between the agent's
 * start and the write of its mark. `isRunToken` says whether a token is that run's (its stored hash
 * matches), so a process that merely names the run id is not taken for its agent. An agent's own
 * children inherit its environment: the agent is the match whose parent is not a match (the earliest
 * started, if several are). If the agent has exited and left a child of its own behind, that child is
 * taken for it, and the run ends when the child does. Only processes this user may read are seen;
 * null where /proc cannot tell (not Linux) or none runs. Any other read error is thrown, so the caller
 * tries again later rather than concluding that no agent runs.
 */
export function findAgentProcess(runId: number, isRunToken: (token: string) => boolean): ProcessMark | null {
  let entries: string[];
  try {
    entries = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return null;
  }
  const runVar = `FIXLOOP_RUN_ID=${runId}`;
  const tokenPrefix = 'FIXLOOP_RUN_TOKEN=';
  const matches = new Map<number, { startTime: number; parent: number; since: string }>();
  for (const name of entries) {
    const pid = Number(name);
    if (pid === process.pid) continue;
    let environ: Buffer;
    try {
      environ = readFileSync(`/proc/${name}/environ`);
    } catch (err) {
      if (NOT_READABLE.has((err as NodeJS.ErrnoException).code ?? '')) continue;
      throw err;
    }
    // Most processes are not agents: their environment is not decoded.
    if (!environ.includes(runVar)) continue;
    const vars = environ.toString('latin1').split('\0');
    if (!vars.includes(runVar)) continue;
    const token = vars.find((v) => v.startsWith(tokenPrefix))?.slice(tokenPrefix.length);
    if (token === undefined || !isRunToken(token)) continue;
    const stat = procStat(pid);
    if (!stat || stat.state === 'Z' || stat.state === 'X') continue;
    matches.set(pid, { startTime: Number(stat.startTime), parent: stat.parent, since: sinceFrom(stat) });
  }
  let agent: number | null = null;
  for (const [pid, m] of matches) {
    if (matches.has(m.parent)) continue;
    if (agent === null || m.startTime < matches.get(agent)!.startTime) agent = pid;
  }
  if (agent === null) return null;
  const m = matches.get(agent)!;
  // This process's own child (its mark's write failed): this process hears its exit.
  if (m.parent === process.pid) return markOf(agent);
  return { host: thisHost(), pid: agent, since: m.since, owner: { ...FOUND_OWNER } };
}
