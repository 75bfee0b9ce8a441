// The agent cannot reach the service's secrets (SPEC L3), proved from the agent's side: a real
// `fixloop serve` process, deployed with the default paths (./data) and secrets both in its
// environment and in `_FILE`s, starts a hostile agent through its real command runner; the agent
// (test/support/agent-probe.mjs) tries its environment, every /proc/<pid>/environ and open file it
// can reach, and every file under the data directory, and reports what it read. With the isolation
// switched off the same probe reads the secrets, which shows that it looks in the right places.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { chmodSync, chownSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DATABASE_KINDS, createTestDatabase } from '../support/databases.js';
import { REPO } from '../support/harness.js';
import { checkRunPayload, delivery, post } from '../support/deliveries.js';
import { startFakeGitHub } from '../support/fake-github/server.js';
import { startServerProcess, until } from '../support/server-process.js';

const PROBE = fileURLToPath(new URL('../support/agent-probe.mjs', import.meta.url));
/** The unprivileged user of this machine (Debian's `nobody`), which fixloop's default is too. */
const NOBODY = { uid: 65534, gid: 65534 };
const SHA = 'c0ffee'.padEnd(40, '0');

/** A secret the probe recognises wherever it finds it. */
const plant = (name: string) => `fixloop-secret-${name}-${randomBytes(8).toString('hex')}`;

interface Probe {
  uid: number;
  gid: number;
  groups: number[];
  pid: number;
  parent: { pid: number; environ: string; cwd: string };
  cwd: string;
  home: string;
  env: string[];
  found: { where: string; secret: string }[];
  environs: { readable: number[]; denied: number };
  readable: { path: string; head?: string; what?: string }[];
  denied: { path: string; error: string }[];
}

interface Probed {
  report: Probe;
  /** The whole report as text, to look for secrets the probe cannot recognise (the generated API token). */
  text: string;
  serverPid: number;
  apiToken: string;
  secrets: Record<'webhook' | 'github' | 'runner' | 'database', string>;
  data: string;
  files: { githubToken: string; runnerSecret: string; config: string };
}

/**
 * Deploys fixloop in a fresh directory (as /srv/fixloop would be: its data in ./data, its secret
 * files in ./secrets, 0600), starts it there (`as` another user, when given, owning that directory),
 * has one red push dispatch the probe, and returns what the probe reported.
 */
async function probeThroughServer(
  kind: 'sqlite' | 'postgres',
  isolation: 'user' | 'bwrap' | 'none' | undefined,
  as?: { uid: number; gid: number },
): Promise<Probed> {
  const secrets = {
    webhook: plant('webhook'),
    github: plant('github'),
    runner: plant('runner'),
    database: plant('db'),
  };
  const dir = mkdtempSync(join(tmpdir(), 'fixloop-isolation-'));
  chmodSync(dir, 0o755);
  // The probe is copied beside the deployment: the checkout may sit where the agent's user cannot go.
  const probe = join(dir, 'agent-probe.mjs');
  writeFileSync(probe, readFileSync(PROBE), { mode: 0o644 });
  const secretDir = join(dir, 'secrets');
  mkdirSync(secretDir, { mode: 0o700 });
  const files = {
    githubToken: join(secretDir, 'github-token'),
    runnerSecret: join(secretDir, 'runner-secret'),
    config: join(dir, 'fixloop.json'),
  };
  writeFileSync(files.githubToken, `${secrets.github}\n`, { mode: 0o600 });
  writeFileSync(files.runnerSecret, `${secrets.runner}\n`, { mode: 0o600 });
  const data = join(dir, 'data');
  const targets = [
    ...Object.values(files),
    join(data, 'api-token'),
    join(data, 'fixloop.sqlite'),
    join(data, 'fixloop.sqlite-wal'),
  ];
  writeFileSync(
    files.config,
    JSON.stringify({
      works: [{ name: 'shop', account: 'acme', repositories: [{ name: 'acme/shop', role: 'data' }] }],
      runner: {
        kind: 'command',
        command: [process.execPath, probe, '--dir', data, '--dir', secretDir, ...targets.flatMap((f) => ['--file', f])],
        ...(isolation ? { isolation } : {}),
      },
    }),
  );
  if (as) for (const p of [dir, secretDir, ...Object.values(files)]) chownSync(p, as.uid, as.gid);

  const db = kind === 'postgres' ? await createTestDatabase('postgres') : null;
  const fake = await startFakeGitHub();
  fake.addUserToken('fixloop-user', secrets.github);
  fake.addPull('acme/shop', 5, { headSha: SHA, headRef: 'agent/fix' });
  let server: Awaited<ReturnType<typeof startServerProcess>> | null = null;
  try {
    server = await startServerProcess(
      {
        WEBHOOK_SECRET: secrets.webhook,
        GITHUB_TOKEN_FILE: files.githubToken,
        GITHUB_API_URL: fake.url,
        FIXLOOP_RUNNER_SECRET_FILE: files.runnerSecret,
        FIXLOOP_CONFIG: files.config,
        HOME: dir,
        // PostgreSQL's trust authentication ignores the password: it is here to be a secret in the URL.
        ...(db ? { DATABASE_URL: withPassword(db.url, secrets.database) } : {}),
      },
      'free',
      { cwd: dir, ...(as ? { as } : {}) },
    );
    const url = server.url;
    // Nobody set FIXLOOP_API_TOKEN: serve generated one into ./data/api-token, fixloop's user's alone.
    const apiToken = readFileSync(join(data, 'api-token'), 'utf8').trim();
    const headers = { authorization: `Bearer ${apiToken}`, 'content-type': 'application/json' };
    const created = await fetch(`${url}/api/tasks`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ repository: 'acme/shop', pullRequest: 5, branch: 'agent/fix' }),
    });
    const task = (await created.json()) as { id: number };
    const red = delivery(
      'check_run',
      checkRunPayload({ repo: REPO, sha: SHA, id: 501, name: 'test', pr: { number: 5, headSha: SHA } }),
    );
    assert.equal((await post(url, red, secrets.webhook)).status, 202);
    let endedSeen = 0;
    const run = await until('the probe to finish', async () => {
      const view = (await (await fetch(`${url}/api/tasks/${task.id}`, { headers })).json()) as any;
      // The attempt's run: the Task's first run is the registration's own.
      const r = view.runs?.find((x: any) => x.id === view.attempts?.[0]?.runId);
      if (!r || ['queued', 'running'].includes(r.state)) return null;
      const full = (await (await fetch(`${url}/api/runs/${r.id}`, { headers })).json()) as any;
      // The log's last chunk may be written just after the run's end.
      endedSeen ||= Date.now();
      return (String(full.log).includes('PROBE ') || Date.now() - endedSeen > 3000) && full;
    });
    const line = String(run.log)
      .split('\n')
      .find((l) => l.startsWith('PROBE '));
    assert.ok(
      line,
      `the probe reported (run ${JSON.stringify(run).slice(0, 2000)}; fixloop: ${server.output().slice(-3000)})`,
    );
    const text = line.slice('PROBE '.length);
    return { report: JSON.parse(text) as Probe, text, serverPid: server.child.pid!, apiToken, secrets, data, files };
  } finally {
    await server?.stop();
    await fake.close();
    await db?.drop();
    rmSync(dir, { recursive: true, force: true });
  }
}

function withPassword(url: string, password: string): string {
  const u = new URL(url);
  u.password = password;
  return u.toString();
}

/** Everything the probe read that is not its own: its run directory, and its own process. */
function notItsOwn(p: Probed): Probe['readable'] {
  return p.report.readable.filter((r) => !r.path.startsWith(`${p.report.cwd}/`));
}

/** What every isolated run must show: no secret anywhere, fixloop's process and files closed to it. */
function readsNothing(p: Probed, kind: 'sqlite' | 'postgres'): void {
  assert.deepEqual(p.report.found, [], 'no planted secret, anywhere the agent looked');
  assert.ok(!p.text.includes(p.apiToken), 'nor the generated API token');
  assert.ok(!p.report.environs.readable.includes(p.serverPid), "fixloop's /proc/<pid>/environ is not readable");
  for (const [name, value] of Object.entries(p.secrets)) assert.ok(!p.text.includes(value), `nor the ${name} secret`);
  // Files it can open outside its run directory are /dev/null at most (bwrap's masks). The config
  // file is the operator's to share: a command runner's needs no secret, and this one holds none.
  assert.deepEqual(
    notItsOwn(p).filter((r) => r.head !== '' && r.path !== p.files.config),
    [],
    'nothing under the data directory or among the secret files but its own run',
  );
  const closed = [join(p.data, 'api-token'), p.files.githubToken, p.files.runnerSecret];
  if (kind === 'sqlite') closed.push(join(p.data, 'fixloop.sqlite'), join(p.data, 'fixloop.sqlite-wal'));
  for (const file of closed) {
    const readable = p.report.readable.find((r) => r.path === file);
    assert.ok(readable === undefined || readable.head === '', `${file} is not open to the agent`);
  }
}

for (const kind of DATABASE_KINDS) {
  describe(`L3: the agent cannot reach fixloop's secrets (${kind})`, () => {
    test('L3: fixloop as root starts the agent as nobody by default, and the agent reads none of its secrets: not in its environment, not in any /proc/<pid>/environ, not under the data directory', async () => {
      const p = await probeThroughServer(kind, undefined);
      assert.notEqual(p.report.uid, 0, 'the agent does not run as root');
      assert.deepEqual([p.report.uid, p.report.gid, p.report.groups], [NOBODY.uid, NOBODY.gid, [NOBODY.gid]]);
      readsNothing(p, kind);
      assert.equal(p.report.parent.pid, p.serverPid, 'its parent is fixloop');
      assert.equal(p.report.parent.environ, 'EACCES', "fixloop's environment is closed to it");
      assert.equal(p.report.parent.cwd, 'EACCES', "and so is fixloop's working directory");
      assert.ok(
        p.report.denied.some((d) => d.path === p.data && d.error === 'EACCES'),
        'the data directory cannot be listed',
      );
      assert.ok(
        p.report.denied.some((d) => d.path === join(p.data, 'api-token') && d.error === 'EACCES'),
        'the token file is there and closed',
      );
      assert.ok(
        p.report.env.every((name) => !/SECRET|TOKEN_FILE|DATABASE|GITHUB/.test(name)),
        `its environment names no secret: ${p.report.env.join(', ')}`,
      );
    });

    test('L3: with runner.isolation none the same probe reads the secrets (so the probe looks where they are)', async () => {
      const p = await probeThroughServer(kind, 'none');
      assert.equal(p.report.uid, 0);
      const where = (secret: string) => p.report.found.filter((f) => f.secret === secret).map((f) => f.where);
      assert.ok(where(p.secrets.webhook).includes(`/proc/${p.serverPid}/environ`), "fixloop's environment");
      assert.ok(where(p.secrets.github).includes(p.files.githubToken), 'the GitHub token file');
      assert.ok(where(p.secrets.runner).includes(p.files.runnerSecret), 'the runner secret file');
      if (kind === 'postgres') assert.ok(where(p.secrets.database).includes(`/proc/${p.serverPid}/environ`));
      assert.ok(p.text.includes(p.apiToken), 'the API token file');
      if (kind === 'sqlite') assert.ok(p.report.readable.some((r) => r.path === join(p.data, 'fixloop.sqlite')));
    });
  });
}

/**
 * fixloop itself runs from this checkout as `nobody` in the tests below, so every directory above it
 * must be passable by other users (a checkout under /root is not).
 */
function checkoutOpenToOthers(): boolean {
  for (let d = fileURLToPath(new URL('../..', import.meta.url)); ; d = dirname(d)) {
    if ((statSync(d).mode & 0o005) !== 0o005) return false;
    if (dirname(d) === d) return true;
  }
}
const asNobody = checkoutOpenToOthers() ? {} : { skip: 'the checkout is not readable by other users here' };

describe('L3: in a bubblewrap sandbox (sqlite)', () => {
  test('L3: with runner.isolation bwrap, fixloop as root runs the agent as nobody in its own PID namespace, and it reads none of the secrets', async () => {
    const p = await probeThroughServer('sqlite', 'bwrap');
    assert.equal(p.report.uid, NOBODY.uid);
    readsNothing(p, 'sqlite');
    assert.notEqual(p.report.parent.pid, p.serverPid, "fixloop's process is outside the agent's PID namespace");
  });

  test(
    'L3: fixloop not running as root keeps its secrets from an agent of its own user with runner.isolation bwrap',
    asNobody,
    async () => {
      const p = await probeThroughServer('sqlite', 'bwrap', NOBODY);
      assert.equal(p.report.uid, NOBODY.uid, 'the same user as fixloop');
      readsNothing(p, 'sqlite');
    },
  );

  test(
    'L3: the same agent of the same user reads them with runner.isolation none (the sandbox is what hides them)',
    asNobody,
    async () => {
      const p = await probeThroughServer('sqlite', 'none', NOBODY);
      assert.equal(p.report.uid, NOBODY.uid);
      const webhook = p.report.found.filter((f) => f.secret === p.secrets.webhook).map((f) => f.where);
      assert.ok(webhook.includes(`/proc/${p.serverPid}/environ`), "fixloop's environment, as its own user");
      assert.ok(p.text.includes(p.apiToken), 'and the token file');
    },
  );

  test(
    'L3: fixloop not running as root refuses to start a command runner until runner.isolation says how',
    asNobody,
    async () => {
      await assert.rejects(
        probeThroughServer('sqlite', undefined, NOBODY),
        /must be set when fixloop does not run as root[\s\S]*runner\.isolation/,
      );
    },
  );
});
