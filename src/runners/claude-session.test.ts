// L1, L2: Claude Code's session is placed under the workspace's project entry before the resume.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import {
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { claudeProjectDir, placeClaudeSession } from './claude-session.js';
import { runSpecFixture } from '../../test/support/fixtures.js';

const root = mkdtempSync(join(tmpdir(), 'fixloop-claude-session-'));
after(() => rmSync(root, { recursive: true, force: true }));

test("claudeProjectDir: Claude Code's names, short and past 200 characters", () => {
  assert.equal(claudeProjectDir('/tmp/probe/enc/a.b_c-d/e'), '-tmp-probe-enc-a-b-c-d-e');
  assert.equal(claudeProjectDir('/tmp/probe/enc/sp ace/ünï'), '-tmp-probe-enc-sp-ace--n-');
  const long = `/${'x'.repeat(300)}`;
  const name = claudeProjectDir(long);
  assert.equal(name.slice(0, 201), `-${'x'.repeat(200)}`.slice(0, 200) + '-');
  assert.match(name, /^-x{199}-[0-9a-z]+$/);
});

test('the session the Task names is copied under the workspace, once, the latest copy winning', async () => {
  const home = join(root, 'home');
  const opened = join(home, '.claude', 'projects', claudeProjectDir('/work/where-the-pr-was-opened'));
  const older = join(home, '.claude', 'projects', '-elsewhere');
  mkdirSync(opened, { recursive: true });
  mkdirSync(older, { recursive: true });
  const id = '0b7c2f4e-5d1a-4c8e-9f3b-2a6d8e1c4b70';
  writeFileSync(join(opened, `${id}.jsonl`), '{"latest":true}\n');
  writeFileSync(join(older, `${id}.jsonl`), '{"latest":false}\n');
  utimesSync(join(older, `${id}.jsonl`), new Date(2020, 0, 1), new Date(2020, 0, 1));
  const real = join(root, 'ws-real');
  mkdirSync(real);
  const cwd = join(root, 'ws-link');
  symlinkSync(real, cwd);
  const ctx = { spec: runSpecFixture({ resumeRef: id }), cwd, env: { HOME: home }, agent: null };
  await placeClaudeSession(ctx);
  const placed = join(home, '.claude', 'projects', claudeProjectDir(real), `${id}.jsonl`);
  assert.equal(readFileSync(placed, 'utf8'), '{"latest":true}\n', 'under the real path, from the latest copy');
  writeFileSync(placed, '{"resumed":true}\n');
  await placeClaudeSession(ctx);
  assert.equal(readFileSync(placed, 'utf8'), '{"resumed":true}\n', 'a session already there is left as it is');
});

test('CLAUDE_CONFIG_DIR wins over HOME; an unknown session or an id that is not a file name places nothing', async () => {
  const config = join(root, 'config');
  mkdirSync(join(config, 'projects', '-a'), { recursive: true });
  writeFileSync(join(config, 'projects', '-a', 'abc.jsonl'), '{}\n');
  const cwd = join(root, 'ws2');
  mkdirSync(cwd);
  const env = { HOME: join(root, 'nohome'), CLAUDE_CONFIG_DIR: config };
  await placeClaudeSession({ spec: runSpecFixture({ resumeRef: 'abc' }), cwd, env, agent: null });
  assert.ok(statSync(join(config, 'projects', claudeProjectDir(cwd), 'abc.jsonl')).isFile());
  for (const resumeRef of ['missing', '../../etc/passwd', null]) {
    await placeClaudeSession({ spec: runSpecFixture({ resumeRef }), cwd: join(root, 'ws3'), env, agent: null });
  }
  assert.throws(() => statSync(join(config, 'projects', claudeProjectDir(join(root, 'ws3')))));
});
