// SPEC K5 (with G2): the human gate after a stop — approve-one, park after the wait, parked is final.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  APPROVE_ONE_LABEL,
  DEFAULT_PARK_AFTER_MS,
  HANDOFF_LABEL,
  handoffVerdict,
  hasLabel,
  type HandoffInput,
  type HandoffVerdict,
} from './handoff.js';

const STOP = '2026-12-01T10:00:00.000Z';
const STOP_MS = Date.parse(STOP);
const H = 60 * 60 * 1000;

function at(over: Partial<HandoffInput>): HandoffInput {
  return {
    stoppedAt: STOP,
    now: STOP_MS + H,
    labels: [HANDOFF_LABEL],
    approveOneConsumedAt: null,
    parkedAt: null,
    ...over,
  };
}

// [label, input overrides, verdict]
const TABLE: ReadonlyArray<[string, Partial<HandoffInput>, HandoffVerdict]> = [
  [
    'no answer yet, an hour after the stop → waiting until stop + 8 h',
    {},
    { kind: 'waiting', parkAt: '2026-12-01T18:00:00.000Z' },
  ],
  ['right at the stop → waiting', { now: STOP }, { kind: 'waiting', parkAt: '2026-12-01T18:00:00.000Z' }],
  [
    'one millisecond before the deadline → waiting',
    { now: STOP_MS + 8 * H - 1 },
    { kind: 'waiting', parkAt: '2026-12-01T18:00:00.000Z' },
  ],
  ['at the deadline with no answer → park', { now: STOP_MS + 8 * H }, { kind: 'park' }],
  ['long after the deadline with no answer → park', { now: '2026-12-03T00:00:00Z' }, { kind: 'park' }],
  [
    'approve-one present, never consumed → approve_one',
    { labels: [HANDOFF_LABEL, APPROVE_ONE_LABEL] },
    { kind: 'approve_one' },
  ],
  ['approve-one in another case → approve_one', { labels: ['FixLoop:Approve-One'] }, { kind: 'approve_one' }],
  [
    'approve-one consumed before this stop (an earlier stop) → approve_one again',
    { labels: [APPROVE_ONE_LABEL], approveOneConsumedAt: '2026-11-30T10:00:00Z' },
    { kind: 'approve_one' },
  ],
  [
    'approve-one already consumed for this stop (label removal failed) → waiting, not a second attempt',
    { labels: [APPROVE_ONE_LABEL], approveOneConsumedAt: STOP_MS + 1000 },
    { kind: 'waiting', parkAt: '2026-12-01T18:00:00.000Z' },
  ],
  [
    'approve-one consumed exactly at the stop counts as this stop',
    { labels: [APPROVE_ONE_LABEL], approveOneConsumedAt: STOP },
    { kind: 'waiting', parkAt: '2026-12-01T18:00:00.000Z' },
  ],
  [
    'approve-one consumed for this stop, past the deadline → park',
    { labels: [APPROVE_ONE_LABEL], approveOneConsumedAt: STOP_MS + 1000, now: STOP_MS + 9 * H },
    { kind: 'park' },
  ],
  [
    'approve-one present after the deadline but before parking → approve_one (the label is the answer)',
    { labels: [APPROVE_ONE_LABEL], now: STOP_MS + 9 * H },
    { kind: 'approve_one' },
  ],
  ['parked → parked', { parkedAt: STOP_MS + 8 * H }, { kind: 'parked' }],
  [
    'parked is final: approve-one does not bring it back on its own',
    { parkedAt: STOP_MS + 8 * H, labels: [APPROVE_ONE_LABEL], now: STOP_MS + 20 * H },
    { kind: 'parked' },
  ],
  ['only the needs-human label is not an answer', { labels: [HANDOFF_LABEL], now: STOP_MS + 8 * H }, { kind: 'park' }],
  ['a configured wait of 30 minutes', { parkAfterMs: 30 * 60 * 1000 }, { kind: 'park' }],
  ['a configured wait of 2 hours', { parkAfterMs: 2 * H }, { kind: 'waiting', parkAt: '2026-12-01T12:00:00.000Z' }],
  ['a wait of zero parks at once', { parkAfterMs: 0, now: STOP }, { kind: 'park' }],
  [
    'times with offsets are instants',
    { stoppedAt: '2026-12-01T12:00:00+02:00', now: '2026-12-01T17:59:59Z' },
    { kind: 'waiting', parkAt: '2026-12-01T18:00:00.000Z' },
  ],
  ['an unreadable stop time parks (fail closed)', { stoppedAt: 'not a time' }, { kind: 'park' }],
  ['an unreadable clock parks (fail closed)', { now: Number.NaN }, { kind: 'park' }],
  [
    'an unreadable consumption time counts as consumed',
    { labels: [APPROVE_ONE_LABEL], approveOneConsumedAt: 'garbled' },
    { kind: 'waiting', parkAt: '2026-12-01T18:00:00.000Z' },
  ],
];

describe('K5: the human gate', () => {
  for (const [label, over, verdict] of TABLE) {
    test(`K5: ${label}`, () => {
      assert.deepEqual(handoffVerdict(at(over)), verdict);
    });
  }

  test('K5: the labels and the default wait are as SPEC says', () => {
    assert.equal(HANDOFF_LABEL, 'fixloop:needs-human');
    assert.equal(APPROVE_ONE_LABEL, 'fixloop:approve-one');
    assert.equal(DEFAULT_PARK_AFTER_MS, 8 * H);
  });

  test('K5: a negative or non-finite wait is a programming error', () => {
    assert.throws(() => handoffVerdict(at({ parkAfterMs: -1 })), RangeError);
    assert.throws(() => handoffVerdict(at({ parkAfterMs: Number.POSITIVE_INFINITY })), RangeError);
  });

  test('K5: hasLabel ignores case', () => {
    assert.ok(hasLabel(['Fixloop:Needs-Human'], HANDOFF_LABEL));
    assert.ok(!hasLabel(['fixloop:needs-humans'], HANDOFF_LABEL));
  });

  test('K5: approve-one is exactly one attempt — once consumed for a stop, the same label grants nothing more', () => {
    const first = handoffVerdict(at({ labels: [APPROVE_ONE_LABEL] }));
    assert.equal(first.kind, 'approve_one');
    // The caller records the consumption (and removes the label); a stale label read grants nothing.
    const second = handoffVerdict(
      at({ labels: [APPROVE_ONE_LABEL], approveOneConsumedAt: STOP_MS + H, now: STOP_MS + H + 1 }),
    );
    assert.equal(second.kind, 'waiting');
  });

  test('K5 (property): parked never becomes anything else, whatever the labels and the clock', () => {
    fc.assert(
      fc.property(
        fc.subarray([HANDOFF_LABEL, APPROVE_ONE_LABEL, 'other']),
        fc.integer({ min: 0, max: 100 * H }),
        fc.option(fc.integer({ min: 0, max: 100 * H }), { nil: null }),
        (labels, dt, consumed) => {
          const v = handoffVerdict({
            stoppedAt: STOP_MS,
            now: STOP_MS + dt,
            labels,
            approveOneConsumedAt: consumed === null ? null : STOP_MS + consumed,
            parkedAt: STOP_MS,
          });
          assert.deepEqual(v, { kind: 'parked' });
        },
      ),
    );
  });

  test('K5 (property): without approve-one, the verdict is park exactly when now ≥ stop + wait', () => {
    fc.assert(
      fc.property(fc.integer({ min: -H, max: 20 * H }), fc.integer({ min: 0, max: 12 * H }), (dt, wait) => {
        const v = handoffVerdict({
          stoppedAt: STOP_MS,
          now: STOP_MS + dt,
          labels: [HANDOFF_LABEL],
          approveOneConsumedAt: null,
          parkedAt: null,
          parkAfterMs: wait,
        });
        assert.equal(v.kind, dt >= wait ? 'park' : 'waiting');
      }),
    );
  });
});
