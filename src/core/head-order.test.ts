// SPEC B1, B5: which commit a result is about, and whether it may move the Task's head.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { decideHead, decidePullRequestHead, type HeadView } from './head-order.js';
import type { HeadPointer } from './neutral-events.js';

const A = 'a'.repeat(40);
const B = 'b'.repeat(40);
const C = 'c'.repeat(40);
const PR = 7;
const T0 = '2024-05-01T10:00:00.000Z';
const T1 = '2024-05-01T11:00:00.000Z';
const T2 = '2024-05-01T12:00:00.000Z';

const ptr = (headSha: string, number = PR): HeadPointer => ({ number, headSha, fork: false });
const result = (sha: string, pointers: HeadPointer[], completedAt: string | null) => ({ sha, pointers, completedAt });
const view = (ciHeadSha: string | null, ciHeadSeenAt: string | null): HeadView => ({
  pullRequest: PR,
  ciHeadSha,
  ciHeadSeenAt,
});

describe("B5: the delivery's own head pointer decides", () => {
  test('B5: pointer present and matching, Task has no head yet → current, advance', () => {
    assert.deepEqual(decideHead(result(A, [ptr(A)], T1), view(null, null)), {
      kind: 'current',
      advance: true,
      seenAt: T1,
    });
  });

  test("B5: pointer matching the Task's own head → current, no advance", () => {
    assert.deepEqual(decideHead(result(A, [ptr(A)], T1), view(A, T2)), { kind: 'current', advance: false, seenAt: T1 });
  });

  test('B5: pointer matching, no completion time, Task has no head → current (the pointer needs no clock)', () => {
    assert.deepEqual(decideHead(result(A, [ptr(A)], null), view(null, null)), {
      kind: 'current',
      advance: true,
      seenAt: null,
    });
  });

  test("B5: pointer matching the Task's head and no completion time → current, no advance", () => {
    assert.deepEqual(decideHead(result(A, [ptr(A)], null), view(A, T0)), {
      kind: 'current',
      advance: false,
      seenAt: null,
    });
  });

  const SUPERSEDED: ReadonlyArray<[string, string | null, HeadView]> = [
    ["with a newer completion time than the Task's head", T2, view(A, T0)],
    ['with an older completion time', T0, view(A, T2)],
    ['with no completion time', null, view(A, T0)],
    ['when the Task has no head yet', T2, view(null, null)],
    ["when the Task's head is the result's commit", T2, view(B, T0)],
  ];
  for (const [what, t, task] of SUPERSEDED) {
    test(`B5: a result whose commit is not the pointer's head is refused as superseded, no clock involved (${what})`, () => {
      const d = decideHead(result(B, [ptr(A)], t), task);
      assert.equal(d.kind, 'refuse');
      assert.equal(d.kind === 'refuse' && d.reason, 'superseded_head');
    });
  }

  test("B5: only the pointer for the Task's pull request counts", () => {
    // A pointer for another PR naming B does not vouch for B; this PR's pointer names A.
    const d = decideHead(result(B, [ptr(B, PR + 1), ptr(A)], T2), view(null, null));
    assert.equal(d.kind === 'refuse' && d.reason, 'superseded_head');
    // The other PR's pointer is ignored, and this PR's pointer matching is what makes it current.
    assert.deepEqual(decideHead(result(B, [ptr(A, PR + 1), ptr(B)], T2), view(null, null)), {
      kind: 'current',
      advance: true,
      seenAt: T2,
    });
  });

  test('B5: pointers for other pull requests only → ordered by time, as if there were no pointer', () => {
    assert.deepEqual(decideHead(result(B, [ptr(B, PR + 1)], null), view(A, T0)), {
      kind: 'refuse',
      reason: 'no_usable_time',
      detail: 'no head pointer and no completion time',
    });
  });
});

describe('B5: stale redelivery (pointer matches, Task holds another head)', () => {
  test('B5: the Task holds a different head seen later than the delivery → superseded', () => {
    const d = decideHead(result(A, [ptr(A)], T0), view(B, T1));
    assert.equal(d.kind === 'refuse' && d.reason, 'superseded_head');
  });

  test('B5: the Task holds a different head seen at the same instant → superseded (equal is not newer)', () => {
    const d = decideHead(result(A, [ptr(A)], T1), view(B, T1));
    assert.equal(d.kind === 'refuse' && d.reason, 'superseded_head');
  });

  test('B5: the Task holds a different head seen earlier → current, advance (a new push)', () => {
    assert.deepEqual(decideHead(result(A, [ptr(A)], T2), view(B, T1)), { kind: 'current', advance: true, seenAt: T2 });
  });

  test('B5: the Task holds a different head and the delivery has no time → no_usable_time, never "now"', () => {
    const d = decideHead(result(A, [ptr(A)], null), view(B, T1));
    assert.equal(d.kind === 'refuse' && d.reason, 'no_usable_time');
  });

  test('B5: the Task holds a head with no time recorded → the pointer wins, advance', () => {
    assert.deepEqual(decideHead(result(A, [ptr(A)], T0), view(B, null)), {
      kind: 'current',
      advance: true,
      seenAt: T0,
    });
  });
});

describe('B5: no pointer (fork, push-triggered, commit status): completion time orders', () => {
  const TABLE: ReadonlyArray<
    [string, string | null, HeadView, ReturnType<typeof decideHead>['kind'], string | boolean]
  > = [
    ['Task has no head → current, advance', T1, view(null, null), 'current', true],
    ["same commit as the Task's head → current, no advance", T0, view(A, T2), 'current', false],
    ['a newer result for another commit advances', T2, view(B, T1), 'current', true],
    ['an older result for another commit is superseded', T0, view(B, T1), 'refuse', 'superseded_head'],
    ['an equally old result for another commit is superseded', T1, view(B, T1), 'refuse', 'superseded_head'],
    ['Task head with no time recorded → advance', T0, view(B, null), 'current', true],
    ['no usable time → refused, never given "now"', null, view(B, T1), 'refuse', 'no_usable_time'],
    ['no usable time, even with no head yet → refused', null, view(null, null), 'refuse', 'no_usable_time'],
    ["no usable time, even for the Task's own head → refused", null, view(A, T1), 'refuse', 'no_usable_time'],
  ];
  for (const [what, t, task, kind, x] of TABLE) {
    test(`B5: no pointer, ${what}`, () => {
      const d = decideHead(result(A, [], t), task);
      assert.equal(d.kind, kind);
      if (d.kind === 'current') {
        assert.equal(d.advance, x);
        assert.equal(d.seenAt, t);
      } else {
        assert.equal(d.reason, x);
      }
    });
  }

  test('B1: time is compared as an instant, not as text: a Task head time with an offset is honoured', () => {
    // 00:30-02:00 is 02:30Z, later than 01:00Z: the result is older and must not move the head back.
    const older = decideHead(result(A, [], '2024-01-01T01:00:00.000Z'), view(B, '2024-01-01T00:30:00-02:00'));
    assert.equal(older.kind === 'refuse' && older.reason, 'superseded_head');
    // 01:00+02:00 is 23:00Z the day before, earlier than 00:30Z: the result is newer and advances.
    const newer = decideHead(result(A, [], '2024-01-01T00:30:00.000Z'), view(B, '2024-01-01T01:00:00+02:00'));
    assert.deepEqual(newer, { kind: 'current', advance: true, seenAt: '2024-01-01T00:30:00.000Z' });
  });

  test('B1: a stored head time that cannot be parsed never lets another commit move the head', () => {
    const d = decideHead(result(A, [], T2), view(B, 'not a time'));
    assert.equal(d.kind === 'refuse' && d.reason, 'superseded_head');
  });

  test('B1: a sub-second later result advances past a head time written without milliseconds', () => {
    const d = decideHead(result(A, [], '2024-01-01T00:00:00.500Z'), view(B, '2024-01-01T00:00:00Z'));
    assert.equal(d.kind === 'current' && d.advance, true);
  });
});

describe('B1 (property): the head never moves backwards', () => {
  const SHAS = [A, B, C];
  const instant = fc.integer({ min: Date.UTC(2020, 0, 1), max: Date.UTC(2030, 0, 1) });
  /** The same instant in the ISO-8601 forms a stored head time may take. */
  const render = (ms: number, form: number): string => {
    const iso = new Date(ms).toISOString();
    switch (form) {
      case 0:
        return iso; // 2024-01-01T00:00:00.000Z
      case 1:
        return iso.replace(/\.\d{3}Z$/, 'Z'); // GitHub API form, seconds only
      case 2: {
        const off = new Date(ms + 2 * 3600_000).toISOString().replace(/\.\d{3}Z$/, '+02:00');
        return off;
      }
      default: {
        const off = new Date(ms - 5 * 3600_000).toISOString().replace('Z', '-05:00');
        return off;
      }
    }
  };

  test('B1/B5: decideHead never returns advance:true with a seenAt older than or equal to task.ciHeadSeenAt when ciHeadSha differs', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...SHAS),
        fc.constantFrom(...SHAS),
        fc.option(fc.constantFrom(...SHAS)),
        fc.boolean(),
        instant,
        // Times near each other (within ±10 h, down to the millisecond), where ordering matters.
        fc.option(fc.integer({ min: -36_000_000, max: 36_000_000 })),
        fc.option(fc.tuple(fc.integer({ min: -36_000_000, max: 36_000_000 }), fc.integer({ min: 0, max: 3 }))),
        (sha, pointerSha, taskSha, withPointer, base, t, seen) => {
          const completedAt = t === null ? null : new Date(base + t).toISOString();
          const ciHeadSeenAt = seen === null ? null : render(base + seen[0], seen[1]);
          const d = decideHead(
            result(sha, withPointer ? [ptr(pointerSha)] : [], completedAt),
            view(taskSha, ciHeadSeenAt),
          );
          if (d.kind !== 'current' || !d.advance) return;
          if (taskSha !== null && taskSha !== sha && ciHeadSeenAt !== null) {
            assert.ok(d.seenAt !== null, 'an advance over a timed head carries a time');
            assert.ok(
              Date.parse(d.seenAt) > Date.parse(ciHeadSeenAt),
              `advanced to ${d.seenAt} over head seen ${ciHeadSeenAt}`,
            );
          }
        },
      ),
      { numRuns: 5000 },
    );
  });

  test('B5 (property): a result whose pointer names another commit is never current', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...SHAS),
        fc.constantFrom(...SHAS),
        fc.option(fc.constantFrom(...SHAS)),
        fc.option(instant),
        fc.option(instant),
        (sha, head, taskSha, t, seen) => {
          fc.pre(sha !== head);
          const d = decideHead(
            result(sha, [ptr(head)], t === null ? null : new Date(t).toISOString()),
            view(taskSha, seen === null ? null : new Date(seen).toISOString()),
          );
          assert.equal(d.kind === 'refuse' && d.reason, 'superseded_head');
        },
      ),
    );
  });

  test('B5 (property): a result with no pointer and no time is never current', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...SHAS),
        fc.option(fc.constantFrom(...SHAS)),
        fc.option(instant),
        (sha, taskSha, seen) => {
          const d = decideHead(
            result(sha, [], null),
            view(taskSha, seen === null ? null : new Date(seen).toISOString()),
          );
          assert.equal(d.kind === 'refuse' && d.reason, 'no_usable_time');
        },
      ),
    );
  });
});

describe("B1/B5: a pull request's own head (decision 0019)", () => {
  const pr = (headSha: string, before: string | null, updatedAt: string | null) => ({ headSha, before, updatedAt });

  test("B1: a synchronize off the Task's head moves it whatever the clock says (same second, or earlier)", () => {
    for (const t of [T1, T0]) {
      assert.deepEqual(decidePullRequestHead(pr(B, A, t), view(A, T1)), {
        kind: 'advance',
        seenAt: t,
        move: { by: 'replaces', before: A },
      });
    }
  });

  test("B1: a synchronize off the Task's head with no time still moves it (the push names its parent)", () => {
    assert.deepEqual(decidePullRequestHead(pr(B, A, null), view(A, T1)), {
      kind: 'advance',
      seenAt: null,
      move: { by: 'replaces', before: A },
    });
  });

  test('B1: a pull request event for the head the Task holds changes nothing', () => {
    assert.deepEqual(decidePullRequestHead(pr(A, C, T2), view(A, T0)), { kind: 'hold' });
  });

  test("B1: a Task with no head takes the pull request's head, with or without a time", () => {
    for (const t of [T1, null]) {
      assert.deepEqual(decidePullRequestHead(pr(B, null, t), view(null, null)), {
        kind: 'advance',
        seenAt: t,
        move: { by: 'clock_or_tie' },
      });
    }
  });

  const BY_CLOCK: ReadonlyArray<[string, string | null, string | null, HeadView, string | boolean]> = [
    ['an opened/reopened/edited event later than the head moves it', null, T2, view(A, T1), true],
    ['an event the same instant as the head moves it (the pull request wins a tie)', null, T1, view(A, T1), true],
    ['a synchronize from another commit, later than the head, moves it', C, T2, view(A, T1), true],
    ['a stale synchronize redelivered after a later push is superseded', C, T0, view(A, T1), 'superseded_head'],
    ['a stale event older than the head is superseded', null, T0, view(A, T1), 'superseded_head'],
    ['an event with no time that does not replace the head is refused', null, null, view(A, T1), 'no_usable_time'],
    ['a head with no time recorded yields', null, T0, view(A, null), true],
    ['a head time that cannot be parsed never yields', null, T2, view(A, 'not a time'), 'superseded_head'],
  ];
  for (const [what, before, t, task, x] of BY_CLOCK) {
    test(`B1: not the push off the Task's head, so the clock orders: ${what}`, () => {
      const d = decidePullRequestHead(pr(B, before, t), task);
      if (x === true) assert.deepEqual(d, { kind: 'advance', seenAt: t, move: { by: 'clock_or_tie' } });
      else assert.equal(d.kind === 'refuse' && d.reason, x);
    });
  }

  test('B1 (property): a pull request event moves the head by the clock only when not older, or off the commit its push replaced', () => {
    const SHAS = [A, B, C];
    const instant = fc.integer({ min: Date.UTC(2020, 0, 1), max: Date.UTC(2030, 0, 1) });
    fc.assert(
      fc.property(
        fc.constantFrom(...SHAS),
        fc.option(fc.constantFrom(...SHAS)),
        fc.option(fc.constantFrom(...SHAS)),
        fc.option(instant),
        fc.option(instant),
        (head, before, taskSha, t, seen) => {
          const updatedAt = t === null ? null : new Date(t).toISOString();
          const ciHeadSeenAt = seen === null ? null : new Date(seen).toISOString();
          const d = decidePullRequestHead(pr(head, before, updatedAt), view(taskSha, ciHeadSeenAt));
          if (taskSha === head) return assert.equal(d.kind, 'hold');
          if (d.kind !== 'advance') return;
          if (d.move.by === 'replaces') return assert.equal(d.move.before, taskSha);
          if (taskSha !== null && ciHeadSeenAt !== null) {
            assert.ok(d.seenAt !== null && Date.parse(d.seenAt) >= Date.parse(ciHeadSeenAt));
          }
        },
      ),
      { numRuns: 2000 },
    );
  });
});
