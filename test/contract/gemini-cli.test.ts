// Contract test (SPEC L1, L2, L4, M3, I2): the real Gemini CLI (test/contract/agents, 0.61) resumed by
// fixloop's real command runner with the real `gemini-resume` preset, its model a scripted fake Gemini
// API on loopback (test/support/fake-gemini.ts). Gemini CLI is pointed at the fake only through the
// environment (GOOGLE_GEMINI_BASE_URL) and the user's own settings, never through the preset's argv.
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
  call,
  functionNames,
  lastFunctionResponse,
  startFakeGemini,
  text,
  userTexts,
  type FakeGemini,
  type GeminiRequest,
  type GeminiTurn,
} from '../support/fake-gemini.js';

const API_KEY = 'gemini-fixloop-contract';
const MODEL = 'gemini-2.5-flash';
const OPENING_PROMPT = 'OPENING-9c1e: add sum.js and open a pull request on agent/fix';
const OPENING_ANSWER = 'OPENED-9c1e: pull request #7 is open';

let dir: string;
let home: string;
let fake: FakeGemini;
let script: (req: GeminiRequest) => GeminiTurn = () => text('no script set');
let sessionId: string;

/** The user's own Gemini CLI settings: an API key sign-in (the base URL alone is refused headless). */
function userSettings(): string {
  return JSON.stringify({
    security: { auth: { selectedType: 'gemini-api-key' } },
    privacy: { usageStatisticsEnabled: false },
  });
}

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fixloop-gemini-'));
  home = join(dir, 'home');
  mkdirSync(join(home, '.gemini'), { recursive: true });
  writeFileSync(join(home, '.gemini', 'settings.json'), userSettings());
  fake = await startFakeGemini((req) => script(req));
  // The agent that opened the pull request: a session of its own, in a checkout of its own.
  const opener = join(dir, 'opener');
  mkdirSync(opener);
  git(opener, 'init', '-q');
  script = () => text(OPENING_ANSWER);
  const opened = await runCli('gemini', ['--output-format=json', '--skip-trust', `--model=${MODEL}`], {
    cwd: opener,
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: home,
      GEMINI_API_KEY: API_KEY,
      GOOGLE_GEMINI_BASE_URL: fake.url,
    },
    stdin: OPENING_PROMPT,
  });
  assert.equal(opened.code, 0, `the opening session failed:\n${opened.stdout}\n${opened.stderr}`);
  sessionId = JSON.parse(opened.stdout).session_id;
  assert.ok(sessionId, `no session_id in:\n${opened.stdout}`);
});

after(async () => {
  await fake?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('Gemini CLI 0.61 with the gemini-resume preset (L1, L4, M3)', () => {
  test('L1/L4/M3/I2: Gemini CLI resumed in a fresh checkout continues the session, reads the checks over MCP, pushes the fix and reports', async () => {
    const from = fake.turns().length;
    const fix = "sed -i 's/ + 1;/;/' sum.js && git commit -qam 'fix: sum' && git push -q origin HEAD:agent/fix";
    const mcp = (req: GeminiRequest, tool: string): string =>
      functionNames(req).find((n) => n.endsWith(tool)) ?? `missing_${tool}`;
    script = (req) => {
      const last = lastFunctionResponse(req);
      if (last === null) return call(mcp(req, 'pull_request_checks'), { failing: true });
      if (last.name.endsWith('pull_request_checks'))
        return call('run_shell_command', { command: `${fix}; echo PUSH_RC=$?`, description: 'fix and push' });
      if (last.name === 'run_shell_command') return call(mcp(req, 'report_fix_outcome'), { outcome: 'action_taken' });
      return text('fixed sum.js and pushed');
    };
    const w: ContractWorld = await startContractWorld({
      runner: {
        preset: 'gemini-resume',
        presetOptions: {
          model: MODEL,
          // The operator adds what the fix runs besides git, as with Claude's allowedTools.
          allowedTools: ['run_shell_command(sed)', 'run_shell_command(git)', 'run_shell_command(echo)'],
        },
        envAllow: [],
      },
      env: { HOME: home, GEMINI_API_KEY: API_KEY, GOOGLE_GEMINI_BASE_URL: fake.url },
    });
    try {
      const taskId = await registerTask(w, sessionId);
      await deliverRed(w);
      const run = await endedRun(w, taskId);
      const why = `${story(w, run)}\n--- model turns ---\n${fake
        .turns()
        .slice(from)
        .map((t) => JSON.stringify(t.contents.at(-1)).slice(0, 600))
        .join('\n')}`;
      assert.equal(run.state, 'completed', why);
      assert.ok(run.agentSeenAt, `the run's agent never reached fixloop${why}`);
      const sent = fake.turns().slice(from);
      const first = sent[0];
      assert.ok(first, `Gemini CLI sent the model nothing${why}`);
      // The resume continued the session the Task named, though the checkout is a fresh directory.
      const said = userTexts(first).join('\n');
      assert.ok(said.includes(OPENING_PROMPT), `the opening prompt is not in the resume${why}`);
      assert.ok(
        JSON.stringify(first.contents).includes(OPENING_ANSWER),
        `the opening answer is not in the resume${why}`,
      );
      // The MCP entry reached fixloop with the run token: its tools were offered.
      for (const tool of ['pull_request_checks', 'report_fix_outcome', 'report_spend', 'loop_state'])
        assert.ok(
          functionNames(first).some((n) => n.endsWith(tool)),
          `${tool} not offered: ${functionNames(first).join(', ')}${why}`,
        );
      const answers = sent.map((r) => lastFunctionResponse(r)).filter((a) => a !== null);
      assert.match(
        answers.find((a) => a.name.endsWith('pull_request_checks'))?.output ?? '',
        /expected sum\(2, 2\)/,
        why,
      );
      assert.match(answers.find((a) => a.name === 'run_shell_command')?.output ?? '', /PUSH_RC=0/, why);
      const pushed = remoteHead(w.bare);
      assert.notEqual(pushed, w.head, `agent/fix did not move${why}`);
      assert.equal(git(w.bare, 'show', `${pushed}:sum.js`), 'export const sum = (a, b) => a + b;', why);
      const view = await taskView(w, taskId);
      assert.equal(view.attempts[0].outcome, 'action_taken', why);
      // The preset read the CLI's JSON: its tokens are one line at the end of the run log.
      assert.match(String(run.log), /\[fixloop: the agent's output says: no cost printed, \d+ input tokens/, why);
      // The run token is never in argv nor in the settings file fixloop wrote.
      assert.ok(!String(run.log).includes('Bearer ey'), why);
    } finally {
      await w.close();
    }
  });
});
