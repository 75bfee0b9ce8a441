// Issue 32: docs/troubleshooting.md says what every refusal and every stop means and what to do; a
// reason added to src/core/reasons.ts without a row there fails here (a rule that is not checked decays).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { REFUSALS, STOP_REASONS } from '../src/core/reasons.js';

const doc = readFileSync(new URL('../docs/troubleshooting.md', import.meta.url), 'utf8');
/** `name` is named in the doc: itself in backquotes, or by a `prefix_*` row. */
const named = (name: string) =>
  doc.includes(`\`${name}\``) || [...doc.matchAll(/`([a-z_]+)_\*`/g)].some((m) => name.startsWith(`${m[1]!}_`));

test('every refusal reason and every stop reason has its words in docs/troubleshooting.md', () => {
  assert.deepEqual(
    [...REFUSALS, ...STOP_REASONS].filter((r) => !named(r)),
    [],
  );
});
