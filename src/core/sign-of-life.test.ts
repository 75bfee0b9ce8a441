import { test } from 'node:test';
import assert from 'node:assert/strict';
import { signOfLife, type EndedRun, type RunHeads } from './sign-of-life.js';

const ended = (o: Partial<EndedRun> = {}): EndedRun => ({
  runId: 7,
  attemptId: 3,
  agentSeenAt: null,
  outcome: null,
  state: 'completed',
  exitCode: 0,
  ...o,
});
const A = 'a'.repeat(40);
const B = 'b'.repeat(40);
const still: RunHeads = { dispatched: A, now: A };

test('I5: an automatic run that ends without a call or a push never reached fixloop', () => {
  const r = signOfLife(ended(), still, 'https://fixloop.example/');
  assert.equal(r.kind, 'none');
  assert.match(r.kind === 'none' ? r.detail : '', /run 7 ended completed \(exit code 0\)/);
  assert.match(r.kind === 'none' ? r.detail : '', /without a push/);
  assert.match(r.kind === 'none' ? r.detail : '', /https:\/\/fixloop\.example\/mcp/);
});

test('I5: the cases that reached fixloop, or are not the loop’s to judge', () => {
  const table: Array<[string, Partial<EndedRun>]> = [
    ['its agent called fixloop', { agentSeenAt: '2026-12-01T10:00:00Z' }],
    ['an outcome is recorded', { outcome: 'action_taken' }],
    ["a person's run (no attempt)", { attemptId: null }],
  ];
  for (const [why, o] of table) {
    assert.equal(signOfLife(ended(o), still, 'http://x').kind, 'called', why);
    // A call is the stronger sign: a push alongside it changes nothing.
    assert.equal(signOfLife(ended(o), { dispatched: A, now: B }, 'http://x').kind, 'called', why);
  }
});

test('issue 35: a run that pushed without calling took action, whatever its exit', () => {
  for (const run of [ended(), ended({ state: 'failed', exitCode: 1 }), ended({ state: 'failed', exitCode: null })]) {
    const r = signOfLife(run, { dispatched: A, now: B }, 'http://x');
    assert.equal(r.kind, 'pushed');
    assert.equal(r.kind === 'pushed' ? r.headSha : '', B);
    assert.match(r.kind === 'pushed' ? r.detail : '', /moved from aaaaaaaaaaaa to bbbbbbbbbbbb/);
  }
});

test('issue 35: heads that differ only in case are one head; an unknown head is no push', () => {
  const table: Array<[string, RunHeads]> = [
    ['same head, other case', { dispatched: A, now: A.toUpperCase() }],
    ['head now unknown', { dispatched: A, now: null }],
    ['dispatched head unknown', { dispatched: null, now: B }],
  ];
  for (const [why, heads] of table) assert.equal(signOfLife(ended(), heads, 'http://x').kind, 'none', why);
});

test('I5: a failed run with no exit status says so', () => {
  const r = signOfLife(ended({ state: 'failed', exitCode: null }), still, 'http://127.0.0.1:3000');
  assert.match(r.kind === 'none' ? r.detail : '', /ended failed \(no exit status\)/);
});

test('R2: a run whose session waits for a person hands the pull request over, called or pushed, unless it reported', () => {
  const waiting = { needsPerson: true, detail: 'the devin session d-1 is waiting for a person (blocked)' };
  for (const o of [{}, { agentSeenAt: '2026-12-01T10:00:00Z' }]) {
    for (const heads of [still, { dispatched: A, now: B }]) {
      const r = signOfLife(ended({ ...waiting, ...o, state: 'failed', exitCode: null }), heads, 'http://x');
      assert.equal(r.kind, 'waiting');
      assert.match(r.kind === 'waiting' ? r.detail : '', /without an outcome: the devin session d-1 is waiting/);
    }
  }
  assert.equal(signOfLife(ended({ ...waiting, outcome: 'blocked' }), still, 'http://x').kind, 'called');
  assert.equal(signOfLife(ended({ ...waiting, attemptId: null }), still, 'http://x').kind, 'called');
});

test("R2: a runner's words on the end replace the guess at the cause", () => {
  const r = signOfLife(
    ended({ state: 'failed', exitCode: null, detail: 'the session had not finished' }),
    still,
    'http://x',
  );
  assert.equal(r.kind, 'none');
  assert.match(r.kind === 'none' ? r.detail : '', /without a push to the branch: the session had not finished$/);
});
