// SPEC V3, M5 (decision 0050): the GitHub App the setup page stored is read at start — its id, key,
// API and webhook secret — when the environment names none; the environment always wins, and a
// webhook secret set there is kept, with the App's accepted beside it (said once per start).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from './config.js';
import { ConfigError } from './errors.js';

const PEM = '-----BEGIN RSA PRIVATE KEY-----\nstored\n-----END RSA PRIVATE KEY-----\n';

function install(files: Record<string, string>): { tokenFile: string; dir: string; done(): void } {
  const root = mkdtempSync(join(tmpdir(), 'fixloop-stored-app-'));
  const dir = join(root, 'github-app');
  mkdirSync(dir, { mode: 0o700 });
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text, { mode: 0o600 });
  return { tokenFile: join(root, 'api-token'), dir, done: () => rmSync(root, { recursive: true, force: true }) };
}

const APP = {
  'app-id': '4321\n',
  'private-key.pem': PEM,
  'webhook-secret': 'from-github\n',
  'api-url': 'https://ghe.example.com/api/v3\n',
};

describe('a GitHub App stored by the setup page (SPEC V3)', () => {
  it('is used when the environment names no App and no webhook secret', () => {
    const s = install(APP);
    try {
      const c = loadConfig({ env: { FIXLOOP_API_TOKEN_FILE: s.tokenFile } });
      assert.equal(c.github.appId, '4321');
      assert.equal(c.github.privateKey, PEM);
      assert.equal(c.github.apiUrl, 'https://ghe.example.com/api/v3');
      assert.deepEqual(c.webhookSecrets, ['from-github']);
      // Secret files: hidden from agents like any other (L3).
      assert.ok(c.secretFiles.includes(join(s.dir, 'private-key.pem')));
      assert.ok(c.secretFiles.includes(join(s.dir, 'webhook-secret')));
      assert.ok(!c.warnings.some((w) => /webhook secret/.test(w)));
    } finally {
      s.done();
    }
  });

  it('gives way to an App and a GitHub named by the environment', () => {
    const s = install(APP);
    try {
      const c = loadConfig({
        env: {
          FIXLOOP_API_TOKEN_FILE: s.tokenFile,
          APP_ID: '99',
          PRIVATE_KEY: PEM.replace('stored', 'env'),
          GHE_HOST: 'github.corp.example',
        },
      });
      assert.equal(c.github.appId, '99');
      assert.match(c.github.privateKey ?? '', /env/);
      assert.equal(c.github.apiUrl, 'https://github.corp.example/api/v3');
      assert.ok(!c.secretFiles.includes(join(s.dir, 'private-key.pem')));
    } finally {
      s.done();
    }
  });

  it("keeps the environment's WEBHOOK_SECRET first (it signs) and accepts the App's too, with a warning", () => {
    const s = install(APP);
    try {
      const c = loadConfig({ env: { FIXLOOP_API_TOKEN_FILE: s.tokenFile, WEBHOOK_SECRET: 'change-me' } });
      assert.deepEqual(c.webhookSecrets, ['change-me', 'from-github']);
      assert.ok(c.warnings.some((w) => /WEBHOOK_SECRET is set.*both|either/.test(w)));
      const same = loadConfig({ env: { FIXLOOP_API_TOKEN_FILE: s.tokenFile, WEBHOOK_SECRET: 'from-github' } });
      assert.deepEqual(same.webhookSecrets, ['from-github']);
      assert.ok(!same.warnings.some((w) => /WEBHOOK_SECRET is set/.test(w)));
    } finally {
      s.done();
    }
  });

  it('an App stored only in part is a ConfigError naming the missing file', () => {
    const s = install({ 'app-id': '4321\n' });
    try {
      assert.throws(
        () => loadConfig({ env: { FIXLOOP_API_TOKEN_FILE: s.tokenFile } }),
        (e: unknown) => e instanceof ConfigError && e.message.includes(join(s.dir, 'private-key.pem')),
      );
    } finally {
      s.done();
    }
  });
});
