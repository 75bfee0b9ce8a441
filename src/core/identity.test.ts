// SPEC A3: the identity of a CI result is its whole dedupe story.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { ciIdentity, deliveryIdentity, type CiIdentityInput } from './identity.js';

const SHA = 'ec26c3e57ca3a959ca5aad62de7213c562f8c821';
const R = 'octo/repo';

const TABLE: ReadonlyArray<[string, CiIdentityInput, string]> = [
  [
    'a completed check run with a conclusion',
    { kind: 'run', repository: R, sha: SHA, id: 42, status: 'completed', conclusion: 'failure' },
    `check:${R}@${SHA}:run:42:completed:failure`,
  ],
  [
    'a completed check run with no conclusion omits the conclusion',
    { kind: 'run', repository: R, sha: SHA, id: 42, status: 'completed', conclusion: null },
    `check:${R}@${SHA}:run:42:completed`,
  ],
  [
    'a queued check run',
    { kind: 'run', repository: R, sha: SHA, id: 42, status: 'queued', conclusion: null },
    `check:${R}@${SHA}:run:42:queued`,
  ],
  [
    'an empty conclusion is omitted',
    { kind: 'run', repository: R, sha: SHA, id: 42, status: 'completed', conclusion: '' },
    `check:${R}@${SHA}:run:42:completed`,
  ],
  [
    'a check suite',
    { kind: 'suite', repository: R, sha: SHA, id: 7, status: 'completed', conclusion: 'success' },
    `check:${R}@${SHA}:suite:7:completed:success`,
  ],
  [
    'a workflow run carries its attempt',
    { kind: 'workflow', repository: R, sha: SHA, id: 9, attempt: 3, status: 'completed', conclusion: 'timed_out' },
    `check:${R}@${SHA}:workflow:9#3:completed:timed_out`,
  ],
  [
    'a workflow run with no conclusion',
    { kind: 'workflow', repository: R, sha: SHA, id: 9, attempt: 1, status: 'completed', conclusion: null },
    `check:${R}@${SHA}:workflow:9#1:completed`,
  ],
  [
    'a commit status',
    { kind: 'status', repository: R, sha: SHA, context: 'ci/circleci: build', state: 'error' },
    `check:${R}@${SHA}:status:ci/circleci: build:error`,
  ],
];

describe('A3: CI identity formats', () => {
  for (const [what, input, expected] of TABLE) {
    test(`A3: ${what} → ${expected}`, () => {
      assert.equal(ciIdentity(input), expected);
    });
  }
});

describe('A3: redelivery vs re-run', () => {
  test('A3: the same result twice yields the same identity (redelivery stores nothing new)', () => {
    fc.assert(
      fc.property(fc.nat(), fc.nat(), fc.constantFrom('success', 'failure', null), (id, attempt, conclusion) => {
        const i: CiIdentityInput = {
          kind: 'workflow',
          repository: R,
          sha: SHA,
          id,
          attempt,
          status: 'completed',
          conclusion,
        };
        assert.equal(ciIdentity(i), ciIdentity({ ...i }));
      }),
    );
  });

  test('A3: a re-run (new check run id) is a new identity', () => {
    fc.assert(
      fc.property(fc.nat(), fc.nat(), (a, b) => {
        fc.pre(a !== b);
        const base = { kind: 'run', repository: R, sha: SHA, status: 'completed', conclusion: 'failure' } as const;
        assert.notEqual(ciIdentity({ ...base, id: a }), ciIdentity({ ...base, id: b }));
      }),
    );
  });

  test('A3: a re-run (new workflow attempt number) is a new identity', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 50 }), fc.integer({ min: 1, max: 50 }), (a, b) => {
        fc.pre(a !== b);
        const base = {
          kind: 'workflow',
          repository: R,
          sha: SHA,
          id: 5,
          status: 'completed',
          conclusion: 'failure',
        } as const;
        assert.notEqual(ciIdentity({ ...base, attempt: a }), ciIdentity({ ...base, attempt: b }));
      }),
    );
  });

  test('A3: a run and a suite with the same id are different results', () => {
    const base = { repository: R, sha: SHA, id: 1, status: 'completed', conclusion: 'failure' } as const;
    assert.notEqual(ciIdentity({ kind: 'run', ...base }), ciIdentity({ kind: 'suite', ...base }));
  });

  test('A3: the same check on another commit is a different result', () => {
    const base = { kind: 'run', repository: R, id: 1, status: 'completed', conclusion: 'failure' } as const;
    assert.notEqual(ciIdentity({ ...base, sha: 'a'.repeat(40) }), ciIdentity({ ...base, sha: 'b'.repeat(40) }));
  });
});

describe('A3: non-CI deliveries dedupe on the delivery GUID', () => {
  test('A3: deliveryIdentity is delivery:<event>:<guid>', () => {
    assert.equal(
      deliveryIdentity('pull_request', '72d3162e-cc78-11e3-81ab-4c9367dc0958'),
      'delivery:pull_request:72d3162e-cc78-11e3-81ab-4c9367dc0958',
    );
  });
  test('A3: another GUID or another event is another identity', () => {
    assert.notEqual(deliveryIdentity('ping', 'g1'), deliveryIdentity('ping', 'g2'));
    assert.notEqual(deliveryIdentity('ping', 'g1'), deliveryIdentity('installation', 'g1'));
  });
});
