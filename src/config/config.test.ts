// loadConfig (SPEC M5, C1): defaults, YAML and JSON files, secret rotation, the fail-fast errors,
// and the frozen result.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { loadConfig } from './config.js';
import { ConfigError } from './errors.js';

const dir = mkdtempSync(join(tmpdir(), 'fixloop-config-'));
after(() => rmSync(dir, { recursive: true, force: true }));
function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}
const base = { WEBHOOK_SECRET: 'shh' };
/** A token long enough to listen beyond loopback (issue 31). */
const LONG_TOKEN = 'k3JbQ9yX0vT2mW8pL5sR1nF7cH4dG6aZ';

const YAML = `
works:
  - name: shop
    account: acme
    repositories:
      - { name: acme/shop, role: data }
      - { name: acme/shop-site, role: website }
runner: { kind: command, command: ["node", "agent.mjs"], envAllow: ["ANTHROPIC_API_KEY"] }
maxAttempts: 3
`;

describe('loadConfig (M5)', () => {
  it('applies the documented defaults with only WEBHOOK_SECRET set', () => {
    const c = loadConfig({ env: base });
    assert.equal(c.port, 3000);
    assert.equal(c.host, '127.0.0.1');
    assert.equal(c.databaseUrl, 'sqlite:./data/fixloop.sqlite');
    assert.deepEqual(c.webhookSecrets, ['shh']);
    assert.equal(c.webhookMaxBytes, 26214400);
    assert.equal(c.apiToken, null);
    assert.equal(c.logLevel, 'info');
    assert.equal(c.publicUrl, 'http://127.0.0.1:3000');
    assert.equal(c.workDir, './data/runs');
    assert.equal(c.maxAttempts, 2);
    assert.deepEqual(c.works, []);
    assert.equal(c.runner, null);
    assert.equal(c.promptTemplate, null);
    assert.equal(c.configFile, null);
    assert.deepEqual(c.warnings, []);
    assert.equal(c.github.apiUrl, 'https://api.github.com');
  });

  it('reads a YAML file named by FIXLOOP_CONFIG', () => {
    const path = file('fixloop.yaml', YAML);
    const c = loadConfig({ env: { ...base, FIXLOOP_CONFIG: path } });
    assert.equal(c.configFile, path);
    assert.equal(c.works.length, 1);
    assert.deepEqual(
      c.works[0]?.repositories.map((r) => r.role),
      ['data', 'website'],
    );
    assert.deepEqual(c.runner, {
      kind: 'command',
      preset: null,
      command: ['node', 'agent.mjs'],
      envAllow: ['ANTHROPIC_API_KEY'],
      stdinFromPromptFile: false,
      cwd: null,
      workspace: null,
    });
    assert.equal(c.promptTemplate, null);
    assert.equal(c.maxAttempts, 3);
  });

  it('reads a JSON file given as `file`, with an http runner whose secret comes from the environment', () => {
    const path = file(
      'fixloop.json',
      JSON.stringify({
        works: [{ name: 'shop', account: 'acme', repositories: [{ name: 'acme/shop', role: 'data' }] }],
        runner: { kind: 'http', url: 'https://agents.example.com/resume' },
      }),
    );
    const c = loadConfig({ env: { ...base, FIXLOOP_RUNNER_SECRET: 'runner-secret' }, file: path });
    assert.deepEqual(c.runner, { kind: 'http', url: 'https://agents.example.com/resume', secret: 'runner-secret' });
    assert.equal(c.works[0]?.name, 'shop');
  });

  it('an empty command means no runner configured', () => {
    const path = file('empty-runner.yaml', 'runner: { kind: command, command: [] }\n');
    assert.equal(loadConfig({ env: base, file: path }).runner, null);
  });

  it('an http runner with no secret anywhere is a ConfigError', () => {
    const path = file('http-nosecret.yaml', 'runner: { kind: http, url: "https://agents.example.com/resume" }\n');
    assert.throws(
      () => loadConfig({ env: base, file: path }),
      (e: unknown) => e instanceof ConfigError && e.source === path,
    );
  });

  it('splits WEBHOOK_SECRET into a rotation list, trimmed, empties dropped (A1)', () => {
    const c = loadConfig({ env: { WEBHOOK_SECRET: ' new , old,, ' } });
    assert.deepEqual(c.webhookSecrets, ['new', 'old']);
  });

  it('without WEBHOOK_SECRET fixloop starts unconnected, saying how to connect; a list of blanks is a ConfigError (V3, decision 0050)', () => {
    const c = loadConfig({ env: { FIXLOOP_API_TOKEN_FILE: '/nonexistent/fixloop-test/api-token' } });
    assert.deepEqual(c.webhookSecrets, []);
    assert.ok(c.warnings.some((w) => /no GitHub webhook secret yet.*\/setup/.test(w)));
    assert.throws(
      () => loadConfig({ env: { WEBHOOK_SECRET: ' , ' } }),
      (e: unknown) => e instanceof ConfigError && e.source === 'environment' && e.message.includes('WEBHOOK_SECRET'),
    );
  });

  it('a non-loopback HOST without FIXLOOP_API_TOKEN is a ConfigError; with one it loads', () => {
    assert.throws(
      () => loadConfig({ env: { ...base, HOST: '0.0.0.0' } }),
      (e: unknown) => e instanceof ConfigError && e.message.includes('FIXLOOP_API_TOKEN'),
    );
    const c = loadConfig({
      env: {
        ...base,
        HOST: '0.0.0.0',
        FIXLOOP_API_TOKEN: LONG_TOKEN,
        FIXLOOP_PUBLIC_URL: 'https://fixloop.example.com/',
      },
    });
    assert.equal(c.apiToken, LONG_TOKEN);
    assert.equal(c.publicUrl, 'https://fixloop.example.com');
    for (const host of ['::1', 'localhost']) assert.equal(loadConfig({ env: { ...base, HOST: host } }).host, host);
    assert.equal(loadConfig({ env: { ...base, HOST: '::1', PORT: '8080' } }).publicUrl, 'http://[::1]:8080');
  });

  it('issue 31: a token under 32 characters is refused off loopback, naming how to make one; on loopback it warns', () => {
    for (const host of ['0.0.0.0', '::', '192.168.1.10']) {
      assert.throws(
        () => loadConfig({ env: { ...base, HOST: host, FIXLOOP_API_TOKEN: 'a' } }),
        (e: unknown) =>
          e instanceof ConfigError &&
          /FIXLOOP_API_TOKEN/.test(e.message) &&
          /at least 32/.test(e.message) &&
          /openssl rand -base64 32/.test(e.message),
        host,
      );
    }
    assert.throws(
      () => loadConfig({ env: { ...base, HOST: '0.0.0.0', FIXLOOP_API_TOKEN: LONG_TOKEN.slice(1) } }),
      ConfigError,
    );
    for (const host of ['127.0.0.1', '::1', 'localhost']) {
      const c = loadConfig({ env: { ...base, HOST: host, FIXLOOP_API_TOKEN: 'a' } });
      assert.equal(c.apiToken, 'a');
      assert.match(c.warnings.join('\n'), /FIXLOOP_API_TOKEN is 1 characters; use at least 32/);
    }
    const long = loadConfig({ env: { ...base, HOST: '0.0.0.0', FIXLOOP_API_TOKEN: LONG_TOKEN } });
    assert.deepEqual(
      long.warnings.filter((w) => /FIXLOOP_API_TOKEN/.test(w)),
      [],
    );
  });

  it('issue 31: FIXLOOP_TRUST_PROXY is off by default; true, a hop count or proxy addresses', () => {
    const trust = (v?: string) =>
      loadConfig({ env: { ...base, ...(v === undefined ? {} : { FIXLOOP_TRUST_PROXY: v }) } }).trustProxy;
    assert.equal(trust(), null);
    assert.equal(trust('false'), null);
    assert.equal(trust('0'), null);
    assert.deepEqual(trust('true'), { hops: 1, addresses: null });
    assert.deepEqual(trust('2'), { hops: 2, addresses: null });
    assert.deepEqual(trust('10.0.0.0/8, ::1 ,172.18.0.2'), { hops: 1, addresses: ['10.0.0.0/8', '::1', '172.18.0.2'] });
    for (const bad of ['yes', '10.0.0.0/33', 'proxy.example.com', '11'])
      assert.throws(
        () => trust(bad),
        (e: unknown) => e instanceof ConfigError && /FIXLOOP_TRUST_PROXY/.test(e.message),
        bad,
      );
  });

  it('an unparseable budget falls back to 2 with a warning (C1)', () => {
    const c = loadConfig({ env: { ...base, TASK_CI_AUTO_RESUME_MAX_ATTEMPTS: 'lots' } });
    assert.equal(c.maxAttempts, 2);
    assert.equal(c.warnings.length, 1);
    assert.match(c.warnings[0] ?? '', /TASK_CI_AUTO_RESUME_MAX_ATTEMPTS/);
  });

  it('V4: the grant cap is 3 by default, TASK_MAX_GRANTS wins over maxGrants in the file, an unparseable one warns', () => {
    assert.equal(loadConfig({ env: base }).maxGrants, 3);
    assert.equal(loadConfig({ env: { ...base, TASK_MAX_GRANTS: '0' } }).maxGrants, 0);
    const path = file('grants.yaml', 'maxGrants: 5\n');
    assert.equal(loadConfig({ env: base, file: path }).maxGrants, 5);
    assert.equal(loadConfig({ env: { ...base, TASK_MAX_GRANTS: '1' }, file: path }).maxGrants, 1);
    const fallback = loadConfig({ env: { ...base, TASK_MAX_GRANTS: 'many' }, file: path });
    assert.equal(fallback.maxGrants, 5);
    assert.match(fallback.warnings.join('\n'), /TASK_MAX_GRANTS="many" is not an integer 0–20; using maxGrants=5/);
    const bad = loadConfig({ env: { ...base, TASK_MAX_GRANTS: '99' } });
    assert.equal(bad.maxGrants, 3);
    assert.match(bad.warnings.join('\n'), /TASK_MAX_GRANTS="99"/);
    assert.throws(() => loadConfig({ env: base, file: file('grants-bad.yaml', 'maxGrants: 21\n') }), /maxGrants/);
  });

  it('the environment budget wins over the file; an unparseable one falls back to the file (0006 g)', () => {
    const path = file('budget.yaml', YAML);
    assert.equal(loadConfig({ env: { ...base, TASK_CI_AUTO_RESUME_MAX_ATTEMPTS: '0' }, file: path }).maxAttempts, 0);
    const c = loadConfig({ env: { ...base, TASK_CI_AUTO_RESUME_MAX_ATTEMPTS: '9' }, file: path });
    assert.equal(c.maxAttempts, 3);
    assert.equal(c.warnings.length, 1);
  });

  it('a Work with two data repositories is a ConfigError naming the file', () => {
    const path = file(
      'two-data.yaml',
      YAML.replace('{ name: acme/shop-site, role: website }', '{ name: acme/shop-site, role: data }'),
    );
    assert.throws(
      () => loadConfig({ env: base, file: path }),
      (e: unknown) =>
        e instanceof ConfigError && e.source === path && /exactly one repository with role "data"/.test(e.message),
    );
  });

  it('a repository outside the Work account, an unknown key, and bad syntax are ConfigErrors', () => {
    const outside = file('outside.yaml', YAML.replace('acme/shop-site', 'other/shop-site'));
    assert.throws(() => loadConfig({ env: base, file: outside }), ConfigError);
    const typo = file('typo.yaml', `${YAML}maxAttempt: 1\n`);
    assert.throws(() => loadConfig({ env: base, file: typo }), ConfigError);
    const broken = file('broken.json', '{ "works": [');
    assert.throws(
      () => loadConfig({ env: base, file: broken }),
      (e: unknown) => e instanceof ConfigError && e.source === broken,
    );
    assert.throws(() => loadConfig({ env: base, file: join(dir, 'missing.yaml') }), ConfigError);
  });

  it('bad PORT and LOG_LEVEL are ConfigErrors', () => {
    assert.throws(() => loadConfig({ env: { ...base, PORT: '70000' } }), /PORT/);
    assert.throws(() => loadConfig({ env: { ...base, LOG_LEVEL: 'loud' } }), /LOG_LEVEL/);
  });

  it('returns a deeply frozen object', () => {
    const c = loadConfig({ env: base, file: file('frozen.yaml', YAML) });
    assert.ok(Object.isFrozen(c));
    assert.ok(Object.isFrozen(c.works[0]?.repositories[0]));
    assert.ok(Object.isFrozen(c.webhookSecrets));
    assert.throws(() => {
      (c as { port: number }).port = 1;
    }, TypeError);
    assert.throws(() => {
      (c.works as unknown as unknown[]).push({});
    }, TypeError);
  });
});

describe('loadConfig: the runner (L1, L2, I4)', () => {
  /** Loads `runner:` (YAML) and returns the config, or the ConfigError's message. */
  function runner(yaml: string, env: NodeJS.ProcessEnv = {}) {
    return loadConfig({
      env: { ...base, ...env },
      file: file(`runner-${Math.random().toString(36).slice(2)}.yaml`, `runner:\n${yaml}`),
    });
  }
  function refused(yaml: string, ...patterns: RegExp[]): void {
    assert.throws(
      () => runner(yaml),
      (e: unknown) => {
        assert.ok(e instanceof ConfigError, String(e));
        for (const p of patterns) assert.match(e.message, p);
        return true;
      },
    );
  }

  it('a preset with its options, a workspace and a prompt template', () => {
    const c = runner(`
  kind: command
  preset: claude-code-resume
  presetOptions: { model: sonnet, maxTurns: 30, allowedTools: ["mcp__fixloop", "Bash(npm test:*)"] }
  envAllow: [HTTPS_PROXY]
  workspace:
    identity: { name: fixloop agent, email: agent@example.com }
    files:
      AGENTS.md: "# Fix CI\\n"
      .mcp.json: '{"mcpServers":{"fixloop":{"command":"fixloop","args":["mcp"]}}}'
  promptTemplate: "Repository {{repository}}, attempt {{attempt}} of {{maxAttempts}}.\\n\\n{{situation}}\\n\\n{{data}}"
`);
    assert.deepEqual(c.runner, {
      kind: 'command',
      preset: {
        name: 'claude-code-resume',
        options: { model: 'sonnet', maxTurns: 30, allowedTools: ['mcp__fixloop', 'Bash(npm test:*)'] },
      },
      command: null,
      envAllow: ['HTTPS_PROXY'],
      stdinFromPromptFile: false,
      cwd: null,
      workspace: {
        cloneUrl: 'https://github.com/{repository}.git',
        gitlabCloneUrl: 'https://gitlab.com/{repository}.git',
        depth: 50,
        layout: 'per-task', // the default for claude-code-resume: sessions are found by directory
        timeoutMs: 300_000,
        identity: { name: 'fixloop agent', email: 'agent@example.com' },
        files: {
          'AGENTS.md': '# Fix CI\n',
          '.mcp.json': '{"mcpServers":{"fixloop":{"command":"fixloop","args":["mcp"]}}}',
        },
      },
    });
    assert.match(c.promptTemplate ?? '', /^Repository \{\{repository\}\}/);
    assert.deepEqual(c.warnings, []);
  });

  it('a hand-written command with stdin from the prompt file, and a per-run workspace for codex', () => {
    const hand = runner(
      '  kind: command\n  command: [my-agent, --resume, "{resumeRef}"]\n  stdinFromPromptFile: true\n',
    );
    assert.equal(hand.runner?.kind === 'command' && hand.runner.stdinFromPromptFile, true);
    const codex = runner(
      '  kind: command\n  preset: codex-exec-resume\n  presetOptions: { sandbox: read-only, mcpServer: null }\n  workspace: { depth: 5, timeoutSeconds: 60 }\n',
    );
    assert.ok(codex.runner?.kind === 'command');
    assert.deepEqual(codex.runner.preset, {
      name: 'codex-exec-resume',
      options: { sandbox: 'read-only', mcpServer: null },
    });
    assert.equal(codex.runner.workspace?.layout, 'per-run');
    assert.equal(codex.runner.workspace?.depth, 5);
    assert.equal(codex.runner.workspace?.timeoutMs, 60_000);
  });

  it('R2: the Gemini CLI, OpenCode and Amp presets load with their options; each refuses the setup it cannot run in', () => {
    const gemini = runner(
      '  kind: command\n  preset: gemini-resume\n  presetOptions: { model: gemini-2.5-pro, approvalMode: yolo }\n  workspace: {}\n',
    );
    assert.ok(gemini.runner?.kind === 'command');
    assert.deepEqual(gemini.runner.preset, {
      name: 'gemini-resume',
      options: { model: 'gemini-2.5-pro', approvalMode: 'yolo' },
    });
    assert.equal(gemini.runner.workspace?.layout, 'per-task', 'the session is placed by the checkout path');
    refused('  kind: command\n  preset: gemini-resume\n', /needs runner\.workspace/, /runner\.workspace/);
    refused('  kind: command\n  preset: gemini-resume\n  presetOptions: { approvalMode: ask }\n  workspace: {}\n');
    const opencode = runner(
      '  kind: command\n  preset: opencode-run\n  presetOptions: { model: anthropic/claude-sonnet-4-5, auto: true }\n  cwd: /srv/agent\n',
    );
    assert.ok(opencode.runner?.kind === 'command');
    assert.deepEqual(opencode.runner.preset?.options, { model: 'anthropic/claude-sonnet-4-5', auto: true });
    refused('  kind: command\n  preset: opencode-run\n  workspace: {}\n', /only in the directory it began in/);
    const amp = runner(
      '  kind: command\n  preset: amp-threads-continue\n  presetOptions: { allowAll: true, mode: smart }\n',
    );
    assert.ok(amp.runner?.kind === 'command');
    assert.deepEqual(amp.runner.preset?.options, { allowAll: true, mode: 'smart' });
    refused('  kind: command\n  preset: amp-threads-continue\n  presetOptions: { mode: --dangerously-allow-all }\n');
  });

  it('exactly one of preset and command', () => {
    refused(
      '  kind: command\n  preset: codex-exec-resume\n  command: [codex]\n',
      /set `preset` or `command`, not both/,
      /runner\.command/,
    );
    refused(
      '  kind: command\n  envAllow: [X]\n',
      /needs `preset` \(one of claude-code-resume, codex-exec-resume, gemini-resume, opencode-run, amp-threads-continue\) or `command`/,
      /runner\.preset/,
    );
    refused('  kind: command\n  preset: aider\n', /runner\.preset/);
    // An explicit empty command still means "no runner configured".
    assert.equal(runner('  kind: command\n  command: []\n').runner, null);
  });

  it("presetOptions are checked against the preset's own options", () => {
    refused(
      '  kind: command\n  preset: claude-code-resume\n  presetOptions: { sandbox: read-only }\n',
      /Unrecognized key: "sandbox" \(preset claude-code-resume\)/,
      /runner\.presetOptions/,
    );
    refused(
      '  kind: command\n  preset: codex-exec-resume\n  presetOptions: { sandbox: yolo }\n',
      /runner\.presetOptions\.sandbox/,
    );
    refused(
      '  kind: command\n  preset: claude-code-resume\n  presetOptions: { model: "--dangerously-skip-permissions" }\n',
      /must not start with "-"/,
      /runner\.presetOptions\.model/,
    );
    refused(
      '  kind: command\n  preset: claude-code-resume\n  presetOptions: { maxTurns: 0 }\n',
      /runner\.presetOptions\.maxTurns/,
    );
    refused('  kind: command\n  command: [agent]\n  presetOptions: { model: x }\n', /is only read with `preset`/);
    refused(
      '  kind: command\n  preset: codex-exec-resume\n  stdinFromPromptFile: false\n',
      /a preset always reads the prompt from stdin/,
    );
  });

  it('workspace and cwd together are refused', () => {
    refused(
      '  kind: command\n  command: [agent]\n  cwd: /srv/agent\n  workspace: {}\n',
      /set `cwd` or `workspace`, not both/,
      /runner\.workspace/,
    );
  });

  it('a bad prompt template is refused at load, naming the placeholder', () => {
    refused(
      '  kind: command\n  command: [agent]\n  promptTemplate: "Fix it.\\n{{protocol}}"\n',
      /unknown placeholder \{\{protocol\}\}/,
      /known ones are \{\{situation\}\}/,
      /runner\.promptTemplate/,
    );
    refused(
      '  kind: command\n  command: [agent]\n  promptTemplate: "{{ situation }} and again {{situation}}"\n',
      /placeholder \{\{situation\}\} may appear at most once/,
    );
    refused(
      '  kind: http\n  url: https://agents.example.com/resume\n  secret: s\n  promptTemplate: "{{pull_request}}"\n',
      /unknown placeholder \{\{pull_request\}\}/,
    );
    const ok = runner(
      '  kind: http\n  url: https://agents.example.com/resume\n  secret: s\n  promptTemplate: "PR #{{pullRequest}}"\n',
    );
    assert.equal(ok.promptTemplate, 'PR #{{pullRequest}}');
  });

  it('the clone URL: GHE_HOST, else the API host, else github.com; a set one needs {repository}', () => {
    const ws = (env: NodeJS.ProcessEnv, extra = '') => {
      const r = runner(`  kind: command\n  command: [agent]\n  workspace: {${extra}}\n`, env).runner;
      return r?.kind === 'command' ? r.workspace?.cloneUrl : undefined;
    };
    assert.equal(ws({}), 'https://github.com/{repository}.git');
    assert.equal(
      // Plain http to another host needs the lab opt-out (issue 31; refused without it below).
      ws({
        GHE_HOST: 'ghe.example.com',
        GHE_PROTOCOL: 'http',
        GITHUB_API_URL: 'https://proxy.example.com/api',
        FIXLOOP_ALLOW_INSECURE_HOSTS: '1',
      }),
      'http://ghe.example.com/{repository}.git',
    );
    assert.equal(ws({ GITHUB_API_URL: 'https://api.github.com' }), 'https://github.com/{repository}.git');
    assert.equal(ws({ GITHUB_API_URL: 'https://api.octocorp.ghe.com' }), 'https://octocorp.ghe.com/{repository}.git');
    assert.equal(ws({ GITHUB_API_URL: 'http://127.0.0.1:8123/api/v3' }), 'http://127.0.0.1:8123/{repository}.git');
    assert.equal(ws({}, 'cloneUrl: "/srv/git/{repository}.git"'), '/srv/git/{repository}.git');
    refused(
      '  kind: command\n  command: [agent]\n  workspace: { cloneUrl: "https://github.com/acme/shop.git" }\n',
      /must contain \{repository\}/,
    );
    refused(
      '  kind: command\n  command: [agent]\n  workspace: { cloneUrl: "git@github.com:{repository}.git" }\n',
      /http\(s\) or file:\/\/ URL, or an absolute path/,
    );
  });

  it("a GitLab project's clone URL: gitlabCloneUrl, else a set cloneUrl, else GITLAB_URL's (issue 19)", () => {
    const ws = (env: NodeJS.ProcessEnv, extra = '') => {
      const r = runner(`  kind: command\n  command: [agent]\n  workspace: {${extra}}\n`, env).runner;
      return r?.kind === 'command' ? r.workspace : undefined;
    };
    assert.equal(ws({})?.gitlabCloneUrl, 'https://gitlab.com/{repository}.git');
    assert.equal(
      ws({ GITLAB_URL: 'https://gitlab.example.com/' })?.gitlabCloneUrl,
      'https://gitlab.example.com/{repository}.git',
    );
    assert.equal(ws({ GITLAB_URL: 'https://gitlab.example.com' })?.cloneUrl, 'https://github.com/{repository}.git');
    assert.equal(ws({}, 'cloneUrl: "/srv/git/{repository}.git"')?.gitlabCloneUrl, '/srv/git/{repository}.git');
    assert.equal(
      ws({}, 'cloneUrl: "/srv/git/{repository}.git", gitlabCloneUrl: "https://git.example.com/{repository}.git"')
        ?.gitlabCloneUrl,
      'https://git.example.com/{repository}.git',
    );
    refused(
      '  kind: command\n  command: [agent]\n  workspace: { gitlabCloneUrl: "https://gitlab.com/acme/shop.git" }\n',
      /must contain \{repository\}/,
    );
  });

  it('GITLAB_WORKSPACE_TOKEN: project by default, configured when asked, nothing else (issue 19)', () => {
    assert.equal(runner('  kind: command\n  command: [agent]\n', {}).gitlab.workspaceToken, 'project');
    assert.equal(
      runner('  kind: command\n  command: [agent]\n', { GITLAB_WORKSPACE_TOKEN: 'configured' }).gitlab.workspaceToken,
      'configured',
    );
    assert.throws(
      () => runner('  kind: command\n  command: [agent]\n', { GITLAB_WORKSPACE_TOKEN: 'mine' }),
      /GITLAB_WORKSPACE_TOKEN/,
    );
  });

  it('workspace files must be plain relative paths outside .git', () => {
    refused(
      '  kind: command\n  command: [agent]\n  workspace: { files: { "../AGENTS.md": x } }\n',
      /"\.\.\/AGENTS\.md" must not contain empty/,
    );
    refused(
      '  kind: command\n  command: [agent]\n  workspace: { files: { ".git/hooks/pre-commit": x } }\n',
      /must not be inside \.git/,
    );
    refused('  kind: command\n  command: [agent]\n  workspace: { files: { "/etc/passwd": x } }\n', /must be relative/);
    refused(
      '  kind: command\n  command: [agent]\n  workspace: { layout: shared, depth: 0 }\n',
      /runner\.workspace\.layout/,
      /runner\.workspace\.depth/,
    );
  });

  it('claude-code-resume needs no MCP file of the operator: fixloop writes its own, and gives no warning', () => {
    assert.deepEqual(runner('  kind: command\n  preset: claude-code-resume\n  workspace: {}\n').warnings, []);
    assert.deepEqual(
      runner('  kind: command\n  preset: claude-code-resume\n  workspace: { layout: per-run }\n').warnings,
      [],
      'the session is placed under whatever path the run gets',
    );
  });

  it('codex-exec-resume needs a git checkout to run in: a workspace, or a cwd that is one', () => {
    refused(
      '  kind: command\n  preset: codex-exec-resume\n',
      /runner\.workspace/,
      /`codex exec` refuses a directory that is not one/,
    );
    const plain = mkdtempSync(join(tmpdir(), 'fixloop-not-a-checkout-'));
    refused(
      `  kind: command\n  preset: codex-exec-resume\n  cwd: ${JSON.stringify(plain)}\n`,
      /runner\.cwd/,
      /is not a git checkout \(no \.git\)/,
    );
    mkdirSync(join(plain, '.git'));
    assert.equal(
      runner(`  kind: command\n  preset: codex-exec-resume\n  cwd: ${JSON.stringify(plain)}\n`).runner?.kind,
      'command',
    );
    rmSync(plain, { recursive: true, force: true });
  });
});

describe('loadConfig: the server’s reconciliation, token file and crash-test variables (M5)', () => {
  /** loadConfig throws a ConfigError about the environment that names `variable`. */
  function refuses(variable: string, value: string): void {
    assert.throws(
      () => loadConfig({ env: { ...base, [variable]: value } }),
      (e: unknown) => e instanceof ConfigError && e.source === 'environment' && e.message.includes(variable),
      `${variable}=${JSON.stringify(value)}`,
    );
  }

  it('defaults: the token file under ./data, the dialect’s grace, a 30 s period, no fault', () => {
    const c = loadConfig({ env: base });
    assert.equal(c.apiTokenFile, './data/api-token');
    assert.equal(c.reconcileGraceMs, null);
    assert.equal(c.adoptEveryMs, 30_000);
    assert.equal(c.fault, null);
  });

  it('reads the token file, a grace of 0, a period and a fault point', () => {
    const c = loadConfig({
      env: {
        ...base,
        FIXLOOP_API_TOKEN_FILE: '/var/lib/fixloop/token',
        FIXLOOP_RECONCILE_GRACE_MS: '0',
        FIXLOOP_ADOPT_EVERY_MS: '200',
        FIXLOOP_FAULT: 'before_mark:kill',
      },
    });
    assert.equal(c.apiTokenFile, '/var/lib/fixloop/token');
    assert.equal(c.reconcileGraceMs, 0);
    assert.equal(c.adoptEveryMs, 200);
    assert.deepEqual(c.fault, { point: 'before_mark', action: 'kill' });
    assert.equal(loadConfig({ env: { ...base, FIXLOOP_RECONCILE_GRACE_MS: '1000' } }).reconcileGraceMs, 1000);
  });

  it('a FIXLOOP_FAULT that is not <point>:kill at a known point is a ConfigError naming it', () => {
    for (const bad of ['before_mark', 'before_mark:hang', 'nowhere:kill', ' :kill']) refuses('FIXLOOP_FAULT', bad);
  });

  it('a negative or non-numeric reconcile grace is a ConfigError naming it', () => {
    for (const bad of ['-1', 'soon']) refuses('FIXLOOP_RECONCILE_GRACE_MS', bad);
  });

  it('a reconciliation period of zero, below zero or not a number is a ConfigError naming it', () => {
    for (const bad of ['0', '-5', 'soon']) refuses('FIXLOOP_ADOPT_EVERY_MS', bad);
  });
});

describe('provider URLs carry tokens: https, or plain http only to this machine (issue 31)', () => {
  const refusedWith = (env: NodeJS.ProcessEnv, setting: RegExp, yaml?: string) =>
    assert.throws(
      () => loadConfig({ env: { ...base, ...env }, ...(yaml ? { file: file(`u-${Math.random()}.yaml`, yaml) } : {}) }),
      (e: unknown) => {
        assert.ok(e instanceof ConfigError, String(e));
        assert.match(e.message, setting);
        assert.match(e.message, /use https .*FIXLOOP_ALLOW_INSECURE_HOSTS=1/);
        return true;
      },
    );

  it('refuses GITHUB_API_URL, GHE_PROTOCOL=http and GITLAB_URL over plain http to another host', () => {
    refusedWith({ GITHUB_API_URL: 'http://api.example.com/api/v3' }, /http:\/\/api\.example\.com.*GITHUB_API_URL/s);
    refusedWith({ GHE_HOST: 'ghe.example.com', GHE_PROTOCOL: 'http' }, /http:\/\/ghe\.example\.com.*GHE_PROTOCOL/s);
    refusedWith({ GITLAB_URL: 'http://gitlab.example.com' }, /http:\/\/gitlab\.example\.com.*GITLAB_URL/s);
    // 127.0.0.0/8 is loopback; 128.0.0.1 and a name that merely starts with 127 are not.
    refusedWith({ GITLAB_URL: 'http://128.0.0.1:8080' }, /GITLAB_URL/);
    refusedWith({ GITLAB_URL: 'http://127.0.0.1.example.com' }, /GITLAB_URL/);
  });

  it("refuses a workspace's plain-http clone URL, which the scoped token is sent to", () => {
    refusedWith(
      {},
      /runner\.workspace\.cloneUrl/,
      'runner:\n  kind: command\n  command: [agent]\n  workspace: { cloneUrl: "http://git.example.com/{repository}.git" }\n',
    );
  });

  it('accepts plain http to loopback: 127.0.0.0/8, ::1 and localhost', () => {
    for (const url of ['http://127.0.0.1:8123/api/v3', 'http://127.9.8.7', 'http://[::1]:3000', 'http://localhost:1']) {
      const c = loadConfig({ env: { ...base, GITHUB_API_URL: url, GITLAB_URL: url } });
      assert.deepEqual(c.warnings, [], url);
    }
  });

  it('FIXLOOP_ALLOW_INSECURE_HOSTS=1 lets a lab use plain http, with a warning naming each URL', () => {
    const c = loadConfig({
      env: {
        ...base,
        GITHUB_API_URL: 'http://ghe.lab:8080/api/v3',
        GITLAB_URL: 'http://gitlab.lab',
        FIXLOOP_ALLOW_INSECURE_HOSTS: '1',
      },
    });
    assert.equal(c.github.apiUrl, 'http://ghe.lab:8080/api/v3');
    assert.equal(c.warnings.length, 1);
    assert.match(c.warnings[0]!, /FIXLOOP_ALLOW_INSECURE_HOSTS=1: tokens are sent in clear text/);
    assert.match(c.warnings[0]!, /GITHUB_API_URL \(http:\/\/ghe\.lab:8080\), GITLAB_URL \(http:\/\/gitlab\.lab\)/);
    // Set but unused: nothing to warn about.
    assert.deepEqual(loadConfig({ env: { ...base, FIXLOOP_ALLOW_INSECURE_HOSTS: '1' } }).warnings, []);
    assert.throws(() => loadConfig({ env: { ...base, FIXLOOP_ALLOW_INSECURE_HOSTS: 'yes' } }), /must be 1/);
  });

  it("refuses an http runner's plain-http URL at load (the run token travels in its body)", () => {
    assert.throws(
      () =>
        loadConfig({
          env: base,
          file: file('http-runner.yaml', 'runner: { kind: http, url: "http://agents.example.com/run", secret: s }\n'),
        }),
      /must be https/,
    );
    const ok = loadConfig({
      env: base,
      file: file('http-runner-ok.yaml', 'runner: { kind: http, url: "http://127.0.0.1:9/run", secret: s }\n'),
    });
    assert.equal(ok.runner?.kind, 'http');
  });
});
