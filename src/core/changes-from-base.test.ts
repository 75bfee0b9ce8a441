import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { withoutBaseChanges, type ChangedFileFacts } from './changes-from-base.js';

const file = (path: string, o: Partial<ChangedFileFacts> = {}): ChangedFileFacts => ({
  path,
  status: 'modified',
  patch: `@@ -1 +1 @@\n-a\n+${path}`,
  blobSha: `blob-${path}`,
  ...o,
});

describe('the base branch changes in an agent push (issue 36)', () => {
  const cases: Array<[string, ChangedFileFacts[], ChangedFileFacts[], string[]]> = [
    ['nothing from the base: the push as it is', [file('src/a.ts')], [], ['src/a.ts']],
    [
      'a file the base changed to the same blob is the base’s',
      [file('src/a.ts'), file('x.ts')],
      [file('x.ts')],
      ['src/a.ts'],
    ],
    [
      'the same path changed to another blob is the agent’s (it resolved a conflict there)',
      [file('x.ts', { blobSha: 'agent' })],
      [file('x.ts')],
      ['x.ts'],
    ],
    [
      'a test file the base removed, removed by the merge: the base’s',
      [file('t.test.ts', { status: 'removed', blobSha: null })],
      [file('t.test.ts', { status: 'removed', blobSha: 'old' })],
      [],
    ],
    [
      'removed by the push, modified on the base: the agent’s',
      [file('t.test.ts', { status: 'removed' })],
      [file('t.test.ts')],
      ['t.test.ts'],
    ],
    [
      'a rename from another path is another change',
      [file('b.ts', { status: 'renamed', previousPath: 'a.ts' })],
      [file('b.ts', { status: 'renamed', previousPath: 'c.ts' })],
      ['b.ts'],
    ],
    [
      'no blob named: the same patch is the same change',
      [file('x.ts', { blobSha: null })],
      [file('x.ts', { blobSha: null })],
      [],
    ],
    [
      'no blob named: another patch is the agent’s',
      [file('x.ts', { blobSha: null, patch: '@@ -1 +1 @@\n-a\n+b' })],
      [file('x.ts', { blobSha: null })],
      ['x.ts'],
    ],
    [
      'no blob and no patch (binary): cannot be told apart, so the agent’s',
      [file('i.png', { blobSha: null, patch: null })],
      [file('i.png', { blobSha: null, patch: null })],
      ['i.png'],
    ],
  ];
  for (const [name, push, base, kept] of cases)
    test(name, () => {
      assert.deepEqual(
        withoutBaseChanges(push, base).map((f) => f.path),
        kept,
      );
    });
});
