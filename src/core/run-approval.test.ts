import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decideRunApproval, type RunApprovalInput } from './run-approval.js';

const base: RunApprovalInput = { allowed: true, fork: false, headSha: 'b'.repeat(40), answeredHeads: ['a'.repeat(40)] };

test("issue 35: the agent's push after a fixloop attempt has its waiting runs approved when the configuration allows", () => {
  assert.deepEqual(decideRunApproval(base), { kind: 'approve' });
});

test('issue 35: every other case is left to a person, with why', () => {
  const table: Array<[string, Partial<RunApprovalInput>, RegExp]> = [
    ['not allowed', { allowed: false }, /approveWorkflows/],
    ['a fork', { fork: true }, /fork/],
    ['no attempt yet', { answeredHeads: [] }, /no attempt/],
    ['only attempts without a head', { answeredHeads: [null] }, /no attempt/],
    ['the head an attempt answered', { answeredHeads: ['a'.repeat(40), 'b'.repeat(40)] }, /before the agent was woken/],
  ];
  for (const [name, change, why] of table) {
    const decided = decideRunApproval({ ...base, ...change });
    assert.equal(decided.kind, 'person', name);
    assert.match((decided as { why: string }).why, why, name);
  }
});

test('issue 35: a fork is refused even when everything else would approve', () => {
  assert.equal(decideRunApproval({ ...base, fork: true, answeredHeads: ['c'.repeat(40)] }).kind, 'person');
});
