import { test } from 'node:test';
import assert from 'node:assert/strict';
import { QUEUE_EJECTIONS, routeEjection, shouldRequeue, type QueueEjection } from './merge-queue.js';

test('routeEjection: a failed check is the agent’s (by its red), merged is nothing, the rest go to a person', () => {
  const table: [QueueEjection, 'agent' | 'person' | 'none'][] = [
    ['check_failed', 'agent'],
    ['merged', 'none'],
    ['conflict', 'person'],
    ['timeout', 'person'],
    ['removed_by_person', 'person'],
    ['queue_cleared', 'person'],
    ['rolled_back', 'person'],
    ['protections', 'person'],
    ['invalid_merge', 'person'],
    ['unknown', 'person'],
  ];
  assert.equal(table.length, QUEUE_EJECTIONS.length, 'every ejection has a row');
  for (const [reason, route] of table) assert.equal(routeEjection(reason).kind, route, reason);
});

test('routeEjection: a person is told why in words, naming the queue', () => {
  const r = routeEjection('removed_by_person');
  assert.equal(r.kind, 'person');
  if (r.kind === 'person') assert.match(r.why, /a person removed it from the merge queue/);
  const c = routeEjection('conflict');
  if (c.kind === 'person') assert.match(c.why, /conflicts with a pull request ahead of it/);
});

test('shouldRequeue: only when asked, after an attempt that answered the queue, for the head its fix made', () => {
  const fixed = { headSha: 'a', answeredQueue: true };
  const table: [Parameters<typeof shouldRequeue>[0], boolean][] = [
    [{ enabled: true, lastAttempt: fixed, greenHead: 'b' }, true],
    [{ enabled: false, lastAttempt: fixed, greenHead: 'b' }, false],
    [{ enabled: true, lastAttempt: fixed, greenHead: 'a' }, false], // green is the head the queue failed
    [{ enabled: true, lastAttempt: { headSha: 'a', answeredQueue: false }, greenHead: 'b' }, false],
    [{ enabled: true, lastAttempt: null, greenHead: 'b' }, false],
  ];
  for (const [facts, want] of table) assert.equal(shouldRequeue(facts), want, JSON.stringify(facts));
});
