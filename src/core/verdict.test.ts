// SPEC B3, A4: what a completed CI result means for the loop.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { verdictOfConclusion, verdictOfStatusState, NOT_COMPLETED_STATUSES, type Verdict } from './verdict.js';

const CONCLUSIONS: ReadonlyArray<[string | null | undefined, Verdict]> = [
  ['failure', 'red'],
  ['timed_out', 'red'],
  ['action_required', 'red'],
  ['startup_failure', 'red'],
  ['success', 'green'],
  ['cancelled', 'inconclusive'],
  ['neutral', 'inconclusive'],
  ['skipped', 'inconclusive'],
  ['stale', 'inconclusive'],
  [null, 'unsettled'],
  [undefined, 'unsettled'],
  ['', 'unsettled'],
];

describe('B3: verdict of a check run / suite / workflow conclusion', () => {
  for (const [conclusion, verdict] of CONCLUSIONS) {
    test(`B3: conclusion ${JSON.stringify(conclusion) ?? 'undefined'} is ${verdict}`, () => {
      assert.equal(verdictOfConclusion(conclusion), verdict);
    });
  }

  test('A4: a conclusion GitHub may add later is unsettled — never red, never green', () => {
    assert.equal(verdictOfConclusion('some_future_conclusion'), 'unsettled');
  });

  test('B3 (property): only "success" is green and only the four red conclusions are red', () => {
    const red = new Set(['failure', 'timed_out', 'action_required', 'startup_failure']);
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.constantFrom(...CONCLUSIONS.map(([c]) => c ?? ''))), (c) => {
        const v = verdictOfConclusion(c);
        assert.equal(v === 'green', c === 'success');
        assert.equal(v === 'red', red.has(c));
      }),
    );
  });
});

const STATES: ReadonlyArray<[string, Verdict]> = [
  ['failure', 'red'],
  ['error', 'red'],
  ['success', 'green'],
  ['pending', 'unsettled'],
  ['something_else', 'unsettled'],
];

describe('B3: verdict of a commit status state', () => {
  for (const [state, verdict] of STATES) {
    test(`B3: status state "${state}" is ${verdict}`, () => {
      assert.equal(verdictOfStatusState(state), verdict);
    });
  }
});

describe('A4: statuses that are dropped at the edge', () => {
  for (const s of ['queued', 'in_progress', 'requested', 'waiting', 'pending']) {
    test(`A4: "${s}" is not completed and is dropped`, () => {
      assert.ok(NOT_COMPLETED_STATUSES.has(s));
    });
  }
  for (const s of ['completed', 'success', 'failure', 'error']) {
    test(`A4: "${s}" is a completed result and is kept`, () => {
      assert.ok(!NOT_COMPLETED_STATUSES.has(s));
    });
  }
});
