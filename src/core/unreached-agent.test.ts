import { test } from 'node:test';
import assert from 'node:assert/strict';
import { agentReach, type EndedRun } from './unreached-agent.js';

const ended = (o: Partial<EndedRun> = {}): EndedRun => ({
  runId: 7,
  attemptId: 3,
  agentSeenAt: null,
  outcome: null,
  state: 'completed',
  exitCode: 0,
  ...o,
});

test('I5: an automatic run that ends without one call from its agent never reached fixloop', () => {
  const r = agentReach(ended(), 'https://fixloop.example/');
  assert.equal(r.kind, 'never_reached');
  assert.match(r.kind === 'never_reached' ? r.detail : '', /run 7 ended completed \(exit code 0\)/);
  assert.match(r.kind === 'never_reached' ? r.detail : '', /https:\/\/fixloop\.example\/mcp/);
});

test('I5: the cases that reached fixloop, or are not the loop’s to judge', () => {
  const table: Array<[string, Partial<EndedRun>]> = [
    ['its agent called fixloop', { agentSeenAt: '2026-12-01T10:00:00Z' }],
    ['an outcome is recorded', { outcome: 'action_taken' }],
    ["a person's run (no attempt)", { attemptId: null }],
  ];
  for (const [why, o] of table) assert.equal(agentReach(ended(o), 'http://x').kind, 'reached', why);
});

test('I5: a failed run with no exit status says so', () => {
  const r = agentReach(ended({ state: 'failed', exitCode: null }), 'http://127.0.0.1:3000');
  assert.match(r.kind === 'never_reached' ? r.detail : '', /ended failed \(no exit status\)/);
});
