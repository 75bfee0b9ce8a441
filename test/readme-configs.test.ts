// The agent configurations people copy are complete (issue 15): each `# fixloop.yaml` block under
// "Agents" in docs/agents.md (moved there from the README, issue 32) loads, and builds its runner; the
// hook snippets parse and name the script that ships.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../src/config/config.js';
import { runnerFromConfig } from '../src/wiring.js';
import { mentionRunnerFrom } from '../src/wiring/mention-runner.js';
import { actionsRunnerFrom } from '../src/wiring/actions-runner.js';
import { createLogger } from '../src/logging.js';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const doc = readFileSync(join(ROOT, 'docs', 'agents.md'), 'utf8');
const agents = doc.slice(doc.indexOf('\n## Agents:'), doc.indexOf('\n## Workspaces:'));

function blocks(lang: string): string[] {
  // A block inside a list item is indented: the fence's indentation is taken off every line.
  return [...agents.matchAll(new RegExp('( *)```' + lang + '\\n([\\s\\S]*?)```', 'g'))].map((m) =>
    m[2]!.replace(new RegExp(`^${m[1]}`, 'gm'), '').trim(),
  );
}

test('every fixloop.yaml of the Agents section loads and builds its runner', () => {
  const configs = blocks('yaml').filter((b) => b.startsWith('# fixloop.yaml'));
  assert.equal(
    configs.length,
    11,
    'Claude Code, Codex, Gemini CLI, OpenCode, Amp, an agent platform, an agent on the pull request, Devin, Cursor, another vendor, an agent in CI',
  );
  const dir = mkdtempSync(join(tmpdir(), 'fixloop-readme-'));
  try {
    const keyFile = join(dir, 'vendor-key');
    writeFileSync(keyFile, 'k');
    const kinds = configs.map((yaml, i) => {
      const file = join(dir, `fixloop-${i}.yaml`);
      writeFileSync(file, yaml);
      const c = loadConfig({
        env: {
          WEBHOOK_SECRET: 'x',
          FIXLOOP_RUNNER_SECRET: 'y',
          FIXLOOP_MENTION_TOKEN: 'ghp_person',
          GITHUB_TOKEN: 'ghp_fixloop',
          FIXLOOP_SESSION_API_KEY_FILE: keyFile,
          FIXLOOP_WORK_DIR: join(dir, 'runs'),
        },
        file,
      });
      assert.equal(c.works.length, 1);
      // As the recommended setup runs it: fixloop as root, the agent as another user (L3).
      // The mention runner comments through the code hosts, so it is built with them (wiring/mention-runner.ts).
      const runner =
        c.runner?.kind === 'mention'
          ? mentionRunnerFrom(c.runner, c, { hostOfRepository: () => assert.fail('nothing is posted here') })
          : c.runner?.kind === 'actions'
            ? actionsRunnerFrom(c.runner, c, {
                ledger: {
                  setRunExternalRef: async () => assert.fail('nothing is dispatched here'),
                  runExternalRef: async () => assert.fail('nothing is dispatched here'),
                  getRun: async () => assert.fail('nothing is dispatched here'),
                  getTask: async () => assert.fail('nothing is dispatched here'),
                },
                logger: createLogger('silent'),
              })
            : runnerFromConfig(c, { uid: 0, env: { PATH: '/usr/bin' } });
      assert.ok(runner, `block ${i} builds a runner`);
      if (c.runner?.kind === 'session') return `session: ${c.runner.vendor}`;
      return c.runner?.kind === 'command' ? c.runner.preset?.name : c.runner?.kind;
    });
    assert.deepEqual(kinds, [
      'claude-code-resume',
      'codex-exec-resume',
      'gemini-resume',
      'opencode-run',
      'amp-threads-continue',
      'http',
      'mention',
      'session: devin',
      'session: cursor',
      'session: custom',
      'actions',
    ]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the hook snippets parse and run the script that ships in hooks/', () => {
  const [json] = blocks('json');
  const hook = JSON.parse(json!).hooks.PostToolUse[0];
  assert.equal(hook.matcher, 'Bash');
  assert.match(hook.hooks[0].command, /hooks\/register-task\.mjs claude-code$/);
  const gemini = JSON.parse(blocks('json')[1]!).hooks.AfterTool[0];
  assert.equal(gemini.matcher, 'run_shell_command');
  assert.match(gemini.hooks[0].command, /hooks\/register-task\.mjs gemini$/);
  assert.match(blocks('toml')[0]!, /^notify = \["node", "[^"]*hooks\/register-task\.mjs", "codex"\]/);
  assert.ok(existsSync(join(ROOT, 'hooks', 'register-task.mjs')));
});
