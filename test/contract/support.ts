// What the contract tests with the real agent CLIs share (SPEC L1, M3, I2): `fixloop serve` as a user
// runs it, on the fake GitHub, with its real command runner and a preset; a local bare repository
// the workspace clones from and the agent pushes to; and the Task's red head delivered by webhook.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startFakeGitHub, type FakeGitHub } from '../support/fake-github/server.js';
import { API_TOKEN, REPO, SECRET } from '../support/harness.js';
import { checkRunPayload, delivery, post } from '../support/deliveries.js';
import { startServerProcess, until, type ServerProcess } from '../support/server-process.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BLOB_CA = fileURLToPath(new URL('../support/fake-github/tls/cert.pem', import.meta.url));
/**
 * The CLIs, installed from the npm registry by the test set-up (`.ci/run`) from their own pinned manifest
 * and lockfile, test/contract/agents/ — never by fixloop's own `npm ci` (issue 32, decision 0048).
 */
export const AGENTS = join(ROOT, 'test', 'contract', 'agents');
export const BIN = join(AGENTS, 'node_modules', '.bin');
export const INSTALL_AGENTS = 'npm ci --prefix test/contract/agents';

/**
 * The path of an agent CLI; a missing one is an error that says how to install it, so the contract
 * tests fail loudly instead of passing over the CLIs they exist to check.
 */
export type AgentCliName = 'claude' | 'codex' | 'gemini' | 'opencode' | 'amp';

export function agentCli(name: AgentCliName): string {
  const bin = join(BIN, name);
  if (!existsSync(bin)) {
    throw new Error(
      `the contract tests need the real agent CLIs, and ${bin} is not installed: run \`${INSTALL_AGENTS}\` in the checkout (.ci/run does it; about 1.2 GB)`,
    );
  }
  return bin;
}
// Checked as the test file loads: without the CLIs, every contract test file fails with the fix above.
for (const name of ['claude', 'codex', 'gemini', 'opencode', 'amp'] as const) agentCli(name);
export const PR = 7;
export const BRANCH = 'agent/fix';
export const FAILURE = 'FAIL test/sum.test.js: expected sum(2, 2) to be 4, got 5';

const apiHeaders = { authorization: `Bearer ${API_TOKEN}`, 'content-type': 'application/json' };

export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: cwd,
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_AUTHOR_NAME: 'agent',
      GIT_AUTHOR_EMAIL: 'agent@example.com',
      GIT_COMMITTER_NAME: 'agent',
      GIT_COMMITTER_EMAIL: 'agent@example.com',
    },
  }).trim();
}

/** acme/shop as a bare repository with the agent's branch, whose test fails; returns its head. */
export function makeRemote(root: string): { bare: string; head: string } {
  const bare = join(root, 'git', 'acme', 'shop.git');
  mkdirSync(dirname(bare), { recursive: true });
  git(root, 'init', '-q', '--bare', '-b', 'main', bare);
  const seed = join(root, 'seed');
  git(root, 'init', '-q', seed);
  git(seed, 'remote', 'add', 'origin', bare);
  mkdirSync(join(seed, 'test'));
  writeFileSync(join(seed, 'sum.js'), 'export const sum = (a, b) => a + b + 1;\n');
  writeFileSync(join(seed, 'test', 'sum.test.js'), "import { sum } from '../sum.js';\nif (sum(2, 2) !== 4) throw 1;\n");
  git(seed, 'checkout', '-q', '-b', BRANCH);
  git(seed, 'add', '-A');
  git(seed, 'commit', '-qm', 'agent: add sum');
  git(seed, 'push', '-q', 'origin', BRANCH);
  return { bare, head: git(seed, 'rev-parse', 'HEAD') };
}

/** The head of the agent's branch in the bare repository: what GitHub would see after a push. */
export function remoteHead(bare: string): string {
  return git(bare, 'rev-parse', `refs/heads/${BRANCH}`);
}

export interface ContractWorld {
  root: string;
  bare: string;
  head: string;
  fake: FakeGitHub;
  server: ServerProcess;
  api(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }>;
  close(): Promise<void>;
}

/**
 * fixloop serving on a free port with `runner` (its workspace cloning from the bare repository),
 * GitHub faked with pull request #7 red at the branch's head. `env` is added to the server's
 * environment (the agent sees what the preset's `envAllow` lets through).
 */
export async function startContractWorld(o: {
  runner: Record<string, unknown>;
  env?: Record<string, string>;
  root?: string;
}): Promise<ContractWorld> {
  const root = o.root ?? mkdtempSync(join(tmpdir(), 'fixloop-contract-'));
  const { bare, head } = makeRemote(root);
  const fake = await startFakeGitHub();
  const githubToken = fake.addUserToken('fixloop-bot');
  fake.addPull('acme/shop', PR, { headSha: head, headRef: BRANCH });
  const red = fake.addCheckRun('acme/shop', head, {
    name: 'test',
    status: 'completed',
    conclusion: 'failure',
    outputSummary: FAILURE,
  });
  // Its Actions job log, where pull_request_checks finds the failure in the log tail (J2).
  fake.setLog(
    red.id,
    `2026-12-01T14:00:00.0000000Z > node test/sum.test.js\n2026-12-01T14:00:01.0000000Z ${FAILURE}\n`,
  );
  const configFile = join(root, 'fixloop.json');
  writeFileSync(
    configFile,
    JSON.stringify({
      works: [{ name: 'shop', account: 'acme', repositories: [{ name: 'acme/shop', role: 'data' }] }],
      // The poll finds the agent's push as progress; action_taken waits two intervals (20 s) for it,
      // room enough for a CLI to finish its turn on a loaded machine.
      poll: { intervalSeconds: 10 },
      runner: {
        kind: 'command',
        isolation: 'none',
        ...o.runner,
        // `workspace: null`: none, the agent runs in the runner's `cwd`.
        ...(o.runner.workspace === null
          ? { workspace: undefined }
          : {
              workspace: { cloneUrl: `file://${join(root, 'git')}/{repository}.git`, ...(o.runner.workspace ?? {}) },
            }),
      },
    }),
  );
  let server: ServerProcess;
  try {
    server = await startServerProcess(
      {
        WEBHOOK_SECRET: SECRET,
        FIXLOOP_API_TOKEN: API_TOKEN,
        FIXLOOP_CONFIG: configFile,
        FIXLOOP_WORK_DIR: join(root, 'runs'),
        DATABASE_URL: `sqlite://${join(root, 'fixloop.db')}`,
        GITHUB_API_URL: fake.url,
        GITHUB_TOKEN: githubToken,
        // The agent CLIs are found on the PATH the agent inherits, as a user's would be.
        PATH: `${BIN}:${process.env.PATH ?? '/usr/bin:/bin'}`,
        // fixloop reads job logs from the fake's https blob host, whose certificate is self-signed.
        NODE_EXTRA_CA_CERTS: BLOB_CA,
        ...o.env,
      },
      // Its public URL (what the agent is told) defaults to http://HOST:PORT, so a free port will do.
      'free',
    );
  } catch (err) {
    await fake.close();
    throw err;
  }
  const api = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${server.url}${path}`, {
      method,
      headers: apiHeaders,
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  };
  return {
    root,
    bare,
    head,
    fake,
    server,
    api,
    async close() {
      await server.stop();
      await fake.close();
      if (!o.root) rmSync(root, { recursive: true, force: true });
    },
  };
}

/** Registers the Task as the agent that opened the pull request would, naming its session. */
export async function registerTask(w: ContractWorld, resumeRef: string): Promise<number> {
  const r = await w.api('POST', '/api/tasks', { repository: 'acme/shop', pullRequest: PR, branch: BRANCH, resumeRef });
  if (r.status !== 201) throw new Error(`the Task was not registered: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.id;
}

/** GitHub's red check run on the head, delivered by webhook: the loop resumes the agent. */
export async function deliverRed(w: ContractWorld, checkId = 901): Promise<void> {
  const red = delivery(
    'check_run',
    checkRunPayload({
      repo: REPO,
      sha: w.head,
      id: checkId,
      name: 'test',
      pr: { number: PR, headSha: w.head },
      output: FAILURE,
    }),
  );
  const answer = await post(w.server.url, red, SECRET);
  if (answer.status !== 202) throw new Error(`the red delivery was not stored: ${answer.status}`);
}

/** The attempt's run once it has ended, with its log (the run's last output may land just after). */
export async function endedRun(w: ContractWorld, taskId: number, attemptIndex = 0, timeoutMs = 90_000): Promise<any> {
  let endedAt = 0;
  return until(
    'the agent run to end',
    async () => {
      const view = (await w.api('GET', `/api/tasks/${taskId}`)).body;
      const runId = view.attempts?.[attemptIndex]?.runId;
      const run = view.runs?.find((r: any) => r.id === runId);
      if (!run || run.state === 'queued' || run.state === 'running') return null;
      endedAt ||= Date.now();
      if (Date.now() - endedAt < 500) return null;
      return (await w.api('GET', `/api/runs/${runId}`)).body;
    },
    timeoutMs,
    200,
  );
}

/**
 * An agent CLI from test/contract/agents/node_modules/.bin run as the agent that opened the pull request did, the prompt on
 * stdin; killed after a minute so a hung CLI fails the test instead of holding it.
 */
export function runCli(
  name: AgentCliName,
  args: string[],
  o: { cwd: string; env: Record<string, string>; stdin: string },
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(agentCli(name), args, { cwd: o.cwd, env: o.env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(o.stdin);
  });
}

/** The Task as `GET /api/tasks/{id}` shows it. */
export async function taskView(w: ContractWorld, taskId: number): Promise<any> {
  return (await w.api('GET', `/api/tasks/${taskId}`)).body;
}

/** Explains a failed expectation with what the agent and fixloop said. */
export function story(w: ContractWorld, run: any): string {
  return `\n--- run log ---\n${String(run?.log ?? '').slice(-6000)}\n--- fixloop ---\n${w.server.output().slice(-4000)}`;
}
