// Issue 35 item 2: the mention runner's configuration — the agent decides the handle and whose comment
// it is; an agent that ignores bots needs a person's token, from a file or the environment.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { loadConfig } from './config.js';
import { ConfigError } from './errors.js';
import { tempDir } from '../../test/support/temp-dir.js';

const dir = tempDir('fixloop-mention-');
const base = { WEBHOOK_SECRET: 'shh' };
let n = 0;
function file(runner: string): string {
  const path = join(dir, `${n++}.yaml`);
  writeFileSync(path, `runner: ${runner}\n`);
  return path;
}

describe('the mention runner in the config file (issue 35)', () => {
  it('Copilot is mentioned as @copilot by the person whose token FIXLOOP_MENTION_TOKEN_FILE holds', () => {
    const token = join(dir, 'person-token');
    writeFileSync(token, 'ghp_person\n', { mode: 0o600 });
    const c = loadConfig({
      env: { ...base, FIXLOOP_MENTION_TOKEN_FILE: token },
      file: file('{ kind: mention, agent: copilot }'),
    });
    assert.deepEqual(c.runner, {
      kind: 'mention',
      agent: 'copilot',
      trigger: '@copilot',
      as: 'user',
      userToken: 'ghp_person',
      gitlabUserToken: null,
      pollSeconds: 60,
      approveWorkflows: false,
    });
    assert.ok(c.secretFiles.includes(token), 'the token file is hidden from agents like every secret file');
  });

  it("approveWorkflows is read from the runner (fixloop approves its agent's held workflow runs)", () => {
    const c = loadConfig({
      env: base,
      file: file('{ kind: mention, agent: claude, approveWorkflows: true }'),
    });
    assert.equal(c.runner?.kind === 'mention' && c.runner.approveWorkflows, true);
  });

  it('Copilot and Codex without a person’s token are refused at start-up, saying why', () => {
    for (const agent of ['copilot', 'codex']) {
      assert.throws(
        () => loadConfig({ env: base, file: file(`{ kind: mention, agent: ${agent} }`) }),
        (err: unknown) =>
          err instanceof ConfigError &&
          /FIXLOOP_MENTION_TOKEN_FILE/.test(err.message) &&
          /ignores mentions from bots/.test(err.message),
        agent,
      );
    }
  });

  it("Claude is mentioned as fixloop itself by default (the bot in claude-code-action's allowed_bots), with its own handle if set", () => {
    const c = loadConfig({ env: base, file: file('{ kind: mention, agent: claude, trigger: "@acme-claude" }') });
    assert.deepEqual(c.runner, {
      kind: 'mention',
      agent: 'claude',
      trigger: '@acme-claude',
      as: 'app',
      userToken: null,
      gitlabUserToken: null,
      pollSeconds: 60,
      approveWorkflows: false,
    });
  });

  it("GitLab Duo is mentioned by its flow's service account, as the person whose GitLab token FIXLOOP_GITLAB_MENTION_TOKEN_FILE holds", () => {
    const token = join(dir, 'gitlab-person-token');
    writeFileSync(token, 'glpat-person\n', { mode: 0o600 });
    const c = loadConfig({
      env: { ...base, FIXLOOP_GITLAB_MENTION_TOKEN_FILE: token },
      file: file('{ kind: mention, agent: duo, trigger: "@duo-developer-acme", pollSeconds: 20 }'),
    });
    assert.deepEqual(c.runner, {
      kind: 'mention',
      agent: 'duo',
      trigger: '@duo-developer-acme',
      as: 'user',
      userToken: null,
      gitlabUserToken: 'glpat-person',
      pollSeconds: 20,
      approveWorkflows: false,
    });
    assert.ok(c.secretFiles.includes(token), 'the token file is hidden from agents like every secret file');
  });

  it('GitLab Duo without its handle, or without a person’s token, is refused at start-up, saying why', () => {
    assert.throws(
      () =>
        loadConfig({
          env: { ...base, FIXLOOP_GITLAB_MENTION_TOKEN: 'glpat-x' },
          file: file('{ kind: mention, agent: duo }'),
        }),
      (err: unknown) => err instanceof ConfigError && /service account/.test(err.message),
    );
    assert.throws(
      () => loadConfig({ env: base, file: file('{ kind: mention, agent: duo, trigger: "@duo-developer-acme" }') }),
      (err: unknown) => err instanceof ConfigError && /FIXLOOP_GITLAB_MENTION_TOKEN_FILE/.test(err.message),
    );
  });

  it('a handle that is not one @handle, an unknown agent or an unknown key is a ConfigError', () => {
    for (const bad of [
      '{ kind: mention, agent: claude, trigger: "claude" }',
      '{ kind: mention, agent: claude, trigger: "@claude please" }',
      '{ kind: mention, agent: devin }',
      '{ kind: mention, agent: claude, token: x }',
    ])
      assert.throws(() => loadConfig({ env: base, file: file(bad) }), ConfigError, bad);
  });
});
