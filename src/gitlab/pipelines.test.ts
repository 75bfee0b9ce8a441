// Issue 35 item 6: the actions runner's GitLab calls against the fake GitLab (a real HTTP server in
// GitLab's documented shapes): a pipeline started on a branch with the run's variables, read until it
// finishes; the frame bounded to what one environment variable may hold; a recorded pipeline never
// taken for a GitHub workflow run id.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ProviderError } from '../app/provider-port.js';
import { startFakeGitLab, type FakeGitLab } from '../../test/support/fake-gitlab/server.js';
import {
  createPipelineCalls,
  FRAME_VARIABLE_MAX_BYTES,
  pipelineIdOfRef,
  pipelineRunState,
  pipelineVariables,
  PIPELINE_REF_PREFIX,
} from './pipelines.js';

const silent = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };
const inputs = (frame: string) => ({ fixloop_run_id: '12', fixloop_url: 'https://fixloop.example', frame });

describe('pipeline variables (issue 35 item 6)', () => {
  it('the run id, the agent URL and the frame, as plain environment variables', () => {
    assert.deepEqual(pipelineVariables(inputs('FAIL x')), [
      { key: 'FIXLOOP_RUN_ID', value: '12', variable_type: 'env_var' },
      { key: 'FIXLOOP_URL', value: 'https://fixloop.example', variable_type: 'env_var' },
      { key: 'FIXLOOP_FRAME', value: 'FAIL x', variable_type: 'env_var' },
    ]);
  });

  it('a long frame keeps its head and tail and fits the bound in UTF-8 bytes, multi-byte text included', () => {
    for (const unit of ['x', 'é', '失', '🦊']) {
      const frame = `HEAD ${unit.repeat(100_000)} TAIL`;
      const value = pipelineVariables(inputs(frame))[2]!.value;
      const bytes = Buffer.byteLength(value, 'utf8');
      assert.ok(bytes <= FRAME_VARIABLE_MAX_BYTES, `${unit}: ${bytes}`);
      assert.ok(bytes > FRAME_VARIABLE_MAX_BYTES * 0.9, `${unit}: cut no more than needed (${bytes})`);
      assert.ok(value.startsWith('HEAD ') && value.endsWith(' TAIL'), unit);
    }
  });
});

describe("a pipeline's status in the runner's words", () => {
  const table: Array<[string, string, string | null]> = [
    ['success', 'completed', 'success'],
    ['failed', 'completed', 'failed'],
    ['canceled', 'completed', 'canceled'],
    ['skipped', 'completed', 'skipped'],
    ['created', 'created', null],
    ['waiting_for_resource', 'waiting_for_resource', null],
    ['preparing', 'preparing', null],
    ['pending', 'pending', null],
    ['running', 'running', null],
    ['scheduled', 'scheduled', null],
    // A job waiting for a person to play it: read on; the run's window ends the wait.
    ['manual', 'manual', null],
  ];
  for (const [gitlab, status, conclusion] of table)
    it(`${gitlab} → ${status}${conclusion ? ` (${conclusion})` : ''}`, () => {
      const s = pipelineRunState(gitlab, null);
      assert.equal(s.status, status);
      assert.equal(s.conclusion, conclusion);
    });

  it('a recorded pipeline is told apart from a bare workflow run id', () => {
    assert.equal(pipelineIdOfRef(`${PIPELINE_REF_PREFIX}42`), '42');
    assert.equal(pipelineIdOfRef('42'), null, "a GitHub workflow run's id, recorded bare");
    assert.equal(pipelineIdOfRef(`${PIPELINE_REF_PREFIX}042`), null);
    assert.equal(pipelineIdOfRef(`${PIPELINE_REF_PREFIX}42x`), null);
  });
});

describe('starting and reading a pipeline on the fake GitLab', () => {
  let fake: FakeGitLab;
  let token: string;
  before(async () => {
    fake = await startFakeGitLab();
    token = fake.addToken('fixloop-bot');
    fake.addProject('acme/platform/shop', { id: 9100 });
    fake.addMergeRequest('acme/platform/shop', 3, { headSha: 'a'.repeat(40), sourceBranch: 'agent/fix-3' });
  });
  after(() => fake.close());

  it('POST /projects/:id/pipeline on the source branch with the variables; GET follows its status', async () => {
    const calls = createPipelineCalls({ url: fake.url, token, log: silent });
    const started = await calls.start('acme/platform/shop', 'agent/fix-3', inputs('FAIL src/a.test.ts'));
    const [created] = fake.createdPipelines();
    assert.equal(started.workflowRunId, `${PIPELINE_REF_PREFIX}${created!.id}`);
    assert.match(started.htmlUrl ?? '', new RegExp(`/acme/platform/shop/-/pipelines/${created!.id}$`));
    assert.equal(created!.ref, 'agent/fix-3');
    assert.deepEqual(
      created!.variables.map((v) => [v.key, v.value]),
      [
        ['FIXLOOP_RUN_ID', '12'],
        ['FIXLOOP_URL', 'https://fixloop.example'],
        ['FIXLOOP_FRAME', 'FAIL src/a.test.ts'],
      ],
    );
    const post = fake.requests.find((r) => r.method === 'POST' && /\/pipeline$/.test(r.path))!;
    assert.match(post.path, /^\/api\/v4\/projects\/acme%2Fplatform%2Fshop\/pipeline$/);
    assert.equal((post.body as { ref?: unknown }).ref, 'agent/fix-3');

    assert.deepEqual(await calls.read('acme/platform/shop', started.workflowRunId), {
      status: 'created',
      conclusion: null,
      htmlUrl: started.htmlUrl,
    });
    fake.setPipelineStatus('acme/platform/shop', created!.id, 'failed');
    const done = await calls.read('acme/platform/shop', started.workflowRunId);
    assert.equal(done.status, 'completed');
    assert.equal(done.conclusion, 'failed');
  });

  it('a branch the project does not have is refused by GitLab, and said as a provider error once (not retried)', async () => {
    const calls = createPipelineCalls({ url: fake.url, token, log: silent });
    const before = fake.requests.length;
    await assert.rejects(
      () => calls.start('acme/platform/shop', 'no-such-branch', inputs('x')),
      (err: unknown) => err instanceof ProviderError && err.status === 400,
    );
    assert.equal(fake.requests.length - before, 1);
  });

  it('a bare workflow run id is never read as a pipeline', async () => {
    const calls = createPipelineCalls({ url: fake.url, token, log: silent });
    await assert.rejects(() => calls.read('acme/platform/shop', '42'), TypeError);
  });
});
