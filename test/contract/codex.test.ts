// Contract test (SPEC L1, L2, M3, I2, I5): the real Codex CLI (test/contract/agents, 0.171) resumed by
// fixloop's real command runner with the real `codex-exec-resume` preset, its model a scripted fake
// Responses endpoint on loopback (test/support/fake-openai.ts). Codex is pointed at the fake only through
// `$CODEX_HOME/config.toml`, never through the preset's argv, so what runs is what a user's config runs.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  BRANCH,
  git,
  PR,
  deliverRed,
  endedRun,
  registerTask,
  remoteHead,
  runCli,
  startContractWorld,
  taskView,
  story,
  type ContractWorld,
} from './support.js';
import { freePort, until } from '../support/server-process.js';
import {
  callMcp,
  say,
  shell,
  startFakeOpenAI,
  toolNames,
  toolOutput,
  turn,
  userTexts,
  type FakeOpenAI,
  type FakeReply,
  type ResponsesRequest,
} from '../support/fake-openai.js';

const API_KEY = 'sk-fixloop-contract';
/** The opening prompt and answer: a resumed request that carries them continued the opening session. */
const OPENING_PROMPT = 'OPENING-7f3a: add sum.js and open a pull request on agent/fix';
const OPENING_ANSWER = 'OPENED-7f3a: pull request #7 is open';

let dir: string;
let codexHome: string;
let fake: FakeOpenAI;
/** The fake model's script for the test that is running (the tests run one at a time). */
let script: (req: ResponsesRequest, index: number) => FakeReply = () => turn(say('no script set'));
/** The opening session's id (its `thread.started`), which every Task names as its resumeRef. */
let threadId: string;

/**
 * The model's next move, from the last item Codex sent: the prompt starts the script, a tool's output
 * picks the reply keyed by that call's id. Call ids are unique per test: all tests resume one session,
 * so each request carries the earlier tests' calls too.
 */
function byLastCall(first: FakeReply, next: Record<string, FakeReply>): (req: ResponsesRequest) => FakeReply {
  return (req) => {
    const last = req.input.at(-1);
    if (last?.type === 'message' && last.role === 'user') return first;
    const reply = last?.call_id !== undefined ? next[last.call_id] : undefined;
    return reply ?? turn(say(`fake model: unexpected request ending in ${JSON.stringify(last).slice(0, 300)}`));
  };
}

/** fixloop with the real preset; the agent gets CODEX_HOME and CODEX_API_KEY through the preset's envAllow. */
function world(env: Record<string, string> = {}): Promise<ContractWorld> {
  return startContractWorld({
    runner: { preset: 'codex-exec-resume', presetOptions: { model: 'fake-model' }, envAllow: [] },
    env: {
      CODEX_HOME: codexHome,
      CODEX_API_KEY: API_KEY,
      HOME: join(dir, 'home'),
      ...env,
    },
  });
}

/** The Task's view once its first attempt is in `state` (the attempt moves just after its run ends). */
async function attemptIn(w: ContractWorld, taskId: number, state: string, run: any, timeoutMs = 10_000): Promise<any> {
  return until(
    `the attempt to be ${state}`,
    async () => {
      const v = await taskView(w, taskId);
      return v.attempts[0]?.state === state ? v : null;
    },
    timeoutMs,
    200,
  ).catch((err: Error) => assert.fail(`${err.message}${story(w, run)}`));
}

/** The requests Codex sent the model from index `from` on (this test's). */
const requestsSince = (from: number): ResponsesRequest[] => fake.responses().slice(from);

before(async () => {
  // Not under /tmp: Codex refuses to create its sandbox helper under a temporary dir, and with the
  // system's bwrap every sandboxed command then fails.
  mkdirSync('/var/tmp', { recursive: true });
  dir = mkdtempSync('/var/tmp/fixloop-codex-');
  codexHome = join(dir, 'codex-home');
  mkdirSync(codexHome);
  mkdirSync(join(dir, 'home'));
  fake = await startFakeOpenAI((req, i) => script(req, i), { apiKey: API_KEY });
  // A provider of its own (plain HTTP, no WebSocket attempt, no retries), a model Codex has no profile
  // for (plain function tools rather than code mode), and no analytics or plugin sync: no off-box call.
  writeFileSync(
    join(codexHome, 'config.toml'),
    [
      'model = "fake-model"',
      'model_provider = "fake"',
      '',
      '[model_providers.fake]',
      'name = "fake"',
      `base_url = "${fake.url}"`,
      'wire_api = "responses"',
      'env_key = "CODEX_API_KEY"',
      'request_max_retries = 0',
      'stream_max_retries = 0',
      '',
      '[analytics]',
      'enabled = false',
      '',
      '[features]',
      'plugins = false',
      '',
    ].join('\n'),
  );
  // The agent that opened the pull request: a session of its own, in a checkout of its own.
  const opener = join(dir, 'opener');
  mkdirSync(opener);
  git(opener, 'init', '-q');
  script = () => turn(say(OPENING_ANSWER));
  const opened = await runCli('codex', ['exec', '--json', '--sandbox', 'read-only', '-'], {
    cwd: opener,
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: join(dir, 'home'),
      CODEX_HOME: codexHome,
      CODEX_API_KEY: API_KEY,
    },
    stdin: OPENING_PROMPT,
  });
  const started = opened.stdout
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l))
    .find((e) => e.type === 'thread.started');
  assert.equal(opened.code, 0, `the opening session failed:\n${opened.stdout}\n${opened.stderr}`);
  assert.ok(started?.thread_id, `no thread.started in:\n${opened.stdout}`);
  threadId = started.thread_id;
});

after(async () => {
  await fake?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('Codex CLI 0.171 with the codex-exec-resume preset (L1, M3)', () => {
  test('L1/M3/I2: Codex resumed by the real preset reads the checks over MCP, pushes the fix and reports once (a second report is refused)', async () => {
    const from = fake.responses().length;
    const fix = "sed -i 's/ + 1;/;/' sum.js && git commit -qam 'fix: sum' && git push -q origin HEAD:agent/fix";
    script = byLastCall(turn(callMcp('fixloop', 'pull_request_checks', { failing: true }, 'l1-checks')), {
      'l1-checks': turn(shell(`${fix}; echo PUSH_RC=$?`, 'l1-push')),
      'l1-push': turn(callMcp('fixloop', 'report_fix_outcome', { outcome: 'action_taken' }, 'l1-report')),
      'l1-report': turn(callMcp('fixloop', 'report_fix_outcome', { outcome: 'blocked', reason: 'again' }, 'l1-again')),
      'l1-again': turn(say('fixed sum.js and pushed')),
    });
    const w = await world();
    let run: any;
    try {
      const taskId = await registerTask(w, threadId);
      await deliverRed(w);
      run = await endedRun(w, taskId);
      const why = story(w, run);
      assert.equal(run.state, 'completed', why);
      assert.ok(run.agentSeenAt, `the run's agent never reached fixloop${why}`);

      const sent = requestsSince(from);
      const first = sent[0];
      assert.ok(first, `Codex sent the model nothing${why}`);
      // The resume continued the session the Task named: same thread, with the opening conversation.
      assert.equal(first.prompt_cache_key, threadId, why);
      assert.ok(
        userTexts(first).some((t) => t.includes(OPENING_PROMPT)),
        `the opening prompt is not in the resume${why}`,
      );
      assert.ok(JSON.stringify(first.input).includes(OPENING_ANSWER), `the opening answer is not in the resume${why}`);
      // The MCP entry reached fixloop with the run token: its tools were listed and offered.
      const tools = toolNames(first);
      for (const name of ['pull_request_checks', 'report_fix_outcome', 'report_spend', 'loop_state'])
        assert.ok(
          tools.includes(`mcp__fixloop.${name}`),
          `mcp__fixloop.${name} not offered: ${tools.join(', ')}${why}`,
        );

      const out = (callId: string): string => sent.map((r) => toolOutput(r, callId)).find((o) => o !== undefined) ?? '';
      assert.match(out('l1-checks'), /expected sum\(2, 2\) to be 4/, why);
      assert.match(out('l1-push'), /PUSH_RC=0/, why);
      assert.match(out('l1-report'), /action_taken/, why);
      assert.match(out('l1-again'), /outcome_already_reported/, why);

      // The push reached the Task's branch, with the fix.
      const pushed = remoteHead(w.bare);
      assert.notEqual(pushed, w.head, `agent/fix did not move${why}`);
      assert.equal(git(w.bare, 'show', `${pushed}:sum.js`), 'export const sum = (a, b) => a + b;', why);
      assert.equal(git(w.bare, 'rev-parse', `${pushed}^`), w.head, why);

      let view = await taskView(w, taskId);
      assert.equal(view.attempts[0].outcome, 'action_taken', why);
      assert.equal(view.attempts[0].state, 'awaiting_progress', why);

      // GitHub sees the push: the poll finds the new head, and the attempt is acknowledged (progress).
      w.fake.setCompare('acme/shop', w.head, pushed, [
        {
          path: 'sum.js',
          patch: '@@ -1 +1 @@\n-export const sum = (a, b) => a + b + 1;\n+export const sum = (a, b) => a + b;',
        },
      ]);
      w.fake.setHead('acme/shop', PR, pushed);
      view = await attemptIn(w, taskId, 'acknowledged', run, 30_000);
      assert.equal(view.ciHeadSha, pushed, why);
      assert.equal(view.notice, null, why);
      assert.equal(view.branch, BRANCH);
    } finally {
      await w.close();
    }
  });

  test('I1/I5: Codex that reads its loop state over MCP and exits without reporting leaves the attempt retryable, no notice', async () => {
    const from = fake.responses().length;
    script = byLastCall(turn(callMcp('fixloop', 'loop_state', {}, 'i5-state')), {
      'i5-state': turn(say('I looked at the loop and will stop here')),
    });
    const w = await world();
    try {
      const taskId = await registerTask(w, threadId);
      await deliverRed(w);
      const run = await endedRun(w, taskId);
      const why = story(w, run);
      assert.equal(run.state, 'completed', why);
      assert.ok(run.agentSeenAt, why);
      const sent = requestsSince(from);
      const state = sent.map((r) => toolOutput(r, 'i5-state')).find((o) => o !== undefined) ?? '';
      assert.match(state, /"pullRequest":\s*7/, `loop_state did not answer${why}`);
      const view = await attemptIn(w, taskId, 'retryable', run);
      assert.equal(view.attempts[0].outcome, null, why);
      assert.equal(view.notice, null, why);
    } finally {
      await w.close();
    }
  });

  test('L1/I5: Codex that cannot authenticate to its model ends the run failed with the CLI message in the run log', async () => {
    const from = fake.responses().length;
    const fromRaw = fake.requests.length;
    script = () => turn(say('the fake should have refused this key'));
    const w = await world({ CODEX_API_KEY: 'sk-wrong' });
    try {
      const taskId = await registerTask(w, threadId);
      await deliverRed(w);
      const run = await endedRun(w, taskId);
      const why = story(w, run);
      assert.equal(run.state, 'failed', why);
      assert.notEqual(run.exitCode, 0, why);
      assert.match(run.log, /401 Unauthorized: Incorrect API key provided/, why);
      // No retries (request_max_retries=0): one refused request.
      const refused = fake.requests.slice(fromRaw).filter((r) => r.path.endsWith('/responses'));
      assert.equal(refused.length, 1, why);
      assert.equal(refused[0]?.headers.authorization, 'Bearer sk-wrong', why);
      assert.equal(requestsSince(from).length, 0, why);
      // Codex's required MCP server shakes hands (initialize, tools/list, with the run token) before its
      // first model call; a handshake is not a call (I5), so the run never reached fixloop, is not
      // retried the same way, and one notice names the likely cause.
      assert.equal(run.agentSeenAt, null, why);
      const notice = await until('the notice', async () => (await taskView(w, taskId)).notice, 15_000);
      assert.equal(notice.reason, 'agent_unreachable', why);
      assert.match(notice.message, /could not sign in to its model/, why);
    } finally {
      await w.close();
    }
  });

  test("L1/M3: a preset's MCP entry that cannot be reached from the agent's environment fails the run before any model call, and files agent_unreachable", async () => {
    const fromRaw = fake.requests.length;
    script = () => turn(say('Codex should not have got this far'));
    const dead = await freePort(); // nothing listens there
    const w = await world({ FIXLOOP_PUBLIC_URL: `http://127.0.0.1:${dead}` });
    try {
      const taskId = await registerTask(w, threadId);
      await deliverRed(w);
      const run = await endedRun(w, taskId);
      const why = story(w, run);
      assert.equal(run.state, 'failed', why);
      assert.notEqual(run.exitCode, 0, why);
      assert.equal(run.agentSeenAt, null, why);
      assert.match(run.log, /required MCP servers failed to initialize: fixloop/, why);
      const calls = fake.requests.slice(fromRaw).filter((r) => r.path.endsWith('/responses'));
      assert.equal(calls.length, 0, `Codex called the model without its MCP server${why}`);
      const view = await taskView(w, taskId);
      assert.equal(view.notice?.reason, 'agent_unreachable', why);
    } finally {
      await w.close();
    }
  });
});
