// SPEC K3, K4, K6, K7, K9, G1: the guards' closed list of reasons and their notice wording.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { GUARD_STOP_WHY } from './guards.js';
import { GUARD_REFUSALS, GUARD_STOP_REASONS } from './reasons.js';

describe("G1: the guards' reasons", () => {
  test('G1: the stop reasons are the seven the guards give (issue 36: the bound on diff growth)', () => {
    assert.deepEqual(
      [...GUARD_STOP_REASONS],
      [
        'thrash_repeat',
        'thrash_aba',
        'forbidden_change',
        'cost_ceiling',
        'wake_cap_window',
        'wake_cap_since_human',
        'diff_too_large',
      ],
    );
  });

  test('G1: every stop reason has notice wording, and nothing else does', () => {
    assert.deepEqual(Object.keys(GUARD_STOP_WHY).sort(), [...GUARD_STOP_REASONS].sort());
    for (const r of GUARD_STOP_REASONS) assert.ok(GUARD_STOP_WHY[r].length > 0);
  });

  test('K7: one attempt in flight is a refusal, not a stop', () => {
    assert.deepEqual([...GUARD_REFUSALS], ['attempt_in_flight']);
    assert.ok(!(GUARD_STOP_REASONS as readonly string[]).includes('attempt_in_flight'));
  });
});
