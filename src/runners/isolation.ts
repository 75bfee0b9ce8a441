// How the command runner keeps its agent away from fixloop's secrets (SPEC L3, decision 0021): the
// agent runs as another, unprivileged user (`user`, the default when fixloop runs as root), or in a
// bubblewrap sandbox with its own PID namespace and /proc and fixloop's data directories and secret
// files masked (`bwrap`, which also works when fixloop is not root), or as fixloop itself (`none`).
// Here: choosing it from the config, the agent's user, bwrap's argv, and handing a tree to that user.
import { execFile, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { chmod, lchown, lstat, mkdir, readdir, stat } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { ConfigError } from '../config/errors.js';
import type { IsolationMode } from '../config/runner-schema.js';

/** The user an isolated agent runs as, and its HOME. */
export interface AgentUser {
  readonly uid: number;
  readonly gid: number;
  /** Its home in /etc/passwd; when that does not exist (`nobody`), `<workDir>/agent-home`, made by the runner. */
  readonly home: string;
}

/** What a sandboxed agent must not see: fixloop's data directories and the files its secrets came from. */
export interface HiddenPaths {
  readonly dirs: readonly string[];
  readonly files: readonly string[];
}

export type AgentIsolation =
  | { readonly kind: 'none' }
  | { readonly kind: 'user'; readonly user: AgentUser }
  | { readonly kind: 'bwrap'; readonly bwrap: string; readonly user: AgentUser | null; readonly hide: HiddenPaths };

/** The agent's own user when it is not fixloop's; null when the agent runs as fixloop's user. */
export function agentUserOf(isolation: AgentIsolation): AgentUser | null {
  return isolation.kind === 'none' ? null : isolation.user;
}

/** The agent's user when fixloop runs as root and `runner.user` is not set. */
export const DEFAULT_AGENT_USER = 'nobody';

export interface ChooseIsolationInput {
  mode: IsolationMode | null;
  /** `runner.user`: a name in /etc/passwd, `uid` or `uid:gid`. */
  user: string | null;
  /** fixloop's own uid; null where there are none (not POSIX). */
  processUid: number | null;
  workDir: string;
  hide: HiddenPaths;
  /** Names where the setting came from in errors. */
  configFile: string | null;
  passwdFile?: string;
  bwrap?: string;
}

/**
 * The isolation a config asks for, with the secure default: as root, `user` as `nobody`; not as root,
 * no default — fixloop cannot switch users, so the config must say `bwrap` or, knowingly, `none`.
 * Throws a ConfigError naming `runner.isolation` or `runner.user`.
 */
export function chooseIsolation(input: ChooseIsolationInput): AgentIsolation {
  const at = (key: 'isolation' | 'user', message: string) =>
    ConfigError.at(input.configFile ?? 'environment', ['runner', key], message);
  const root = input.processUid === 0;
  const mode = input.mode ?? (root ? 'user' : null);
  if (mode === null) {
    throw at(
      'isolation',
      'must be set when fixloop does not run as root (FIXLOOP_AGENT_ISOLATION): "bwrap" runs the agent in a bubblewrap sandbox; "none" lets it read fixloop\'s secrets (docs/agents.md, "Running agents safely")',
    );
  }
  if (mode === 'none') {
    if (input.user !== null) throw at('user', 'is only read with isolation "user" or "bwrap"');
    return { kind: 'none' };
  }
  if (!root && input.user !== null) throw at('user', 'needs fixloop to run as root, which alone can switch users');
  if (mode === 'user' && !root) {
    throw at('isolation', '"user" needs fixloop to run as root to start the agent as another user; use "bwrap"');
  }
  let user: AgentUser | null = null;
  if (root) {
    try {
      user = agentUser(input.user ?? DEFAULT_AGENT_USER, input.workDir, input.passwdFile);
    } catch (err) {
      throw at('user', (err as Error).message);
    }
  }
  if (mode === 'user') return { kind: 'user', user: user! };
  const bwrap = input.bwrap ?? 'bwrap';
  const problem = bwrapProblem(bwrap, user);
  if (problem) throw at('isolation', `"bwrap" cannot start a sandbox here: ${problem}`);
  return { kind: 'bwrap', bwrap, user, hide: input.hide };
}

/** The uid, gid and home of `spec` (a name in /etc/passwd, `uid` or `uid:gid`); never root. */
export function agentUser(spec: string, workDir: string, passwdFile = '/etc/passwd'): AgentUser {
  const entries = readFileSync(passwdFile, 'utf8')
    .split('\n')
    .map((line) => line.split(':'))
    .filter((f) => f.length >= 7)
    .map(([name, , uid, gid, , home]) => ({ name: name!, uid: Number(uid), gid: Number(gid), home: home! }));
  const numeric = /^(\d+)(?::(\d+))?$/.exec(spec);
  const entry = numeric ? entries.find((e) => e.uid === Number(numeric[1])) : entries.find((e) => e.name === spec);
  if (!numeric && !entry) throw new Error(`no user ${JSON.stringify(spec)} in ${passwdFile} (or give "uid:gid")`);
  const uid = numeric ? Number(numeric[1]) : entry!.uid;
  const gid = numeric?.[2] !== undefined ? Number(numeric[2]) : (entry?.gid ?? uid);
  if (uid === 0 || gid === 0) throw new Error(`${JSON.stringify(spec)} is root; the agent needs an unprivileged user`);
  const home =
    entry && entry.home !== '/' && isDirectory(entry.home) ? entry.home : join(resolve(workDir), 'agent-home');
  return { uid, gid, home };
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** Why bwrap cannot make its sandbox on this machine (not installed, no user namespaces); null when it can. */
function bwrapProblem(bwrap: string, user: AgentUser | null): string | null {
  const r = spawnSync(bwrap, [...BWRAP_BASE, '--chdir', '/', '--', 'true'], {
    cwd: '/', // fixloop's own may be closed to the agent's user
    encoding: 'utf8',
    timeout: 10_000,
    ...(user ? { uid: user.uid, gid: user.gid } : {}),
  });
  if (r.error) return `${bwrap}: ${r.error.message} (Debian: apt-get install bubblewrap)`;
  return r.status === 0 ? null : `${bwrap} exited ${r.status}: ${r.stderr.trim().slice(-300)}`;
}

/** Everything of the host but its processes: a fresh PID namespace with its own /proc. */
const BWRAP_BASE = ['--unshare-pid', '--bind', '/', '/', '--proc', '/proc', '--dev', '/dev'] as const;

/**
 * Can `user` reach `path` (it exists, and every folder above it is searchable by that user), by the
 * mode bits? The agent has no supplementary groups (the spawn drops them); ACLs are not read.
 */
export function reachableBy(user: { uid: number; gid: number }, path: string): boolean {
  const abs = resolve(path);
  if (!existsSync(abs)) return false;
  for (let dir = dirname(abs); ; dir = dirname(dir)) {
    const st = statSync(dir);
    const bits = st.uid === user.uid ? 0o100 : st.gid === user.gid ? 0o010 : 0o001;
    if ((st.mode & bits) === 0) return false;
    if (dir === '/') return true;
  }
}

/** Is `path` `dir` or inside it (both absolute)? */
export function isInside(path: string, dir: string): boolean {
  const rel = relative(dir, path);
  return rel === '' || (!rel.startsWith('..') && !rel.startsWith('/'));
}

/**
 * bwrap's options for one run, before `-- program args`: the host's file system with each hidden
 * directory under an empty tmpfs, the paths the agent works in bound back where a mask covered
 * them, and each hidden file replaced by /dev/null last, so it stays hidden inside those too.
 * `reachable` says whether the agent (as whom bwrap runs) can reach a path at all: one it cannot
 * needs no mask, and could take none (bwrap mounts as that user). Throws when a hidden directory
 * lies inside a path the agent must see (it would be shown again).
 */
export function bwrapArgs(
  hide: HiddenPaths,
  agentPaths: { cwd: string; runDir: string; home: string },
  reachable: (path: string) => boolean = existsSync,
): string[] {
  const args: string[] = [...BWRAP_BASE];
  for (const dir of hide.dirs.filter(reachable)) args.push('--tmpfs', dir);
  const shown = [...new Set([agentPaths.runDir, agentPaths.cwd, agentPaths.home])].sort((a, b) => a.length - b.length);
  const bound: string[] = [];
  for (const path of shown) {
    if (!hide.dirs.some((d) => isInside(path, d)) || bound.some((b) => isInside(path, b))) continue;
    const covered = hide.dirs.find((d) => d !== path && isInside(d, path));
    if (covered) throw new Error(`the agent's directory ${path} contains fixloop's data directory ${covered}`);
    args.push('--bind', path, path);
    bound.push(path);
  }
  // Only files that exist: bwrap would create a missing mount point on the host's file system.
  for (const file of hide.files.filter(reachable)) {
    const masked = hide.dirs.some((d) => isInside(file, d)) && !bound.some((b) => isInside(file, b));
    if (!masked) args.push('--ro-bind', '/dev/null', file);
  }
  args.push('--chdir', agentPaths.cwd);
  return args;
}

/**
 * Gives a tree to `uid:gid`, children before their folder and links themselves (lchown), never
 * following a link. Safe only on a tree no process of that user could write before this walk: every
 * folder not yet walked is still fixloop's, so nothing can be swapped under it.
 */
export async function chownTree(path: string, uid: number, gid: number): Promise<void> {
  const st = await lstat(path);
  if (st.isDirectory()) for (const name of await readdir(path)) await chownTree(join(path, name), uid, gid);
  await lchown(path, uid, gid);
}

/**
 * Removes a tree the agent's user may have written (GNU rm walks by directory descriptors and never
 * follows a link, so a tree changed meanwhile cannot point it elsewhere, as a path walk could be).
 */
export function removeAgentTree(path: string): Promise<void> {
  return new Promise((resolvePromise, reject) => {
    execFile('rm', ['-rf', '--', path], { timeout: 5 * 60_000 }, (err, _out, stderr) =>
      err ? reject(new Error(`rm -rf ${path} failed: ${stderr.trim() || err.message}`)) : resolvePromise(),
    );
  });
}

/** Makes `dir` (and its parents) a folder the agent's user may pass through but not list. */
export async function makeSearchable(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o711 });
  const st = await stat(dir);
  if (st.uid === process.getuid?.() && (st.mode & 0o011) !== 0o011) await chmod(dir, (st.mode & 0o7777) | 0o011);
}

/** fixloop's data directories (the SQLite file's, the API token file's) and the files its secrets came from. */
export function fixloopDataPaths(c: {
  databaseUrl: string;
  apiTokenFile: string;
  secretFiles: readonly string[];
  configFile: string | null;
}): HiddenPaths {
  const sqlite = c.databaseUrl.startsWith('sqlite:') ? c.databaseUrl.slice('sqlite:'.length) : ':memory:';
  const db = sqlite === ':memory:' ? null : resolve(sqlite.replace(/^\/\/(?=\/)/, ''));
  const token = resolve(c.apiTokenFile);
  const dirs = new Set([dirname(token), ...(db ? [dirname(db)] : [])]);
  dirs.delete('/'); // never the whole host: a file at the root is masked on its own
  const files = [...c.secretFiles, ...(c.configFile ? [c.configFile] : []), token];
  if (db) files.push(db, `${db}-wal`, `${db}-shm`);
  return { dirs: [...dirs], files: [...new Set(files.map((f) => resolve(f)))] };
}

/**
 * At start-up (L3). A data directory that holds the run directories is made 0711 — searchable, not
 * listable — before the database or the token file would make it 0700, so an agent of another user
 * reaches its own run and nothing else (the files are 0600: the SQLite file where it is opened, the
 * token file where it is made); an existing directory keeps the mode its owner gave it. Returns
 * warnings: a secret file every user may read.
 */
export function protectDataPaths(o: {
  dirs: readonly string[];
  workDir: string;
  secretFiles: readonly string[];
}): string[] {
  const workDir = resolve(o.workDir);
  for (const dir of o.dirs)
    if (isInside(workDir, dir) && !existsSync(dir)) mkdirSync(dir, { recursive: true, mode: 0o711 });
  const warnings: string[] = [];
  for (const file of o.secretFiles) {
    let mode: number;
    try {
      mode = statSync(file).mode;
    } catch {
      continue; // not made yet (the API token file)
    }
    if (mode & 0o004) warnings.push(`${file} holds a secret and every user can read it (chmod 600 ${file})`);
  }
  return warnings;
}
