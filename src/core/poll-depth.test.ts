// SPEC N3, E1, E2: how deep the poll reads a pull request, as a table.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pollDepth, pollSignature, type Glance } from './poll-depth.js';

const glance: Glance = {
  state: 'open',
  merged: false,
  headSha: 'a'.repeat(40),
  updatedAt: '2026-12-01T10:00:00Z',
  rollup: 'PENDING',
};
const quiet = { ciHeadSha: glance.headSha, ciState: 'pending', noticeAt: null, stateCommentId: null } as const;
const seen = pollSignature(glance);

test('N3: the signature moves with the head, the state, the update time and the rollup', () => {
  for (const moved of [
    { headSha: 'b'.repeat(40) },
    { state: 'closed' as const },
    { merged: true },
    { updatedAt: '2026-12-01T10:01:00Z' },
    { rollup: 'FAILURE' },
    { rollup: null },
  ])
    assert.notEqual(pollSignature({ ...glance, ...moved }), seen, JSON.stringify(moved));
});

test('N3/E1/E2: only a pull request that shows nothing new, with nothing waiting on a read, is skipped', () => {
  const rows: Array<[string, Parameters<typeof pollDepth>, string]> = [
    ['unchanged and quiet', [quiet, seen, glance], 'skip'],
    ['no glance (bulk read failed)', [quiet, seen, null], 'no_glance'],
    ['never read in full', [quiet, null, glance], 'first_read'],
    ['rollup moved', [quiet, seen, { ...glance, rollup: 'SUCCESS' }], 'changed'],
    ['a webhook moved the head elsewhere', [{ ...quiet, ciHeadSha: 'c'.repeat(40) }, seen, glance], 'head_not_seen'],
    ['a person acted on the Task since', [quiet, seen, glance, true], 'task_moved'],
    ['red head (E2: re-offered each tick)', [{ ...quiet, ciState: 'red' }, seen, glance], 'verdict_open'],
    ['unknown verdict', [{ ...quiet, ciState: 'unknown' }, seen, glance], 'verdict_open'],
    ['stopped (K5 hand-off)', [{ ...quiet, noticeAt: '2026-12-01T09:00:00Z' }, seen, glance], 'loop_stopped'],
    ['acted on (K8 state comment)', [{ ...quiet, stateCommentId: '42' }, seen, glance], 'loop_acted'],
    ['passing and quiet', [{ ...quiet, ciState: 'passing' }, seen, glance], 'skip'],
  ];
  for (const [what, args, want] of rows) {
    const d = pollDepth(...args);
    assert.equal(d.kind === 'skip' ? 'skip' : d.why, want, what);
  }
});
