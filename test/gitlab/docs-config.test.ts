// docs/gitlab.md's example is complete (issue 19): its `# fixloop.yaml` block loads with the
// environment the page gives, names a gitlab Work, and builds its runner, whose workspace clones the
// project from GITLAB_URL.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../../src/config/config.js';
import { runnerFromConfig } from '../../src/wiring.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const page = readFileSync(join(ROOT, 'docs', 'gitlab.md'), 'utf8');

test('the fixloop.yaml of docs/gitlab.md loads, is a gitlab Work, and builds its runner', () => {
  const blocks = [...page.matchAll(/```yaml\n([\s\S]*?)```/g)]
    .map((m) => m[1]!)
    .filter((b) => b.startsWith('# fixloop.yaml'));
  assert.equal(blocks.length, 1);
  const dir = mkdtempSync(join(tmpdir(), 'fixloop-gitlab-doc-'));
  try {
    const file = join(dir, 'fixloop.yaml');
    writeFileSync(file, blocks[0]!);
    const c = loadConfig({
      env: {
        WEBHOOK_SECRET: 'x',
        GITLAB_URL: 'https://gitlab.example.com',
        GITLAB_TOKEN: 'glpat-x',
        GITLAB_WEBHOOK_SECRET: 'y',
        FIXLOOP_WORK_DIR: join(dir, 'runs'),
      },
      file,
    });
    assert.equal(c.works[0]!.provider, 'gitlab');
    assert.equal(c.works[0]!.repositories[0]!.name, 'acme/web/storefront');
    assert.equal(
      c.runner?.kind === 'command' ? c.runner.workspace?.gitlabCloneUrl : null,
      'https://gitlab.example.com/{repository}.git',
    );
    assert.ok(runnerFromConfig(c, { uid: 0, env: { PATH: '/usr/bin' } }));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
