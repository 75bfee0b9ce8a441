// Issue 35 item 3: what the actions runner dispatches — the run id, the agent URL and the frame, cut so
// the inputs fit GitHub's 65,535 characters even when the frame is all escapes — and never the run token.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DISPATCH_INPUTS_MAX_CHARS, createActionsRunner, dispatchInputs } from './actions.js';

const spec = { runId: 12, apiUrl: 'https://fixloop.example.com', prompt: 'fix the test' };

test('R2: the inputs are the run id, the agent URL and the frame as it is when it fits', () => {
  assert.deepEqual(dispatchInputs(spec), {
    fixloop_run_id: '12',
    fixloop_url: 'https://fixloop.example.com',
    frame: 'fix the test',
  });
});

test('R2: a long frame keeps its head and tail and the inputs fit GitHub’s limit, escapes included', () => {
  for (const prompt of ['x'.repeat(200_000), '\n"'.repeat(100_000), `HEAD ${'é\n'.repeat(80_000)} TAIL`]) {
    const inputs = dispatchInputs({ ...spec, prompt });
    assert.ok(JSON.stringify(inputs).length <= DISPATCH_INPUTS_MAX_CHARS, `${JSON.stringify(inputs).length}`);
    assert.ok(inputs.frame!.length > 10_000, 'most of the room is used');
  }
  const kept = dispatchInputs({ ...spec, prompt: `HEAD ${'y'.repeat(100_000)} TAIL` }).frame!;
  assert.ok(kept.startsWith('HEAD ') && kept.endsWith(' TAIL'));
});

/** A CI host whose runs never finish, recording what it was asked to cancel. */
function neverEndingHost() {
  const cancelled: string[] = [];
  let asked: () => void = () => undefined;
  const host = {
    dispatch: async () => ({ workflowRunId: '901', htmlUrl: null }),
    readRun: async () => ({ status: 'in_progress', conclusion: null }),
    cancel: async (repository: string, id: string) => {
      cancelled.push(`${repository} ${id}`);
      asked();
    },
  };
  const next = () => new Promise<void>((r) => (asked = r));
  return { host, cancelled, next };
}

const callbacks = { onOutput: () => undefined, onExit: () => assert.fail('the run never ends on its own here') };
const runSpec = { ...spec, repository: 'acme/shop', branch: 'agent/fix' } as Parameters<
  ReturnType<typeof createActionsRunner>['start']
>[0];

test('issue 35: a run fixloop ends first (its window, a cancel) is cancelled in its CI, and no longer followed', async () => {
  const { host, cancelled, next } = neverEndingHost();
  const runner = createActionsRunner({ workflow: 'fixloop-agent.yml', pollMs: 5, host, record: async () => true });
  await runner.start(runSpec, callbacks);
  const asked = next();
  assert.equal(runner.kill(12), true, 'this process was following it');
  await asked;
  assert.deepEqual(cancelled, ['acme/shop 901']);
  assert.equal(runner.kill(12), false, 'no longer followed');
  await runner.stopAll();
});

test('issue 35: a run another replica follows is cancelled through what was recorded for it', async () => {
  const { host, cancelled, next } = neverEndingHost();
  let lookedUp: (id: number) => void = () => undefined;
  const runner = createActionsRunner({
    workflow: 'fixloop-agent.yml',
    pollMs: 5,
    host,
    record: async () => true,
    recorded: async (runId) => {
      lookedUp(runId);
      return runId === 44 ? { repository: 'acme/api', workflowRunId: 'gitlab-pipeline:7' } : null;
    },
  });
  const asked = next();
  assert.equal(runner.kill(44), false, 'not followed here');
  await asked;
  assert.deepEqual(cancelled, ['acme/api gitlab-pipeline:7']);
  // Nothing recorded for 45: once its lookup has answered, nothing more was asked of the CI.
  const looked = new Promise<number>((r) => (lookedUp = r));
  runner.kill(45);
  assert.equal(await looked, 45);
  await new Promise((r) => setImmediate(r)); // every microtask of the lookup has run
  assert.deepEqual(cancelled, ['acme/api gitlab-pipeline:7']);
});

test('issue 35: a run ended while its dispatch was in flight is cancelled once it exists, and never followed', async () => {
  const cancelled: string[] = [];
  let reads = 0;
  let answer: (v: { workflowRunId: string; htmlUrl: null }) => void = () => undefined;
  const runner = createActionsRunner({
    workflow: 'fixloop-agent.yml',
    pollMs: 5,
    host: {
      dispatch: () => new Promise((r) => (answer = r)),
      readRun: async () => {
        reads++;
        return { status: 'in_progress', conclusion: null };
      },
      cancel: async (repository, id) => void cancelled.push(`${repository} ${id}`),
    },
    record: async () => true,
  });
  const started = runner.start(runSpec, callbacks);
  assert.equal(runner.kill(12), false, 'not followed yet');
  answer({ workflowRunId: '902', htmlUrl: null });
  await started;
  assert.deepEqual(cancelled, ['acme/shop 902']);
  assert.equal(runner.kill(12), false, 'and not followed afterwards');
  assert.equal(reads, 0, 'its run is never read');
});

test('issue 35: a shutdown stops following and cancels nothing: the run goes on and is followed again on start', async () => {
  const { host, cancelled } = neverEndingHost();
  const runner = createActionsRunner({ workflow: 'fixloop-agent.yml', pollMs: 5, host, record: async () => true });
  await runner.start(runSpec, callbacks);
  await runner.stopAll();
  assert.deepEqual(cancelled, [], 'a shutdown never asks the CI anything');
  assert.equal(runner.kill(12), false, 'and follows nothing');
});
