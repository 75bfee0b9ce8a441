// The choices behind the agent's isolation (SPEC L3): its user, the default and the refusals, bwrap's
// masks, the data paths that are fixloop's, and handing a tree to the agent without following a link.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, lstatSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ConfigError } from '../config/errors.js';
import {
  agentUser,
  bwrapArgs,
  chooseIsolation,
  chownTree,
  fixloopDataPaths,
  protectDataPaths,
  reachableBy,
} from './isolation.js';

const tmp = mkdtempSync(join(tmpdir(), 'fixloop-isolation-unit-'));
const passwd = join(tmp, 'passwd');
mkdirSync(join(tmp, 'home', 'agent'), { recursive: true });
writeFileSync(
  passwd,
  [
    'root:x:0:0:root:/root:/bin/bash',
    'nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin',
    `fixloop-agent:x:1500:1600::${join(tmp, 'home', 'agent')}:/bin/sh`,
    '',
  ].join('\n'),
);
const workDir = join(tmp, 'runs');
const none = { dirs: [], files: [] };
const choose = (over: Partial<Parameters<typeof chooseIsolation>[0]>) =>
  chooseIsolation({
    mode: null,
    user: null,
    processUid: 0,
    workDir,
    hide: none,
    configFile: '/etc/fixloop.yaml',
    passwdFile: passwd,
    ...over,
  });

describe('the agent user (L3)', () => {
  it('a name is read from /etc/passwd, with its home; a uid or uid:gid need no entry', () => {
    assert.deepEqual(agentUser('fixloop-agent', workDir, passwd), {
      uid: 1500,
      gid: 1600,
      home: join(tmp, 'home', 'agent'),
    });
    assert.deepEqual(agentUser('1500', workDir, passwd), { uid: 1500, gid: 1600, home: join(tmp, 'home', 'agent') });
    assert.deepEqual(agentUser('4000:4001', workDir, passwd), {
      uid: 4000,
      gid: 4001,
      home: join(resolve(workDir), 'agent-home'),
    });
  });

  it("nobody's home does not exist, so the agent's HOME is made under the work directory", () => {
    assert.deepEqual(agentUser('nobody', workDir, passwd), {
      uid: 65534,
      gid: 65534,
      home: join(resolve(workDir), 'agent-home'),
    });
  });

  it('root, a root group and an unknown name are refused', () => {
    assert.throws(() => agentUser('root', workDir, passwd), /is root/);
    assert.throws(() => agentUser('0', workDir, passwd), /is root/);
    assert.throws(() => agentUser('1500:0', workDir, passwd), /is root/);
    assert.throws(() => agentUser('ghost', workDir, passwd), /no user "ghost"/);
  });
});

describe('choosing the isolation (L3)', () => {
  it('fixloop as root, nothing configured: the agent runs as nobody', () => {
    assert.deepEqual(choose({}), {
      kind: 'user',
      user: { uid: 65534, gid: 65534, home: join(resolve(workDir), 'agent-home') },
    });
    assert.deepEqual(choose({ user: 'fixloop-agent' }), {
      kind: 'user',
      user: { uid: 1500, gid: 1600, home: join(tmp, 'home', 'agent') },
    });
  });

  it('fixloop not as root, nothing configured: a ConfigError naming runner.isolation, never a silent none', () => {
    assert.throws(
      () => choose({ processUid: 1000 }),
      (err: unknown) =>
        err instanceof ConfigError && /runner\.isolation/.test(err.message) && /bwrap/.test(err.message),
    );
  });

  it('isolation user needs root; runner.user needs root and an isolation; none is taken as said', () => {
    assert.throws(() => choose({ processUid: 1000, mode: 'user' }), /"user" needs fixloop to run as root/);
    assert.throws(() => choose({ processUid: 1000, mode: 'bwrap', user: 'fixloop-agent' }), /runner\.user/);
    assert.throws(() => choose({ mode: 'none', user: 'fixloop-agent' }), /runner\.user/);
    assert.throws(() => choose({ user: 'ghost' }), /runner\.user/);
    assert.deepEqual(choose({ mode: 'none' }), { kind: 'none' });
    assert.deepEqual(choose({ processUid: 1000, mode: 'none' }), { kind: 'none' });
  });

  it('bwrap is tried once at start-up: a missing binary is a ConfigError, not a failed run later', () => {
    assert.throws(() => choose({ mode: 'bwrap', bwrap: join(tmp, 'no-such-bwrap') }), /cannot start a sandbox here/);
    const hide = { dirs: ['/srv/fixloop/data'], files: [] };
    assert.deepEqual(choose({ mode: 'bwrap', processUid: 1000, hide }), {
      kind: 'bwrap',
      bwrap: 'bwrap',
      user: null,
      hide,
    });
  });
});

describe("bwrap's masks (L3)", () => {
  const hide = {
    dirs: ['/srv/fixloop/data'],
    files: ['/etc/fixloop/webhook-secret', '/srv/fixloop/data/api-token', '/srv/fixloop/fixloop.yaml'],
  };
  const run = '/srv/fixloop/data/runs/run-7';
  const all = () => true;

  it('the data directory is an empty tmpfs with the run bound back, and secret files are /dev/null, last', () => {
    const args = bwrapArgs(hide, { cwd: run, runDir: run, home: '/home/agent' }, all);
    assert.deepEqual(args, [
      '--unshare-pid',
      '--bind',
      '/',
      '/',
      '--proc',
      '/proc',
      '--dev',
      '/dev',
      '--tmpfs',
      '/srv/fixloop/data',
      '--bind',
      run,
      run,
      '--ro-bind',
      '/dev/null',
      '/etc/fixloop/webhook-secret',
      '--ro-bind',
      '/dev/null',
      '/srv/fixloop/fixloop.yaml',
      '--chdir',
      run,
    ]);
  });

  it('a path the agent cannot reach needs no mask (and bwrap, as that user, could mount none there)', () => {
    const args = bwrapArgs(hide, { cwd: run, runDir: run, home: '/home/agent' }, (p) => !p.startsWith('/etc/'));
    assert.ok(!args.includes('/etc/fixloop/webhook-secret'));
  });

  it('an agent directory that holds the data directory is refused: binding it back would show the database', () => {
    assert.throws(
      () =>
        bwrapArgs(
          { dirs: ['/srv/fixloop/data', '/srv/fixloop/data/runs/run-7/db'], files: [] },
          { cwd: run, runDir: run, home: run },
          all,
        ),
      /contains fixloop's data directory/,
    );
  });
});

describe("fixloop's data paths (L3)", () => {
  it('the directories of the SQLite file and the token file; the secret files, the config, the database files', () => {
    const paths = fixloopDataPaths({
      databaseUrl: 'sqlite:./data/fixloop.sqlite',
      apiTokenFile: './data/api-token',
      secretFiles: ['/run/secrets/webhook'],
      configFile: '/etc/fixloop.yaml',
    });
    const data = resolve('data');
    assert.deepEqual(paths.dirs, [data]);
    assert.deepEqual(
      [...paths.files].sort(),
      [
        '/etc/fixloop.yaml',
        '/run/secrets/webhook',
        join(data, 'api-token'),
        join(data, 'fixloop.sqlite'),
        join(data, 'fixloop.sqlite-shm'),
        join(data, 'fixloop.sqlite-wal'),
      ].sort(),
    );
  });

  it('on PostgreSQL only the token directory; never the root directory itself', () => {
    const paths = fixloopDataPaths({
      databaseUrl: 'postgres://u:p@db/fixloop',
      apiTokenFile: '/api-token',
      secretFiles: [],
      configFile: null,
    });
    assert.deepEqual(paths, { dirs: [], files: ['/api-token'] });
  });

  it('at start-up a data directory holding the run directories is made searchable, not listable; a world-readable secret file is reported', () => {
    const base = mkdtempSync(join(tmpdir(), 'fixloop-data-'));
    try {
      const data = join(base, 'data');
      const secret = join(base, 'webhook-secret');
      writeFileSync(secret, 's', { mode: 0o644 });
      chmodSync(secret, 0o644);
      const warnings = protectDataPaths({ dirs: [data], workDir: join(data, 'runs'), secretFiles: [secret] });
      assert.equal(statSync(data).mode & 0o777, 0o711);
      assert.deepEqual(warnings, [`${secret} holds a secret and every user can read it (chmod 600 ${secret})`]);
      chmodSync(secret, 0o600);
      assert.deepEqual(protectDataPaths({ dirs: [data], workDir: join(data, 'runs'), secretFiles: [secret] }), []);
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  });
});

describe('handing a tree to the agent (L3)', () => {
  it('chownTree gives every entry to the user, a link itself but never what it points at', async () => {
    const base = mkdtempSync(join(tmpdir(), 'fixloop-chown-'));
    try {
      const outside = join(base, 'outside');
      writeFileSync(outside, 'fixloop');
      const tree = join(base, 'repo');
      mkdirSync(join(tree, 'src'), { recursive: true });
      writeFileSync(join(tree, 'src', 'a.ts'), 'a');
      symlinkSync(outside, join(tree, 'link'));
      await chownTree(tree, 65534, 65534);
      for (const p of [tree, join(tree, 'src'), join(tree, 'src', 'a.ts'), join(tree, 'link')])
        assert.equal(lstatSync(p).uid, 65534, p);
      assert.equal(statSync(outside).uid, process.getuid!(), 'the file the link names is untouched');
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  });

  it('reachableBy follows the mode bits of every folder above the path', () => {
    const base = mkdtempSync(join(tmpdir(), 'fixloop-reach-'));
    try {
      mkdirSync(join(base, 'open'));
      writeFileSync(join(base, 'open', 'f'), '');
      chmodSync(base, 0o700);
      assert.equal(reachableBy({ uid: 65534, gid: 65534 }, join(base, 'open', 'f')), false);
      chmodSync(base, 0o711);
      assert.equal(reachableBy({ uid: 65534, gid: 65534 }, join(base, 'open', 'f')), true);
      assert.equal(reachableBy({ uid: 65534, gid: 65534 }, join(base, 'missing')), false);
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  });
});

process.on('exit', () => rmSync(tmp, { recursive: true, force: true }));
