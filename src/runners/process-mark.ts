// Where a command runner's agent process lives, written down when it starts, so that a later
// fixloop process (after a crash or SIGKILL, when the child handle is gone) can tell whether that
// same process is still alive. A pid alone is not enough: pids are reused. On Linux the mark adds the
// boot id and the process's start time (field 22 of /proc/<pid>/stat), which together name one
// process for good; elsewhere only the pid is compared.
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import type { ProcessMark, Liveness } from '../core/stranded-run.js';

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

/** State (field 3) and start time (field 22) from /proc/<pid>/stat, or null where /proc cannot tell. */
function procStat(pid: number): { state: string; startTime: string } | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces and parentheses: fields are counted after its last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const [state, startTime] = [fields[3 - 3], fields[22 - 3]];
    return state && startTime ? { state, startTime } : null;
  } catch {
    return null;
  }
}

/** The boot id and start time of `pid`, or null where /proc cannot tell (not Linux, or no such process). */
function startToken(pid: number): string | null {
  const boot = currentBootId();
  const stat = boot === null ? null : procStat(pid);
  return stat ? `${boot}:${stat.startTime}` : null;
}

export function markOf(pid: number, host: string = hostname()): ProcessMark {
  return { host, pid, since: startToken(pid) ?? '' };
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

/** Is the process the mark names still running? Only this host can tell for its own processes. */
export function livenessOf(mark: ProcessMark, host: string = hostname()): Liveness {
  if (mark.host !== host) return 'elsewhere';
  if (!Number.isSafeInteger(mark.pid) || mark.pid <= 0 || !exists(mark.pid)) return 'gone';
  // An agent orphaned by a dead fixloop is reaped by whoever inherits it; until then (or forever,
  // under a PID 1 that never reaps) it is a zombie: exited, though its pid still answers.
  const stat = procStat(mark.pid);
  if (stat && (stat.state === 'Z' || stat.state === 'X')) return 'gone';
  if (mark.since === '') return 'alive';
  // A different start time is another process that was given the same pid.
  return startToken(mark.pid) === mark.since ? 'alive' : 'gone';
}
