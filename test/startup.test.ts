// Issue 32, item 2 (SPEC M1, V3): `fixloop serve` as a real process tells a person what they need — the
// first lines name the dashboard, where the sign-in token is, the Works and the runner, and what to do
// when there is no Work — and every start-up failure is one line with the cause and the fix, exit
// code 2, no stack trace unless LOG_LEVEL=debug.
import { describe, test, after } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, runServerToExit, startServerProcess, until } from './support/server-process.js';
import { API_TOKEN, SECRET } from './support/harness.js';

const dirs: string[] = [];
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'fixloop-startup-'));
  dirs.push(d);
  return d;
};

/** The lines a person reads: everything that is not a JSON log line. */
const humanLines = (output: string) => output.split('\n').filter((l) => l.trim() !== '' && !l.startsWith('{'));

/** One line, exit code 2, no stack frame. */
function assertOneLineFailure(r: { code: number | null; output: string }, pattern: RegExp): string {
  assert.equal(r.code, 2, r.output);
  const lines = humanLines(r.output);
  assert.equal(lines.length, 1, `one line for a person, got:\n${lines.join('\n')}`);
  assert.match(lines[0]!, /^fixloop: cannot start: /);
  assert.match(lines[0]!, pattern);
  assert.doesNotMatch(r.output, /\n\s+at /, 'no stack trace');
  return lines[0]!;
}

describe('start-up, as a person sees it (issue 32)', () => {
  after(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  test('M1: with no Work, the first lines name the dashboard, the token file, no Works, and what to do next', async () => {
    const cwd = tempDir();
    const server = await startServerProcess({ WEBHOOK_SECRET: SECRET }, 'free', { cwd });
    const port = server.port;
    try {
      await until('the banner', async () => server.output().includes('Next:'), 10_000);
      const text = humanLines(server.output()).join('\n');
      assert.match(text, new RegExp(`Dashboard: +http://127\\.0\\.0\\.1:${port}/`));
      assert.match(text, /Sign-in: +the API token, in the file \.\/data\/api-token/);
      assert.match(text, /Works: +none configured · runner: none/);
      assert.match(text, /Next: +no Work is configured/);
      assert.match(text, /works\[\]\.repositories/);
      assert.match(text, /FIXLOOP_CONFIG/);
      assert.match(text, /Connect a real repository in 15 minutes/);
      assert.match(text, new RegExp(`127\\.0\\.0\\.1:${port}/setup`));
    } finally {
      await server.stop();
    }
  });

  test('M1: with a Work and FIXLOOP_API_TOKEN, the banner says so and has no next step', async () => {
    const cwd = tempDir();
    const config = join(cwd, 'fixloop.json');
    writeFileSync(
      config,
      JSON.stringify({
        works: [{ name: 'shop', account: 'acme', repositories: [{ name: 'acme/shop', role: 'data' }] }],
      }),
    );
    const server = await startServerProcess(
      { WEBHOOK_SECRET: SECRET, FIXLOOP_API_TOKEN: API_TOKEN, FIXLOOP_CONFIG: config },
      'free',
      { cwd },
    );
    try {
      await until('the banner', async () => server.output().includes('GitHub:'), 10_000);
      const text = humanLines(server.output()).join('\n');
      assert.match(text, /Sign-in: +the API token, from FIXLOOP_API_TOKEN/);
      assert.match(text, /Works: +1 configured \(\.\/fixloop\.json\) · runner: none/);
      assert.doesNotMatch(text, /Next:/);
    } finally {
      await server.stop();
    }
  });

  test('V3: a port already in use is one line naming PORT, exit 2', async () => {
    // The holder takes a port of its own (bound to 0, kept): nothing can come between.
    const holder: Server = createServer();
    await new Promise<void>((r) => holder.listen(0, '127.0.0.1', r));
    const port = (holder.address() as AddressInfo).port;
    try {
      const r = await runServerToExit({ WEBHOOK_SECRET: SECRET, PORT: String(port) }, { cwd: tempDir() });
      assertOneLineFailure(r, new RegExp(`port ${port} on 127\\.0\\.0\\.1 is already in use.*set PORT`));
    } finally {
      holder.close();
    }
  });

  test('V3: a PostgreSQL role that does not exist is one line naming the role and DATABASE_URL, exit 2', async () => {
    const r = await runServerToExit(
      {
        WEBHOOK_SECRET: SECRET,
        PORT: String(await freePort()),
        DATABASE_URL: 'postgres://nobody_fixloop@127.0.0.1:5432/postgres',
      },
      { cwd: tempDir() },
    );
    const line = assertOneLineFailure(r, /role "nobody_fixloop" does not exist/);
    assert.match(line, /fix the user name in DATABASE_URL, or create that role/);
    assert.doesNotMatch(line, /migration/);
  });

  test('V3: PostgreSQL that does not answer is one line naming the address to check, exit 2', async () => {
    const r = await runServerToExit(
      {
        WEBHOOK_SECRET: SECRET,
        PORT: String(await freePort()),
        DATABASE_URL: `postgres://postgres@127.0.0.1:${await freePort()}/postgres`,
      },
      { cwd: tempDir() },
    );
    assertOneLineFailure(r, /cannot reach PostgreSQL at 127\.0\.0\.1:\d+ \(ECONNREFUSED\).*DATABASE_URL/);
  });

  test('V3: a SQLite path that cannot be made is one line naming DATABASE_URL, exit 2', async () => {
    const r = await runServerToExit(
      { WEBHOOK_SECRET: SECRET, PORT: String(await freePort()), DATABASE_URL: 'sqlite:/dev/null/x/fixloop.db' },
      { cwd: tempDir() },
    );
    assertOneLineFailure(
      r,
      /cannot open the SQLite database \(ENOTDIR.*\): make the file and its directory writable.*DATABASE_URL/,
    );
  });

  test('V3: LOG_LEVEL=debug adds the underlying error and its stack', async () => {
    const r = await runServerToExit(
      {
        WEBHOOK_SECRET: SECRET,
        PORT: String(await freePort()),
        DATABASE_URL: 'postgres://nobody_fixloop@127.0.0.1:5432/postgres',
        LOG_LEVEL: 'debug',
      },
      { cwd: tempDir() },
    );
    assert.equal(r.code, 2);
    assert.match(r.stderr, /^fixloop: cannot start: PostgreSQL/m);
    assert.match(r.stderr, /\n\s+at /);
  });

  test('L3: a secret file fixloop may not read names the path and the permission, exit 2', async () => {
    const dir = tempDir();
    chmodSync(dir, 0o755);
    const secret = join(dir, 'webhook-secret');
    writeFileSync(secret, 'hush\n', { mode: 0o600 }); // root's alone
    const cwd = join(dir, 'app');
    mkdirSync(cwd);
    chownSync(cwd, 65534, 65534);
    const r = await runServerToExit(
      { WEBHOOK_SECRET_FILE: secret, PORT: String(await freePort()), HOME: cwd },
      { cwd, as: { uid: 65534, gid: 65534 } },
    );
    assert.equal(r.code, 2, r.output);
    assert.match(
      r.stderr,
      new RegExp(`permission denied on ${secret}; make it readable by the user fixloop runs as \\(uid 65534\\)`),
    );
    assert.match(r.stderr, /WEBHOOK_SECRET_FILE/);
    assert.doesNotMatch(r.output, /\n\s+at /);
  });
});
