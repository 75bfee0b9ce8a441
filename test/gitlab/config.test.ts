// Issue 19 (decision 0032): a Work names its provider; GitLab's webhook secret rotates like GitHub's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { configFileSchema } from '../../src/config/schema.js';
import { envSchema } from '../../src/config/env-schema.js';

const work = (extra: Record<string, unknown>, name = 'gitlab-org/gitlab-test') => ({
  works: [{ name: 'lab', account: 'gitlab-org', repositories: [{ name, role: 'data' }], ...extra }],
});

test('a Work is on GitHub unless it says gitlab', () => {
  assert.equal(configFileSchema.parse(work({})).works[0]!.provider, 'github');
  assert.equal(configFileSchema.parse(work({ provider: 'gitlab' })).works[0]!.provider, 'gitlab');
  assert.equal(configFileSchema.safeParse(work({ provider: 'bitbucket' })).success, false);
});

test("a gitlab Work's project may sit in subgroups; a GitHub repository is owner/name", () => {
  assert.equal(configFileSchema.safeParse(work({ provider: 'gitlab' }, 'gitlab-org/ci/gitlab-test')).success, true);
  const github = configFileSchema.safeParse(work({}, 'gitlab-org/ci/gitlab-test'));
  assert.equal(github.success, false);
  assert.match(JSON.stringify(github.error?.issues), /only a gitlab Work's projects may sit in subgroups/);
});

test('GITLAB_WEBHOOK_SECRET: optional, comma-separated to rotate, blank entries dropped', () => {
  const base = { WEBHOOK_SECRET: 's' };
  assert.equal(envSchema.parse(base).GITLAB_WEBHOOK_SECRET, undefined);
  assert.deepEqual(envSchema.parse({ ...base, GITLAB_WEBHOOK_SECRET: ' old , ,new ' }).GITLAB_WEBHOOK_SECRET, [
    'old',
    'new',
  ]);
  assert.equal(envSchema.safeParse({ ...base, GITLAB_WEBHOOK_SECRET: ' , ' }).success, false);
});

test('GITLAB_URL carries the token: plain http only to loopback, or with the lab opt-out and a warning (issue 31)', async () => {
  const { loadConfig } = await import('../../src/config/config.js');
  const env = { WEBHOOK_SECRET: 's', GITLAB_TOKEN: 'glpat-x' };
  assert.throws(
    () => loadConfig({ env: { ...env, GITLAB_URL: 'http://gitlab.example.com' } }),
    /http:\/\/gitlab\.example\.com: use https[^\n]*FIXLOOP_ALLOW_INSECURE_HOSTS=1[^\n]*\n\s*→ at GITLAB_URL/,
  );
  assert.equal(
    loadConfig({ env: { ...env, GITLAB_URL: 'http://127.0.0.1:8929/' } }).gitlab.url,
    'http://127.0.0.1:8929',
  );
  const lab = loadConfig({ env: { ...env, GITLAB_URL: 'http://gitlab.lab', FIXLOOP_ALLOW_INSECURE_HOSTS: '1' } });
  assert.equal(lab.gitlab.url, 'http://gitlab.lab');
  assert.match(lab.warnings.join('\n'), /GITLAB_URL \(http:\/\/gitlab\.lab\)/);
});
