// Secrets from files and the agent's isolation in the config (SPEC L3, M5): each `X_FILE` is read as X
// would be, never together with X; FIXLOOP_API_TOKEN_FILE is read as the token when it exists (and
// keeps being where a generated one is kept); runner.isolation and runner.user, with the environment
// winning, and `none` said out loud.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from './config.js';
import { ConfigError } from './errors.js';

const dir = mkdtempSync(join(tmpdir(), 'fixloop-secret-files-'));
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
let n = 0;
function secretFile(content: string): string {
  const path = join(dir, `secret-${++n}`);
  writeFileSync(path, content, { mode: 0o600 });
  return path;
}
function refusal(env: NodeJS.ProcessEnv, file?: string): string {
  try {
    loadConfig({ env, ...(file ? { file } : {}) });
  } catch (err) {
    assert.ok(err instanceof ConfigError, String(err));
    return err.message;
  }
  assert.fail('loaded');
}

describe('L3: secrets from files (the _FILE convention)', () => {
  it('each secret is read from its _FILE, trimmed, and checked as the variable would be', () => {
    const webhook = secretFile('new-secret, old-secret\n');
    const github = secretFile('ghp_from_file\n');
    const runner = secretFile('runner-secret');
    const database = secretFile('postgres://fixloop:pw@db/fixloop\n');
    const c = loadConfig({
      env: {
        WEBHOOK_SECRET_FILE: webhook,
        GITHUB_TOKEN_FILE: github,
        FIXLOOP_RUNNER_SECRET_FILE: runner,
        DATABASE_URL_FILE: database,
      },
    });
    assert.deepEqual(c.webhookSecrets, ['new-secret', 'old-secret']);
    assert.equal(c.github.token, 'ghp_from_file');
    assert.equal(c.databaseUrl, 'postgres://fixloop:pw@db/fixloop');
    assert.deepEqual(c.secretFiles.slice(0, 4), [webhook, database, github, runner]);
    const badUrl = secretFile('mysql://nope\n');
    assert.match(refusal({ WEBHOOK_SECRET: 's', DATABASE_URL_FILE: badUrl }), /DATABASE_URL/);
  });

  it('a variable and its _FILE together, an unreadable file, an empty file: a ConfigError naming the _FILE', () => {
    assert.match(
      refusal({ WEBHOOK_SECRET: 's', WEBHOOK_SECRET_FILE: secretFile('t') }),
      /WEBHOOK_SECRET or WEBHOOK_SECRET_FILE, not both[\s\S]*WEBHOOK_SECRET_FILE/,
    );
    assert.match(
      refusal({ WEBHOOK_SECRET: 's', GITHUB_TOKEN_FILE: join(dir, 'missing') }),
      /cannot be read[\s\S]*GITHUB_TOKEN_FILE/,
    );
    assert.match(refusal({ WEBHOOK_SECRET_FILE: secretFile('\n') }), /empty file[\s\S]*WEBHOOK_SECRET_FILE/);
  });

  it('FIXLOOP_API_TOKEN_FILE is the token when the file exists, which answers the off-loopback requirement', () => {
    const token = secretFile('api-token-from-file-long-enough-for-0.0.0.0\n'); // ≥ 32 characters off loopback (issue 31)
    const c = loadConfig({ env: { WEBHOOK_SECRET: 's', HOST: '0.0.0.0', FIXLOOP_API_TOKEN_FILE: token } });
    assert.equal(c.apiToken, 'api-token-from-file-long-enough-for-0.0.0.0');
    assert.ok(c.secretFiles.includes(token));
    // The variable still wins, as it always did; a file not made yet is where serve will keep one.
    const both = { WEBHOOK_SECRET: 's', FIXLOOP_API_TOKEN: 'from-env', FIXLOOP_API_TOKEN_FILE: token };
    assert.equal(loadConfig({ env: both }).apiToken, 'from-env');
    const later = loadConfig({ env: { WEBHOOK_SECRET: 's', FIXLOOP_API_TOKEN_FILE: join(dir, 'not-yet') } });
    assert.equal(later.apiToken, null);
    assert.equal(later.apiTokenFile, join(dir, 'not-yet'));
    assert.match(
      refusal({ WEBHOOK_SECRET: 's', HOST: '0.0.0.0', FIXLOOP_API_TOKEN_FILE: join(dir, 'not-yet') }),
      /FIXLOOP_API_TOKEN/,
    );
  });
});

describe("L3: the agent's isolation in the config", () => {
  const file = (yaml: string) => {
    const path = join(dir, `fixloop-${++n}.yaml`);
    writeFileSync(path, yaml);
    return path;
  };
  const command = 'runner: { kind: command, command: [agent], isolation: bwrap, user: fixloop-agent }\n';

  it('unset, the default is left to the runner builder; the environment wins over the file', () => {
    const unset = loadConfig({ env: { WEBHOOK_SECRET: 's' }, file: file('runner: { kind: command, command: [a] }\n') });
    assert.deepEqual(unset.agentIsolation, { mode: null, user: null });
    const fromFile = loadConfig({ env: { WEBHOOK_SECRET: 's' }, file: file(command) });
    assert.deepEqual(fromFile.agentIsolation, { mode: 'bwrap', user: 'fixloop-agent' });
    const fromEnv = loadConfig({
      env: { WEBHOOK_SECRET: 's', FIXLOOP_AGENT_ISOLATION: 'user', FIXLOOP_AGENT_USER: '1500:1600' },
      file: file(command),
    });
    assert.deepEqual(fromEnv.agentIsolation, { mode: 'user', user: '1500:1600' });
  });

  it('isolation none loads, with a warning that the agent can read the secrets', () => {
    const c = loadConfig({ env: { WEBHOOK_SECRET: 's', FIXLOOP_AGENT_ISOLATION: 'none' }, file: file(command) });
    assert.equal(c.agentIsolation.mode, 'none');
    assert.ok(c.warnings.some((w) => /isolation is none[\s\S]*can read its secrets/.test(w)));
  });

  it('an unknown mode, a malformed user, and isolation on an http runner are ConfigErrors naming the key', () => {
    assert.match(refusal({ WEBHOOK_SECRET: 's', FIXLOOP_AGENT_ISOLATION: 'chroot' }), /FIXLOOP_AGENT_ISOLATION/);
    assert.match(
      refusal({ WEBHOOK_SECRET: 's' }, file('runner: { kind: command, command: [a], user: "x y" }\n')),
      /runner\.user/,
    );
    assert.match(
      refusal(
        { WEBHOOK_SECRET: 's', FIXLOOP_RUNNER_SECRET: 'r' },
        file('runner: { kind: http, url: "https://agents.example.com/r", isolation: user }\n'),
      ),
      /isolation/,
    );
  });
});
