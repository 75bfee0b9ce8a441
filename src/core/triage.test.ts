// SPEC T1–T3: triage decides, before any attempt is claimed, whether a red result is the agent's to fix.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { INFRASTRUCTURE_SIGNATURES, triage, type TriageInput, type TriageVerdict } from './triage.js';

const input = (over: Partial<TriageInput> & { output?: string; conclusion?: string | null } = {}): TriageInput => ({
  result: {
    name: 'test (ubuntu-latest)',
    conclusion: over.conclusion === undefined ? 'failure' : over.conclusion,
    output: over.output ?? 'FAIL src/cart.test.ts > adds an item\nAssertionError: expected 3 to equal 2',
  },
  flakyChecks: over.flakyChecks ?? [],
  base: over.base ?? null,
  ...(over.heldOnBase ? { heldOnBase: over.heldOnBase } : {}),
});
const kindOf = (v: TriageVerdict) => (v.kind === 'transient' ? `transient:${v.why}` : v.kind);
const MAIN_RED = { ref: 'main', failing: ['test (ubuntu-latest)'] };

const TABLE: ReadonlyArray<[string, TriageInput, string]> = [
  ['a code failure goes to the agent', input(), 'agent'],
  ['T3: action_required is an approval gate', input({ conclusion: 'action_required', output: '' }), 'approval_gate'],
  [
    'T3: the approval gate wins over a base that is red too',
    input({ conclusion: 'action_required', base: MAIN_RED }),
    'approval_gate',
  ],
  ['T1: the same check red on the base branch', input({ base: MAIN_RED }), 'red_on_base'],
  [
    'T1: red on base wins over a transient signature',
    input({ base: MAIN_RED, output: 'No space left on device' }),
    'red_on_base',
  ],
  ['T1: another check red on base does not count', input({ base: { ref: 'main', failing: ['lint'] } }), 'agent'],
  ['T1: a base whose checks pass', input({ base: { ref: 'main', failing: [] } }), 'agent'],
  ['T1: a base not known', input({ base: null }), 'agent'],
  [
    'T1: this result held before, the base green now: still held (it was made against the failing base)',
    input({ base: { ref: 'main', failing: [] }, heldOnBase: ['test (ubuntu-latest)'] }),
    'red_on_base',
  ],
  [
    'T1: another check held does not hold this one',
    input({ base: { ref: 'main', failing: [] }, heldOnBase: ['lint'] }),
    'agent',
  ],
  [
    'T3: the approval gate wins over a hold on base',
    input({ conclusion: 'action_required', heldOnBase: ['test (ubuntu-latest)'] }),
    'approval_gate',
  ],
  [
    'T2: the runner received a shutdown signal',
    input({
      output:
        '##[error]The runner has received a shutdown signal. This can happen when the runner service is stopped, or a manually started runner is canceled.',
    }),
    'transient:infrastructure',
  ],
  [
    'T2: a runner that lost communication',
    input({
      output:
        'The self-hosted runner: ci-7 lost communication with the server. Verify the machine is running and has a healthy network connection.',
    }),
    'transient:infrastructure',
  ],
  [
    'T2: a full disk',
    input({ output: 'System.IO.IOException: No space left on device : /home/runner/runners/2.311.0/_diag/Worker.log' }),
    'transient:infrastructure',
  ],
  ['T2: ENOSPC', input({ output: 'Error: ENOSPC: no space left on device, write' }), 'transient:infrastructure'],
  [
    'T2: an operation cancelled under the job',
    input({ output: 'Error: The operation was canceled.' }),
    'transient:infrastructure',
  ],
  [
    'T2: a container registry rate limit',
    input({ output: 'toomanyrequests: You have reached your pull rate limit.' }),
    'transient:infrastructure',
  ],
  [
    'T2: a check seen red then green on one commit before',
    input({ flakyChecks: ['test (ubuntu-latest)'] }),
    'transient:flaky',
  ],
  ['T2: another check being flaky does not count', input({ flakyChecks: ['lint'] }), 'agent'],
  [
    'a test that merely mentions a signal word is a code failure',
    input({ output: 'FAIL src/shutdown.test.ts > handles a shutdown signal' }),
    'agent',
  ],
];

describe('T1–T3: the triage table', () => {
  for (const [what, i, expected] of TABLE) {
    test(what, () => assert.equal(kindOf(triage(i)), expected));
  }

  test('T1: the words say the check fails on the base branch too, naming it', () => {
    const v = triage(input({ base: { ref: 'develop', failing: ['test (ubuntu-latest)'] } }));
    assert.equal(v.kind, 'red_on_base');
    assert.match(v.kind === 'red_on_base' ? v.detail : '', /failing on develop too/);
  });

  test('T2: the verdict names the signature it matched', () => {
    const v = triage(input({ output: 'lost communication with the server' }));
    assert.match(v.kind === 'transient' ? v.detail : '', /runner lost/);
  });

  test('T2: every signature is recognised by its own words, in any case', () => {
    const words: Record<string, string> = {
      'runner shutdown': 'THE RUNNER HAS RECEIVED A SHUTDOWN SIGNAL',
      'runner lost': 'Lost Communication With The Server',
      'disk full': 'enospc',
      'operation cancelled': 'the operation was cancelled',
      'registry rate limit': 'TOOMANYREQUESTS: You have reached your pull rate limit',
    };
    assert.deepEqual(Object.keys(words).sort(), INFRASTRUCTURE_SIGNATURES.map(([n]) => n).sort());
    for (const [name, text] of Object.entries(words)) {
      const v = triage(input({ output: text }));
      assert.equal(v.kind === 'transient' ? v.detail.endsWith(name) : false, true, name);
    }
  });
});
