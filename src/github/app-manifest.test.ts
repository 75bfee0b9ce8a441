// SPEC V3 (decision 0050): the pure half of the manifest flow — the manifest from app.yml and a
// person's choices, the GitHub page it goes to, the GitHub an Enterprise Server address names, and
// the warnings and names a person sees.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  appNameProblem,
  fixloopManifest,
  GITHUB_COM,
  githubTargetOf,
  installUrlOf,
  newAppPageUrl,
  organizationProblem,
  readManifest,
  suggestedAppName,
  unreachableWebhookWarning,
} from './app-manifest.js';

const BASE = readManifest({
  name: 'fixloop',
  url: 'https://github.com/apps/fixloop',
  hook_attributes: { url: 'https://fixloop.example.com/api/github/webhooks', active: true },
  redirect_url: 'http://127.0.0.1:3000/setup/github/callback',
  public: false,
  default_permissions: { checks: 'read', statuses: 'write' },
  default_events: ['check_run', 'status'],
});

describe('the App manifest (SPEC V3)', () => {
  it("keeps app.yml's permissions and events, and takes the name and fixloop's own addresses", () => {
    const m = fixloopManifest(BASE, {
      name: 'fixloop-acme',
      publicUrl: 'https://fixloop.acme.dev/',
      target: { webUrl: 'https://ghe.acme.dev', apiUrl: 'https://ghe.acme.dev/api/v3' },
    });
    assert.equal(m.name, 'fixloop-acme');
    assert.deepEqual(m.hook_attributes, { url: 'https://fixloop.acme.dev/api/github/webhooks', active: true });
    assert.equal(m.redirect_url, 'https://fixloop.acme.dev/setup/github/callback');
    assert.equal(m.url, 'https://ghe.acme.dev');
    assert.deepEqual(m.default_permissions, BASE.default_permissions);
    assert.deepEqual(m.default_events, BASE.default_events);
    assert.equal(m.public, false);
  });

  it("posts to the person's or the organisation's new-App page, with the state", () => {
    assert.equal(
      newAppPageUrl(GITHUB_COM, { kind: 'personal' }, 's t'),
      'https://github.com/settings/apps/new?state=s%20t',
    );
    assert.equal(
      newAppPageUrl({ webUrl: 'https://ghe.acme.dev', apiUrl: '' }, { kind: 'organization', name: 'acme' }, 'x'),
      'https://ghe.acme.dev/organizations/acme/settings/apps/new?state=x',
    );
  });

  it('an Enterprise Server address names its /api/v3; GHE.com its api. host; empty is the configured GitHub', () => {
    const configured = { webUrl: 'http://127.0.0.1:9', apiUrl: 'http://127.0.0.1:9' };
    assert.deepEqual(githubTargetOf('', configured, false), { kind: 'ok', target: configured });
    assert.deepEqual(githubTargetOf('ghe.acme.dev/', configured, false), {
      kind: 'ok',
      target: { webUrl: 'https://ghe.acme.dev', apiUrl: 'https://ghe.acme.dev/api/v3' },
    });
    assert.deepEqual(githubTargetOf('https://octo.ghe.com', configured, false), {
      kind: 'ok',
      target: { webUrl: 'https://octo.ghe.com', apiUrl: 'https://api.octo.ghe.com' },
    });
    assert.deepEqual(githubTargetOf('https://github.com', configured, false), { kind: 'ok', target: GITHUB_COM });
    // The private key comes back over it: plain http only to this machine, or in a lab that says so.
    assert.equal(githubTargetOf('http://ghe.acme.dev', configured, false).kind, 'problem');
    assert.equal(githubTargetOf('http://ghe.acme.dev', configured, true).kind, 'ok');
    assert.equal(githubTargetOf('ftp://x', configured, false).kind, 'problem');
  });

  it('checks names as GitHub does, and suggests a unique-looking one', () => {
    assert.equal(appNameProblem('fixloop-acme'), null);
    assert.match(appNameProblem('')!, /name/);
    assert.match(appNameProblem('x'.repeat(35))!, /34/);
    assert.match(appNameProblem('-bad')!, /letters/);
    assert.equal(organizationProblem('acme-corp'), null);
    assert.notEqual(organizationProblem('acme--corp'), null);
    assert.notEqual(organizationProblem('a/b'), null);
    assert.equal(suggestedAppName('Ab3_x'), 'fixloop-ab3x');
    assert.equal(appNameProblem(suggestedAppName('z'.repeat(60))), null);
  });

  it('warns when GitHub cannot reach the webhook, not when it can', () => {
    for (const u of [
      'http://127.0.0.1:3000',
      'http://localhost:3000',
      'http://10.0.0.5',
      'http://fixloop.internal',
      'http://box',
    ])
      assert.match(unreachableWebhookWarning(u) ?? '', /cannot reach it/, u);
    assert.equal(unreachableWebhookWarning('https://fixloop.acme.dev'), null);
  });

  it('the install link is the App page plus /installations/new', () => {
    assert.equal(
      installUrlOf('https://github.com/apps/fixloop-acme/'),
      'https://github.com/apps/fixloop-acme/installations/new',
    );
  });
});
