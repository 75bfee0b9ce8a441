// `npm test`'s first step: the contract tests drive the real Claude Code, Codex, Gemini CLI, OpenCode and Amp
// CLIs, which are kept out of fixloop's own install (~1.2 GB; decisions 0048, 0065). They are installed here, from their own pinned manifest
// and lockfile, the first time the tests run; `.ci/run` installs them the same way. Debian packages the
// tests also need (chromium, bubblewrap) are named when missing, since only `.ci/run` may install those.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const agents = fileURLToPath(new URL('../test/contract/agents/', import.meta.url));
const installed = ['claude', 'codex', 'gemini', 'opencode', 'amp'].every((bin) =>
  existsSync(`${agents}node_modules/.bin/${bin}`),
);
if (!installed) {
  console.error('Installing the agent CLIs the contract tests use (test/contract/agents, once)…');
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const r = spawnSync(npm, ['ci', '--prefix', agents, '--no-audit', '--no-fund'], { stdio: 'inherit' });
  if (r.status !== 0) {
    console.error('Could not install them: run `npm ci --prefix test/contract/agents` and try again.');
    process.exit(r.status ?? 1);
  }
}
const missing = [
  ['/usr/bin/chromium', 'chromium (the dashboard tests)'],
  ['bwrap', 'bubblewrap (the agent-isolation tests)'],
].filter(([bin]) =>
  bin.startsWith('/') ? !existsSync(bin) : spawnSync('sh', ['-c', `command -v ${bin}`]).status !== 0,
);
for (const [, what] of missing)
  console.error(`Missing Debian package ${what}: \`bash .ci/run\` installs it, or apt-get install it.`);
