// Issue 35 item 3: the claim checks of the identity-token exchange, as a table (R2, I2).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  claimedRunId,
  unverifiedIssuer,
  workflowClaimsVerdict,
  workflowFileOf,
  type ExpectedWorkflow,
} from './workflow-claims.js';

const NOW = new Date('2026-12-05T12:00:00Z');
const s = NOW.getTime() / 1000;
const expected: ExpectedWorkflow = {
  claims: { repository: 'repository', run: 'run_id', workflowRef: 'workflow_ref' },
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
  assert.equal(claimedRunId({ run_id: '42' }, 'run_id'), '42');
  assert.equal(claimedRunId({ run_id: 42 }, 'run_id'), '42');
  assert.equal(claimedRunId({ run_id: '042' }, 'run_id'), null);
  assert.equal(claimedRunId({ run_id: '42; drop' }, 'run_id'), null);
  assert.equal(claimedRunId({}, 'run_id'), null);
  assert.equal(claimedRunId({ run_id: '42' }, 'pipeline_id'), null, 'only the named claim counts');
});

// Issue 35 item 6: a CI that names its claims otherwise and has no workflow-file claim (a pipeline
// runs the repository's one pipeline file): the names come from the adapter, the run id binds it.
const pipelineExpected: ExpectedWorkflow = {
  ...expected,
  claims: { repository: 'project_path', run: 'pipeline_id', workflowRef: null },
  repository: 'acme/platform/shop',
  workflowRunId: '9001',
};
const pipelineGood = {
  iss: expected.issuer,
  aud: expected.audience,
  exp: s + 300,
  nbf: s - 10,
  project_path: 'acme/platform/shop',
  pipeline_id: '9001',
};
const pipelineTable: Array<[string, Record<string, unknown>, string]> = [
  ['the right token (no workflow file claimed)', {}, 'accept'],
  ['another pipeline', { pipeline_id: '9002' }, 'unknown_run'],
  ['the run under the other CI’s claim name only', { pipeline_id: undefined, run_id: '9001' }, 'unknown_run'],
  ['another project', { project_path: 'acme/platform/other' }, 'wrong_repository'],
  [
    'the repository under the other CI’s claim name only',
    { project_path: undefined, repository: 'acme/platform/shop' },
    'malformed',
  ],
  ['another audience', { aud: 'https://elsewhere.example' }, 'wrong_audience'],
  ['expired', { exp: s - 61 }, 'expired'],
];
for (const [what, change, verdict] of pipelineTable) {
  test(`R2 identity-token claims named by the adapter: ${what} → ${verdict}`, () => {
    const claims = Object.fromEntries(
      Object.entries({ ...pipelineGood, ...change }).filter(([, v]) => v !== undefined),
    );
    const v = workflowClaimsVerdict(claims, pipelineExpected, NOW);
    assert.equal(v.kind === 'accept' ? 'accept' : v.reason, verdict, JSON.stringify(v));
  });
}

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

test('R2: the issuer is read from a JWT payload only to pick the keys, and from nothing else', () => {
  const jwt = (payload: unknown) => `e30.${Buffer.from(JSON.stringify(payload)).toString('base64url')}.c2ln`;
  assert.equal(unverifiedIssuer(jwt({ iss: 'https://gitlab.example' })), 'https://gitlab.example');
  assert.equal(unverifiedIssuer(jwt({ iss: 7 })), null);
  assert.equal(unverifiedIssuer(jwt(null)), null);
  assert.equal(unverifiedIssuer('not.a.jwt'), null);
  assert.equal(unverifiedIssuer('onlyone'), null);
});
