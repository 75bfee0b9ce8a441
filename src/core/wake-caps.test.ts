// SPEC K9: wake-up caps — 5 automatic wakes in 10 minutes, 20 since a person last acted on the Task.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { DEFAULT_WAKE_CAPS, wakeVerdict, type WakeInput } from './wake-caps.js';

const NOW = Date.parse('2026-12-01T12:00:00.000Z');
const MIN = 60_000;
const ago = (ms: number) => new Date(NOW - ms).toISOString();
const input = (over: Partial<WakeInput>): WakeInput => ({ wakes: [], now: NOW, lastHumanAt: null, ...over });

describe('K9: the defaults', () => {
  test('K9: 5 wakes per 10 minutes, 20 since a person', () => {
    assert.deepEqual({ ...DEFAULT_WAKE_CAPS }, { perWindow: 5, windowMs: 10 * MIN, sinceHuman: 20 });
  });
});

describe('K9: wakes in the window', () => {
  const ROWS: ReadonlyArray<[string, Partial<WakeInput>, 'allow' | 'wake_cap_window' | 'wake_cap_since_human']> = [
    ['no wakes → allow', {}, 'allow'],
    [
      '4 wakes in the last 10 minutes → allow (this is the 5th)',
      { wakes: [1, 2, 3, 4].map((m) => ago(m * MIN)) },
      'allow',
    ],
    ['5 wakes in the last 10 minutes → stop', { wakes: [1, 2, 3, 4, 5].map((m) => ago(m * MIN)) }, 'wake_cap_window'],
    [
      '5 wakes, the oldest exactly 10 minutes ago → allow (it left the window)',
      { wakes: [10, 2, 3, 4, 5].map((m) => ago(m * MIN)) },
      'allow',
    ],
    [
      '5 wakes, the oldest 10 minutes less 1 ms ago → stop',
      { wakes: [ago(10 * MIN - 1), ...[2, 3, 4, 5].map((m) => ago(m * MIN))] },
      'wake_cap_window',
    ],
    ['5 wakes spread over an hour → allow', { wakes: [5, 15, 25, 35, 45].map((m) => ago(m * MIN)) }, 'allow'],
    [
      'a wake stamped after now (clock skew) counts in the window',
      { wakes: [ago(-MIN), ...[1, 2, 3, 4].map((m) => ago(m * MIN))] },
      'wake_cap_window',
    ],
    [
      'an unreadable wake time counts in the window',
      { wakes: ['garbled', ...[1, 2, 3, 4].map((m) => ago(m * MIN))] },
      'wake_cap_window',
    ],
    ['wakes as epoch ms', { wakes: [1, 2, 3, 4, 5].map((m) => NOW - m * MIN) }, 'wake_cap_window'],
    [
      'a custom window of 3 wakes per minute',
      { wakes: [10_000, 20_000, 30_000].map(ago), perWindow: 3, windowMs: MIN },
      'wake_cap_window',
    ],
    ['a cap of 0 per window stops every wake', { perWindow: 0 }, 'wake_cap_window'],
    ['an unreadable clock stops (fail closed)', { now: 'garbled' }, 'wake_cap_window'],
  ];
  for (const [label, over, want] of ROWS) {
    test(`K9: ${label}`, () => {
      const v = wakeVerdict(input(over));
      assert.equal(v.kind === 'allow' ? 'allow' : v.reason, want);
    });
  }

  test('K9: the window stop says when there is room again', () => {
    const v = wakeVerdict(input({ wakes: [1, 2, 3, 4, 5, 6].map((m) => ago(m * MIN)) }));
    // Six in the window: room again when the two oldest (6 and 5 minutes ago) have left it.
    assert.deepEqual(v, {
      kind: 'stop',
      reason: 'wake_cap_window',
      detail: '6 automatic wakes in the last 10 minutes (cap 5)',
      retryAt: ago(5 * MIN - 10 * MIN),
    });
  });

  test('K9: a window that unreadable wakes keep full has no retry time', () => {
    const v = wakeVerdict(input({ wakes: ['x', 'x', 'x', 'x', 'x'] }));
    assert.equal(v.kind === 'stop' && v.reason === 'wake_cap_window' && v.retryAt, null);
  });
});

describe('K9: wakes since a person last acted', () => {
  const hourly = (n: number) => Array.from({ length: n }, (_, i) => ago((i + 1) * 60 * MIN));
  const ROWS: ReadonlyArray<[string, Partial<WakeInput>, 'allow' | 'wake_cap_window' | 'wake_cap_since_human']> = [
    ['19 wakes, never a person → allow (this is the 20th)', { wakes: hourly(19) }, 'allow'],
    ['20 wakes, never a person → stop', { wakes: hourly(20) }, 'wake_cap_since_human'],
    [
      '30 wakes, a person acted 10 hours ago → 10 since → allow',
      { wakes: hourly(30), lastHumanAt: ago(10 * 60 * MIN + MIN) },
      'allow',
    ],
    [
      '20 wakes since a person acted → stop',
      { wakes: hourly(25), lastHumanAt: ago(20 * 60 * MIN + MIN) },
      'wake_cap_since_human',
    ],
    [
      'a wake at the very instant the person acted counts as after',
      { wakes: hourly(20), lastHumanAt: ago(20 * 60 * MIN) },
      'wake_cap_since_human',
    ],
    [
      'an unreadable person time counts as never',
      { wakes: hourly(20), lastHumanAt: 'garbled' },
      'wake_cap_since_human',
    ],
    ['a person acting just now lifts the cap', { wakes: hourly(40), lastHumanAt: NOW }, 'allow'],
    [
      'since-a-person is reported first when both caps bind (waiting will not lift it)',
      { wakes: [...[1, 2, 3, 4, 5].map((m) => ago(m * MIN)), ...hourly(15)] },
      'wake_cap_since_human',
    ],
    ['a custom cap of 2 since a person', { wakes: hourly(2), sinceHuman: 2 }, 'wake_cap_since_human'],
  ];
  for (const [label, over, want] of ROWS) {
    test(`K9: ${label}`, () => {
      const v = wakeVerdict(input(over));
      assert.equal(v.kind === 'allow' ? 'allow' : v.reason, want);
    });
  }

  test('K9: the since-a-person stop says how many and the cap', () => {
    assert.deepEqual(wakeVerdict(input({ wakes: hourly(20) })), {
      kind: 'stop',
      reason: 'wake_cap_since_human',
      detail: '20 automatic wakes since a person last acted on the Task (cap 20)',
    });
  });

  test('K9: caps that are not non-negative integers, or a window that is not positive, are programming errors', () => {
    assert.throws(() => wakeVerdict(input({ perWindow: -1 })), RangeError);
    assert.throws(() => wakeVerdict(input({ sinceHuman: 1.5 })), RangeError);
    assert.throws(() => wakeVerdict(input({ windowMs: 0 })), RangeError);
  });

  test('K9: never more than 5 wakes allowed in any 10 minutes, whatever the history', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 30 * MIN }), { maxLength: 12 }), (agos) => {
        const v = wakeVerdict(input({ wakes: agos.map(ago), lastHumanAt: NOW }));
        const inWindow = agos.filter((a) => a < 10 * MIN).length;
        if (v.kind === 'allow') assert.ok(inWindow < 5);
        else assert.ok(inWindow >= 5);
      }),
    );
  });
});
