import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ejectionOf, queueOfBranch } from './merge-queue.js';

const SHA = 'a'.repeat(40);

test('queueOfBranch: the queue branch names its base, pull request and head; any other branch is not a queue', () => {
  const table: [string | null, ReturnType<typeof queueOfBranch>][] = [
    [`gh-readonly-queue/main/pr-13-${SHA}`, { baseRef: 'main', pullRequest: 13, headSha: SHA, others: null }],
    [
      `refs/heads/gh-readonly-queue/main/pr-13-${SHA}`,
      { baseRef: 'main', pullRequest: 13, headSha: SHA, others: null },
    ],
    [
      `gh-readonly-queue/release/1.x/pr-7-${SHA}`,
      { baseRef: 'release/1.x', pullRequest: 7, headSha: SHA, others: null },
    ],
    ['main', null],
    [null, null],
    [`gh-readonly-queue/main/pr-13-${SHA.slice(0, 39)}`, null],
    [`gh-readonly-queue/main/pr-0-${SHA}`, null],
    [`feature/gh-readonly-queue/main/pr-13-${SHA}`, null],
  ];
  for (const [branch, want] of table) assert.deepEqual(queueOfBranch(branch), want, String(branch));
});

test('ejectionOf: every documented dequeued reason has its neutral ejection; an unknown one is unknown', () => {
  const table: [string | null, string][] = [
    ['CI_FAILURE', 'check_failed'],
    ['MERGE_CONFLICT', 'conflict'],
    ['CI_TIMEOUT', 'timeout'],
    ['MANUAL', 'removed_by_person'],
    ['QUEUE_CLEARED', 'queue_cleared'],
    ['ROLL_BACK', 'rolled_back'],
    ['BRANCH_PROTECTIONS', 'protections'],
    ['GIT_TREE_INVALID', 'invalid_merge'],
    ['INVALID_MERGE_COMMIT', 'invalid_merge'],
    ['ALREADY_MERGED', 'merged'],
    ['manual', 'removed_by_person'],
    ['SOMETHING_NEW', 'unknown'],
    ['constructor', 'unknown'],
    [null, 'unknown'],
  ];
  for (const [reason, want] of table) assert.equal(ejectionOf(reason), want, String(reason));
});
