import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { afterRefusal, heldBack, isPermissionRefusal } from './host-backoff.js';

describe('host backoff (issue 31)', () => {
  it('the first refusal starts an episode of 1 min and reports; later ones double quietly up to 1 h', () => {
    let r = afterRefusal(null, 0);
    assert.deepEqual(r, { state: { until: 60_000, delayMs: 60_000 }, report: true });
    const delays = [60_000];
    for (let i = 0; i < 8; i++) {
      r = afterRefusal(r.state, r.state.until);
      assert.equal(r.report, false);
      delays.push(r.state.delayMs);
    }
    assert.deepEqual(delays, [60_000, 120_000, 240_000, 480_000, 960_000, 1_920_000, 3_600_000, 3_600_000, 3_600_000]);
  });

  it('holds the write back until the wait is over', () => {
    const { state } = afterRefusal(null, 1000, { initialMs: 10, maxMs: 100 });
    assert.equal(heldBack(state, 1009), true);
    assert.equal(heldBack(state, 1010), false);
    assert.equal(heldBack(null, 0), false);
  });

  it('403 and 404 are permission refusals; a 5xx or no answer is not', () => {
    assert.deepEqual([403, 404, 500, 502, 422, null].map(isPermissionRefusal), [
      true,
      true,
      false,
      false,
      false,
      false,
    ]);
  });
});
