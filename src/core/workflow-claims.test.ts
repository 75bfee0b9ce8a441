// Issue 35 item 3: the claim checks of the identity-token exchange, as a table (R2, I2).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { claimedRunId, workflowClaimsVerdict, workflowFileOf, type ExpectedWorkflow } from './workflow-claims.js';

const NOW = new Date('2026-12-05T12:00:00Z');
const s = NOW.getTime() / 1000;
const expected: ExpectedWorkflow = {
  issuer: 'https://token.actions.githubusercontent.com',
  audience: 'https://fixloop.example.com',
  repository: 'acme/shop',
  workflowRunId: '7001',
  workflow: 'fixloop-agent.yml',
  workflowsDir: '.github/workflows',
};
const good = {
  iss: expected.issuer,
  aud: expected.audience,
  exp: s + 300,
  nbf: s - 10,
  iat: s - 10,
  repository: 'acme/shop',
  run_id: '7001',
  workflow_ref: 'acme/shop/.github/workflows/fixloop-agent.yml@refs/heads/agent/fix',
};

const table: Array<[string, Record<string, unknown>, Partial<ExpectedWorkflow>, string]> = [
  ['the right token', {}, {}, 'accept'],
  ['an audience list holding the agent URL', { aud: ['x', expected.audience] }, {}, 'accept'],
  ['the repository in other letter case', { repository: 'Acme/Shop' }, {}, 'accept'],
  [
    'a numeric workflow id (the run id binds the workflow)',
    { workflow_ref: 'acme/shop/.github/workflows/other.yml@refs/heads/x' },
    { workflow: '123' },
    'accept',
  ],
  ['no iss', { iss: undefined }, {}, 'malformed'],
  ['another issuer', { iss: 'https://evil.example' }, {}, 'wrong_issuer'],
  ['another audience', { aud: 'https://other.example' }, {}, 'wrong_audience'],
  ['no audience', { aud: undefined }, {}, 'wrong_audience'],
  ['expired past the leeway', { exp: s - 61 }, {}, 'expired'],
  ['not valid yet past the leeway', { nbf: s + 61 }, {}, 'not_yet_valid'],
  ['another workflow run', { run_id: '7002' }, {}, 'unknown_run'],
  ['no run id', { run_id: undefined }, {}, 'unknown_run'],
  ['another repository', { repository: 'acme/other' }, {}, 'wrong_repository'],
  [
    'another workflow file',
    { workflow_ref: 'acme/shop/.github/workflows/deploy.yml@refs/heads/main' },
    {},
    'wrong_workflow',
  ],
  [
    'a workflow of another repository',
    { workflow_ref: 'evil/shop/.github/workflows/fixloop-agent.yml@refs/heads/main' },
    {},
    'wrong_workflow',
  ],
  ['no workflow_ref', { workflow_ref: undefined }, {}, 'malformed'],
];

for (const [what, change, exp, verdict] of table) {
  test(`R2 identity-token claims: ${what} → ${verdict}`, () => {
    const claims = Object.fromEntries(Object.entries({ ...good, ...change }).filter(([, v]) => v !== undefined));
    const v = workflowClaimsVerdict(claims, { ...expected, ...exp }, NOW);
    assert.equal(v.kind === 'accept' ? 'accept' : v.reason, verdict, JSON.stringify(v));
  });
}

test('R2: the run id is read from a string or a number, never from anything else', () => {
  assert.equal(claimedRunId({ run_id: '42' }), '42');
  assert.equal(claimedRunId({ run_id: 42 }), '42');
  assert.equal(claimedRunId({ run_id: '042' }), null);
  assert.equal(claimedRunId({ run_id: '42; drop' }), null);
  assert.equal(claimedRunId({}), null);
});

test("R2: the workflow file is read from workflow_ref under the repository's .github/workflows only", () => {
  assert.equal(
    workflowFileOf('acme/shop/.github/workflows/a.yaml@refs/heads/main', 'acme/shop', '.github/workflows'),
    'a.yaml',
  );
  assert.equal(
    workflowFileOf('acme/shop/.github/workflows/sub/a.yml@refs/heads/main', 'acme/shop', '.github/workflows'),
    null,
  );
  assert.equal(workflowFileOf('acme/shop-2/.github/workflows/a.yml@x', 'acme/shop', '.github/workflows'), null);
});
