// SPEC V4, K5: the cap on a person's grants of one more attempt across a Task's life.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  DEFAULT_MAX_GRANTS,
  MAX_GRANTS_LIMIT,
  grantAllowance,
  grantCapChange,
  grantCapMessage,
  grantVerdict,
  grantWords,
  parseMaxGrants,
} from './grant-cap.js';

describe('V4: TASK_MAX_GRANTS parsing', () => {
  test('V4: the default is 3 and the limit 20', () => {
    assert.equal(DEFAULT_MAX_GRANTS, 3);
    assert.equal(MAX_GRANTS_LIMIT, 20);
  });

  for (const raw of [undefined, null, '']) {
    test(`V4: unset (${JSON.stringify(raw) ?? 'undefined'}) is the default with no warning`, () => {
      assert.deepEqual(parseMaxGrants(raw), { max: 3, warning: null });
    });
  }

  for (let n = 0; n <= MAX_GRANTS_LIMIT; n++) {
    test(`V4: ${n} (text and number) is accepted with no warning`, () => {
      assert.deepEqual(parseMaxGrants(String(n)), { max: n, warning: null });
      assert.deepEqual(parseMaxGrants(n), { max: n, warning: null });
      assert.deepEqual(parseMaxGrants(` ${n}\n`), { max: n, warning: null });
    });
  }

  for (const raw of ['21', '-1', '1.5', 'three', '0x3', '1e1', ' ', 21, -1, 2.5]) {
    test(`V4: ${JSON.stringify(raw)} falls back to the default with a warning naming the variable`, () => {
      const p = parseMaxGrants(raw);
      assert.equal(p.max, DEFAULT_MAX_GRANTS);
      assert.match(p.warning ?? '', /^TASK_MAX_GRANTS=.* is not an integer 0–20; using 3$/);
    });
  }
});

describe('V4: the grant verdict, for every cap and count up to the limit', () => {
  for (let configured = 0; configured <= 5; configured++) {
    for (const own of [null, 0, 1, 4, MAX_GRANTS_LIMIT]) {
      for (let used = 0; used <= 6; used++) {
        const cap = own ?? configured;
        test(`V4: configured ${configured}, own ${own}, used ${used} → ${used < cap ? 'grant' : 'refuse'}`, () => {
          const a = grantAllowance(used, configured, own);
          assert.deepEqual(a, { used, max: cap, left: Math.max(0, cap - used), own: own !== null });
          const v = grantVerdict(a);
          if (used < cap) assert.deepEqual(v, { kind: 'grant' });
          else assert.deepEqual(v, { kind: 'refuse', reason: 'grant_cap', allowance: a });
        });
      }
    }
  }

  test('V4: the Task’s own cap wins over the configured one, both ways', () => {
    assert.equal(grantVerdict(grantAllowance(3, 3, 5)).kind, 'grant', 'raised for this Task');
    assert.equal(grantVerdict(grantAllowance(1, 3, 1)).kind, 'refuse', 'lowered for this Task');
    assert.equal(grantVerdict(grantAllowance(0, 3, 0)).kind, 'refuse', '0 = no grants');
  });
});

describe('V4: the words people read', () => {
  test('V4: the board and the state comment say how many were used and what is left', () => {
    assert.equal(grantWords(grantAllowance(1, 3, null)), '1 of 3 grants of one more attempt used, 2 left');
    assert.equal(grantWords(grantAllowance(3, 3, null)), '3 of 3 grants of one more attempt used, none left');
    assert.equal(grantWords(grantAllowance(0, 1, null)), '0 of 1 grant of one more attempt used, 1 left');
    assert.equal(grantWords(grantAllowance(0, 0, null)), 'no grants of one more attempt are allowed for this Task');
    assert.equal(grantWords(grantAllowance(2, 3, 1)), '2 of 1 grant of one more attempt used, none left');
  });

  test('V4: the refusal says how many were used and how to open more (configured cap: the API or the configuration)', () => {
    const m = grantCapMessage(7, grantAllowance(3, 3, null));
    assert.match(m, /^No more attempts can be granted: 3 of 3 grants of one more attempt for this Task were used\./);
    assert.match(m, /PUT \/api\/tasks\/7\/budget with \{"maxGrants": 4\} or more/);
    assert.match(m, /TASK_MAX_GRANTS/);
  });

  test('V4: with the Task’s own cap only the API opens more; the configuration is not offered', () => {
    const m = grantCapMessage(9, grantAllowance(1, 3, 1));
    assert.match(m, /1 of 1 grant of one more attempt for this Task was used/);
    assert.match(m, /this Task's own cap opens more: PUT \/api\/tasks\/9\/budget with \{"maxGrants": 2\}/);
    assert.doesNotMatch(m, /TASK_MAX_GRANTS/);
  });

  test('V4: a cap of 0 says no grants are allowed', () => {
    assert.match(grantCapMessage(2, grantAllowance(0, 0, null)), /this Task allows no grants of one more attempt/);
  });
});

describe('V4: a person setting the Task’s own cap', () => {
  test('V4: the same value is unchanged; another names before and after', () => {
    assert.deepEqual(grantCapChange(3, 3, null, null), { kind: 'unchanged' });
    assert.deepEqual(grantCapChange(3, 3, 5, 5), { kind: 'unchanged' });
    assert.deepEqual(grantCapChange(3, 3, null, 5), {
      kind: 'changed',
      before: { used: 3, max: 3, left: 0, own: false },
      after: { used: 3, max: 5, left: 2, own: true },
    });
    assert.deepEqual(grantCapChange(1, 3, 5, null), {
      kind: 'changed',
      before: { used: 1, max: 5, left: 4, own: true },
      after: { used: 1, max: 3, left: 2, own: false },
    });
  });
});
