// loadConfig (SPEC M5, C1): defaults, YAML and JSON files, secret rotation, the fail-fast errors,
// and the frozen result.
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { loadConfig } from './config.js';
import { ConfigError } from './errors.js';

const dir = mkdtempSync(join(tmpdir(), 'fixloop-config-'));
function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}
const base = { WEBHOOK_SECRET: 'shh' };

const YAML = `
works:
  - name: shop
    account: acme
    repositories:
      - { name: acme/shop, role: data }
      - { name: acme/shop-site, role: website }
runner: { kind: command, command: ["node", "agent.mjs"], envAllow: ["ANTHROPIC_API_KEY"] }
maxAttempts: 3
`;

describe('loadConfig (M5)', () => {
  it('applies the documented defaults with only WEBHOOK_SECRET set', () => {
    const c = loadConfig({ env: base });
    assert.equal(c.port, 3000);
    assert.equal(c.host, '127.0.0.1');
    assert.equal(c.databaseUrl, 'sqlite:./data/fixloop.sqlite');
    assert.deepEqual(c.webhookSecrets, ['shh']);
    assert.equal(c.webhookMaxBytes, 26214400);
    assert.equal(c.apiToken, null);
    assert.equal(c.logLevel, 'info');
    assert.equal(c.publicUrl, 'http://127.0.0.1:3000');
    assert.equal(c.workDir, './data/runs');
    assert.equal(c.maxAttempts, 2);
    assert.deepEqual(c.works, []);
    assert.equal(c.runner, null);
    assert.equal(c.configFile, null);
    assert.deepEqual(c.warnings, []);
    assert.equal(c.github.apiUrl, 'https://api.github.com');
  });

  it('reads a YAML file named by FIXLOOP_CONFIG', () => {
    const path = file('fixloop.yaml', YAML);
    const c = loadConfig({ env: { ...base, FIXLOOP_CONFIG: path } });
    assert.equal(c.configFile, path);
    assert.equal(c.works.length, 1);
    assert.deepEqual(c.works[0]?.repositories.map((r) => r.role), ['data', 'website']);
    assert.deepEqual(c.runner, { kind: 'command', command: ['node', 'agent.mjs'], envAllow: ['ANTHROPIC_API_KEY'], cwd: null });
    assert.equal(c.maxAttempts, 3);
  });

  it('reads a JSON file given as `file`, with an http runner whose secret comes from the environment', () => {
    const path = file(
      'fixloop.json',
      JSON.stringify({
        works: [{ name: 'shop', account: 'acme', repositories: [{ name: 'acme/shop', role: 'data' }] }],
        runner: { kind: 'http', url: 'https://agents.example.com/resume' },
      }),
    );
    const c = loadConfig({ env: { ...base, FIXLOOP_RUNNER_SECRET: 'runner-secret' }, file: path });
    assert.deepEqual(c.runner, { kind: 'http', url: 'https://agents.example.com/resume', secret: 'runner-secret' });
    assert.equal(c.works[0]?.name, 'shop');
  });

  it('an empty command means no runner configured', () => {
    const path = file('empty-runner.yaml', 'runner: { kind: command, command: [] }\n');
    assert.equal(loadConfig({ env: base, file: path }).runner, null);
  });

  it('an http runner with no secret anywhere is a ConfigError', () => {
    const path = file('http-nosecret.yaml', 'runner: { kind: http, url: "https://agents.example.com/resume" }\n');
    assert.throws(() => loadConfig({ env: base, file: path }), (e: unknown) => e instanceof ConfigError && e.source === path);
  });

  it('splits WEBHOOK_SECRET into a rotation list, trimmed, empties dropped (A1)', () => {
    const c = loadConfig({ env: { WEBHOOK_SECRET: ' new , old,, ' } });
    assert.deepEqual(c.webhookSecrets, ['new', 'old']);
  });

  it('missing WEBHOOK_SECRET is a ConfigError naming the variable', () => {
    assert.throws(
      () => loadConfig({ env: {} }),
      (e: unknown) => e instanceof ConfigError && e.source === 'environment' && e.message.includes('WEBHOOK_SECRET'),
    );
    assert.throws(() => loadConfig({ env: { WEBHOOK_SECRET: ' , ' } }), ConfigError);
  });

  it('a non-loopback HOST without FIXLOOP_API_TOKEN is a ConfigError; with one it loads', () => {
    assert.throws(
      () => loadConfig({ env: { ...base, HOST: '0.0.0.0' } }),
      (e: unknown) => e instanceof ConfigError && e.message.includes('FIXLOOP_API_TOKEN'),
    );
    const c = loadConfig({ env: { ...base, HOST: '0.0.0.0', FIXLOOP_API_TOKEN: 't', FIXLOOP_PUBLIC_URL: 'https://fixloop.example.com/' } });
    assert.equal(c.apiToken, 't');
    assert.equal(c.publicUrl, 'https://fixloop.example.com');
    for (const host of ['::1', 'localhost']) assert.equal(loadConfig({ env: { ...base, HOST: host } }).host, host);
    assert.equal(loadConfig({ env: { ...base, HOST: '::1', PORT: '8080' } }).publicUrl, 'http://[::1]:8080');
  });

  it('an unparseable budget falls back to 2 with a warning (C1)', () => {
    const c = loadConfig({ env: { ...base, TASK_CI_AUTO_RESUME_MAX_ATTEMPTS: 'lots' } });
    assert.equal(c.maxAttempts, 2);
    assert.equal(c.warnings.length, 1);
    assert.match(c.warnings[0] ?? '', /TASK_CI_AUTO_RESUME_MAX_ATTEMPTS/);
  });

  it('the environment budget wins over the file; an unparseable one falls back to the file (0006 g)', () => {
    const path = file('budget.yaml', YAML);
    assert.equal(loadConfig({ env: { ...base, TASK_CI_AUTO_RESUME_MAX_ATTEMPTS: '0' }, file: path }).maxAttempts, 0);
    const c = loadConfig({ env: { ...base, TASK_CI_AUTO_RESUME_MAX_ATTEMPTS: '9' }, file: path });
    assert.equal(c.maxAttempts, 3);
    assert.equal(c.warnings.length, 1);
  });

  it('a Work with two data repositories is a ConfigError naming the file', () => {
    const path = file(
      'two-data.yaml',
      YAML.replace('{ name: acme/shop-site, role: website }', '{ name: acme/shop-site, role: data }'),
    );
    assert.throws(
      () => loadConfig({ env: base, file: path }),
      (e: unknown) => e instanceof ConfigError && e.source === path && /exactly one repository with role "data"/.test(e.message),
    );
  });

  it('a repository outside the Work account, an unknown key, and bad syntax are ConfigErrors', () => {
    const outside = file('outside.yaml', YAML.replace('acme/shop-site', 'other/shop-site'));
    assert.throws(() => loadConfig({ env: base, file: outside }), ConfigError);
    const typo = file('typo.yaml', `${YAML}maxAttempt: 1\n`);
    assert.throws(() => loadConfig({ env: base, file: typo }), ConfigError);
    const broken = file('broken.json', '{ "works": [');
    assert.throws(() => loadConfig({ env: base, file: broken }), (e: unknown) => e instanceof ConfigError && e.source === broken);
    assert.throws(() => loadConfig({ env: base, file: join(dir, 'missing.yaml') }), ConfigError);
  });

  it('bad PORT and LOG_LEVEL are ConfigErrors', () => {
    assert.throws(() => loadConfig({ env: { ...base, PORT: '70000' } }), /PORT/);
    assert.throws(() => loadConfig({ env: { ...base, LOG_LEVEL: 'loud' } }), /LOG_LEVEL/);
  });

  it('returns a deeply frozen object', () => {
    const c = loadConfig({ env: base, file: file('frozen.yaml', YAML) });
    assert.ok(Object.isFrozen(c));
    assert.ok(Object.isFrozen(c.works[0]?.repositories[0]));
    assert.ok(Object.isFrozen(c.webhookSecrets));
    assert.throws(() => {
      (c as { port: number }).port = 1;
    }, TypeError);
    assert.throws(() => {
      (c.works as unknown as unknown[]).push({});
    }, TypeError);
  });
});
