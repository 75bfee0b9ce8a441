// docs/configuration.md's environment table lists exactly the variables the server reads (SPEC M5):
// ENV_VARIABLES, which is envSchema's keys plus the two read beside it. A variable added to the
// schema without a row, or a row left behind by a removed variable, fails here by name.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { ENV_VARIABLES } from './env-schema.js';

const DOC = new URL('../../docs/configuration.md', import.meta.url);

/** The backticked names in the first column of the table under `## Environment`. */
function documentedVariables(markdown: string): string[] {
  const section = markdown.split(/^## /m).find((s) => s.startsWith('Environment\n'));
  assert.ok(section, 'docs/configuration.md has a "## Environment" section');
  const lines = section.split('\n');
  const start = lines.findIndex((l) => l.startsWith('|'));
  assert.ok(start >= 0, 'the Environment section has a table');
  const end = lines.findIndex((l, i) => i > start && !l.startsWith('|'));
  // Skip the header row and the |---| row.
  const rows = lines.slice(start + 2, end === -1 ? undefined : end);
  return rows.flatMap((row) => {
    const firstCell = row.split('|')[1] ?? '';
    return [...firstCell.matchAll(/`([A-Za-z_][A-Za-z0-9_]*)`/g)].map((m) => m[1]!);
  });
}

describe('docs/configuration.md (M5)', () => {
  it('the environment table reads a row naming two variables as two', () => {
    const doc = '## Environment\n\n| variable | default |\n|---|---|\n| `A`, `B_2` | — |\n| `C` | `x` |\n\nText.\n';
    assert.deepEqual(documentedVariables(doc), ['A', 'B_2', 'C']);
  });

  it('the environment table lists exactly the variables of ENV_VARIABLES', () => {
    const documented = new Set(documentedVariables(readFileSync(DOC, 'utf8')));
    const read = new Set<string>(ENV_VARIABLES);
    const undocumented = [...read].filter((v) => !documented.has(v)).sort();
    const notRead = [...documented].filter((v) => !read.has(v)).sort();
    assert.deepEqual(
      { undocumented, notRead },
      { undocumented: [], notRead: [] },
      `read but not in the table: ${undocumented.join(', ') || 'none'}; in the table but not read: ${notRead.join(', ') || 'none'}`,
    );
  });
});
