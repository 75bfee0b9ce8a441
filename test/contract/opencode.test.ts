// Contract test (SPEC L1, L4, M3, I2): the real OpenCode CLI (test/contract/agents, 1.18) resumed by
// fixloop's real command runner with the real `opencode-run` preset, its model the scripted fake
// Responses endpoint on loopback (test/support/fake-openai.ts) behind OpenCode's built-in `openai`
// provider. OpenCode is pointed at the fake only through the user's own global config, never through
// the preset's argv or the config file fixloop writes. OpenCode 1.18 ends a resumed session's run only
// in the directory the session began in (elsewhere `run` never exits after the turn), so the agent is
// resumed in its own checkout (`runner.cwd`), not in a fresh workspace (decision 0065).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  deliverRed,
  endedRun,
  git,
  registerTask,
  remoteHead,
  runCli,
  startContractWorld,
  story,
  taskView,
  type ContractWorld,
} from './support.js';
import {
  callTool,
  say,
  startFakeOpenAI,
  toolNames,
  toolOutput,
  turn,
  type FakeOpenAI,
  type FakeReply,
  type ResponsesRequest,
} from '../support/fake-openai.js';

const API_KEY = 'sk-fixloop-opencode';
const OPENING_PROMPT = 'OPENING-40dc: add sum.js and open a pull request on agent/fix';
const OPENING_ANSWER = 'OPENED-40dc: pull request #7 is open';

let dir: string;
let fake: FakeOpenAI;
let script: (req: ResponsesRequest) => FakeReply = () => turn(say('no script set'));
/** Where OpenCode keeps config, sessions and caches: the agent's user's, as XDG says. */
let xdg: Record<string, string>;

/** OpenCode's side request (a session title, with no tools) gets a title; the rest follow the script. */
function model(req: ResponsesRequest): FakeReply {
  return (req.tools ?? []).length === 0 ? turn(say('Fix the red check')) : script(req);
}

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fixloop-opencode-'));
  const home = join(dir, 'home');
  xdg = {
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_DATA_HOME: join(home, '.local', 'share'),
    XDG_STATE_HOME: join(home, '.local', 'state'),
    XDG_CACHE_HOME: join(home, '.cache'),
  };
  fake = await startFakeOpenAI((req) => model(req), { apiKey: API_KEY });
  // The user's global config: the built-in openai provider at the fake, no update check, no sharing.
  mkdirSync(join(xdg.XDG_CONFIG_HOME!, 'opencode'), { recursive: true });
  writeFileSync(
    join(xdg.XDG_CONFIG_HOME!, 'opencode', 'opencode.json'),
    JSON.stringify({
      $schema: 'https://opencode.ai/config.json',
      provider: { openai: { options: { baseURL: fake.url, apiKey: API_KEY } } },
      model: 'openai/gpt-4.1',
      autoupdate: false,
      share: 'disabled',
    }),
  );
});

/** The agent that opened the pull request: its own checkout of the branch, and a session begun there. */
async function openSession(bare: string, checkout: string): Promise<string> {
  git(dir, 'clone', '-q', '-b', 'agent/fix', bare, checkout);
  git(checkout, 'config', 'user.name', 'agent');
  git(checkout, 'config', 'user.email', 'agent@example.com');
  const resumed = script;
  script = () => turn(say(OPENING_ANSWER));
  const opened = await runCli('opencode', ['run', '--format=json'], {
    cwd: checkout,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...xdg },
    stdin: OPENING_PROMPT,
  });
  script = resumed;
  assert.equal(opened.code, 0, `the opening session failed:\n${opened.stdout}\n${opened.stderr}`);
  const id = JSON.parse(opened.stdout.split('\n')[0] ?? '{}').sessionID;
  assert.match(id ?? '', /^ses_/, `no sessionID in:\n${opened.stdout}`);
  return id;
}

after(async () => {
  await fake?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('OpenCode 1.18 with the opencode-run preset (L1, L4, M3)', () => {
  test("L1/L4/M3/I2: OpenCode resumed in the agent's checkout continues the session, reads the checks over MCP, pushes the fix and reports", async () => {
    const fix = "sed -i 's/ + 1;/;/' sum.js && git commit -qam 'fix: sum' && git push -q origin HEAD:agent/fix";
    script = (req) => {
      const last = req.input.at(-1);
      // OpenCode sends messages as `{ role, content }` items, with no `type`.
      if (last?.role === 'user') return turn(callTool('fixloop_pull_request_checks', { failing: true }, 'oc-checks'));
      if (last?.call_id === 'oc-checks')
        return turn(callTool('bash', { command: `${fix}; echo PUSH_RC=$?`, description: 'fix and push' }, 'oc-push'));
      if (last?.call_id === 'oc-push')
        return turn(callTool('fixloop_report_fix_outcome', { outcome: 'action_taken' }, 'oc-report'));
      return turn(say('fixed sum.js and pushed'));
    };
    const root = mkdtempSync(join(dir, 'world-'));
    const checkout = join(root, 'agent');
    const w: ContractWorld = await startContractWorld({
      root,
      runner: {
        preset: 'opencode-run',
        presetOptions: { model: 'openai/gpt-4.1' },
        envAllow: [],
        cwd: checkout,
        workspace: null,
      },
      env: { ...xdg },
    });
    try {
      const sessionId = await openSession(w.bare, checkout);
      const from = fake.responses().length;
      const taskId = await registerTask(w, sessionId);
      await deliverRed(w);
      const run = await endedRun(w, taskId);
      const sent = fake
        .responses()
        .slice(from)
        .filter((r) => (r.tools ?? []).length > 0);
      const why = `${story(w, run)}\n--- model requests ---\n${sent
        .map((r) => JSON.stringify(r.input.at(-1)).slice(0, 500))
        .join('\n')}`;
      assert.equal(run.state, 'completed', why);
      assert.ok(run.agentSeenAt, `the run's agent never reached fixloop${why}`);
      const first = sent[0];
      assert.ok(first, `OpenCode sent the model nothing${why}`);
      // The resume continued the session the Task named, though the checkout is a fresh directory.
      assert.ok(JSON.stringify(first.input).includes(OPENING_PROMPT), `the opening prompt is not in the resume${why}`);
      assert.ok(JSON.stringify(first.input).includes(OPENING_ANSWER), `the opening answer is not in the resume${why}`);
      for (const tool of ['pull_request_checks', 'report_fix_outcome', 'report_spend', 'loop_state'])
        assert.ok(
          toolNames(first).includes(`fixloop_${tool}`),
          `fixloop_${tool} not offered: ${toolNames(first)}${why}`,
        );
      const out = (callId: string): string => sent.map((r) => toolOutput(r, callId)).find((o) => o !== undefined) ?? '';
      assert.match(out('oc-checks'), /expected sum\(2, 2\)/, why);
      assert.match(out('oc-push'), /PUSH_RC=0/, why);
      const pushed = remoteHead(w.bare);
      assert.notEqual(pushed, w.head, `agent/fix did not move${why}`);
      assert.equal(git(w.bare, 'show', `${pushed}:sum.js`), 'export const sum = (a, b) => a + b;', why);
      const view = await taskView(w, taskId);
      assert.equal(view.attempts[0].outcome, 'action_taken', why);
      // The preset read the CLI's JSON events: cost and tokens are one line at the end of the run log.
      assert.match(String(run.log), /\[fixloop: the agent's output says: \$\d+\.\d{4}, \d+ input tokens/, why);
    } finally {
      await w.close();
    }
  });
});
