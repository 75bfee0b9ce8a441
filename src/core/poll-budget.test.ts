// SPEC E4, N3: what a poll tick may spend of a rate limit, as a table: slow down before it runs out.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tickBudget, tightest } from './poll-budget.js';

const now = Date.parse('2026-12-01T10:00:00Z');
const minutes = (n: number) => now + n * 60_000;

test('E4/N3: what is left above the reserve is spread over the ticks until the window resets', () => {
  const rows: Array<[string, Parameters<typeof tickBudget>[0], ReturnType<typeof tickBudget>]> = [
    ['nothing known yet', null, { kind: 'unbounded' }],
    ['a window already reset', { remaining: 10, limit: 5000, resetAtMs: minutes(-1) }, { kind: 'unbounded' }],
    // (5000 − 1000) / 30 ticks of 2 minutes
    [
      'a fresh window, an hour left',
      { remaining: 5000, limit: 5000, resetAtMs: minutes(60) },
      { kind: 'bounded', spend: 133 },
    ],
    // (1500 − 1000) / 5 ticks
    [
      'little left, ten minutes to go',
      { remaining: 1500, limit: 5000, resetAtMs: minutes(10) },
      { kind: 'bounded', spend: 100 },
    ],
    [
      'the last tick of the window may spend all above the reserve',
      { remaining: 1300, limit: 5000, resetAtMs: minutes(1) },
      { kind: 'bounded', spend: 300 },
    ],
    ['down to the reserve', { remaining: 1000, limit: 5000, resetAtMs: minutes(30) }, { kind: 'exhausted' }],
    ['a window with no limit', { remaining: 0, limit: 0, resetAtMs: minutes(30) }, { kind: 'unbounded' }],
  ];
  for (const [what, window, want] of rows) assert.deepEqual(tickBudget(window, now, 120_000, 0.2), want, what);
});

test('E4/N3: REST and GraphQL are separate windows; the tightest decides', () => {
  assert.deepEqual(tightest([{ kind: 'unbounded' }, { kind: 'bounded', spend: 40 }, { kind: 'bounded', spend: 9 }]), {
    kind: 'bounded',
    spend: 9,
  });
  assert.deepEqual(tightest([{ kind: 'bounded', spend: 9 }, { kind: 'exhausted' }]), { kind: 'exhausted' });
  assert.deepEqual(tightest([]), { kind: 'unbounded' });
});
