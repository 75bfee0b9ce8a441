// Issue 31: `fixloop pr checks` sends the token to GITHUB_API_URL too, so the same rule holds there:
// https, or plain http only to loopback, unless a lab opts out.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError } from '../config/errors.js';
import { createGitHubFromEnv } from './from-env.js';

describe('createGitHubFromEnv: provider URLs (issue 31)', () => {
  it('refuses plain http to another host, naming the variable and the fix', () => {
    assert.throws(
      () => createGitHubFromEnv({ GITHUB_TOKEN: 't', GITHUB_API_URL: 'http://api.example.com' }),
      (e: unknown) => e instanceof ConfigError && /GITHUB_API_URL/.test(e.message) && /use https/.test(e.message),
    );
    assert.throws(
      () => createGitHubFromEnv({ GITHUB_TOKEN: 't', GHE_HOST: 'ghe.example.com', GHE_PROTOCOL: 'http' }),
      /GHE_PROTOCOL/,
    );
  });

  it('accepts https, loopback, and a lab that opts out', () => {
    assert.doesNotThrow(() => createGitHubFromEnv({ GITHUB_TOKEN: 't', GITHUB_API_URL: 'https://api.example.com' }));
    assert.doesNotThrow(() => createGitHubFromEnv({ GITHUB_TOKEN: 't', GITHUB_API_URL: 'http://127.0.0.1:9/api' }));
    assert.doesNotThrow(() =>
      createGitHubFromEnv({
        GITHUB_TOKEN: 't',
        GITHUB_API_URL: 'http://ghe.lab/api/v3',
        FIXLOOP_ALLOW_INSECURE_HOSTS: '1',
      }),
    );
  });
});
