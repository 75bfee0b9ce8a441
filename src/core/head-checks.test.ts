// SPEC T2, T6: a head's checks read back from its stored deliveries (real GitHub payloads).
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { checkRunIdOf, headChecksOf as headChecksBy, type StoredHeadDelivery } from './head-checks.js';
import { classifyDelivery } from '../github/classify.js';
import { checkRunPayload, checkSuitePayload, statusPayload } from '../../test/support/deliveries.js';

/** Stored GitHub deliveries, read again as GitHub's classification reads them. */
const headChecksOf = (s: readonly StoredHeadDelivery[]) => headChecksBy(s, classifyDelivery);

const REPO = { owner: 'acme', name: 'shop', id: 1 };
const SHA = 'a'.repeat(40);
let nextId = 1;
const stored = (
  eventName: string,
  payload: unknown,
  receivedAt = `2026-12-01T10:00:0${nextId % 10}Z`,
): StoredHeadDelivery => ({
  id: nextId++,
  eventName,
  deliveryId: `d-${nextId}`,
  payload: JSON.stringify(payload),
  receivedAt,
});
const run = (id: number, name: string, conclusion: string, output?: string) =>
  stored('check_run', checkRunPayload({ repo: REPO, sha: SHA, id, name, conclusion, ...(output ? { output } : {}) }));

describe('T6: a head read back from its deliveries', () => {
  test('T6: each check run and status is a check; a suite, which sums them up, is not', () => {
    const h = headChecksOf([
      run(1, 'test', 'failure', 'FAIL a'),
      stored('check_suite', checkSuitePayload({ repo: REPO, sha: SHA, id: 9 })),
      stored('status', statusPayload({ repo: REPO, sha: SHA, context: 'ci/legacy', state: 'failure' })),
    ]);
    assert.deepEqual(
      h.checks.map((c) => [c.name, c.verdict]),
      [
        ['test', 'red'],
        ['ci/legacy', 'red'],
      ],
    );
  });

  test('T6: the first delivery of any kind dates the head', () => {
    const first = stored('check_suite', checkSuitePayload({ repo: REPO, sha: SHA, id: 9 }), '2026-12-01T09:00:00Z');
    assert.equal(headChecksOf([first, run(1, 'test', 'failure', 'FAIL a')]).firstAt, '2026-12-01T09:00:00Z');
    assert.equal(headChecksOf([]).firstAt, null);
  });

  test('T2: a check red and then green on the commit is flaky; green then red is not', () => {
    const h = headChecksOf([
      run(1, 'test', 'failure', 'FAIL a'),
      run(2, 'test', 'success'),
      run(3, 'lint', 'success'),
      run(4, 'lint', 'failure', 'lint error'),
    ]);
    assert.deepEqual(h.flaky, ['test']);
  });

  test('T2: the re-run covers the check runs whose latest result is red', () => {
    const h = headChecksOf([
      run(11, 'test', 'failure', 'FAIL'),
      run(12, 'test', 'success'),
      run(13, 'lint', 'failure', 'x'),
    ]);
    assert.deepEqual(h.redCheckRunIds, [13]);
    assert.equal(h.newestRed?.result.name, 'lint');
  });

  test('T5: an empty output is read back as degraded evidence', () => {
    assert.deepEqual(headChecksOf([run(1, 'test', 'failure')]).checks[0]!.evidence, {
      kind: 'degraded',
      why: 'empty_output',
    });
  });

  test('a stored body that is not JSON is skipped', () => {
    assert.deepEqual(headChecksOf([{ ...run(1, 'x', 'failure', 'y'), payload: '{' }]).checks, []);
  });

  test('the check run id is read from a run identity only', () => {
    assert.equal(checkRunIdOf(`check:acme/shop@${SHA}:run:4242:completed:failure`), 4242);
    assert.equal(checkRunIdOf(`check:acme/shop@${SHA}:suite:4242:completed:failure`), null);
  });
});
