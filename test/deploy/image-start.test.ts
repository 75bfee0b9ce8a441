// The container path as written (issue 32, decision 0048, SPEC N1), proved without a container engine:
// what the Dockerfile's stages build (dist/ from the build stage's `npm run build`, the deps stage's
// production install), laid out as the runtime stage copies it, then the runtime's CMD run as an
// unprivileged user — never root — with the Dockerfile's ENV and compose.yaml's environment, the
// example config mounted where compose mounts it, and PostgreSQL as its database: one replica answers
// /readyz 200, then a second beside it on the same database. Paths the image has (/data, the config
// mount) are mapped to temporary folders; the Node here is the machine's (20), the image's is 22.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  chownSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { parse } from 'yaml';
import { all, dockerfileStages, envOf, interpolate, type Stage } from './dockerfile.js';
import { PG_ADMIN_URL } from '../support/databases.js';
import { freePort, until } from '../support/server-process.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const read = (file: string): string => readFileSync(join(ROOT, file), 'utf8');
/** The PATH of the node images (node is in /usr/local/bin there, /usr/bin here). */
const IMAGE_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

const stages = dockerfileStages(read('Dockerfile'));
const runtime = stages.get('runtime')!;
const compose = parse(read('compose.yaml'), { merge: true }) as {
  services: Record<string, { environment?: Record<string, string>; volumes?: string[] }>;
};
const replicas = Object.entries(compose.services).filter(([name]) => name.startsWith('fixloop'));

/** The image's user as this machine has one: as root `nobody`, else the user running the tests. */
function unprivilegedUser(): { uid: number; gid: number } | null {
  if (process.getuid?.() !== 0) return null;
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((l) => l.startsWith('nobody:'));
  assert.ok(line, 'a `nobody` user to run the image as');
  const [, , uid, gid] = line.split(':');
  return { uid: Number(uid), gid: Number(gid) };
}

/** Copies the context sources of a stage's `COPY src… dest` into `into` (dest relative to it). */
function copyFromContext(stage: Stage, into: string, from: Record<string, string>): void {
  for (const copy of all(stage.steps, 'COPY')) {
    const parts = copy.split(/\s+/);
    const source = parts[0]!.startsWith('--from=') ? parts.shift()!.slice('--from='.length) : null;
    const rawDest = parts.pop()!;
    const dest = resolve(into, rawDest);
    if (source !== null) {
      const built = from[`${source} ${parts[0]}`];
      assert.ok(built, `the test knows what COPY --from=${source} ${parts[0]} holds`);
      renameSync(built, dest); // each stage's output is used once
      continue;
    }
    for (const src of parts) {
      const target = parts.length > 1 || rawDest.endsWith('/') ? join(dest, src) : dest;
      mkdirSync(dirname(target), { recursive: true });
      cpSync(join(ROOT, src), target, { recursive: true });
    }
  }
}

interface Replica {
  name: string;
  url: string;
  child: ChildProcess;
  output(): string;
}

describe('the image started as written: its command, its user, compose.yaml and fixloop.example.yaml (issue 32)', () => {
  let work = '';
  let app = '';
  const role = `fixloop_image_${randomBytes(4).toString('hex')}`;
  let pgReady = false;
  const running: Replica[] = [];
  const user = unprivilegedUser();
  const vars = {
    POSTGRES_PASSWORD: randomBytes(12).toString('hex'),
    WEBHOOK_SECRET: randomBytes(16).toString('hex'),
    FIXLOOP_API_TOKEN: randomBytes(24).toString('base64url'),
    FIXLOOP_RUNNER_SECRET: randomBytes(16).toString('hex'),
    FIXLOOP_PUBLIC_URL: 'https://fixloop.example.com',
    FIXLOOP_AGENT_URL: 'https://fixloop-agents.example.com',
  };

  before(async () => {
    work = mkdtempSync(join(tmpdir(), 'fixloop-image-'));
    chmodSync(work, 0o755); // the image's user passes through to the app, as in the image
    // The build stage: its context files, the dev dependencies (the checkout's), its RUN steps after `npm ci`.
    const build = stages.get('build')!;
    const buildDir = join(work, 'build');
    mkdirSync(buildDir);
    copyFromContext(build, buildDir, {});
    const buildRuns = all(build.steps, 'RUN');
    assert.match(buildRuns[0]!, /^npm ci\b/);
    symlinkSync(join(ROOT, 'node_modules'), join(buildDir, 'node_modules'));
    for (const run of buildRuns.slice(1)) execFileSync('sh', ['-c', run], { cwd: buildDir, stdio: 'pipe' });
    // The deps stage: the production install from the lockfile. Its native module is the checkout's
    // build of the same version for the same Node (a compile here would take minutes).
    const deps = stages.get('deps')!;
    assert.match(all(deps.steps, 'RUN').join('\n'), /npm ci --omit=dev/);
    const depsDir = join(work, 'deps');
    mkdirSync(depsDir);
    copyFromContext(deps, depsDir, {});
    execFileSync('npm', ['ci', '--omit=dev', '--ignore-scripts', '--prefer-offline', '--no-audit', '--no-fund'], {
      cwd: depsDir,
      stdio: 'pipe',
    });
    assert.ok(!existsSync(join(depsDir, 'node_modules', 'typescript')), 'no dev dependency in the image');
    const sqlite = join('node_modules', 'better-sqlite3', 'build', 'Release', 'better_sqlite3.node');
    mkdirSync(dirname(join(depsDir, sqlite)), { recursive: true });
    cpSync(join(ROOT, sqlite), join(depsDir, sqlite));
    // The runtime stage's layout, in its WORKDIR.
    const [workdir] = all(runtime.steps, 'WORKDIR');
    app = join(work, workdir!);
    mkdirSync(app, { recursive: true });
    copyFromContext(runtime, app, {
      'deps /app/node_modules': join(depsDir, 'node_modules'),
      'build /app/dist': join(buildDir, 'dist'),
    });
    for (let dir = app; dir !== work; dir = dirname(dir)) chmodSync(dir, 0o755);
    // compose's database: a role and a database of its own on the machine's PostgreSQL.
    const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
    await admin.connect();
    try {
      await admin.query(`CREATE ROLE ${role} LOGIN PASSWORD '${vars.POSTGRES_PASSWORD}'`);
      await admin.query(`CREATE DATABASE ${role} OWNER ${role}`);
      pgReady = true;
    } finally {
      await admin.end();
    }
  });

  after(async () => {
    await Promise.all(running.map((r) => stop(r)));
    if (pgReady) {
      const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
      await admin.connect();
      await admin.query(`DROP DATABASE IF EXISTS ${role} WITH (FORCE)`);
      await admin.query(`DROP ROLE IF EXISTS ${role}`);
      await admin.end();
    }
    if (work) rmSync(work, { recursive: true, force: true });
  });

  async function stop(r: Replica): Promise<void> {
    if (r.child.exitCode !== null || r.child.signalCode !== null) return;
    const exited = new Promise((res) => r.child.once('exit', res));
    r.child.kill('SIGTERM');
    const timer = setTimeout(() => r.child.kill('SIGKILL'), 20_000);
    await exited;
    clearTimeout(timer);
  }

  /** Starts compose's service `name` as the image would: its CMD in its WORKDIR, as its user. */
  async function startReplica(name: string): Promise<Replica> {
    const service = compose.services[name]!;
    const data = join(work, `${name}-data`);
    mkdirSync(data, { mode: 0o755 });
    if (user) chownSync(data, user.uid, user.gid); // the image's `chown fixloop:fixloop /data`
    // compose's mounts: the named data volume on /data, `cp fixloop.example.yaml fixloop.yaml` on its path.
    const config = join(work, 'fixloop.yaml');
    cpSync(join(ROOT, 'fixloop.example.yaml'), config);
    const mounts: [string, string][] = (service.volumes ?? []).map((v) => {
      const [host, inside] = v.split(':');
      return [inside!, host === './fixloop.yaml' ? config : data];
    });
    assert.ok(
      mounts.some(([inside]) => inside === '/data'),
      `${name} keeps /data on a volume`,
    );
    const mapped = (value: string): string => {
      for (const [inside, host] of mounts) {
        if (value === inside || value.startsWith(`${inside}/`)) return host + value.slice(inside.length);
      }
      return value;
    };
    const composed = Object.fromEntries(
      Object.entries(service.environment ?? {}).map(([k, v]) => [k, interpolate(String(v), vars)]),
    );
    // compose's `postgres` service is the machine's server; the role and database are this test's.
    const database = new URL(composed.DATABASE_URL!);
    assert.equal(database.hostname, 'postgres');
    database.hostname = '127.0.0.1';
    database.username = role;
    database.pathname = `/${role}`;
    const port = await freePort();
    const env: Record<string, string> = { PATH: IMAGE_PATH, HOME: data };
    for (const [k, v] of Object.entries({ ...envOf(runtime.steps), ...composed })) env[k] = mapped(v);
    env.DATABASE_URL = database.href;
    env.PORT = String(port); // each container has its own 3000; here they share one network
    const cmd = JSON.parse(all(runtime.steps, 'CMD')[0]!) as string[];
    const child = spawn(cmd[0]!, cmd.slice(1), {
      cwd: app,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
      ...(user ?? {}),
    });
    let out = '';
    child.stdout!.on('data', (c) => (out += c));
    child.stderr!.on('data', (c) => (out += c));
    const replica = { name, url: `http://127.0.0.1:${port}`, child, output: () => out };
    running.push(replica);
    return replica;
  }

  async function ready(r: Replica): Promise<void> {
    try {
      await until(
        `${r.name} to answer /readyz 200`,
        async () => {
          if (r.child.exitCode !== null) throw new Error(`${r.name} exited ${r.child.exitCode}`);
          return (await fetch(`${r.url}/readyz`).catch(() => null))?.status === 200;
        },
        90_000,
        200,
      );
    } catch (err) {
      assert.fail(`${(err as Error).message}\n--- ${r.name} said ---\n${r.output().slice(-4000)}`);
    }
    assert.equal((await fetch(`${r.url}/healthz`)).status, 200);
    assert.doesNotMatch(r.output(), /must be set|"level":(50|60)/, 'no start-up error, no error line');
  }

  const api = (r: Replica, path: string, init: RequestInit = {}) =>
    fetch(`${r.url}${path}`, {
      ...init,
      headers: { authorization: `Bearer ${vars.FIXLOOP_API_TOKEN}`, 'content-type': 'application/json' },
    });

  test('a replica answers /readyz 200, running as an unprivileged user, its agents on the example config’s http runner', async () => {
    assert.equal(replicas.length, 2);
    const a = await startReplica(replicas[0]![0]);
    await ready(a);
    const status = readFileSync(`/proc/${a.child.pid}/status`, 'utf8');
    const uid = Number(/^Uid:\s+(\d+)/m.exec(status)![1]);
    assert.notEqual(uid, 0, 'the server does not run as root');
    if (user) assert.equal(uid, user.uid);
    assert.notEqual(all(runtime.steps, 'USER')[0], 'root');
    // compose's token, not the one the image would write into /data, opens the API.
    assert.equal((await api(a, '/api/stop')).status, 200);
  });

  test('a second replica on the same database is ready beside the first, and they share its state', async () => {
    const [a] = running;
    assert.ok(a, 'the first replica is running');
    const b = await startReplica(replicas[1]![0]);
    await ready(b);
    await ready(a);
    assert.equal((await api(a, '/api/stop', { method: 'PUT', body: JSON.stringify({ stopped: true }) })).status, 200);
    assert.deepEqual(await (await api(b, '/api/stop')).json(), { stopped: true });
  });
});
