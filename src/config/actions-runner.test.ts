// Issue 35 item 3: the actions runner's configuration — which workflow, how often its run is read, and
// whose OIDC tokens are taken (FIXLOOP_ACTIONS_OIDC_ISSUER: https, or http to this machine only).
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { loadConfig } from './config.js';
import { ConfigError } from './errors.js';
import { tempDir } from '../../test/support/temp-dir.js';

const dir = tempDir('fixloop-actions-');
const base = { WEBHOOK_SECRET: 'shh' };
let n = 0;
function file(runner: string): string {
  const path = join(dir, `${n++}.yaml`);
  writeFileSync(path, `runner: ${runner}\n`);
  return path;
}

describe('the actions runner in the config file (issue 35)', () => {
  it("a workflow file, read every 30 s by default, with GitHub Actions' issuer", () => {
    const c = loadConfig({ env: base, file: file('{ kind: actions, workflow: fixloop-agent.yml }') });
    assert.deepEqual(c.runner, {
      kind: 'actions',
      workflow: 'fixloop-agent.yml',
      pollMs: 30_000,
      oidcIssuer: 'https://token.actions.githubusercontent.com',
      gitlabOidcIssuer: 'https://gitlab.com',
    });
  });

  it('a numeric workflow id, its poll interval and an issuer on loopback (tests)', () => {
    const c = loadConfig({
      env: { ...base, FIXLOOP_ACTIONS_OIDC_ISSUER: 'http://127.0.0.1:8123/' },
      file: file('{ kind: actions, workflow: 161335, pollSeconds: 5 }'),
    });
    assert.deepEqual(c.runner, {
      kind: 'actions',
      workflow: '161335',
      pollMs: 5_000,
      oidcIssuer: 'http://127.0.0.1:8123',
      gitlabOidcIssuer: 'https://gitlab.com',
    });
  });

  it("issue 35 item 6: GitLab CI's ID tokens are GITLAB_URL's, unless FIXLOOP_GITLAB_OIDC_ISSUER names another", () => {
    const own = loadConfig({
      env: { ...base, GITLAB_URL: 'https://gitlab.example.com/' },
      file: file('{ kind: actions, workflow: fixloop-agent.yml }'),
    });
    assert.equal(own.runner?.kind === 'actions' && own.runner.gitlabOidcIssuer, 'https://gitlab.example.com');
    const other = loadConfig({
      env: {
        ...base,
        GITLAB_URL: 'https://gitlab.internal:8443',
        FIXLOOP_GITLAB_OIDC_ISSUER: 'https://gitlab.example.com',
      },
      file: file('{ kind: actions, workflow: fixloop-agent.yml }'),
    });
    assert.equal(other.runner?.kind === 'actions' && other.runner.gitlabOidcIssuer, 'https://gitlab.example.com');
    assert.throws(
      () =>
        loadConfig({
          env: { ...base, FIXLOOP_GITLAB_OIDC_ISSUER: 'http://gitlab.example.com' },
          file: file('{ kind: actions, workflow: fixloop-agent.yml }'),
        }),
      (err: unknown) => err instanceof ConfigError && /FIXLOOP_GITLAB_OIDC_ISSUER/.test(err.message),
    );
  });

  it('a workflow that is neither a file name nor an id is refused', () => {
    for (const workflow of ['"../deploy.yml"', 'deploy', '"sub/x.yml"', '0'])
      assert.throws(
        () => loadConfig({ env: base, file: file(`{ kind: actions, workflow: ${workflow} }`) }),
        ConfigError,
        workflow,
      );
  });

  it('a workflow is required while any Work is on GitHub, and not when every Work is on GitLab', () => {
    const works = (provider: string) =>
      `works:\n  - name: shop\n    account: acme\n    provider: ${provider}\n    repositories: [{ name: acme/shop, role: data }]\n`;
    const at = (body: string) => {
      const path = join(dir, `${n++}.yaml`);
      writeFileSync(path, body);
      return path;
    };
    for (const body of ['runner: { kind: actions }\n', `runner: { kind: actions }\n${works('github')}`])
      assert.throws(
        () => loadConfig({ env: base, file: at(body) }),
        (err: unknown) =>
          err instanceof ConfigError &&
          /is required when a Work is on GitHub[\s\S]*at runner\.workflow/.test(err.message),
        body,
      );
    const gitlabOnly = loadConfig({
      env: { ...base, GITLAB_TOKEN: 'glpat-x', GITLAB_WEBHOOK_SECRET: 'also' },
      file: at(`runner: { kind: actions }\n${works('gitlab')}`),
    });
    assert.equal(gitlabOnly.runner?.kind === 'actions' && gitlabOnly.runner.workflow, null);
  });

  it('an issuer over plain http to another machine is refused at start-up', () => {
    assert.throws(
      () =>
        loadConfig({
          env: { ...base, FIXLOOP_ACTIONS_OIDC_ISSUER: 'http://issuer.example.com' },
          file: file('{ kind: actions, workflow: fixloop-agent.yml }'),
        }),
      (err: unknown) => err instanceof ConfigError && /FIXLOOP_ACTIONS_OIDC_ISSUER/.test(err.message),
    );
  });
});
