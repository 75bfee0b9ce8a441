// fixloop as a real child process (`fixloop serve`), for tests about replicas and crashes.
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { API_TOKEN, REPO, SECRET } from './harness.js';
import { checkRunPayload, delivery, post } from './deliveries.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/**
 * How long a `fixloop serve` child may take to become ready, or to exit when it is expected to fail at
 * start-up. Not a performance bound: under a loaded CI machine tsx's first compile alone can take tens
 * of seconds, and a start that truly hangs is still failed here, with its output, well before the
 * per-test timeout (decision 0062).
 */
const START_MS = 90_000;

/**
 * The environment for a server process on `databaseUrl` whose runner is the command agent
 * `agentFile` (run with this node), its config written into `dir`; `envAllow` names what the agent
 * may see of that environment, and `extra` is added to it. `isolation` is `none` unless given: these
 * servers' tests are about crashes and replicas, and their agents write into `dir`, which only
 * fixloop's user may enter (the agent's isolation, L3, has its own tests).
 */
export function commandAgentEnv(o: {
  dir: string;
  databaseUrl: string;
  agentFile: string;
  envAllow: string[];
  extra?: Record<string, string>;
  isolation?: 'user' | 'bwrap' | 'none';
}): Record<string, string> {
  const configFile = join(o.dir, 'fixloop.json');
  writeFileSync(
    configFile,
    JSON.stringify({
      works: [{ name: 'shop', account: 'acme', repositories: [{ name: 'acme/shop', role: 'data' }] }],
      runner: {
        kind: 'command',
        command: [process.execPath, o.agentFile],
        envAllow: o.envAllow,
        isolation: o.isolation ?? 'none',
      },
    }),
  );
  return {
    DATABASE_URL: o.databaseUrl,
    WEBHOOK_SECRET: SECRET,
    FIXLOOP_API_TOKEN: API_TOKEN,
    FIXLOOP_CONFIG: configFile,
    FIXLOOP_WORK_DIR: join(o.dir, 'runs'),
    ...o.extra,
  };
}

export interface ServerProcess {
  url: string;
  /** The port it listens on: a restart that agents must still reach passes it to startServerProcess. */
  port: number;
  child: ChildProcess;
  output(): string;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
  exited: Promise<number | null>;
}

/**
 * `fixloop serve` from this checkout. `cwd` (default the checkout) is where its relative paths — the
 * default `./data` — are resolved; `as` runs it as that user instead of this one.
 */
export async function startServerProcess(
  env: Record<string, string>,
  port: number | 'free',
  o: { cwd?: string; as?: { uid: number; gid: number } } = {},
): Promise<ServerProcess> {
  if (port !== 'free') {
    // A given port is the one an earlier server of this test listened on (a restart its agents must
    // reach): freed when that server died, it may still be taken for a moment by another process, so
    // the start is tried again for a few seconds before the test fails.
    const deadline = Date.now() + 5_000;
    for (;;) {
      try {
        return await startOn(env, port, o);
      } catch (err) {
        if (Date.now() > deadline || !(err instanceof PortTakenError)) throw err;
        await new Promise((r) => setTimeout(r, 200));
      }
    }
  }
  // A free port is released before the child binds it, so another process may take it in between:
  // the child then exits with EADDRINUSE, and it is started again on another port. (It cannot bind
  // port 0 itself: the agents' API address is derived from PORT.)
  for (let tries = 1; ; tries++) {
    try {
      return await startOn(env, await freePort(), o);
    } catch (err) {
      if (tries >= 5 || !(err instanceof PortTakenError)) throw err;
    }
  }
}

class PortTakenError extends Error {}

async function startOn(
  env: Record<string, string>,
  port: number,
  o: { cwd?: string; as?: { uid: number; gid: number } },
): Promise<ServerProcess> {
  let out = '';
  // tsx by its URL: a bare name would be looked up from `cwd`.
  const tsx = import.meta.resolve('tsx');
  const child = spawn(process.execPath, ['--import', tsx, join(ROOT, 'src/cli/main.ts'), 'serve'], {
    cwd: o.cwd ?? ROOT,
    ...(o.as ? { uid: o.as.uid, gid: o.as.gid } : {}),
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/root',
      HOST: '127.0.0.1',
      PORT: String(port),
      LOG_LEVEL: 'info',
      // V4: a test's SIGTERM stops at once whatever agent still runs (a test about the grace sets it).
      FIXLOOP_SHUTDOWN_GRACE_MS: '0',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  child.stdout!.on('data', (c) => (out += c));
  child.stderr!.on('data', (c) => (out += c));
  const url = `http://127.0.0.1:${port}`;
  await waitReady(url, child, () => out, START_MS);
  return {
    url,
    port,
    child,
    output: () => out,
    exited,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null) child.kill(signal);
      return exited;
    },
  };
}

/** Wait for `GET /readyz` to answer 200; kill the child and throw (with its output) when it does not. */
export async function waitReady(
  url: string,
  child: ChildProcess,
  output: () => string,
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) {
      const message = `fixloop exited early (${child.exitCode}):\n${output()}`;
      throw /EADDRINUSE/.test(output()) ? new PortTakenError(message) : new Error(message);
    }
    try {
      const r = await fetch(`${url}/readyz`);
      if (r.ok) return;
    } catch {
      /* not up yet */
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`fixloop did not become ready:\n${output()}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * A free loopback port (bind to 0, read it, release it). Released, it may be taken before anyone binds
 * it: a server of a test binds port 0 itself, or is started with `startServerProcess(env, 'free')`,
 * which tries again on another port; this is for a port nothing must listen on.
 */
export async function freePort(): Promise<number> {
  const { createServer } = await import('node:net');
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const a = s.address();
      const p = typeof a === 'object' && a ? a.port : 0;
      s.close(() => resolve(p));
    });
  });
}

/**
 * What `start` makes listening on a free port, for an in-process server whose configuration must name
 * its own address before it listens (a public URL): the port may be taken between the pick and the
 * listen, so on EADDRINUSE it is made again on another. `start` closes what it made when it throws.
 */
export async function onFreePort<T>(start: (port: number) => Promise<T>): Promise<T> {
  for (let tries = 1; ; tries++) {
    try {
      return await start(await freePort());
    } catch (err) {
      if (tries >= 5 || (err as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw err;
    }
  }
}

/** Ask `probe` every `everyMs` until it gives something truthy; fail, naming `what`, after `timeoutMs`. */
export async function until<T>(
  what: string,
  probe: () => Promise<T | null | undefined | false>,
  timeoutMs = 15_000,
  everyMs = 100,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

const apiHeaders = { authorization: `Bearer ${API_TOKEN}`, 'content-type': 'application/json' };

/** Register a Task for acme/shop's pull request `pullRequest` on the server at `url`, then post one red check run on it there (202). */
export async function taskWithRedPush(
  url: string,
  o: { pullRequest: number; sha: string; checkId: number; output?: string },
): Promise<{ taskId: number; red: ReturnType<typeof delivery> }> {
  const created = await fetch(`${url}/api/tasks`, {
    method: 'POST',
    headers: apiHeaders,
    body: JSON.stringify({ repository: 'acme/shop', pullRequest: o.pullRequest, branch: 'agent/fix' }),
  });
  const task = (await created.json()) as { id: number };
  const sha = o.sha.padEnd(40, '0');
  const red = delivery(
    'check_run',
    checkRunPayload({
      repo: REPO,
      sha,
      id: o.checkId,
      name: 'test',
      pr: { number: o.pullRequest, headSha: sha },
      output: o.output ?? 'expected 1, got 2',
    }),
  );
  const answer = await post(url, red, SECRET);
  if (answer.status !== 202)
    throw new Error(`the red push was not stored: ${answer.status} ${JSON.stringify(answer.body)}`);
  return { taskId: task.id, red };
}

/** The decision log of one Task, as the API gives it. */
export async function decisionsOf(url: string, taskId: number): Promise<any[]> {
  return (
    (await (await fetch(`${url}/api/deliveries?taskId=${taskId}&limit=100`, { headers: apiHeaders })).json()) as any
  ).decisions;
}

/**
 * `fixloop serve` from this checkout, expected to stop by itself (a start-up failure): its exit code
 * and everything it printed. Killed, and the test failed, when it is still running after `timeoutMs`.
 */
export async function runServerToExit(
  env: Record<string, string>,
  o: { cwd?: string; as?: { uid: number; gid: number }; timeoutMs?: number } = {},
): Promise<{ code: number | null; output: string; stderr: string }> {
  let out = '';
  let err = '';
  const tsx = import.meta.resolve('tsx');
  const child = spawn(process.execPath, ['--import', tsx, join(ROOT, 'src/cli/main.ts'), 'serve'], {
    cwd: o.cwd ?? ROOT,
    ...(o.as ? { uid: o.as.uid, gid: o.as.gid } : {}),
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/root',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (c) => (out += c));
  child.stderr!.on('data', (c) => ((out += c), (err += c)));
  const timer = setTimeout(() => child.kill('SIGKILL'), o.timeoutMs ?? START_MS);
  const code = await new Promise<number | null>((r) => child.on('exit', (c) => r(c)));
  clearTimeout(timer);
  return { code, output: out, stderr: err };
}
