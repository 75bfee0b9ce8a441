// Workspaces (SPEC L2): a fresh, shallow checkout of the Task's branch for each agent run, made with
// git by argv only (never a shell), with a minimal environment and a token scoped to the one
// repository that never appears in argv, in the remote URL or in `.git/config`. The agent's
// instructions and MCP configuration come from fixloop's config, never from the pull request's tree.
// An agent of another user (L3) is handed the checkout once fixloop has finished writing it.
import { execFile } from 'node:child_process';
import { chmod, lchown, lstat, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join, posix, resolve } from 'node:path';
import type { RunSpec } from '../app/ports.js';
import { chownTree, removeAgentTree } from './isolation.js';

/**
 * Paths a branch could use to steer the agent (instructions, MCP servers, tool settings). Any tracked
 * path whose name, or one of whose folders, is listed is removed from the working tree, kept out of
 * the agent's commits, and replaced by what fixloop's config provides.
 */
export const AGENT_CONTROL_PATHS = [
  '.mcp.json',
  'AGENTS.md',
  'AGENTS.override.md',
  'CLAUDE.md',
  'CLAUDE.local.md',
  '.claude',
  '.codex',
  '.cursor',
  '.cursorrules',
  // Gemini CLI (settings, hooks and MCP servers of the project; its instructions), OpenCode, Amp.
  '.gemini',
  'GEMINI.md',
  'opencode.json',
  'opencode.jsonc',
  '.opencode',
  '.amp',
  'AGENT.md',
] as const;

const DEFAULT_CLONE_DEPTH = 50;
const DEFAULT_GIT_TIMEOUT_MS = 5 * 60_000;
const DEFAULT_GIT_IDENTITY = { name: 'fixloop agent', email: 'fixloop-agent@localhost' } as const;

/** Where a checkout lives: per run (`run-<runId>/repo`) or per Task (`task-<taskId>/repo`, re-made each run). */
export type WorkspaceLayout = 'per-run' | 'per-task';

export type WorkspaceErrorCode =
  'invalid_branch' | 'invalid_repository' | 'invalid_run' | 'busy' | 'token_failed' | 'git_failed' | 'unsafe_tree';

/** Why a workspace could not be prepared; the command runner reports it as `spawn_failed`. */
export class WorkspaceError extends Error {
  override readonly name = 'WorkspaceError';
  constructor(
    readonly code: WorkspaceErrorCode,
    message: string,
    opts: { cause?: unknown } = {},
  ) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
  }
}

export interface WorkspaceOptions {
  /** Checkouts are made under this directory (usually the command runner's workDir). */
  root: string;
  /** `owner/name` → what to clone, e.g. `https://github.com/owner/name.git` (or a local path in tests). */
  cloneUrl(repository: string): string;
  /**
   * A token limited to the one repository (e.g. an installation token for that repository only), sent
   * as an HTTP header to that repository's URL only. Only used for http(s) clone URLs.
   */
  token?: (repository: string) => Promise<string | null>;
  /** The agent's instructions and MCP config, relative path → content, e.g. `{ 'AGENTS.md': '…' }`. */
  instructions?: { files: Record<string, string> };
  /** The git binary; default `git`. */
  git?: string;
  /** Commits of history fetched; default 50. */
  depth?: number;
  /** Default `per-run`. */
  layout?: WorkspaceLayout;
  /** Author and committer of the agent's commits, written to the checkout's own config. */
  identity?: { name: string; email: string };
  /** Each git command's time limit; default 5 minutes. */
  timeoutMs?: number;
  /** Where PATH is read from for git; default process.env. Nothing else is inherited. */
  env?: NodeJS.ProcessEnv;
  /**
   * L3: the agent's own user when it is not fixloop's. The checkout is made by fixloop, then given to
   * that user; its folder stays fixloop's (group-readable), and a checkout the agent may have
   * written is removed without following any link in it.
   */
  owner?: { uid: number; gid: number };
}

export interface PreparedWorkspace {
  /** The checkout: the agent's working directory. */
  cwd: string;
  /**
   * Variables the agent's process needs so that its own `git push` authenticates with the same scoped
   * credential: `GIT_CONFIG_COUNT/KEY_0/VALUE_0` (git ≥ 2.31) and `GIT_TERMINAL_PROMPT=0`.
   */
  env: Record<string, string>;
  /** The commit checked out. */
  headSha: string;
  /** Removes the checkout and its git home; the run directory (prompt file) stays. Idempotent. */
  cleanup(): Promise<void>;
}

export interface GitWorkspacePreparer {
  prepare(spec: RunSpec): Promise<PreparedWorkspace>;
}

/** `owner/name`, or a GitLab project's `group/sub/project` (issue 19): two segments or more. */
const REPOSITORY = /^[A-Za-z0-9_.-]+(?:\/[A-Za-z0-9_.-]+)+$/;
/** Letters, digits and the punctuation branch names use; git's own check follows (checkBranchName). */
const BRANCH_CHARS = /^[\p{L}\p{N}._/+@#,=%!-]+$/u;
const MAX_OUTPUT_BYTES = 64 * 1024 * 1024;

/**
 * A first, local refusal of a branch name, before any git process runs: no leading '-' (git would read
 * an option), no whitespace, control characters or shell punctuation, at most 255 bytes.
 */
function branchNameProblem(branch: string): string | null {
  if (branch.length === 0) return 'is empty';
  if (Buffer.byteLength(branch) > 255) return 'is longer than 255 bytes';
  if (branch.startsWith('-')) return "starts with '-'";
  if (!BRANCH_CHARS.test(branch)) return 'contains a character outside letters, digits and ._/+@#,=%!-';
  return null;
}

export function createWorkspacePreparer(opts: WorkspaceOptions): GitWorkspacePreparer {
  const root = resolve(opts.root);
  const git = opts.git ?? 'git';
  const depth = opts.depth ?? DEFAULT_CLONE_DEPTH;
  if (!Number.isSafeInteger(depth) || depth < 1) throw new Error('workspace: `depth` must be a positive integer');
  const timeoutMs = opts.timeoutMs ?? DEFAULT_GIT_TIMEOUT_MS;
  const layout = opts.layout ?? 'per-run';
  const identity = opts.identity ?? DEFAULT_GIT_IDENTITY;
  const files = Object.entries(opts.instructions?.files ?? {});
  for (const [path] of files) {
    const problem = instructionPathProblem(path);
    if (problem) throw new Error(`workspace: instruction file ${JSON.stringify(path)} ${problem}`);
  }
  const parentPath = (opts.env ?? process.env).PATH;
  // Per preparer, not per module: two runs must never share one checkout.
  const inUse = new Set<string>();

  async function prepare(spec: RunSpec): Promise<PreparedWorkspace> {
    if (!REPOSITORY.test(spec.repository) || spec.repository.split('/').some((p) => p === '.' || p === '..')) {
      throw new WorkspaceError('invalid_repository', `invalid repository ${JSON.stringify(spec.repository)}`);
    }
    const problem = branchNameProblem(spec.branch);
    if (problem)
      throw new WorkspaceError('invalid_branch', `refused branch name ${JSON.stringify(spec.branch)}: ${problem}`);
    const id = layout === 'per-task' ? spec.taskId : spec.runId;
    if (!Number.isSafeInteger(id) || id < 0)
      throw new WorkspaceError('invalid_run', `invalid ${layout === 'per-task' ? 'task' : 'run'} id ${id}`);

    const base = join(root, `${layout === 'per-task' ? 'task' : 'run'}-${id}`);
    if (inUse.has(base)) throw new WorkspaceError('busy', `workspace ${base} is in use by another run`);
    inUse.add(base);
    const repo = join(base, 'repo');
    const home = join(base, 'git-home');
    const owner = opts.owner;
    const wipe = async (): Promise<void> => {
      await (owner ? removeAgentTree(repo) : rm(repo, { recursive: true, force: true }));
      await rm(home, { recursive: true, force: true });
    };
    let released = false;
    const cleanup = async (): Promise<void> => {
      try {
        await wipe();
      } finally {
        if (!released) {
          released = true;
          inUse.delete(base);
        }
      }
    };

    try {
      // Fresh: whatever an earlier run (or a crash) left is gone before the clone.
      await wipe();
      await mkdir(home, { recursive: true, mode: 0o700 });
      if (owner) {
        await lchown(base, process.getuid!(), owner.gid);
        await chmod(base, 0o750);
      }

      // No HOME config, no system config, no prompts: nothing of this machine's git setup leaks in.
      const env: Record<string, string> = {
        HOME: home,
        GIT_CONFIG_NOSYSTEM: '1',
        GIT_TERMINAL_PROMPT: '0',
        LC_ALL: 'C',
      };
      if (parentPath !== undefined) env.PATH = parentPath;
      const run = (args: string[], o: { cwd?: string; input?: string; okCodes?: number[] } = {}) =>
        runGit(git, args, { cwd: o.cwd ?? home, env, timeoutMs, input: o.input, okCodes: o.okCodes });

      // git's own word on the name, run outside any repository (so `@{-1}` cannot expand).
      const checked = await run(['check-ref-format', '--branch', spec.branch], { okCodes: [0, 1, 128] });
      if (checked.code !== 0 || checked.stdout.trim() !== spec.branch) {
        throw new WorkspaceError(
          'invalid_branch',
          `refused branch name ${JSON.stringify(spec.branch)}: git check-ref-format --branch rejects it`,
        );
      }

      const url = opts.cloneUrl(spec.repository);
      const agentEnv: Record<string, string> = { GIT_TERMINAL_PROMPT: '0' };
      if (opts.token && /^https?:\/\//i.test(url)) {
        let token: string | null;
        try {
          token = await opts.token(spec.repository);
        } catch (err) {
          throw new WorkspaceError(
            'token_failed',
            `could not get a token for ${spec.repository}: ${(err as Error).message}`,
            { cause: err },
          );
        }
        if (token) Object.assign(agentEnv, authHeaderEnv(url, token));
      }
      Object.assign(env, agentEnv);

      await run([
        'clone',
        '--quiet',
        '--no-tags',
        '--single-branch',
        `--depth=${depth}`,
        '--branch',
        spec.branch,
        '--',
        url,
        repo,
      ]);
      const headSha = (await run(['rev-parse', '--verify', 'HEAD^{commit}'], { cwd: repo })).stdout.trim();
      await run(['config', '--local', 'user.name', identity.name], { cwd: repo });
      await run(['config', '--local', 'user.email', identity.email], { cwd: repo });

      await replaceAgentFiles(run, repo, files);
      // Last, once fixloop writes nothing more in it: from here on the checkout is the agent's.
      if (owner) await chownTree(repo, owner.uid, owner.gid);
      return { cwd: repo, env: agentEnv, headSha, cleanup };
    } catch (err) {
      await cleanup().catch(() => {});
      if (err instanceof WorkspaceError) throw err;
      throw new WorkspaceError('git_failed', (err as Error).message, { cause: err });
    }
  }

  return { prepare };
}

/**
 * The credential as git configuration in the environment, scoped to the repository's URL
 * (`http.<url>.extraHeader`), in the form GitHub accepts for installation tokens — and GitLab for an
 * access token, which it takes as the password of any user name.
 */
function authHeaderEnv(url: string, token: string): Record<string, string> {
  // Printable ASCII only: a token can never add a header line or a second config entry.
  if (!/^[\x21-\x7e]+$/.test(token))
    throw new WorkspaceError('token_failed', 'the token is not a printable ASCII string');
  const basic = Buffer.from(`x-access-token:${token}`).toString('base64');
  return {
    GIT_CONFIG_COUNT: '1',
    GIT_CONFIG_KEY_0: `http.${url}.extraHeader`,
    GIT_CONFIG_VALUE_0: `Authorization: basic ${basic}`,
  };
}

type Git = (
  args: string[],
  o?: { cwd?: string; input?: string; okCodes?: number[] },
) => Promise<{ code: number; stdout: string }>;

/**
 * Removes every tracked agent-control path, hides the removal and the configured files from the
 * agent's commits (skip-worktree for tracked paths, info/exclude for new ones), then writes the
 * configured files.
 */
async function replaceAgentFiles(git: Git, repo: string, files: Array<[string, string]>): Promise<void> {
  const tracked = (await git(['ls-files', '-z'], { cwd: repo })).stdout.split('\0').filter(Boolean);
  const trackedSet = new Set(tracked);
  const controlled = tracked.filter(isAgentControlPath);
  const written = files.map(([p]) => p);
  const hidden = [...new Set([...controlled, ...written.filter((p) => trackedSet.has(p))])];
  if (hidden.length > 0) {
    await git(['update-index', '-z', '--skip-worktree', '--stdin'], {
      cwd: repo,
      input: hidden.map((p) => `${p}\0`).join(''),
    });
  }
  // Remove the top-most controlled entry of each path (a whole `.claude/` folder at once).
  const tops = new Set(controlled.map(topControlledPrefix));
  for (const p of tops) await rm(join(repo, ...p.split('/')), { recursive: true, force: true });

  const exclude = [
    '# fixloop (SPEC L2): agent instructions and MCP config come from fixloop, never from the branch',
    // A pattern without a slash matches a file or a folder of that name at any depth.
    ...AGENT_CONTROL_PATHS,
    ...written.map((p) => `/${p}`),
  ];
  await mkdir(join(repo, '.git', 'info'), { recursive: true });
  const excludeFile = join(repo, '.git', 'info', 'exclude');
  const before = await readFile(excludeFile, 'utf8').catch(() => '');
  await writeFile(excludeFile, `${before}${before === '' || before.endsWith('\n') ? '' : '\n'}${exclude.join('\n')}\n`);

  for (const [p, content] of files) await writeInside(repo, p, content);

  // A branch's .gitignore outranks info/exclude: `!AGENTS.md` there would let `git add -A` commit
  // fixloop's files into the pull request. Fail closed instead.
  const untracked = written.filter((p) => !trackedSet.has(p));
  if (untracked.length > 0) {
    const ignored = await git(['check-ignore', '-z', '--stdin'], {
      cwd: repo,
      input: untracked.map((p) => `${p}\0`).join(''),
      okCodes: [0, 1],
    });
    const ignoredSet = new Set(ignored.stdout.split('\0').filter(Boolean));
    const exposed = untracked.filter((p) => !ignoredSet.has(p));
    if (exposed.length > 0) {
      throw new WorkspaceError(
        'unsafe_tree',
        `the branch's .gitignore re-includes ${exposed.join(', ')}: the configured agent files could be committed to the pull request`,
      );
    }
  }
}

function isAgentControlPath(path: string): boolean {
  return path.split('/').some((seg) => (AGENT_CONTROL_PATHS as readonly string[]).includes(seg));
}

function topControlledPrefix(path: string): string {
  const segs = path.split('/');
  const i = segs.findIndex((seg) => (AGENT_CONTROL_PATHS as readonly string[]).includes(seg));
  return segs.slice(0, i + 1).join('/');
}

function instructionPathProblem(path: string): string | null {
  if (path === '' || path.includes('\0') || path.includes('\\')) return 'is not a plain relative path';
  if (posix.isAbsolute(path) || posix.normalize(path) !== path) return 'must be relative and normalized';
  const segs = path.split('/');
  if (segs.some((s) => s === '' || s === '.' || s === '..')) return 'must not contain empty, . or .. segments';
  if (segs[0]!.toLowerCase() === '.git') return 'must not be inside .git';
  return null;
}

/** Writes below `repo` without following a symlink the branch may have planted on the way. */
async function writeInside(repo: string, relPath: string, content: string): Promise<void> {
  const segs = relPath.split('/');
  let dir = repo;
  for (const seg of segs.slice(0, -1)) {
    dir = join(dir, seg);
    const st = await lstat(dir).catch(() => null);
    if (st === null) await mkdir(dir);
    else if (!st.isDirectory())
      throw new WorkspaceError('unsafe_tree', `cannot write ${relPath}: ${seg} in the checkout is not a folder`);
  }
  const target = join(repo, ...segs);
  await rm(target, { recursive: true, force: true });
  await writeFile(target, content, { mode: 0o600, flag: 'wx' });
}

/** One git command by argv; stderr's tail goes into the error (it never holds the token). */
function runGit(
  git: string,
  args: string[],
  o: {
    cwd: string;
    env: Record<string, string>;
    timeoutMs: number;
    input?: string | undefined;
    okCodes?: number[] | undefined;
  },
): Promise<{ code: number; stdout: string }> {
  const okCodes = o.okCodes ?? [0];
  return new Promise((resolvePromise, reject) => {
    const child = execFile(
      git,
      args,
      {
        cwd: o.cwd,
        env: o.env,
        timeout: o.timeoutMs,
        killSignal: 'SIGKILL',
        maxBuffer: MAX_OUTPUT_BYTES,
        encoding: 'utf8',
        shell: false,
      },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === 'number' ? err.code : null) : 0;
        if (code !== null && okCodes.includes(code)) {
          resolvePromise({ code, stdout });
          return;
        }
        const why = err?.killed
          ? `timed out after ${o.timeoutMs} ms`
          : code === null
            ? (err?.message ?? 'failed')
            : `exited ${code}`;
        const tail = stderr.trim().slice(-2000);
        reject(new WorkspaceError('git_failed', `git ${args[0]} ${why}${tail ? `: ${tail}` : ''}`, { cause: err }));
      },
    );
    child.stdin?.on('error', () => {}); // git may exit before reading all of its input
    child.stdin?.end(o.input ?? '');
  });
}
