// Issue 19, SPEC L2 for GitLab: the workspace token for a gitlab Work's project is a project access
// token minted for that one project (POST /api/v4/projects/:id/access_tokens, GitLab's documented
// request and answer shapes), kept per project until an hour before it expires; a refusal fails the
// run unless GITLAB_WORKSPACE_TOKEN=configured allows GITLAB_TOKEN itself. A tiny local HTTP server
// stands in for GitLab: the access_tokens endpoint, and git's smart HTTP (git http-backend) that
// accepts only the minted token. Through runnerFromConfig: the project is cloned from GITLAB_URL, and
// the token is in neither git's argv nor the agent's.
import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Runner, RunSpec } from '../app/ports.js';
import { loadConfig } from '../config/config.js';
import { runSpecFixture } from '../../test/support/fixtures.js';
import { runnerFromConfig } from '../wiring.js';
import {
  createGitLabWorkspaceTokens,
  expiryDate,
  gitlabWorkspaceTokensFrom,
  GitLabWorkspaceTokenError,
} from './gitlab-workspace-token.js';

const GIT = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
const CONFIGURED = 'glpat-configured-maintainer-token';
const PROJECT = 'acme/platform/shop';
const BRANCH = 'agent/fix';
const DAY = 24 * 60 * 60_000;

interface Minting {
  path: string;
  privateToken: string | undefined;
  body: { name?: string; scopes?: string[]; access_level?: number; expires_at?: string };
}

let tmp: string;
let server: Server;
let baseUrl: string;
let minted: Minting[];
let minting: { status: number; body: unknown } | null; // null: answer as GitLab does on success
let issued: string[]; // every token the stand-in minted, newest last
let gitAuth: string[];

function json(res: ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** git smart HTTP over the bare repositories under tmp/git, for a request carrying the newest token. */
function serveGit(req: IncomingMessage, res: ServerResponse, url: URL) {
  const auth = req.headers.authorization ?? '';
  gitAuth.push(auth);
  const token = issued.at(-1);
  const accepted = [token, CONFIGURED]
    .filter((t): t is string => t !== undefined)
    .map((t) => `basic ${Buffer.from(`x-access-token:${t}`).toString('base64')}`);
  if (!accepted.includes(auth)) {
    res.writeHead(401, { 'WWW-Authenticate': 'Basic realm="GitLab"' }).end();
    return;
  }
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    GIT_PROJECT_ROOT: join(tmp, 'git'),
    GIT_HTTP_EXPORT_ALL: '1',
    GIT_CONFIG_NOSYSTEM: '1',
    HOME: tmp,
    PATH_INFO: decodeURIComponent(url.pathname),
    QUERY_STRING: url.search.slice(1),
    REQUEST_METHOD: req.method ?? 'GET',
    CONTENT_TYPE: req.headers['content-type'] ?? '',
    REMOTE_USER: 'agent',
    REMOTE_ADDR: '127.0.0.1',
  };
  if (req.headers['content-length']) env.CONTENT_LENGTH = req.headers['content-length'];
  if (typeof req.headers['content-encoding'] === 'string') env.HTTP_CONTENT_ENCODING = req.headers['content-encoding'];
  if (typeof req.headers['git-protocol'] === 'string') env.GIT_PROTOCOL = req.headers['git-protocol'];
  const cgi = spawn(GIT, ['http-backend'], { env, stdio: ['pipe', 'pipe', 'ignore'] });
  req.pipe(cgi.stdin);
  const chunks: Buffer[] = [];
  cgi.stdout.on('data', (c: Buffer) => chunks.push(c));
  cgi.on('close', () => {
    const out = Buffer.concat(chunks);
    const cut = out.indexOf('\r\n\r\n');
    const headers: Record<string, string> = {};
    let status = 200;
    for (const line of out.subarray(0, cut).toString('latin1').split('\r\n')) {
      const i = line.indexOf(':');
      if (i < 0) continue;
      const k = line.slice(0, i).trim();
      const v = line.slice(i + 1).trim();
      if (k.toLowerCase() === 'status') status = Number(v.split(' ')[0]);
      else headers[k] = v;
    }
    res.writeHead(status, headers).end(out.subarray(cut + 4));
  });
}

before(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'fixloop-gitlab-token-'));
  minted = [];
  issued = [];
  gitAuth = [];
  minting = null;
  server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const m = /^\/api\/v4\/projects\/([^/]+)\/access_tokens$/.exec(req.url ?? '');
    if (m && req.method === 'POST') {
      void readBody(req).then((raw) => {
        const body = JSON.parse(raw) as Minting['body'];
        minted.push({ path: m[1]!, privateToken: req.headers['private-token'] as string | undefined, body });
        if (minting) return json(res, minting.status, minting.body);
        const token = `glpat-minted-${issued.length + 1}-${'x'.repeat(12)}`;
        issued.push(token);
        json(res, 201, {
          id: 100 + issued.length,
          name: body.name,
          revoked: false,
          created_at: new Date().toISOString(),
          scopes: body.scopes,
          user_id: 900,
          active: true,
          expires_at: body.expires_at,
          access_level: body.access_level,
          token,
        });
      });
      return;
    }
    if (url.pathname.endsWith('.git') || url.pathname.includes('.git/')) return serveGit(req, res, url);
    json(res, 404, { message: '404 Not Found' });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(async () => {
  await new Promise<void>((r) => server.close(() => r()));
  await rm(tmp, { recursive: true, force: true });
});
beforeEach(() => {
  minted = [];
  issued = [];
  gitAuth = [];
  minting = null;
});

describe('the GitLab workspace token (L2, issue 19)', () => {
  test('a project access token is minted for the one project: write_repository, Developer, expiring tomorrow', async () => {
    const now = Date.parse('2026-03-10T09:00:00Z');
    const tokens = createGitLabWorkspaceTokens({ url: `${baseUrl}/`, token: CONFIGURED, now: () => now });
    assert.equal(await tokens.forRepository(PROJECT), issued[0]);
    assert.equal(minted.length, 1);
    assert.equal(minted[0]!.path, encodeURIComponent(PROJECT), 'the project by its URL-encoded path');
    assert.equal(minted[0]!.privateToken, CONFIGURED, 'the configured token mints, in a header');
    assert.deepEqual(minted[0]!.body, {
      name: 'fixloop-run',
      scopes: ['write_repository'],
      access_level: 30,
      expires_at: '2026-03-11',
    });
  });

  test('one token per project, kept until an hour before it expires, then a new one', async () => {
    let now = Date.parse('2026-03-10T09:00:00Z');
    const tokens = createGitLabWorkspaceTokens({ url: baseUrl, token: CONFIGURED, now: () => now });
    const first = await tokens.forRepository(PROJECT);
    now += 13 * 60 * 60_000; // 22:00: two hours before 2026-03-11 begins
    assert.equal(await tokens.forRepository('Acme/Platform/Shop'), first, 'the same project, any case');
    const other = await tokens.forRepository('acme/other');
    assert.notEqual(other, first, 'another project has its own');
    now += 90 * 60_000; // 23:30: within the hour before it expires
    const renewed = await tokens.forRepository(PROJECT);
    assert.notEqual(renewed, first);
    assert.equal(minted.length, 3);
    assert.equal(minted[2]!.body.expires_at, '2026-03-12', 'late in the day: the day after tomorrow');
  });

  test('two runs starting together share one minting request', async () => {
    const tokens = createGitLabWorkspaceTokens({ url: baseUrl, token: CONFIGURED });
    const [a, b] = await Promise.all([tokens.forRepository(PROJECT), tokens.forRepository(PROJECT)]);
    assert.equal(a, b);
    assert.equal(minted.length, 1);
  });

  test('expires_at: tomorrow, unless tomorrow begins within 12 hours', () => {
    assert.equal(expiryDate(Date.parse('2026-03-10T00:00:00Z')), '2026-03-11');
    assert.equal(expiryDate(Date.parse('2026-03-10T11:59:00Z')), '2026-03-11');
    assert.equal(expiryDate(Date.parse('2026-03-10T12:01:00Z')), '2026-03-12');
    assert.equal(expiryDate(Date.parse('2026-12-31T20:00:00Z')), '2027-01-02');
  });

  for (const status of [403, 404, 400]) {
    test(`refused (${status}): the run fails and says how to fix it; the configured token is not used`, async () => {
      minting = { status, body: { message: `${status} Forbidden ${CONFIGURED}` } };
      const tokens = createGitLabWorkspaceTokens({ url: baseUrl, token: CONFIGURED });
      await assert.rejects(tokens.forRepository(PROJECT), (err: unknown) => {
        assert.ok(err instanceof GitLabWorkspaceTokenError);
        assert.equal(err.status, status);
        assert.match(err.message, /Maintainer/);
        assert.match(err.message, /GITLAB_WORKSPACE_TOKEN=configured/);
        assert.ok(!err.message.includes(CONFIGURED), 'no token in the message');
        return true;
      });
    });
  }

  test('refused with GITLAB_WORKSPACE_TOKEN=configured: the configured token, said in the log', async () => {
    minting = { status: 403, body: { message: '403 Forbidden' } };
    const warned: object[] = [];
    const tokens = createGitLabWorkspaceTokens({
      url: baseUrl,
      token: CONFIGURED,
      mode: 'configured',
      logger: { warn: (o) => warned.push(o) },
    });
    assert.equal(await tokens.forRepository(PROJECT), CONFIGURED);
    assert.equal(warned.length, 1);
    assert.ok(!JSON.stringify(warned).includes(CONFIGURED));
    // Once GitLab mints again, the project's own token is used.
    minting = null;
    assert.equal(await tokens.forRepository(PROJECT), issued[0]);
  });

  test('a server error or an answer without a token is no refusal: no fallback, even when configured', async () => {
    const tokens = createGitLabWorkspaceTokens({ url: baseUrl, token: CONFIGURED, mode: 'configured' });
    minting = { status: 500, body: { message: 'boom' } };
    await assert.rejects(tokens.forRepository(PROJECT), /500/);
    minting = { status: 201, body: { id: 1, scopes: ['write_repository'], expires_at: '2026-03-11' } };
    await assert.rejects(tokens.forRepository(PROJECT), /without a usable token/);
  });

  test('a project path with an empty or dot segment is refused before any request', async () => {
    const tokens = createGitLabWorkspaceTokens({ url: baseUrl, token: CONFIGURED });
    for (const bad of ['acme', 'acme//x', 'acme/../x', 'acme/x y']) {
      await assert.rejects(tokens.forRepository(bad), GitLabWorkspaceTokenError, bad);
    }
    assert.equal(minted.length, 0);
  });

  test('no GITLAB_TOKEN, no token source', () => {
    assert.equal(gitlabWorkspaceTokensFrom({ url: baseUrl, token: null, workspaceToken: 'project' }), null);
  });
});

describe('runnerFromConfig: a gitlab Work’s project is cloned from GITLAB_URL with its own token (L2, issue 19)', () => {
  let bin: string;
  let gitLog: string;
  let env: NodeJS.ProcessEnv;
  let configs = 0;

  before(async () => {
    bin = join(tmp, 'bin');
    await mkdir(bin);
    // The agent: reports its argv and the git credential it was handed.
    await writeFile(
      join(bin, 'my-agent'),
      `#!${process.execPath}
process.stdout.write(JSON.stringify({
  argv: process.argv.slice(2),
  cwd: process.cwd(),
  env: Object.fromEntries(Object.entries(process.env).filter(([k]) => k.startsWith('GIT_'))),
}));
`,
    );
    await chmod(join(bin, 'my-agent'), 0o755);
    // git, recording its argv, then the real git.
    gitLog = join(tmp, 'git-argv.log');
    await writeFile(join(bin, 'git'), `#!/bin/sh\nprintf '%s\\n' "$*" >> '${gitLog}'\nexec '${GIT}' "$@"\n`);
    await chmod(join(bin, 'git'), 0o755);
    env = { PATH: `${bin}:${process.env.PATH ?? ''}`, HOME: tmp };

    const git = (args: string[], cwd?: string) =>
      execFileSync(GIT, args, { cwd, env: { PATH: process.env.PATH ?? '', HOME: tmp, GIT_CONFIG_NOSYSTEM: '1' } });
    const bare = join(tmp, 'git', `${PROJECT}.git`);
    await mkdir(dirname(bare), { recursive: true });
    git(['init', '--quiet', '--bare', '--initial-branch=main', bare]);
    const seed = join(tmp, 'seed');
    git(['init', '--quiet', '--initial-branch=main', seed]);
    await writeFile(join(seed, 'README.md'), 'shop\n');
    git(['add', '-A'], seed);
    git(['-c', 'user.name=a', '-c', 'user.email=a@b', 'commit', '--quiet', '-m', 'agent work'], seed);
    git(['push', '--quiet', bare, `HEAD:refs/heads/${BRANCH}`], seed);
  });

  function config(extraEnv: NodeJS.ProcessEnv = {}, workspace = '{ timeoutSeconds: 20 }') {
    const path = join(tmp, `fixloop-${++configs}.yaml`);
    writeFileSync(
      path,
      `works:
  - name: shop
    account: acme
    provider: gitlab
    repositories:
      - { name: ${PROJECT}, role: data }
  - name: widgets
    account: acme
    repositories:
      - { name: acme/widgets, role: data }
runner:
  kind: command
  command: [my-agent, "--pr={pullRequest}", "--repo={repository}"]
  workspace: ${workspace}
`,
    );
    return loadConfig({
      env: {
        WEBHOOK_SECRET: 'shh',
        FIXLOOP_WORK_DIR: join(tmp, `runs-${configs}`),
        FIXLOOP_AGENT_ISOLATION: 'none',
        GITLAB_URL: baseUrl,
        GITLAB_TOKEN: CONFIGURED,
        // GitHub's default clone URL follows the API host: a closed port here, never github.com.
        GITHUB_API_URL: 'http://127.0.0.1:9/api/v3',
        GITHUB_TOKEN: 'github_pat_for_github_only',
        ...extraEnv,
      },
      file: path,
    });
  }

  function spec(over: Partial<RunSpec> = {}): RunSpec {
    return runSpecFixture({
      repository: PROJECT,
      branch: BRANCH,
      resumeRef: null,
      apiUrl: 'http://127.0.0.1:9',
      ...over,
    });
  }

  async function runOnce(runner: Runner, s: RunSpec) {
    let output = '';
    let exited!: (r: { state: string; exitCode: number | null }) => void;
    const exit = new Promise<{ state: string; exitCode: number | null }>((r) => (exited = r));
    await runner.start(s, { onOutput: (_id, chunk) => (output += chunk), onExit: (_id, r) => exited(r) });
    const result = await exit;
    return {
      report: JSON.parse(output) as { argv: string[]; cwd: string; env: Record<string, string> },
      exit: result,
    };
  }

  test('cloned from GITLAB_URL/{project}.git with a minted token that is in no argv', async () => {
    await rm(gitLog, { force: true });
    const runner = runnerFromConfig(config(), { env, git: join(bin, 'git') })!;
    const { report, exit } = await runOnce(runner, spec());
    assert.deepEqual(exit, { state: 'completed', exitCode: 0 });
    assert.equal(minted.length, 1, 'one project access token, for the one project');
    assert.equal(minted[0]!.path, encodeURIComponent(PROJECT));
    const token = issued[0]!;
    const b64 = Buffer.from(`x-access-token:${token}`).toString('base64');

    const calls = await readFile(gitLog, 'utf8');
    assert.match(calls, new RegExp(`^clone .* -- ${baseUrl}/${PROJECT}\\.git `, 'm'));
    for (const secret of [token, b64, CONFIGURED]) {
      assert.ok(!calls.includes(secret), 'no token in any git argv');
      assert.ok(!report.argv.join(' ').includes(secret), "no token in the agent's argv");
    }
    assert.deepEqual(report.argv, ['--pr=42', `--repo=${PROJECT}`]);
    // The agent's own push authenticates through its environment, for the project's URL only.
    assert.equal(report.env.GIT_CONFIG_KEY_0, `http.${baseUrl}/${PROJECT}.git.extraHeader`);
    assert.equal(report.env.GIT_CONFIG_VALUE_0, `Authorization: basic ${b64}`);
    assert.ok(!JSON.stringify(report.env).includes(CONFIGURED), 'the configured token never reaches the agent');
    assert.ok(gitAuth.includes(`basic ${b64}`), 'GitLab saw the minted token');
  });

  test("a GitHub repository keeps GitHub's clone URL and token; GitLab is not asked", async () => {
    await rm(gitLog, { force: true });
    const runner = runnerFromConfig(config(), { env, git: join(bin, 'git') })!;
    await assert.rejects(
      runner.start(spec({ repository: 'acme/widgets' }), { onOutput: () => {}, onExit: () => {} }),
      (err: unknown) => !String(err).includes('github_pat_for_github_only'),
    );
    assert.equal(minted.length, 0);
    assert.match(await readFile(gitLog, 'utf8'), /^clone .* -- http:\/\/127\.0\.0\.1:9\/acme\/widgets\.git /m);
  });

  test('a refusal fails the run by default; GITLAB_WORKSPACE_TOKEN=configured clones with GITLAB_TOKEN', async () => {
    minting = { status: 403, body: { message: '403 Forbidden' } };
    const strict = runnerFromConfig(config(), { env, git: join(bin, 'git') })!;
    await assert.rejects(strict.start(spec(), { onOutput: () => {}, onExit: () => {} }), (err: unknown) =>
      /GITLAB_WORKSPACE_TOKEN=configured/.test(String((err as Error).message)),
    );
    const lenient = runnerFromConfig(config({ GITLAB_WORKSPACE_TOKEN: 'configured' }), {
      env,
      git: join(bin, 'git'),
    })!;
    const { report, exit } = await runOnce(lenient, spec());
    assert.deepEqual(exit, { state: 'completed', exitCode: 0 });
    assert.equal(
      report.env.GIT_CONFIG_VALUE_0,
      `Authorization: basic ${Buffer.from(`x-access-token:${CONFIGURED}`).toString('base64')}`,
    );
  });

  test('runner.workspace.gitlabCloneUrl wins for GitLab projects, and only for them', async () => {
    await rm(gitLog, { force: true });
    const runner = runnerFromConfig(
      config({}, '{ timeoutSeconds: 20, gitlabCloneUrl: "http://127.0.0.1:9/mirror/{repository}.git" }'),
      { env, git: join(bin, 'git') },
    )!;
    await assert.rejects(runner.start(spec(), { onOutput: () => {}, onExit: () => {} }));
    await assert.rejects(runner.start(spec({ repository: 'acme/widgets' }), { onOutput: () => {}, onExit: () => {} }));
    const calls = await readFile(gitLog, 'utf8');
    assert.match(calls, new RegExp(`^clone .* -- http://127\\.0\\.0\\.1:9/mirror/${PROJECT}\\.git `, 'm'));
    assert.match(calls, /^clone .* -- http:\/\/127\.0\.0\.1:9\/acme\/widgets\.git /m);
  });
});
