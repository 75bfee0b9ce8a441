// The notice sinks' configuration (SPEC G1, M5; decision 0025): names, secrets from the file, the
// environment or `_FILE`, the https-or-loopback rule, and the retry schedule in milliseconds.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { loadConfig } from './config.js';
import { ConfigError } from './errors.js';

const dir = mkdtempSync(join(tmpdir(), 'fixloop-notices-'));
after(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
function configWith(notices: unknown): string {
  const path = join(dir, `c${n++}.json`);
  writeFileSync(path, JSON.stringify({ notices }));
  return path;
}
const env = { WEBHOOK_SECRET: 'shh' };
const SLACK = 'https://hooks.slack.com/services/T0/B0/x';

describe('notices config (G1, M5)', () => {
  it('has no sinks and the documented schedule by default', () => {
    const c = loadConfig({ env });
    assert.deepEqual(c.notices.sinks, []);
    assert.deepEqual(c.notices.retry, { maxAttempts: 10, initialMs: 30_000, maxMs: 3_600_000 });
    assert.equal(c.notices.timeoutMs, 10_000);
    assert.equal(c.notices.webUrl, 'https://github.com');
  });

  it('names each sink after its kind unless named, and reads the retry in seconds', () => {
    const c = loadConfig({
      env,
      file: configWith({
        sinks: [
          { kind: 'slack', url: SLACK },
          { kind: 'webhook', name: 'pager', url: 'https://hooks.example.com/n', secret: 's3' },
        ],
        retry: { maxAttempts: 3, initialSeconds: 0.5, maxSeconds: 2 },
      }),
    });
    assert.deepEqual(c.notices.sinks, [
      { kind: 'slack', name: 'slack', url: SLACK },
      { kind: 'webhook', name: 'pager', url: 'https://hooks.example.com/n', secret: 's3' },
    ]);
    assert.deepEqual(c.notices.retry, { maxAttempts: 3, initialMs: 500, maxMs: 2000 });
  });

  it('takes secrets from the environment, which wins, or from `_FILE`', () => {
    const secretFile = join(dir, 'hook-secret');
    writeFileSync(secretFile, 'from-file\n');
    const c = loadConfig({
      env: { ...env, FIXLOOP_SLACK_WEBHOOK_URL: SLACK, FIXLOOP_NOTICE_WEBHOOK_SECRET_FILE: secretFile },
      file: configWith({ sinks: [{ kind: 'webhook', url: 'https://hooks.example.com/n', secret: 'in-file' }] }),
    });
    assert.deepEqual(c.notices.sinks, [
      { kind: 'webhook', name: 'webhook', url: 'https://hooks.example.com/n', secret: 'from-file' },
      { kind: 'slack', name: 'slack', url: SLACK },
    ]);
    assert.ok(c.secretFiles.includes(secretFile));
  });

  it('links pull requests on the GitHub Enterprise host', () => {
    assert.equal(
      loadConfig({ env: { ...env, GHE_HOST: 'ghe.example.com' } }).notices.webUrl,
      'https://ghe.example.com',
    );
  });

  const refused: Array<[string, unknown, Record<string, string>, RegExp]> = [
    ['plain http off loopback', [{ kind: 'slack', url: 'http://hooks.example.com/x' }], {}, /must be https/],
    [
      'http to loopback is fine, but an ftp url is not',
      [{ kind: 'webhook', url: 'ftp://127.0.0.1/x', secret: 's' }],
      {},
      /must be https/,
    ],
    ['a webhook without a secret', [{ kind: 'webhook', url: 'https://h.example.com/' }], {}, /required[\s\S]*secret/],
    ['a slack sink without a url', [{ kind: 'slack' }], {}, /required[\s\S]*sinks\[0\]\.url/],
    [
      'two sinks of one name',
      [
        { kind: 'slack', url: SLACK },
        { kind: 'slack', url: SLACK },
      ],
      {},
      /two sinks are named "slack"/,
    ],
    ['an unknown key', [{ kind: 'slack', url: SLACK, channel: '#ops' }], {}, /channel/],
    [
      'the Slack variable with two slack sinks',
      [
        { kind: 'slack', name: 'a', url: SLACK },
        { kind: 'slack', name: 'b', url: SLACK },
      ],
      { FIXLOOP_SLACK_WEBHOOK_URL: SLACK },
      /ambiguous[\s\S]*FIXLOOP_SLACK_WEBHOOK_URL/,
    ],
    [
      'an http Slack variable off loopback',
      [],
      { FIXLOOP_SLACK_WEBHOOK_URL: 'http://x.example.com/' },
      /FIXLOOP_SLACK_WEBHOOK_URL/,
    ],
  ];
  for (const [name, sinks, extra, message] of refused) {
    it(`refuses ${name}, naming it`, () => {
      assert.throws(
        () => loadConfig({ env: { ...env, ...extra }, file: configWith({ sinks }) }),
        (err: unknown) => err instanceof ConfigError && message.test(err.message),
      );
    });
  }

  it('accepts http to loopback (tests, a local relay)', () => {
    const c = loadConfig({ env, file: configWith({ sinks: [{ kind: 'slack', url: 'http://127.0.0.1:9/x' }] }) });
    assert.equal(c.notices.sinks[0]!.url, 'http://127.0.0.1:9/x');
  });
});
