import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { noCiVerdict, type NoCiFacts } from './no-ci.js';

const A = 'a'.repeat(40);
const B = 'b'.repeat(40);
const T0 = '2026-12-01T10:00:00.000Z';
const at = (minutes: number) => new Date(Date.parse(T0) + minutes * 60_000).toISOString();

const facts = (over: Partial<NoCiFacts>): NoCiFacts => ({
  latestAttempt: { headSha: A, state: 'acknowledged' },
  head: { sha: B, seenAt: T0 },
  checksOnHead: 0,
  loopIdle: false,
  now: at(11),
  waitMs: 10 * 60_000,
  ...over,
});

describe('T4: no CI for the agent’s new head', () => {
  const table: Array<[string, Partial<NoCiFacts>, string]> = [
    ['a new head with no check in 11 minutes: a notice', {}, 'notice'],
    [
      'waiting for the progress check, no CI yet: a notice',
      { latestAttempt: { headSha: A, state: 'awaiting_progress' } },
      'notice',
    ],
    ['within the wait', { now: at(9) }, 'wait'],
    ['exactly the wait', { now: at(10) }, 'notice'],
    ['the head not seen yet', { head: { sha: B, seenAt: null } }, 'wait'],
    ['past the wait, checks not read yet', { checksOnHead: null }, 'read_checks'],
    ['within the wait, checks not read: no read needed yet', { checksOnHead: null, now: at(5) }, 'wait'],
    ['a check appeared', { checksOnHead: 1 }, 'not_applicable'],
    ['the head is the attempt’s own (no push)', { head: { sha: A, seenAt: T0 } }, 'not_applicable'],
    ['no attempt yet', { latestAttempt: null }, 'not_applicable'],
    ['the run is still going', { latestAttempt: { headSha: A, state: 'running' } }, 'not_applicable'],
    ['the attempt is queued', { latestAttempt: { headSha: A, state: 'queued' } }, 'not_applicable'],
    [
      'a retryable attempt is retried, not noticed',
      { latestAttempt: { headSha: A, state: 'retryable' } },
      'not_applicable',
    ],
    ['an attempt with no head', { latestAttempt: { headSha: null, state: 'acknowledged' } }, 'not_applicable'],
    ['the loop already stopped or is off', { loopIdle: true }, 'not_applicable'],
    ['the rule turned off (0)', { waitMs: 0 }, 'not_applicable'],
  ];
  for (const [name, over, kind] of table) test(name, () => assert.equal(noCiVerdict(facts(over)).kind, kind));

  test('the notice says which head had no CI, for how long, after which attempt', () => {
    const v = noCiVerdict(facts({ now: at(12) }));
    assert.equal(v.kind, 'notice');
    assert.equal(
      v.kind === 'notice' && v.detail,
      `no check run or status appeared on ${B.slice(0, 12)} in 12 minutes after the attempt on ${A.slice(0, 12)}`,
    );
  });
});
