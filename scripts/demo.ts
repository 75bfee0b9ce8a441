// `npm run demo`: the whole loop on this machine, for a newcomer to watch. fixloop itself runs as
// `fixloop serve` (the real pipeline: SQLite in a temp dir, signed webhooks, the command runner, a
// workspace checkout); GitHub is the fake of the tests (a real HTTP server with GitHub's shapes) plus
// a local bare repository; the agent is scripts/demo-agent.mjs. The story: a red push, one attempt,
// the agent's fix, red again, the Inbox notice. `--once` exits at the end (0 when it went so).
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkRunPayload } from '../test/support/deliveries.js';
import { startFakeGitHub, type FakeGitHub } from '../test/support/fake-github/server.js';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const REPOSITORY = 'acme/shop';
const PR = 7;
const BRANCH = 'agent/fix-sum';
const FIRST_FAILURE = 'FAIL test/sum.test.js: expected sum(2, 2) to be 4, got 5';
const SECOND_FAILURE = 'FAIL test/sum.test.js: expected sum(-1, 1) to be 0 (a number), got "0" (a string)';
/** Every wait of the story is bounded, so a broken loop ends the demo with an error, not a hang. */
const STEP_TIMEOUT_MS = 30_000;

interface Demo {
  root: string;
  fake: FakeGitHub;
  server: ChildProcess;
  url: string;
  apiToken: string;
  secret: string;
  log: string;
}

const once = process.argv.includes('--once') || process.env.FIXLOOP_DEMO_ONCE === '1';
let step = 0;
const say = (text: string): void => console.log(`\n${++step}. ${text}`);
const detail = (text: string): void => console.log(`   ${text.replace(/\n/g, '\n   ')}`);

function git(cwd: string, ...args: string[]): string {
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

/** acme/shop as a bare repository whose agent branch has two bugs in sum(); returns its head. */
function makeRepository(root: string): { bare: string; head: string } {
  const bare = join(root, 'git', `${REPOSITORY}.git`);
  mkdirSync(dirname(bare), { recursive: true });
  git(root, 'init', '-q', '--bare', '-b', 'main', bare);
  const seed = join(root, 'seed');
  git(root, 'init', '-q', '-b', 'main', seed);
  git(seed, 'remote', 'add', 'origin', bare);
  mkdirSync(join(seed, 'test'));
  writeFileSync(join(seed, 'sum.js'), 'export const sum = (a, b) => String(a + b + 1);\n');
  writeFileSync(
    join(seed, 'test', 'sum.test.js'),
    "import { sum } from '../sum.js';\nif (sum(2, 2) !== 4) throw 1;\nif (sum(-1, 1) !== 0) throw 2;\n",
  );
  git(seed, 'checkout', '-q', '-b', BRANCH);
  git(seed, 'add', '-A');
  git(seed, 'commit', '-qm', 'agent: add sum');
  git(seed, 'push', '-q', 'origin', BRANCH);
  return { bare, head: git(seed, 'rev-parse', 'HEAD') };
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const a = s.address();
      s.close(() => resolve(typeof a === 'object' && a ? a.port : 0));
    });
  });
}

async function until<T>(what: string, probe: () => Promise<T | null | undefined | false>): Promise<T> {
  const deadline = Date.now() + STEP_TIMEOUT_MS;
  for (;;) {
    const v = await probe().catch(() => null);
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** A red check run on `sha` in the fake GitHub, with its Actions log, and its webhook to fixloop. */
async function redCheck(d: Demo, sha: string, failure: string): Promise<void> {
  const run = d.fake.addCheckRun(REPOSITORY, sha, {
    name: 'test',
    status: 'completed',
    conclusion: 'failure',
    outputSummary: failure,
  });
  d.fake.setLog(
    run.id,
    `${new Date().toISOString()} > node test/sum.test.js\n${new Date().toISOString()} ${failure}\n`,
  );
  const payload = checkRunPayload({
    repo: { owner: 'acme', name: 'shop' },
    sha,
    id: run.id,
    name: 'test',
    branch: BRANCH,
    pr: { number: PR, headSha: sha },
    output: failure,
    completedAt: new Date().toISOString(),
  });
  const sent = await d.fake.sendWebhook(`${d.url}/api/github/webhooks`, 'check_run', payload, d.secret);
  if (sent.status !== 202) throw new Error(`fixloop answered the check_run webhook ${sent.status}: ${sent.body}`);
  detail(`check_run "test" failure on ${sha.slice(0, 7)}: ${failure}`);
  detail(`webhook delivered, signed with the webhook secret: fixloop answered ${sent.status}`);
}

async function start(root: string): Promise<Demo> {
  const fake = await startFakeGitHub();
  const githubToken = fake.addUserToken('fixloop-demo');
  const port = Number(process.env.PORT ?? (await freePort()));
  const url = `http://127.0.0.1:${port}`;
  const apiToken = randomBytes(16).toString('hex');
  const secret = randomBytes(16).toString('hex');
  const configFile = join(root, 'fixloop.json');
  writeFileSync(
    configFile,
    JSON.stringify(
      {
        works: [{ name: 'shop', account: 'acme', repositories: [{ name: REPOSITORY, role: 'data' }] }],
        // The shortest poll, so the agent's push is seen as progress within seconds.
        poll: { intervalSeconds: 5 },
        runner: {
          kind: 'command',
          command: [process.execPath, join(ROOT, 'scripts', 'demo-agent.mjs')],
          // The demo's agent is this repository's own script; a real agent runs isolated (docs/agents.md, "Running agents safely").
          isolation: 'none',
          workspace: { cloneUrl: `file://${join(root, 'git')}/{repository}.git` },
        },
      },
      null,
      2,
    ),
  );
  const log = join(root, 'fixloop.log');
  const out = createWriteStream(log);
  const server = spawn(process.execPath, [join(ROOT, 'bin', 'fixloop.mjs'), 'serve'], {
    cwd: root,
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: process.env.HOME ?? root,
      HOST: '127.0.0.1',
      PORT: String(port),
      DATABASE_URL: `sqlite:${join(root, 'fixloop.sqlite')}`,
      WEBHOOK_SECRET: secret,
      FIXLOOP_API_TOKEN: apiToken,
      FIXLOOP_CONFIG: configFile,
      FIXLOOP_WORK_DIR: join(root, 'runs'),
      TASK_CI_AUTO_RESUME_MAX_ATTEMPTS: '1',
      GITHUB_API_URL: fake.url,
      GITHUB_TOKEN: githubToken,
      // fixloop reads job logs from the fake's https host, whose certificate is self-signed (test-only).
      NODE_EXTRA_CA_CERTS: join(ROOT, 'test', 'support', 'fake-github', 'tls', 'cert.pem'),
      LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    // Its own process group: Ctrl-C reaches the demo alone, which then stops fixloop with one SIGTERM
    // (a second signal would make fixloop exit without closing).
    detached: true,
  });
  server.stdout!.pipe(out);
  server.stderr!.pipe(out);
  // Detached, it would outlive a demo that dies of an error it did not catch.
  process.once('exit', () => server.exitCode === null && server.kill('SIGKILL'));
  const demo = { root, fake, server, url, apiToken, secret, log };
  await until('fixloop to be ready (GET /readyz)', async () => {
    if (server.exitCode !== null) throw new Error(`fixloop exited (${server.exitCode}); see ${log}`);
    return (await fetch(`${url}/readyz`)).ok;
  }).catch((err: unknown) => {
    server.kill();
    throw err;
  });
  return demo;
}

async function api(d: Demo, method: string, path: string, body?: unknown): Promise<any> {
  const res = await fetch(`${d.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${d.apiToken}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path} answered ${res.status}: ${text}`);
  return text ? JSON.parse(text) : null;
}

async function story(d: Demo, bare: string, head: string): Promise<void> {
  say(`GitHub's stand-in has ${REPOSITORY}#${PR}, opened by an agent on ${BRANCH} (head ${head.slice(0, 7)}).`);
  d.fake.addPull(REPOSITORY, PR, { headSha: head, headRef: BRANCH, author: 'agent-bot' });
  const task = await api(d, 'POST', '/api/tasks', {
    repository: REPOSITORY,
    pullRequest: PR,
    branch: BRANCH,
    resumeRef: 'demo-session',
  });
  detail(`registered as Task ${task.id} (POST /api/tasks), resume reference "demo-session"; budget: 1 attempt`);

  say('CI goes red on that push.');
  await redCheck(d, head, FIRST_FAILURE);

  say('fixloop resumes the agent: attempt 1, seeded with what failed.');
  const attempt = await until(
    'the first attempt',
    async () => (await api(d, 'GET', `/api/tasks/${task.id}`)).attempts?.[0],
  );
  detail(`attempt ${attempt.id} on ${String(attempt.headSha ?? head).slice(0, 7)}, run ${attempt.runId}`);

  say('The agent reads the checks, fixes sum(), commits and pushes to the branch, reports action_taken.');
  const pushed = await until('the agent to push', async () => {
    const now = git(bare, 'rev-parse', `refs/heads/${BRANCH}`);
    return now !== head ? now : null;
  });
  const run = await until('the agent run to end', async () => {
    const r = await api(d, 'GET', `/api/runs/${attempt.runId}`);
    return r.state !== 'queued' && r.state !== 'running' ? r : null;
  });
  detail(`run ${run.id} ${run.state}; the agent pushed ${pushed.slice(0, 7)} (its log: GET /api/runs/${run.id})`);

  say('GitHub sees the push; fixloop counts it as the attempt’s progress.');
  d.fake.setHead(REPOSITORY, PR, pushed);
  d.fake.setCompare(REPOSITORY, head, pushed, [
    {
      path: 'sum.js',
      patch:
        '@@ -1 +1 @@\n-export const sum = (a, b) => String(a + b + 1);\n+export const sum = (a, b) => String(a + b);',
    },
  ]);
  const settled = await until('the attempt to be acknowledged', async () => {
    const a = (await api(d, 'GET', `/api/tasks/${task.id}`)).attempts?.[0];
    return a && a.state !== 'running' && a.state !== 'queued' && a.state !== 'awaiting_progress' ? a : null;
  });
  detail(`attempt ${settled.id}: ${settled.state}`);

  say('CI goes red again: the fix was half of it.');
  await redCheck(d, pushed, SECOND_FAILURE);

  say('The budget is spent: fixloop stops the loop and files exactly one notice in the Inbox.');
  const notice = await until('the notice', async () => {
    const { notices } = await api(d, 'GET', '/api/inbox');
    return notices.find((n: { taskId?: number }) => n.taskId === task.id) ?? null;
  });
  detail(JSON.stringify(notice, null, 2));

  say('The hand-off on the pull request: a label for people and one comment with the loop’s history.');
  const key = `${REPOSITORY}#${PR}`;
  const handoff = await until('the hand-off', async () => {
    const labels = d.fake.state.pulls[key]?.labels ?? [];
    const comment = d.fake.state.comments[key]?.find((c) => c.body.includes('<!-- fixloop-state -->'));
    return labels.includes('fixloop:needs-human') && comment ? { labels, comment } : null;
  });
  detail(`labels: ${handoff.labels.join(', ')}; state comment ${handoff.comment.id}`);
  detail('adding the label fixloop:approve-one would grant exactly one more attempt');
}

async function main(): Promise<number> {
  const root = mkdtempSync(join(tmpdir(), 'fixloop-demo-'));
  console.log(`fixloop demo in ${root}`);
  const { bare, head } = makeRepository(root);
  let d: Demo | null = null;
  const close = async (): Promise<void> => {
    if (d) {
      if (d.server.exitCode === null) {
        const exited = new Promise((r) => d!.server.once('exit', r));
        d.server.kill('SIGTERM');
        await exited;
      }
      await d.fake.close();
    }
    if (once) rmSync(root, { recursive: true, force: true });
  };
  try {
    d = await start(root);
    console.log(`fixloop (fixloop serve, SQLite at ${join(root, 'fixloop.sqlite')}) is up:`);
    console.log(`  open    ${d.url}/`);
    console.log(`  token   ${d.apiToken}   (Authorization: Bearer …; the API at ${d.url}/api)`);
    console.log(`  its log ${d.log}`);
    await story(d, bare, head);
  } catch (err) {
    console.error(`\ndemo failed: ${err instanceof Error ? err.message : String(err)}`);
    if (d) console.error(`fixloop's log: ${d.log}`);
    await close();
    return 1;
  }
  if (once) {
    await close();
    console.log('\nThe loop ran to its end.');
    return 0;
  }
  console.log(`\nThe loop ran to its end. Look around at ${d.url}/ (token ${d.apiToken}); Ctrl-C stops the demo.`);
  await new Promise<void>((resolve) => process.once('SIGINT', () => resolve()));
  await close();
  console.log(`stopped; the demo's files are in ${root}`);
  return 0;
}

process.exitCode = await main();
