// Issue 35 item 6: the actions runner asks at start-up for the credentials of the CIs its Works can
// need — GitHub's for any repository that can be GitHub's, GITLAB_TOKEN for a gitlab Work — and no more.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { loadConfig } from '../config/config.js';
import { ConfigError } from '../config/errors.js';
import { createLogger } from '../logging.js';
import { tempDir } from '../../test/support/temp-dir.js';
import { actionsRunnerFrom } from './actions-runner.js';

const dir = tempDir('fixloop-actions-wiring-');
let n = 0;
function config(env: Record<string, string>, works: string) {
  const path = join(dir, `${n++}.yaml`);
  writeFileSync(path, `runner: { kind: actions, workflow: fixloop-agent.yml }\n${works}\n`);
  return loadConfig({ env: { WEBHOOK_SECRET: 'shh', ...env }, file: path });
}
const GITLAB_WORK = `works:
  - name: shop-gl
    account: acme
    provider: gitlab
    repositories: [{ name: acme/shop-gl, role: data }]`;
const build = (c: ReturnType<typeof config>) =>
  actionsRunnerFrom(c.runner as Extract<typeof c.runner, { kind: 'actions' }>, c, {
    ledger: {
      setRunExternalRef: async () => assert.fail('nothing is started here'),
      runExternalRef: async () => assert.fail('nothing is started here'),
      getRun: async () => assert.fail('nothing is started here'),
      getTask: async () => assert.fail('nothing is started here'),
    },
    logger: createLogger('silent'),
  });

describe("the actions runner's credentials at start-up (issue 35)", () => {
  it('a gitlab Work needs GITLAB_TOKEN, and then no GitHub credentials', () => {
    assert.throws(
      () => build(config({}, GITLAB_WORK)),
      (err: unknown) => err instanceof ConfigError && /GITLAB_TOKEN \(scope api/.test(err.message),
    );
    assert.equal(build(config({ GITLAB_TOKEN: 'glpat-x' }, GITLAB_WORK)).kind, 'actions');
  });

  it('without Works, repositories are GitHub’s: GitHub credentials are needed', () => {
    assert.throws(
      () => build(config({ GITLAB_TOKEN: 'glpat-x' }, '')),
      (err: unknown) => err instanceof ConfigError && /GITHUB_TOKEN/.test(err.message),
    );
    assert.equal(build(config({ GITHUB_TOKEN: 'ghp_x' }, '')).kind, 'actions');
  });
});
