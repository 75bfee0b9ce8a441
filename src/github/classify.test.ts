// SPEC A2–A4, B3, B5: classifying one verified delivery, against GitHub's own example payloads.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import fc from 'fast-check';
import { classifyDelivery, usableTime, type CheckResult, type Classification } from './classify.js';

type Json = any; // GitHub example payloads, edited freely in tests
const ALL = createRequire(import.meta.url)('@octokit/webhooks-examples/api.github.com/index.json') as {
  name: string;
  examples: Json[];
}[];

function examplesOf(name: string): Json[] {
  const e = ALL.find((x) => x.name === name);
  assert.ok(e && e.examples.length > 0, `examples for ${name}`);
  return e.examples;
}

const CI_EVENTS = ['check_run', 'check_suite', 'workflow_run', 'status'] as const;
const OTHER_EVENTS = [
  'pull_request',
  'pull_request_review',
  'pull_request_review_comment',
  'issue_comment',
  'ping',
  'installation',
  'installation_repositories',
] as const;
const HANDLED = [...CI_EVENTS, ...OTHER_EVENTS] as const;

const GUID = 'guid-1';
const clone = <T>(x: T): T => structuredClone(x);

function asEvent(c: Classification): CheckResult {
  assert.equal(c.kind, 'event', JSON.stringify(c));
  const e = (c as Extract<Classification, { kind: 'event' }>).event;
  assert.equal(e.kind, 'ci.result');
  return e as CheckResult;
}
function identityOf(c: Classification): string {
  if (c.kind === 'event') return c.event.identity;
  if (c.kind === 'dropped' || c.kind === 'ignored') return c.identity;
  assert.fail(`no identity: ${JSON.stringify(c)}`);
}

/** The CI object of a CI payload and the A3 identity it must have, computed from the payload's own fields. */
function expectedCi(
  name: (typeof CI_EVENTS)[number],
  p: Json,
): { status: string; completed: boolean; identity: string } {
  const repo = String(p.repository.full_name).toLowerCase();
  const tail = (status: string, conclusion: string | null | undefined) =>
    `${status}${conclusion ? `:${conclusion}` : ''}`;
  switch (name) {
    case 'check_run': {
      const r = p.check_run;
      return {
        status: r.status,
        completed: r.status === 'completed',
        identity: `check:${repo}@${r.head_sha}:run:${r.id}:${tail(r.status, r.conclusion)}`,
      };
    }
    case 'check_suite': {
      const s = p.check_suite;
      return {
        status: s.status,
        completed: s.status === 'completed',
        identity: `check:${repo}@${s.head_sha}:suite:${s.id}:${tail(s.status, s.conclusion)}`,
      };
    }
    case 'workflow_run': {
      const w = p.workflow_run;
      return {
        status: w.status,
        completed: w.status === 'completed',
        identity: `check:${repo}@${w.head_sha}:workflow:${w.id}#${w.run_attempt ?? 1}:${tail(w.status, w.conclusion)}`,
      };
    }
    case 'status':
      return {
        status: p.state,
        completed: p.state !== 'pending',
        identity: `check:${repo}@${p.sha}:status:${p.context}:${p.state}`,
      };
  }
}

describe('A2: every GitHub example of a handled event is classified, never rejected', () => {
  for (const name of HANDLED) {
    examplesOf(name).forEach((example, i) => {
      test(`A2: ${name} example #${i} (${example.action ?? 'no action'}) is classified without throwing and not rejected`, () => {
        const before = JSON.stringify(example);
        const c = classifyDelivery(name, example, GUID);
        assert.notEqual(c.kind, 'rejected', JSON.stringify(c));
        assert.notEqual(c.kind, 'unknown_event');
        assert.equal(JSON.stringify(example), before, 'the payload is not mutated');
      });
    });
  }

  test('A2: the example set covers every handled event', () => {
    for (const name of HANDLED) assert.ok(examplesOf(name).length > 0, name);
  });
});

describe('A3/A4: CI examples — dropped when not completed, an event with its exact identity when completed', () => {
  for (const name of CI_EVENTS) {
    examplesOf(name).forEach((example, i) => {
      const exp = expectedCi(name, example);
      if (!exp.completed) {
        test(`A4: ${name} example #${i} with status "${exp.status}" is dropped as not_completed`, () => {
          assert.deepEqual(classifyDelivery(name, example, GUID), {
            kind: 'dropped',
            reason: 'not_completed',
            identity: exp.identity,
            repository: String(example.repository.full_name).toLowerCase(),
          });
        });
      } else {
        test(`A3: ${name} example #${i} (completed) is a ci.result event with identity ${exp.identity}`, () => {
          const e = asEvent(classifyDelivery(name, example, GUID));
          assert.equal(e.source, 'github');
          assert.equal(e.identity, exp.identity);
          assert.equal(e.repository, String(example.repository.full_name).toLowerCase());
        });
      }

      test(`A3: ${name} example #${i} classified twice (a byte-identical redelivery, another GUID) has the same identity`, () => {
        const first = identityOf(classifyDelivery(name, example, GUID));
        const again = identityOf(classifyDelivery(name, JSON.parse(JSON.stringify(example)), 'guid-2'));
        assert.equal(again, first);
      });
    });
  }

  const EXACT: ReadonlyArray<[string, number, string]> = [
    [
      'check_run',
      1,
      'check:codertocat/hello-world@ec26c3e57ca3a959ca5aad62de7213c562f8c821:run:128620228:completed:failure',
    ],
    [
      'check_run',
      2,
      'check:codertocat/hello-world@ec26c3e57ca3a959ca5aad62de7213c562f8c821:run:128620228:completed:success',
    ],
    [
      'check_suite',
      0,
      'check:codertocat/hello-world@ec26c3e57ca3a959ca5aad62de7213c562f8c821:suite:118578147:completed:success',
    ],
    [
      'workflow_run',
      1,
      'check:octo-org/octo-repo@3484a3fb816e0859fd6e1cea078d76385ff50625:workflow:289782451#1:completed:success',
    ],
    [
      'workflow_run',
      4,
      'check:octo-org/octo-repo@3484a3fb816e0859fd6e1cea078d76385ff50625:workflow:289782451#1:completed:action_required',
    ],
    ['status', 0, 'check:codertocat/hello-world@6113728f27ae82c7b1a177c8d03f9e96e0adf246:status:default:success'],
  ];
  for (const [name, i, identity] of EXACT) {
    test(`A3: ${name} example #${i} has exactly the identity ${identity}`, () => {
      assert.equal(identityOf(classifyDelivery(name, examplesOf(name)[i], GUID)), identity);
    });
  }

  test('A4: the workflow_run example with action "completed" but status "queued" is dropped (status decides, not action)', () => {
    const ex = examplesOf('workflow_run').find((e) => e.action === 'completed' && e.workflow_run.status === 'queued');
    assert.ok(ex, 'the example exists');
    const c = classifyDelivery('workflow_run', ex, GUID);
    assert.equal(c.kind, 'dropped');
    assert.equal(c.kind === 'dropped' && c.reason, 'not_completed');
  });

  test('A4: the check_run "requested_action" example, still in_progress, is dropped', () => {
    const ex = examplesOf('check_run').find((e) => e.action === 'requested_action');
    assert.ok(ex);
    assert.equal(classifyDelivery('check_run', ex, GUID).kind, 'dropped');
  });
});

describe('A4: not-completed statuses are dropped at the edge', () => {
  const completedRun = () => clone(examplesOf('check_run')[1]);
  for (const status of ['queued', 'in_progress', 'requested', 'waiting', 'pending']) {
    test(`A4: a check run with status "${status}" is dropped as not_completed`, () => {
      const p = completedRun();
      p.check_run.status = status;
      p.check_run.conclusion = null;
      const c = classifyDelivery('check_run', p, GUID);
      assert.equal(c.kind === 'dropped' && c.reason, 'not_completed');
    });
    test(`A4: a check suite with status "${status}" is dropped as not_completed`, () => {
      const p = clone(examplesOf('check_suite')[0]);
      p.check_suite.status = status;
      assert.equal(classifyDelivery('check_suite', p, GUID).kind, 'dropped');
    });
    test(`A4: a workflow run with status "${status}" is dropped as not_completed`, () => {
      const p = clone(examplesOf('workflow_run')[1]);
      p.workflow_run.status = status;
      assert.equal(classifyDelivery('workflow_run', p, GUID).kind, 'dropped');
    });
  }

  test('A4: a check suite or workflow run with no status at all is dropped, not taken as completed', () => {
    const s = clone(examplesOf('check_suite')[0]);
    s.check_suite.status = null;
    assert.equal(classifyDelivery('check_suite', s, GUID).kind, 'dropped');
    const w = clone(examplesOf('workflow_run')[1]);
    delete w.workflow_run.status;
    assert.equal(classifyDelivery('workflow_run', w, GUID).kind, 'dropped');
  });

  test('A4: a commit status in state "pending" is dropped as not_completed', () => {
    const p = clone(examplesOf('status')[0]);
    p.state = 'pending';
    assert.deepEqual(classifyDelivery('status', p, GUID), {
      kind: 'dropped',
      reason: 'not_completed',
      identity: 'check:codertocat/hello-world@6113728f27ae82c7b1a177c8d03f9e96e0adf246:status:default:pending',
      repository: 'codertocat/hello-world',
    });
  });
});

describe('A4/B3: every completed verdict is stored, with its verdict', () => {
  const CONCLUSIONS: ReadonlyArray<[string | null, string]> = [
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
  ];
  for (const name of ['check_run', 'check_suite', 'workflow_run'] as const) {
    for (const [conclusion, verdict] of CONCLUSIONS) {
      test(`A4/B3: a completed ${name} with conclusion ${JSON.stringify(conclusion)} is stored as ${verdict}`, () => {
        const p = clone(
          examplesOf(name).find((e) => (e.check_run ?? e.check_suite ?? e.workflow_run).status === 'completed'),
        );
        (p.check_run ?? p.check_suite ?? p.workflow_run).conclusion = conclusion;
        const e = asEvent(classifyDelivery(name, p, GUID));
        assert.equal(e.verdict, verdict);
        assert.equal(e.conclusion, conclusion);
        assert.ok(e.identity.endsWith(conclusion === null ? ':completed' : `:completed:${conclusion}`), e.identity);
      });
    }
  }

  test('A4: a completed check with its conclusion field absent is unsettled, never a pass', () => {
    const p = clone(examplesOf('check_run')[1]);
    delete p.check_run.conclusion;
    const e = asEvent(classifyDelivery('check_run', p, GUID));
    assert.equal(e.verdict, 'unsettled');
    assert.equal(e.conclusion, null);
  });

  const STATES: ReadonlyArray<[string, string]> = [
    ['failure', 'red'],
    ['error', 'red'],
    ['success', 'green'],
  ];
  for (const [state, verdict] of STATES) {
    test(`B3: a commit status in state "${state}" is stored as ${verdict}`, () => {
      const p = clone(examplesOf('status')[0]);
      p.state = state;
      const e = asEvent(classifyDelivery('status', p, GUID));
      assert.equal(e.verdict, verdict);
      assert.equal(e.ciKind, 'status');
      assert.equal(
        e.identity,
        `check:codertocat/hello-world@6113728f27ae82c7b1a177c8d03f9e96e0adf246:status:default:${state}`,
      );
    });
  }

  test('A3: the completed-then-failed check_run example carries the check details', () => {
    const e = asEvent(classifyDelivery('check_run', examplesOf('check_run')[1], GUID));
    assert.deepEqual(
      {
        ciKind: e.ciKind,
        kind: e.kind,
        sha: e.sha,
        name: e.name,
        verdict: e.verdict,
        completedAt: e.completedAt,
        branch: e.branch,
        url: e.url,
      },
      {
        ciKind: 'run',
        kind: 'ci.result',
        sha: 'ec26c3e57ca3a959ca5aad62de7213c562f8c821',
        name: 'Octocoders-linter',
        verdict: 'red',
        completedAt: '2019-05-15T15:21:12.000Z',
        branch: 'changes',
        url: 'https://github.com/Codertocat/Hello-World/runs/128620228',
      },
    );
  });

  test("C6: a check run's output title, summary and text are its failing text", () => {
    const p = clone(examplesOf('check_run')[1]);
    p.check_run.output = { title: 'Lint failed', summary: '2 errors', text: 'src/a.ts:1 no-unused-vars' };
    assert.equal(
      asEvent(classifyDelivery('check_run', p, GUID)).output,
      'Lint failed\n\n2 errors\n\nsrc/a.ts:1 no-unused-vars',
    );
    p.check_run.output = null;
    assert.equal(asEvent(classifyDelivery('check_run', p, GUID)).output, '');
  });
});

describe('A3: a re-run is a new result', () => {
  test('A3: a new check run id gives a new identity', () => {
    const p = clone(examplesOf('check_run')[1]);
    const before = identityOf(classifyDelivery('check_run', p, GUID));
    p.check_run.id += 1;
    const after = identityOf(classifyDelivery('check_run', p, GUID));
    assert.notEqual(after, before);
    assert.equal(
      after,
      'check:codertocat/hello-world@ec26c3e57ca3a959ca5aad62de7213c562f8c821:run:128620229:completed:failure',
    );
  });

  test('A3: a new check suite id gives a new identity', () => {
    const p = clone(examplesOf('check_suite')[0]);
    const before = identityOf(classifyDelivery('check_suite', p, GUID));
    p.check_suite.id = 999;
    assert.notEqual(identityOf(classifyDelivery('check_suite', p, GUID)), before);
  });

  test('A3: a new workflow run_attempt gives a new identity', () => {
    const p = clone(examplesOf('workflow_run')[4]);
    const before = identityOf(classifyDelivery('workflow_run', p, GUID));
    p.workflow_run.run_attempt = 2;
    const after = identityOf(classifyDelivery('workflow_run', p, GUID));
    assert.notEqual(after, before);
    assert.equal(
      after,
      'check:octo-org/octo-repo@3484a3fb816e0859fd6e1cea078d76385ff50625:workflow:289782451#2:completed:action_required',
    );
  });

  test('A3: a workflow run with no run_attempt is attempt 1', () => {
    const p = clone(examplesOf('workflow_run')[4]);
    delete p.workflow_run.run_attempt;
    assert.match(identityOf(classifyDelivery('workflow_run', p, GUID)), /:workflow:289782451#1:/);
  });

  test('A3 (property): any two different check run ids give different identities; the same id the same identity', () => {
    fc.assert(
      fc.property(fc.nat(), fc.nat(), (a, b) => {
        const p = clone(examplesOf('check_run')[1]);
        const q = clone(p);
        p.check_run.id = a;
        q.check_run.id = b;
        assert.equal(
          identityOf(classifyDelivery('check_run', p, GUID)) === identityOf(classifyDelivery('check_run', q, 'guid-2')),
          a === b,
        );
      }),
      { numRuns: 200 },
    );
  });

  test('A3: the repository in an identity is lower-case', () => {
    const p = clone(examplesOf('check_run')[1]);
    p.repository.full_name = 'CoDeRtOcAt/HELLO-world';
    const e = asEvent(classifyDelivery('check_run', p, GUID));
    assert.equal(e.repository, 'codertocat/hello-world');
    assert.ok(e.identity.startsWith('check:codertocat/hello-world@'));
  });
});

describe('A1/A2: unknown events and shape mismatches', () => {
  for (const name of [
    'star',
    'push',
    'fork',
    'deployment_status',
    'check_runs',
    'Check_Run',
    '',
    '__proto__',
    'constructor',
    'toString',
    'hasOwnProperty',
  ]) {
    test(`A1: event "${name}" is unknown_event (acknowledged, nothing stored)`, () => {
      assert.deepEqual(classifyDelivery(name, examplesOf('check_run')[1], GUID), { kind: 'unknown_event' });
    });
  }

  const MISMATCH: ReadonlyArray<[string, string, () => unknown]> = [
    ['a check_run body under the status header', 'status', () => examplesOf('check_run')[1]],
    ['a status body under the check_run header', 'check_run', () => examplesOf('status')[0]],
    ['a pull_request body under the check_suite header', 'check_suite', () => examplesOf('pull_request')[0]],
    ['a check_suite body under the workflow_run header', 'workflow_run', () => examplesOf('check_suite')[0]],
    ['a ping body under the pull_request header', 'pull_request', () => examplesOf('ping')[0]],
    ['a check_run body under the installation header', 'installation', () => examplesOf('check_run')[1]],
    ['null', 'check_run', () => null],
    ['an array', 'status', () => []],
    ['a string', 'workflow_run', () => 'completed'],
    [
      'a check_run whose id is a string',
      'check_run',
      () => {
        const p = clone(examplesOf('check_run')[1]);
        p.check_run.id = String(p.check_run.id);
        return p;
      },
    ],
    [
      'a check_run with no repository',
      'check_run',
      () => {
        const p = clone(examplesOf('check_run')[1]);
        delete p.repository;
        return p;
      },
    ],
  ];
  for (const [what, name, body] of MISMATCH) {
    test(`A1: ${what} is rejected as shape_mismatch`, () => {
      const c = classifyDelivery(name, body(), GUID);
      assert.equal(c.kind, 'rejected', JSON.stringify(c));
      assert.equal(c.kind === 'rejected' && c.reason, 'shape_mismatch');
      assert.ok(c.kind === 'rejected' && c.detail.startsWith(`${name} body: `));
    });
  }

  test('A1 (property): classifyDelivery never throws on arbitrary JSON under any handled header', () => {
    fc.assert(
      fc.property(fc.constantFrom(...HANDLED), fc.jsonValue(), (name, body) => {
        const c = classifyDelivery(name, body, GUID);
        assert.ok(['rejected', 'ignored', 'dropped', 'event'].includes(c.kind));
      }),
      { numRuns: 500 },
    );
  });
});

describe('B5: head pointers and forks', () => {
  test("B5: the check_run example's pull_requests become head pointers", () => {
    const e = asEvent(classifyDelivery('check_run', examplesOf('check_run')[1], GUID));
    assert.deepEqual(e.pointers, [{ number: 2, headSha: 'ec26c3e57ca3a959ca5aad62de7213c562f8c821', fork: false }]);
    assert.equal(e.fork, false);
  });

  test('B5: every completed check_run / check_suite / workflow_run example has one pointer per pull request, with its head sha', () => {
    for (const name of ['check_run', 'check_suite', 'workflow_run'] as const) {
      for (const ex of examplesOf(name)) {
        const c = classifyDelivery(name, ex, GUID);
        if (c.kind !== 'event') continue;
        const prs = (ex.check_run ?? ex.check_suite ?? ex.workflow_run).pull_requests as Json[];
        assert.deepEqual(
          (c.event as CheckResult).pointers,
          prs.map((pr) => ({ number: pr.number, headSha: pr.head.sha, fork: false })),
        );
      }
    }
  });

  test('B5: several pull requests on one check run give several pointers', () => {
    const p = clone(examplesOf('check_run')[1]);
    const second = clone(p.check_run.pull_requests[0]);
    second.number = 3;
    second.head.sha = 'f'.repeat(40);
    p.check_run.pull_requests.push(second);
    assert.deepEqual(
      asEvent(classifyDelivery('check_run', p, GUID)).pointers.map((x) => [x.number, x.headSha]),
      [
        [2, 'ec26c3e57ca3a959ca5aad62de7213c562f8c821'],
        [3, 'f'.repeat(40)],
      ],
    );
  });

  test('B5: a push-triggered check run with no pull requests has no pointer', () => {
    const p = clone(examplesOf('check_run')[1]);
    p.check_run.pull_requests = [];
    const e = asEvent(classifyDelivery('check_run', p, GUID));
    assert.deepEqual(e.pointers, []);
    assert.equal(e.fork, false);
  });

  for (const name of ['check_run', 'check_suite', 'workflow_run'] as const) {
    test(`D: a ${name} whose pull request head repo differs from its base repo is a fork`, () => {
      const p = clone(
        examplesOf(name).find((e) => {
          const o = e.check_run ?? e.check_suite ?? e.workflow_run;
          return o.status === 'completed' && o.pull_requests.length > 0;
        }),
      );
      const o = p.check_run ?? p.check_suite ?? p.workflow_run;
      o.pull_requests[0].head.repo.id = 1;
      const e = asEvent(classifyDelivery(name, p, GUID));
      assert.equal(e.pointers[0]!.fork, true);
      assert.equal(e.fork, true);
    });
  }

  test('D: a workflow_run whose head_repository is another repo is a fork', () => {
    const p = clone(examplesOf('workflow_run')[4]);
    p.workflow_run.head_repository.full_name = 'mallory/octo-repo';
    p.workflow_run.head_repository.id = 1;
    assert.equal(asEvent(classifyDelivery('workflow_run', p, GUID)).fork, true);
  });

  test('D: the queued workflow_run example (head_repository octo-org/octo-repo, repository codertocat/hello-world) is a fork once completed', () => {
    const p = clone(examplesOf('workflow_run')[0]);
    p.workflow_run.status = 'completed';
    p.workflow_run.conclusion = 'failure';
    assert.equal(asEvent(classifyDelivery('workflow_run', p, GUID)).fork, true);
  });

  test('D: a workflow_run whose head_repository is the same repo in other letter case is not a fork', () => {
    const p = clone(examplesOf('workflow_run')[4]);
    p.workflow_run.head_repository.full_name = 'Octo-Org/Octo-Repo';
    assert.equal(asEvent(classifyDelivery('workflow_run', p, GUID)).fork, false);
  });

  test('B5: a commit status carries no pointer and is not a fork', () => {
    const p = clone(examplesOf('status')[0]);
    p.state = 'failure';
    const e = asEvent(classifyDelivery('status', p, GUID));
    assert.deepEqual(e.pointers, []);
    assert.equal(e.fork, false);
  });

  test("P3: fixloop's own `fixloop` status is ignored, whatever its state, so it never rings the loop", () => {
    for (const state of ['failure', 'error', 'pending', 'success']) {
      const p = clone(examplesOf('status')[0]);
      p.state = state;
      p.context = 'fixloop';
      const c = classifyDelivery('status', p, GUID);
      assert.equal(c.kind, 'ignored', state);
      assert.equal(c.kind === 'ignored' && c.reason, 'own_status');
    }
    const other = clone(examplesOf('status')[0]);
    other.state = 'failure';
    other.context = 'ci/fixloop';
    assert.equal(classifyDelivery('status', other, GUID).kind, 'event');
  });

  test('B5: a commit status names its branch only when exactly one branch holds the commit', () => {
    const p = clone(examplesOf('status')[0]);
    assert.equal(asEvent(classifyDelivery('status', p, GUID)).branch, null); // the example lists three
    p.branches = [p.branches[1]];
    assert.equal(asEvent(classifyDelivery('status', p, GUID)).branch, 'changes');
  });
});

describe('B5: completion time is the delivery\'s own, or none — never "now"', () => {
  test("B5: the status example's offset time is normalised to UTC ISO-8601", () => {
    assert.equal(
      asEvent(classifyDelivery('status', examplesOf('status')[0], GUID)).completedAt,
      '2019-05-15T15:20:55.000Z',
    );
  });

  test('B5: check suite and workflow run use their updated_at', () => {
    assert.equal(
      asEvent(classifyDelivery('check_suite', examplesOf('check_suite')[0], GUID)).completedAt,
      '2019-05-15T15:21:14.000Z',
    );
    assert.equal(
      asEvent(classifyDelivery('workflow_run', examplesOf('workflow_run')[4], GUID)).completedAt,
      '2020-10-05T16:33:24.000Z',
    );
  });

  for (const value of [null, '', 'yesterday', 'not-a-date'] as const) {
    test(`B5: a check run with completed_at ${JSON.stringify(value)} has no usable time (null, not now)`, () => {
      const p = clone(examplesOf('check_run')[1]);
      p.check_run.completed_at = value;
      assert.equal(asEvent(classifyDelivery('check_run', p, GUID)).completedAt, null);
    });
  }

  const TIMES: ReadonlyArray<[string | null | undefined, string | null]> = [
    ['2019-05-15T15:21:12Z', '2019-05-15T15:21:12.000Z'],
    ['2019-05-15T17:21:12+02:00', '2019-05-15T15:21:12.000Z'],
    ['2019-05-15T15:21:12.345Z', '2019-05-15T15:21:12.345Z'],
    [null, null],
    [undefined, null],
    ['', null],
    ['garbage', null],
  ];
  for (const [input, out] of TIMES) {
    test(`B5: usableTime(${JSON.stringify(input) ?? 'undefined'}) is ${JSON.stringify(out)}`, () => {
      assert.equal(usableTime(input), out);
    });
  }
});

describe('A2/D/F: pull request, review and comment deliveries', () => {
  test('A3: non-CI deliveries take the delivery GUID as identity', () => {
    const c = classifyDelivery('pull_request', examplesOf('pull_request')[0], 'abc-123');
    assert.equal(c.kind === 'event' && c.event.identity, 'delivery:pull_request:abc-123');
  });

  examplesOf('pull_request').forEach((ex, i) => {
    test(`D: pull_request example #${i} (${ex.action}) is a pr.changed with prState ${ex.pull_request.state}`, () => {
      const c = classifyDelivery('pull_request', ex, GUID);
      assert.equal(c.kind, 'event');
      const e = (c as Extract<Classification, { kind: 'event' }>).event;
      assert.equal(e.kind, 'pr.changed');
      if (e.kind !== 'pr.changed') return;
      assert.equal(e.number, ex.pull_request.number);
      assert.equal(e.action, ex.action);
      assert.equal(e.headSha, ex.pull_request.head.sha);
      assert.equal(e.branch, ex.pull_request.head.ref);
      assert.equal(e.prState, ex.pull_request.state === 'closed' ? 'closed' : 'open');
      assert.equal(e.fork, false);
    });
  });

  const PR_STATES: ReadonlyArray<[string, boolean | null, 'open' | 'merged' | 'closed']> = [
    ['open', false, 'open'],
    ['open', null, 'open'],
    ['closed', false, 'closed'],
    ['closed', null, 'closed'],
    ['closed', true, 'merged'],
  ];
  for (const [state, merged, prState] of PR_STATES) {
    test(`D: a pull request in state "${state}" with merged=${merged} is ${prState}`, () => {
      const p = clone(examplesOf('pull_request')[3]);
      p.pull_request.state = state;
      p.pull_request.merged = merged;
      const c = classifyDelivery('pull_request', p, GUID);
      assert.equal(c.kind === 'event' && c.event.kind === 'pr.changed' && c.event.prState, prState);
    });
  }

  test('D: a pull request from another repository is a fork', () => {
    const p = clone(examplesOf('pull_request')[0]);
    p.pull_request.head.repo.id = 1;
    const c = classifyDelivery('pull_request', p, GUID);
    assert.equal(c.kind === 'event' && c.event.kind === 'pr.changed' && c.event.fork, true);
  });

  test('D: a pull request whose head repository was deleted is treated as a fork (fail closed)', () => {
    const p = clone(examplesOf('pull_request')[0]);
    p.pull_request.head.repo = null;
    const c = classifyDelivery('pull_request', p, GUID);
    assert.equal(c.kind === 'event' && c.event.kind === 'pr.changed' && c.event.fork, true);
  });

  examplesOf('pull_request_review').forEach((ex, i) => {
    test(`F1: pull_request_review example #${i} (${ex.review.state}) is a review.submitted with its state, author and head`, () => {
      const c = classifyDelivery('pull_request_review', ex, GUID);
      assert.ok(c.kind === 'event' && c.event.kind === 'review.submitted');
      if (c.kind !== 'event' || c.event.kind !== 'review.submitted') return;
      assert.equal(c.event.number, ex.pull_request.number);
      assert.equal(c.event.reviewId, ex.review.id);
      assert.equal(c.event.state, String(ex.review.state).toLowerCase());
      assert.equal(c.event.author, ex.review.user.login);
      assert.equal(c.event.headSha, ex.pull_request.head.sha);
      assert.equal(c.event.identity, 'delivery:pull_request_review:guid-1');
    });
  });

  test('F1: a review state is lower-cased (CHANGES_REQUESTED → changes_requested)', () => {
    const p = clone(examplesOf('pull_request_review')[0]);
    p.review.state = 'CHANGES_REQUESTED';
    const c = classifyDelivery('pull_request_review', p, GUID);
    assert.equal(c.kind === 'event' && c.event.kind === 'review.submitted' && c.event.state, 'changes_requested');
  });

  examplesOf('pull_request_review_comment').forEach((ex, i) => {
    test(`F2: pull_request_review_comment example #${i} (${ex.action}) rings the doorbell for its pull request`, () => {
      const c = classifyDelivery('pull_request_review_comment', ex, GUID);
      assert.ok(c.kind === 'event' && c.event.kind === 'comment');
      if (c.kind !== 'event' || c.event.kind !== 'comment') return;
      assert.equal(c.event.number, ex.pull_request.number);
      assert.equal(c.event.author, ex.comment.user.login);
    });
  });

  examplesOf('issue_comment').forEach((ex, i) => {
    const onPr = ex.issue.pull_request != null;
    test(`F2: issue_comment example #${i} (${ex.action}) on ${onPr ? 'a pull request rings the doorbell' : 'a plain issue is ignored'}`, () => {
      const c = classifyDelivery('issue_comment', ex, GUID);
      if (onPr) assert.equal(c.kind === 'event' && c.event.kind, 'comment');
      else
        assert.deepEqual(c, {
          kind: 'ignored',
          reason: 'not_actionable_event',
          identity: 'delivery:issue_comment:guid-1',
          repository: String(ex.repository.full_name).toLowerCase(),
        });
    });
  });

  test('F2: an issue_comment on a pull request (issue.pull_request present) is a comment', () => {
    const p = clone(examplesOf('issue_comment')[0]);
    p.issue.pull_request = { url: 'https://api.github.com/repos/x/y/pulls/1' };
    const c = classifyDelivery('issue_comment', p, GUID);
    assert.ok(c.kind === 'event' && c.event.kind === 'comment');
    if (c.kind === 'event' && c.event.kind === 'comment') {
      assert.equal(c.event.number, p.issue.number);
      assert.equal(c.event.author, p.comment.user.login);
      assert.equal(c.event.authorType, p.comment.user.type);
    }
  });

  examplesOf('ping').forEach((ex, i) => {
    test(`A2: ping example #${i} is ignored as ping`, () => {
      assert.deepEqual(classifyDelivery('ping', ex, GUID), {
        kind: 'ignored',
        reason: 'ping',
        identity: 'delivery:ping:guid-1',
        repository: null,
      });
    });
  });

  for (const name of ['installation', 'installation_repositories'] as const) {
    examplesOf(name).forEach((ex, i) => {
      test(`A2: ${name} example #${i} (${ex.action}) is ignored as installation`, () => {
        assert.deepEqual(classifyDelivery(name, ex, GUID), {
          kind: 'ignored',
          reason: 'installation',
          identity: `delivery:${name}:guid-1`,
          repository: null,
        });
      });
    });
  }
});
