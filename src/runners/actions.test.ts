// Issue 35 item 3: what the actions runner dispatches — the run id, the agent URL and the frame, cut so
// the inputs fit GitHub's 65,535 characters even when the frame is all escapes — and never the run token.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DISPATCH_INPUTS_MAX_CHARS, dispatchInputs } from './actions.js';

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
