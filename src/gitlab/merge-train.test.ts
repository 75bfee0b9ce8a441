// Decision 0075: GitLab's merge-train system notes read as why a merge request left the train.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ejectionOfWords, TRAIN_NOTE } from './merge-train.js';

test('the latest train note: a removal and its reason, or nothing', () => {
  const cases: Array<[string | null, string | null]> = [
    ['removed this merge request from the merge train', 'removed_by_person'],
    ['removed this merge request from the merge train because it has merge conflicts', 'conflict'],
    ['removed this merge request from the merge train because the pipeline did not succeed', 'check_failed'],
    ['removed this merge request from the merge train because the pipeline timed out', 'timeout'],
    ['removed this merge request from the merge train because it was already merged', 'merged'],
    ['removed this merge request from the merge train because the target branch was changed', 'unknown'],
    ['added this merge request to the merge train at position 2', null],
    ['started a merge train', null],
    [null, null],
  ];
  for (const [note, reason] of cases) assert.equal(ejectionOfWords(note)?.reason ?? null, reason, String(note));
  const long = `removed this merge request from the merge train because ${'x'.repeat(400)}`;
  assert.equal(ejectionOfWords(long)?.said.length, 300, 'GitLab’s words, bounded');
});

test('which system notes are about the train', () => {
  assert.ok(TRAIN_NOTE.test('removed this merge request from the merge train'));
  assert.ok(TRAIN_NOTE.test('started a merge train'));
  assert.ok(!TRAIN_NOTE.test('added 1 commit'));
});
