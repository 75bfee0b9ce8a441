// The `session` runner's configuration (SPEC R2, M5; decision 0067): presets with their defaults, a
// custom vendor described and checked, the key only from a secret file and never in an error's text.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { loadConfig } from './config.js';
import { ConfigError } from './errors.js';
import { sessionVendorOf } from '../wiring.js';
import type { SessionRunnerConfig } from './runner-config.js';

const dir = mkdtempSync(join(tmpdir(), 'fixloop-session-config-'));
after(() => rmSync(dir, { recursive: true, force: true }));
function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}
const KEY = 'apk_user_very-secret';
const keyFile = file('key', `${KEY}\n`);
const hookFile = file('hook', 'hook-secret\n');
const env = { WEBHOOK_SECRET: 'shh', FIXLOOP_SESSION_API_KEY_FILE: keyFile };
const load = (runner: unknown, extra: Record<string, string> = {}) =>
  loadConfig({ env: { ...env, ...extra }, file: file('fixloop.json', JSON.stringify({ runner })) });

const CUSTOM = {
  name: 'acme-agents',
  auth: 'bearer',
  messagePath: '/api/sessions/{sessionId}/messages',
  messageBody: { role: 'user', content: [{ type: 'text', text: '{{prompt}}' }] },
  statusPath: '/api/sessions/{sessionId}',
  statePointer: '/session/state',
  states: { running: ['busy'], completed: ['done'], failed: ['crashed'], needsPerson: ['asking'] },
  spend: { pointer: '/usage/credits', dollarsPerUnit: 0.25 },
};

describe('the session runner in the config file (R2)', () => {
  it('a preset takes its documented API, a 30 s poll and a 60 minute timeout; the key comes from its file', () => {
    const c = load({ kind: 'session', vendor: 'devin' });
    const r = c.runner as SessionRunnerConfig;
    assert.equal(r.kind, 'session');
    assert.equal(r.apiKey, KEY);
    assert.equal(r.webhookSecret, null);
    assert.equal(r.pollIntervalMs, 30_000);
    assert.equal(r.timeoutMs, 3_600_000);
    assert.equal(sessionVendorOf(r).baseUrl, 'https://api.devin.ai');
    assert.equal(sessionVendorOf(r).messagePath, '/v1/sessions/{sessionId}/message');
  });

  it("devin with an organization is Devin's API v3, its ACUs priced at acuPrice (decision 0074)", () => {
    const r = load({ kind: 'session', vendor: 'devin', devin: { orgId: 'org-acme', acuPrice: 2.25 } })
      .runner as SessionRunnerConfig;
    assert.deepEqual(r.devin, { orgId: 'org-acme', acuPrice: 2.25 });
    const v = sessionVendorOf(r);
    assert.equal(v.messagePath, '/v3/organizations/org-acme/sessions/{sessionId}/messages');
    assert.equal(v.statePointer, '/status_detail');
    assert.deepEqual(v.spend, { pointer: '/acus_consumed', dollarsPerUnit: 2.25, cumulative: true, unit: 'ACU' });
    const unpriced = load({ kind: 'session', vendor: 'devin', devin: { orgId: 'org-acme' } })
      .runner as SessionRunnerConfig;
    assert.equal(sessionVendorOf(unpriced).spend?.dollarsPerUnit, null, 'no price: ACUs told, not counted');
    for (const bad of [
      { kind: 'session', vendor: 'cursor', devin: { orgId: 'org-acme' } },
      { kind: 'session', vendor: 'devin', devin: { orgId: 'acme' } },
      { kind: 'session', vendor: 'devin', devin: { orgId: 'org-acme', acuPrice: 0 } },
    ])
      assert.throws(() => load(bad), ConfigError, JSON.stringify(bad));
  });

  it('cursor with its webhook secret file, a poll and a timeout of its own', () => {
    const r = load(
      { kind: 'session', vendor: 'cursor', pollSeconds: 10, timeoutMinutes: 120 },
      { FIXLOOP_SESSION_WEBHOOK_SECRET_FILE: hookFile },
    ).runner as SessionRunnerConfig;
    assert.equal(r.webhookSecret, 'hook-secret');
    assert.equal(r.pollIntervalMs, 10_000);
    assert.equal(r.timeoutMs, 7_200_000);
    assert.equal(sessionVendorOf(r).statePointer, '/status');
  });

  it('a custom vendor is described in the config and becomes the runner’s vendor', () => {
    const r = load({ kind: 'session', vendor: 'custom', baseUrl: 'https://agents.acme.example', custom: CUSTOM })
      .runner as SessionRunnerConfig;
    const v = sessionVendorOf(r);
    assert.equal(v.name, 'acme-agents');
    assert.deepEqual(v.states, { completed: ['done'], failed: ['crashed'], needsPerson: ['asking'] });
    assert.deepEqual(v.spend, { pointer: '/usage/credits', dollarsPerUnit: 0.25 });
    assert.equal(v.webhook, null);
  });

  const refused: Array<[string, unknown, RegExp]> = [
    ['no key file', null, /is required for a session runner[^]*FIXLOOP_SESSION_API_KEY_FILE/],
    ['plain http off this machine', { vendor: 'devin', baseUrl: 'http://api.devin.example' }, /must be https/],
    ['a key in the config file', { vendor: 'devin', apiKey: 'x' }, /apiKey/],
    ['custom without its description', { vendor: 'custom', baseUrl: 'https://a.example' }, /custom/],
    ['custom without a baseUrl', { vendor: 'custom', custom: CUSTOM }, /baseUrl/],
    ['a preset with a description', { vendor: 'devin', custom: CUSTOM }, /only read with vendor custom/],
    [
      'a path without the session id',
      { vendor: 'custom', baseUrl: 'https://a.example', custom: { ...CUSTOM, statusPath: '/api/sessions' } },
      /\{sessionId\}/,
    ],
    [
      'a body without the prompt',
      { vendor: 'custom', baseUrl: 'https://a.example', custom: { ...CUSTOM, messageBody: { text: 'hi' } } },
      /\{\{prompt\}\}/,
    ],
    [
      'a state in two lists',
      {
        vendor: 'custom',
        baseUrl: 'https://a.example',
        custom: { ...CUSTOM, states: { completed: ['done'], failed: ['done'] } },
      },
      /"done" is in completed too/,
    ],
    [
      'a pointer that is not one',
      { vendor: 'custom', baseUrl: 'https://a.example', custom: { ...CUSTOM, statePointer: 'state' } },
      /JSON pointer/,
    ],
    ['a zero poll', { vendor: 'devin', pollSeconds: 0 }, /pollSeconds/],
  ];
  for (const [why, runner, message] of refused) {
    it(`refuses ${why}, without the key in its words`, () => {
      const extra = runner === null ? { FIXLOOP_SESSION_API_KEY_FILE: '' } : {};
      const spec = runner ?? { vendor: 'devin' };
      assert.throws(
        () =>
          runner === null
            ? loadConfig({
                env: { WEBHOOK_SECRET: 'shh', ...extra },
                file: file('nokey.json', JSON.stringify({ runner: { kind: 'session', ...spec } })),
              })
            : load({ kind: 'session', ...(spec as object) }),
        (err: unknown) => err instanceof ConfigError && message.test(err.message) && !err.message.includes(KEY),
      );
    });
  }
});
