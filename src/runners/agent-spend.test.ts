// K6/L1: what each CLI's JSON output says it spent, read from output of the real shapes: Gemini CLI 0.61's
// and OpenCode 1.18.33's as the real CLIs printed them in the contract set-up (test/fixtures/agent-output),
// Amp's stream JSON as its announcement shows it, Claude Code's `result` line.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { geminiSpend, opencodeSpend, spendLine, streamJsonSpend } from './agent-spend.js';

const fixture = (name: string): string =>
  readFileSync(new URL(`../../test/fixtures/agent-output/${name}`, import.meta.url), 'utf8');

test("K6: Gemini CLI's JSON object: tokens summed over its models, no cost printed, its session id", () => {
  const out = fixture('gemini-0.61.json');
  assert.deepEqual(geminiSpend(out), {
    costUsd: null,
    inputTokens: 1000,
    outputTokens: 20,
    cachedTokens: 0,
    sessionId: 'c0f0571a-a022-47ac-a7fb-e0b06f21f69a',
  });
  // Two models (a routed side call), thoughts counted as output; warnings printed before the object.
  const v = JSON.parse(out);
  v.stats.models['gemini-2.5-flash-lite'] = { tokens: { prompt: 50, candidates: 5, cached: 40, thoughts: 7 } };
  const twice = `Warning: something\n${JSON.stringify(v, null, 2)}\n`;
  assert.deepEqual(geminiSpend(twice), {
    costUsd: null,
    inputTokens: 1050,
    outputTokens: 32,
    cachedTokens: 40,
    sessionId: 'c0f0571a-a022-47ac-a7fb-e0b06f21f69a',
  });
  assert.equal(geminiSpend('Error: no key'), null);
});

test("K6: OpenCode's JSON events: each step_finish's cost and tokens added up", () => {
  const out = fixture('opencode-1.18.33.jsonl');
  const one = opencodeSpend(out)!;
  assert.equal(one.costUsd, 0.00028);
  assert.equal(one.inputTokens, 100);
  assert.equal(one.outputTokens, 10);
  assert.match(one.sessionId ?? '', /^ses_/);
  const two = opencodeSpend(`${out}${out}`)!;
  assert.ok(Math.abs((two.costUsd ?? 0) - 0.00056) < 1e-12);
  assert.equal(two.inputTokens, 200);
  assert.equal(opencodeSpend('opencode: not found\n'), null);
});

test("K6: Amp's stream JSON: the assistant messages' usage (cache reads counted as input), no cost printed", () => {
  assert.deepEqual(streamJsonSpend(fixture('amp-stream.jsonl')), {
    costUsd: null,
    inputTokens: 12783 + 367 + 12416,
    outputTokens: 8,
    cachedTokens: 12416,
    sessionId: 'T-2775dc92-90ed-4f85-8b73-8f9766029e83',
  });
});

test("K6: Claude Code's result line wins over the messages it repeats: its usage and total_cost_usd", () => {
  const msg = { id: 'msg_1', usage: { input_tokens: 10, output_tokens: 2 } };
  const lines = [
    { type: 'system', subtype: 'init', session_id: 's-1' },
    { type: 'assistant', message: msg, session_id: 's-1' },
    { type: 'assistant', message: msg, session_id: 's-1' },
    {
      type: 'result',
      subtype: 'success',
      total_cost_usd: 0.0421,
      usage: { input_tokens: 30, cache_read_input_tokens: 100, output_tokens: 5 },
      session_id: 's-1',
    },
  ];
  const s = streamJsonSpend(lines.map((l) => JSON.stringify(l)).join('\n'))!;
  assert.deepEqual(s, { costUsd: 0.0421, inputTokens: 130, outputTokens: 5, cachedTokens: 100, sessionId: 's-1' });
  // Without a result, each message once.
  const partial = streamJsonSpend(
    lines
      .slice(0, 3)
      .map((l) => JSON.stringify(l))
      .join('\n'),
  )!;
  assert.equal(partial.inputTokens, 10);
  assert.equal(partial.costUsd, null);
});

test('the run-log line says the cost, or that none was printed', () => {
  assert.equal(
    spendLine({ costUsd: 0.5, inputTokens: 3, outputTokens: 4, cachedTokens: 1, sessionId: null }),
    "[fixloop: the agent's output says: $0.5000, 3 input tokens (1 cached), 4 output tokens]\n",
  );
  assert.match(
    spendLine({ costUsd: null, inputTokens: 0, outputTokens: 0, cachedTokens: 0, sessionId: 'x' }),
    /no cost printed, .*session x\]/,
  );
});
