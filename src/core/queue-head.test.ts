import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decideQueueHead } from './queue-head.js';

test('decideQueueHead: the queue of the current head is current and moves nothing; of an older head, superseded', () => {
  const head = 'b'.repeat(40);
  const older = 'c'.repeat(40);
  const t = '2026-12-05T10:00:00Z';
  assert.deepEqual(decideQueueHead({ headSha: head }, { ciHeadSha: head }, t), {
    kind: 'current',
    advance: false,
    seenAt: t,
  });
  assert.deepEqual(decideQueueHead({ headSha: head }, { ciHeadSha: null }, null), {
    kind: 'current',
    advance: false,
    seenAt: null,
  });
  const r = decideQueueHead({ headSha: older }, { ciHeadSha: head }, t);
  assert.equal(r.kind, 'refuse');
  if (r.kind === 'refuse') assert.equal(r.reason, 'superseded_head');
});

test('decideQueueHead: a queue that does not name its head (a merge train) is about the current head', () => {
  const head = 'b'.repeat(40);
  assert.deepEqual(decideQueueHead({ headSha: null }, { ciHeadSha: head }, null), {
    kind: 'current',
    advance: false,
    seenAt: null,
  });
});
