// Issue 36 §2: a conflicting head goes to the agent, a head only behind is updated by the host.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { branchSync, type BranchSyncInput } from './branch-sync.js';

const HEAD = 'a'.repeat(40);
const OTHER = 'b'.repeat(40);
const input = (over: Partial<BranchSyncInput>): BranchSyncInput => ({
  mergeableState: 'clean',
  headSha: HEAD,
  taskHeadSha: HEAD,
  updateBranch: true,
  ...over,
});

const TABLE: ReadonlyArray<[string, BranchSyncInput, string]> = [
  ['a clean head asks nothing', input({}), 'none'],
  ['GitHub dirty: a conflict for the agent', input({ mergeableState: 'dirty' }), `conflict conflict:${HEAD}`],
  ['GraphQL DIRTY reads the same', input({ mergeableState: 'DIRTY' }), `conflict conflict:${HEAD}`],
  ['GitLab conflict: a conflict for the agent', input({ mergeableState: 'conflict' }), `conflict conflict:${HEAD}`],
  ['GitHub behind: an update by the host', input({ mergeableState: 'behind' }), `behind update:${HEAD}`],
  ['GitLab need_rebase: a rebase by the host', input({ mergeableState: 'need_rebase' }), `behind update:${HEAD}`],
  ['behind with updates off: left alone', input({ mergeableState: 'behind', updateBranch: false }), 'update_off'],
  [
    'a conflict is the agent’s whatever the switch',
    input({ mergeableState: 'dirty', updateBranch: false }),
    `conflict conflict:${HEAD}`,
  ],
  ['unknown while GitHub computes it', input({ mergeableState: 'unknown' }), 'none'],
  ['checking while GitLab computes it', input({ mergeableState: 'checking' }), 'none'],
  ['not read at all', input({ mergeableState: null }), 'none'],
  ['blocked (reviews, checks) is not the branch’s', input({ mergeableState: 'blocked' }), 'none'],
  ['unstable (a red check) is CI’s, not the branch’s', input({ mergeableState: 'unstable' }), 'none'],
  ['a state of another commit than the Task’s head', input({ mergeableState: 'dirty', taskHeadSha: OTHER }), 'none'],
  ['a Task with no head yet', input({ mergeableState: 'behind', taskHeadSha: null }), 'none'],
];

for (const [name, i, want] of TABLE) {
  test(`branchSync: ${name}`, () => {
    const got = branchSync(i);
    assert.equal('coordinate' in got ? `${got.kind} ${got.coordinate}` : got.kind, want);
  });
}

test('branchSync: the coordinate is one per head, so a second report for the same head claims nothing new', () => {
  const a = branchSync(input({ mergeableState: 'dirty' }));
  const b = branchSync(input({ mergeableState: 'conflict', headSha: HEAD.toUpperCase() }));
  assert.deepEqual(a, { kind: 'conflict', coordinate: `conflict:${HEAD}` });
  assert.deepEqual(b, a);
  const c = branchSync(input({ mergeableState: 'dirty', headSha: OTHER, taskHeadSha: OTHER }));
  assert.notDeepEqual(c, a);
});
