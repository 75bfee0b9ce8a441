// The `command` runner (SPEC L1, L3): resumes the agent by spawning a CLI process, argv only, never a
// shell. Untrusted text (the prompt) goes in a 0600 file; the child gets a minimal environment built
// from scratch, never the service's secrets, and runs as another user or in a sandbox (isolation.ts),
// so it cannot read them elsewhere either. The process's life is the run's life.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, chown, lchown, mkdir, open, writeFile, type FileHandle } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import type { Readable } from 'node:stream';
import type { Runner, RunnerCallbacks, RunSpec } from '../app/ports.js';
import { spendLine, type SpendReader } from './agent-spend.js';
import { RunnerError } from './errors.js';
import { markOf } from './process-mark.js';
import { agentUserOf, bwrapArgs, isInside, makeSearchable, reachableBy, type AgentIsolation } from './isolation.js';
import type { ProcessMark } from '../core/stranded-run.js';

/** Never handed to the child, even when listed in `envAllow`. */
export const DENIED_ENV: ReadonlySet<string> = new Set([
  'WEBHOOK_SECRET',
  'WEBHOOK_SECRET_FILE',
  'DATABASE_URL',
  'DATABASE_URL_FILE',
  'FIXLOOP_API_TOKEN',
  'FIXLOOP_API_TOKEN_FILE',
  'FIXLOOP_RUNNER_SECRET',
  'FIXLOOP_RUNNER_SECRET_FILE',
  'FIXLOOP_MENTION_TOKEN',
  'FIXLOOP_MENTION_TOKEN_FILE',
  'FIXLOOP_GITLAB_MENTION_TOKEN',
  'FIXLOOP_GITLAB_MENTION_TOKEN_FILE',
  'FIXLOOP_SESSION_API_KEY_FILE',
  'FIXLOOP_SESSION_WEBHOOK_SECRET_FILE',
  'GITHUB_TOKEN',
  'GITHUB_TOKEN_FILE',
  'GITLAB_TOKEN',
  'GITLAB_TOKEN_FILE',
  'GITLAB_WEBHOOK_SECRET',
  'GITLAB_WEBHOOK_SECRET_FILE',
  'GITLAB_WEBHOOK_SIGNING_TOKEN',
  'GITLAB_WEBHOOK_SIGNING_TOKEN_FILE',
  'FIXLOOP_SLACK_WEBHOOK_URL',
  'FIXLOOP_SLACK_WEBHOOK_URL_FILE',
  'FIXLOOP_NOTICE_WEBHOOK_SECRET',
  'FIXLOOP_NOTICE_WEBHOOK_SECRET_FILE',
  'FIXLOOP_METRICS_TOKEN',
  'FIXLOOP_METRICS_TOKEN_FILE',
  'PRIVATE_KEY',
  'PRIVATE_KEY_PATH',
  'APP_ID',
]);

const DEFAULT_MAX_LOG_BYTES = 256 * 1024;
/** After the child exits, how long to wait for its pipes to close (a grandchild may hold them). */
const PIPE_GRACE_MS = 2000;

/**
 * Prepares the run's working directory (L2, e.g. a fresh checkout from workspace.ts): the agent runs
 * in `cwd` with `env` added to its environment, and `cleanup` runs once the run has ended.
 */
export interface WorkspacePreparer {
  prepare(spec: RunSpec): Promise<{ cwd: string; env?: Record<string, string>; cleanup(): Promise<void> }>;
}

export interface CommandRunnerOptions {
  /**
   * argv of the agent, e.g. `['claude', '-p', '--resume', '{resumeRef}']`. Placeholders `{taskId}`,
   * `{runId}`, `{resumeRef}`, `{promptFile}`, `{branch}`, `{repository}`, `{pullRequest}`, and
   * `{workspace}` (the agent's working directory), `{runDir}` (the run's directory, where the prompt
   * and `runFiles` are) and `{apiUrl}` (fixloop's URL for the agent, FIXLOOP_API_URL) are replaced
   * as text inside each argument (not in argv[0]); a value never splits into more arguments and is not
   * scanned again. An absent resumeRef becomes '' (the argument stays, empty).
   */
  command: string[];
  /** Working directory of the agent; defaults to the run's own directory. Not with `workspace`. */
  cwd?: string;
  /** When set, each run gets its own prepared working directory, removed after the run ends. */
  workspace?: WorkspacePreparer;
  /** The prompt file becomes the child's stdin (otherwise stdin is empty). */
  stdinFromPromptFile?: boolean;
  /**
   * Files written into the run's directory beside the prompt (name → content), e.g. a preset's MCP
   * config. Never a secret: they are readable by the agent and stay after the run.
   */
  runFiles?: Readonly<Record<string, string>>;
  /**
   * Called once the working directory and the agent's environment are ready, just before the
   * agent starts (a preset's own preparation, e.g. placing the session it resumes); a throw is a
   * failed start.
   */
  beforeStart?: (ctx: BeforeStart) => Promise<void>;
  /**
   * Reads what the agent's stdout (its first `maxLogBytes`) says it spent; the answer is one line at
   * the end of the run log, for people (agent-spend.ts). The agent reports its spend itself.
   */
  spendOf?: SpendReader;
  /** Names of parent variables the agent may see (DENIED_ENV is dropped regardless). */
  envAllow?: string[];
  /**
   * Variables a preset sets in the agent's environment (name → value), e.g. where its CLI reads the
   * MCP config that `runFiles` wrote. Values take the same placeholders as `command` (`{runDir}`, …);
   * never a secret, never a `FIXLOOP_*` name, never a name in DENIED_ENV.
   */
  runEnv?: Readonly<Record<string, string>>;
  /** Per-run directories (`run-<runId>/prompt.md`) are made here. */
  workDir: string;
  /** Total stdout+stderr bytes forwarded per run. */
  maxLogBytes?: number;
  /** The parent environment to read PATH, HOME and `envAllow` from; defaults to process.env. */
  env?: NodeJS.ProcessEnv;
  /**
   * L3: as whom, and in what, the agent runs (isolation.ts); default `none`, fixloop's own user.
   * The config's default is chosen where the runner is built (wiring.ts).
   */
  isolation?: AgentIsolation;
}

export interface BeforeStart {
  spec: RunSpec;
  /** The agent's working directory. */
  cwd: string;
  /** The agent's environment (HOME is the agent's). */
  env: Readonly<Record<string, string>>;
  /** The agent's user when isolated as another one; null when it runs as fixloop's. */
  agent: { uid: number; gid: number } | null;
}

export interface CommandRunner extends Runner {
  readonly kind: 'command';
  /** Sends SIGTERM to the run's process; false when it is not running. */
  kill(runId: number, signal?: NodeJS.Signals): boolean;
  running(): number[];
  /** Stop every running agent (SIGTERM, then SIGKILL after the timeout) and wait for them to exit. */
  stopAll(timeoutMs?: number): Promise<void>;
  /** V4: wait up to `graceMs` for every running agent to end by itself; the runs still running then. */
  waitForRuns(graceMs: number): Promise<number[]>;
}

const PLACEHOLDER = /\{(taskId|runId|resumeRef|promptFile|branch|repository|pullRequest|workspace|runDir|apiUrl)\}/g;

function substituteArgs(args: readonly string[], values: Record<string, string>): string[] {
  // One pass with a callback: substituted text is never re-scanned for placeholders.
  return args.map((a) => a.replace(PLACEHOLDER, (_m, name: string) => values[name] ?? ''));
}

function buildChildEnv(
  parent: NodeJS.ProcessEnv,
  envAllow: readonly string[],
  spec: RunSpec,
  promptFile: string,
  workspaceEnv: Record<string, string> = {},
  runEnv: Record<string, string> = {},
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of ['PATH', 'HOME', ...envAllow]) {
    const v = parent[name];
    if (v !== undefined && !DENIED_ENV.has(name)) env[name] = v;
  }
  // The preset's own settings win over a parent variable of the same name.
  Object.assign(env, runEnv);
  // The workspace's git credential (GIT_CONFIG_*), so the agent's own `git push` is authenticated.
  Object.assign(env, workspaceEnv);
  // Set last so an allowed parent variable cannot shadow the run's own values.
  env.FIXLOOP_TASK_ID = String(spec.taskId);
  env.FIXLOOP_RUN_ID = String(spec.runId);
  env.FIXLOOP_PROMPT_FILE = promptFile;
  env.FIXLOOP_API_URL = spec.apiUrl;
  env.FIXLOOP_RUN_TOKEN = spec.runToken;
  if (spec.resumeRef) env.FIXLOOP_RESUME_REF = spec.resumeRef;
  else delete env.FIXLOOP_RESUME_REF;
  return env;
}

export function createCommandRunner(opts: CommandRunnerOptions): CommandRunner {
  const [first, ...args] = opts.command;
  if (!first) throw new Error('command runner: `command` must name a program');
  const program: string = first;
  if (opts.cwd !== undefined && opts.workspace !== undefined)
    throw new Error('command runner: set `cwd` or `workspace`, not both');
  const maxLogBytes = opts.maxLogBytes ?? DEFAULT_MAX_LOG_BYTES;
  if (!Number.isSafeInteger(maxLogBytes) || maxLogBytes < 0)
    throw new Error('command runner: `maxLogBytes` must be a non-negative integer');
  const workDir = resolve(opts.workDir);
  const parentEnv = opts.env ?? process.env;
  const envAllow = opts.envAllow ?? [];
  const isolation: AgentIsolation = opts.isolation ?? { kind: 'none' };
  const runFiles = Object.entries(opts.runFiles ?? {});
  const runEnv = Object.entries(opts.runEnv ?? {});
  for (const [name] of runEnv)
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name) || name.startsWith('FIXLOOP_') || DENIED_ENV.has(name))
      throw new Error(`command runner: run variable ${JSON.stringify(name)} is not one a preset may set`);
  for (const [name] of runFiles)
    if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(name) || name === 'prompt.md')
      throw new Error(`command runner: run file name ${JSON.stringify(name)} must be a plain file name`);
  const agent = agentUserOf(isolation);
  // An isolated agent leads its own session and process group: no controlling terminal of fixloop's
  // to type into, and a signal reaches what it started (inside bwrap too, which forwards none).
  const grouped = isolation.kind !== 'none';
  const children = new Map<number, ChildProcess>();
  // Resolved once a run's end has been reported through onExit.
  const ended = new Map<number, Promise<void>>();
  const preparing = new Set<number>();

  async function start(spec: RunSpec, callbacks: RunnerCallbacks): Promise<ProcessMark | undefined> {
    const { runId } = spec;
    // runId names a directory: keep it a plain integer so it can never escape workDir.
    if (!Number.isSafeInteger(runId) || runId < 0) throw new RunnerError('spawn_failed', `invalid run id ${runId}`);
    if (children.has(runId) || preparing.has(runId))
      throw new RunnerError('spawn_failed', `run ${runId} is already running`);

    const runDir = join(workDir, `run-${runId}`);
    const promptFile = join(runDir, 'prompt.md');
    try {
      if (agent) {
        // Another user's agent reads its run directory by group and writes none of it: fixloop keeps
        // writing there (and removing the checkout inside), so nothing in it is the agent's to swap.
        await makeSearchable(workDir);
        await mkdir(runDir, { recursive: true, mode: 0o750 });
        await lchown(runDir, process.getuid!(), agent.gid);
        await chmod(runDir, 0o750);
        for (const [name, content] of [['prompt.md', spec.prompt], ...runFiles] as const) {
          const file = join(runDir, name);
          await writeFile(file, content, { mode: 0o640 });
          await chown(file, process.getuid!(), agent.gid);
          await chmod(file, 0o640);
        }
        if (isInside(agent.home, workDir)) {
          await mkdir(agent.home, { recursive: true, mode: 0o700 });
          await lchown(agent.home, agent.uid, agent.gid);
        }
      } else {
        await mkdir(runDir, { recursive: true, mode: 0o700 });
        for (const [name, content] of [['prompt.md', spec.prompt], ...runFiles] as const) {
          const file = join(runDir, name);
          await writeFile(file, content, { mode: 0o600 });
          await chmod(file, 0o600); // mode applies only on create; a retried run reuses the file
        }
      }
    } catch (err) {
      throw new RunnerError('spawn_failed', `could not write the prompt file: ${(err as Error).message}`, {
        cause: err,
      });
    }

    let workspace: Awaited<ReturnType<WorkspacePreparer['prepare']>> | null = null;
    if (opts.workspace) {
      preparing.add(runId);
      try {
        workspace = await opts.workspace.prepare(spec);
      } catch (err) {
        throw new RunnerError('spawn_failed', `could not prepare the workspace: ${(err as Error).message}`, {
          cause: err,
        });
      } finally {
        preparing.delete(runId);
      }
    }
    const cwd = workspace?.cwd ?? opts.cwd ?? runDir;
    // After the run (or a failed start): remove the workspace; the run directory and its log stay.
    const release = async (): Promise<void> => {
      try {
        await workspace?.cleanup();
      } catch (err) {
        callbacks.onOutput(runId, `[fixloop: workspace cleanup failed: ${(err as Error).message}]\n`);
      }
    };
    let stdin: FileHandle | null = null;
    if (opts.stdinFromPromptFile) {
      try {
        stdin = await open(promptFile, 'r');
      } catch (err) {
        await release();
        throw new RunnerError('spawn_failed', `could not open the prompt file: ${(err as Error).message}`, {
          cause: err,
        });
      }
    }

    const values = {
      taskId: String(spec.taskId),
      runId: String(runId),
      resumeRef: spec.resumeRef ?? '',
      promptFile,
      branch: spec.branch,
      repository: spec.repository,
      pullRequest: String(spec.pullRequest),
      workspace: cwd,
      runDir,
      apiUrl: spec.apiUrl,
    };
    const argv = substituteArgs(args, values);
    const presetEnv = Object.fromEntries(runEnv.map(([name, v]) => [name, substituteArgs([v], values)[0]!]));
    const env = buildChildEnv(parentEnv, envAllow, spec, promptFile, workspace?.env, presetEnv);
    if (agent) env.HOME = agent.home; // fixloop's own HOME is neither the agent's to read nor to write
    if (opts.beforeStart) {
      try {
        await opts.beforeStart({ spec, cwd, env, agent: agent ? { uid: agent.uid, gid: agent.gid } : null });
      } catch (err) {
        void stdin?.close().catch(() => {});
        await release();
        throw new RunnerError('spawn_failed', `could not prepare the agent: ${(err as Error).message}`, {
          cause: err,
        });
      }
    }
    let child: ChildProcess;
    try {
      // bwrap takes the agent's argv after its own options, and finds the program on the agent's PATH.
      const [file, fileArgs] =
        isolation.kind === 'bwrap'
          ? [
              isolation.bwrap,
              [
                ...bwrapArgs(isolation.hide, { cwd, runDir, home: env.HOME ?? cwd }, (p) =>
                  agent ? reachableBy(agent, p) : existsSync(p),
                ),
                '--',
                program,
                ...argv,
              ],
            ]
          : [program, argv];
      child = spawn(file, fileArgs, {
        shell: false,
        cwd,
        env,
        stdio: [stdin?.fd ?? 'ignore', 'pipe', 'pipe'],
        detached: grouped,
        ...(agent ? { uid: agent.uid, gid: agent.gid } : {}),
      });
    } catch (err) {
      await release();
      throw new RunnerError('spawn_failed', `could not start ${program}: ${(err as Error).message}`, { cause: err });
    } finally {
      // The child holds its own copy of the descriptor once spawn() returns.
      void stdin?.close().catch(() => {});
    }
    children.set(runId, child);

    let mark: ProcessMark | undefined;
    await new Promise<void>((resolveStart, rejectStart) => {
      let spawned = false;
      let finished = false;
      let grace: NodeJS.Timeout | undefined;
      let reportEnd!: () => void;
      ended.set(runId, new Promise<void>((r) => (reportEnd = r)));
      const finish = (code: number | null): void => {
        if (finished) return;
        finished = true;
        clearTimeout(grace);
        children.delete(runId);
        // What an isolated agent left in its group ends with its run: nothing of another user's
        // keeps running unwatched (a signal to a process still starting can be lost, too).
        if (grouped) signalAgent(child, 'SIGKILL');
        const spent = opts.spendOf ? readSpend(opts.spendOf, stdoutText()) : null;
        if (spent) callbacks.onOutput(runId, spent);
        const report = (): void => {
          callbacks.onExit(runId, { state: code === 0 ? 'completed' : 'failed', exitCode: code });
          ended.delete(runId);
          reportEnd();
        };
        if (workspace) void release().then(report);
        else report();
      };
      child.once('spawn', () => {
        spawned = true;
        // Taken at once, while the process surely exists: its start time names it beyond its pid.
        if (child.pid !== undefined) mark = markOf(child.pid);
        resolveStart();
      });
      // Kept for the child's whole life: an unheard 'error' would crash the service.
      child.on('error', (err) => {
        if (spawned) return;
        children.delete(runId);
        const as = agent ? ` as uid ${agent.uid}, which must be able to reach and run it` : '';
        const failure = new RunnerError('spawn_failed', `could not start ${program}${as}: ${err.message}`, {
          cause: err,
        });
        void release().then(() => rejectStart(failure));
      });
      const stdoutText = forwardOutput(child, runId, callbacks, maxLogBytes);
      // 'close' comes after the pipes are drained, so every line is forwarded before onExit.
      child.once('close', (code) => {
        if (spawned) finish(code);
      });
      child.once('exit', (code) => {
        grace = setTimeout(() => {
          child.stdout?.destroy();
          child.stderr?.destroy();
          finish(code);
        }, PIPE_GRACE_MS).unref();
      });
    });
    return mark;
  }

  /** The agent's whole process group when it has one of its own, else the process. */
  function signalAgent(child: ChildProcess, signal: NodeJS.Signals): boolean {
    if (!grouped || child.pid === undefined) return child.kill(signal);
    try {
      process.kill(-child.pid, signal);
      return true;
    } catch {
      return false;
    }
  }

  return {
    kind: 'command',
    start,
    kill(runId, signal = 'SIGTERM') {
      const child = children.get(runId);
      return child ? signalAgent(child, signal) : false;
    },
    running: () => [...children.keys()],
    async waitForRuns(graceMs) {
      // Shutdown's grace (V4): an agent that ends in time ends as it would have, heard and written
      // like any other.
      const pending = [...ended.values()];
      if (pending.length > 0 && graceMs > 0) {
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([
          Promise.all(pending),
          new Promise<void>((r) => {
            timer = setTimeout(r, graceMs);
          }),
        ]);
        clearTimeout(timer);
      }
      return [...children.keys()];
    },
    async stopAll(timeoutMs = 5_000) {
      // Shutdown: the process's life is the run's life, so the agents stop with the service.
      const waits = [...children.entries()].map(([runId, child]) => {
        signalAgent(child, 'SIGTERM');
        const force = setTimeout(() => signalAgent(child, 'SIGKILL'), timeoutMs);
        force.unref();
        return (ended.get(runId) ?? Promise.resolve()).finally(() => clearTimeout(force));
      });
      await Promise.all(waits);
    },
  };
}

/** The run log's line of what the output says was spent; a reader that throws says nothing. */
function readSpend(read: SpendReader, stdout: string): string | null {
  try {
    const s = read(stdout);
    return s ? spendLine(s) : null;
  } catch {
    return null;
  }
}

/**
 * Forwards stdout+stderr as text up to maxLogBytes per run, then one cut line; keeps draining.
 * Returns what was forwarded of stdout alone (the agent's JSON, without its stderr between).
 */
function forwardOutput(
  child: ChildProcess,
  runId: number,
  callbacks: RunnerCallbacks,
  maxLogBytes: number,
): () => string {
  let stdout = '';
  let budget = maxLogBytes;
  let cut = false;
  let lastText = '\n';
  const emit = (text: string, fromStdout: boolean): void => {
    if (text === '') return;
    lastText = text;
    if (fromStdout) stdout += text;
    callbacks.onOutput(runId, text);
  };
  const listen = (stream: Readable | null): void => {
    if (!stream) return;
    const out = stream === child.stdout;
    const decoder = new StringDecoder('utf8'); // per stream: a character may straddle two chunks
    stream.on('data', (chunk: Buffer) => {
      if (cut) return; // still reading, so the child never blocks on a full pipe
      if (chunk.length <= budget) {
        budget -= chunk.length;
        emit(decoder.write(chunk), out);
        return;
      }
      emit(decoder.write(chunk.subarray(0, budget)), out);
      budget = 0;
      cut = true;
      emit(`${lastText.endsWith('\n') ? '' : '\n'}[fixloop: run log cut at ${maxLogBytes} bytes]\n`, false);
    });
    stream.on('end', () => {
      if (!cut) emit(decoder.end(), out);
    });
    stream.on('error', () => {}); // a destroyed pipe after exit is expected
  };
  listen(child.stdout);
  listen(child.stderr);
  return () => stdout;
}
