// Contract tests with the real Claude Code CLI (SPEC L1, L4, M3, I2, I3, I5): `fixloop serve` resumes
// `claude` from test/contract/agents through the real `claude-code-resume` preset, in a fresh per-task
// workspace, against a scripted fake Messages API on loopback. The model is fake; everything between
// it and fixloop — the CLI, its session store, its MCP client, its Bash tool, git — is real.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  BRANCH,
  deliverRed,
  endedRun,
  git,
  makeRemote,
  registerTask,
  remoteHead,
  runCli,
  startContractWorld,
  taskView,
  story,
  type ContractWorld,
} from './support.js';
import {
  startFakeAnthropic,
  text,
  toolResults,
  toolUse,
  flatten,
  type FakeAnthropic,
  type FakeMessagesRequest,
  type Reply,
} from '../support/fake-anthropic.js';
import { claudeProjectDir } from '../../src/runners/claude-session.js';
import { freePort, until } from '../support/server-process.js';

const OPENING_PROMPT = 'Make test/sum.test.js pass and open a pull request. [opening-prompt-7f3a]';
const OPENING_REPLY = 'Opened acme/shop#7 from agent/fix. [opening-reply-91c2]';
const FIXED_SUM = 'export const sum = (a, b) => a + b;\n';
const MCP_TOOLS = [
  'mcp__fixloop__pull_request_checks',
  'mcp__fixloop__report_fix_outcome',
  'mcp__fixloop__report_spend',
  'mcp__fixloop__loop_state',
];

/**
 * What the agent's process may see besides the preset's own list: no telemetry or update traffic
 * (it would wait on DNS with no network) and no retries, so a refused key fails at once.
 */
const EXTRA_ENV_ALLOW = ['CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC', 'CLAUDE_CODE_MAX_RETRIES'];

function claudeEnv(home: string, model: FakeAnthropic): Record<string, string> {
  return {
    HOME: home,
    ANTHROPIC_BASE_URL: model.url,
    ANTHROPIC_API_KEY: 'sk-ant-contract-test',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    CLAUDE_CODE_MAX_RETRIES: '0',
  };
}

/** The id of the tool_use the request answers (our scripted ids name the step), or null on a fresh prompt. */
function answering(req: FakeMessagesRequest): string | null {
  return toolResults(req)[0]?.tool_use_id ?? null;
}

/** The stream-json events in `out` (the CLI prints one JSON object a line); other lines are skipped. */
function jsonLines(out: string): any[] {
  return out
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .flatMap((l) => {
      try {
        return [JSON.parse(l)];
      } catch {
        return [];
      }
    });
}

/** The run log's stream-json events. */
const events = (run: any): any[] => jsonLines(String(run?.log ?? ''));

function initEvent(run: any): any {
  return events(run).find((e) => e.type === 'system' && e.subtype === 'init');
}

/** The opening session, recorded once: what each test's agent HOME starts from. */
let opening: { root: string; home: string; cwd: string; sessionId: string };

/**
 * The agent that opened the pull request: `claude -p` in its own clone, in a HOME of its own. Its
 * session is filed under that clone's path, which no fixloop workspace will ever have.
 */
async function recordOpeningSession(): Promise<typeof opening> {
  const root = mkdtempSync(join(tmpdir(), 'fixloop-claude-opening-'));
  const { bare } = makeRemote(root);
  const cwd = join(root, 'opener');
  git(root, 'clone', '-q', '-b', BRANCH, bare, cwd);
  const home = join(root, 'home');
  const model = await startFakeAnthropic([{ content: [text(OPENING_REPLY)] }]).catch((err: unknown) => {
    rmSync(root, { recursive: true, force: true });
    throw err;
  });
  try {
    const out = await runClaude(cwd, { PATH: process.env.PATH ?? '/usr/bin:/bin', ...claudeEnv(home, model) }, [
      '-p',
      '--output-format',
      'stream-json',
      '--verbose',
    ]);
    const init = out.events.find((e) => e.type === 'system' && e.subtype === 'init');
    assert.equal(out.code, 0, `the opening claude run failed:\n${out.stdout}\n${out.stderr}`);
    assert.ok(init?.session_id, `no init event with a session id:\n${out.stdout}`);
    const file = join(home, '.claude', 'projects', claudeProjectDir(cwd), `${init.session_id}.jsonl`);
    assert.ok(existsSync(file), `the opening session was not filed at ${file}`);
    return { root, home, cwd, sessionId: init.session_id };
  } catch (err) {
    rmSync(root, { recursive: true, force: true });
    throw err;
  } finally {
    await model.close();
  }
}

async function runClaude(
  cwd: string,
  env: Record<string, string>,
  args: string[],
): Promise<{ code: number | null; stdout: string; stderr: string; events: any[] }> {
  const r = await runCli('claude', args, { cwd, env, stdin: OPENING_PROMPT });
  return { ...r, events: jsonLines(r.stdout) };
}

/**
 * One test's world: a copy of the opening HOME (so each resume starts from the recorded session),
 * the fake model answering `script`, and fixloop serving with the real preset.
 */
async function claudeWorld(
  script: (req: FakeMessagesRequest) => Reply | undefined,
  o: { publicUrl?: string } = {},
): Promise<{ w: ContractWorld; model: FakeAnthropic; home: string; close(): Promise<void> }> {
  const home = mkdtempSync(join(tmpdir(), 'fixloop-claude-home-'));
  cpSync(opening.home, home, { recursive: true });
  const model = await startFakeAnthropic((req) => script(req));
  let w: ContractWorld;
  try {
    w = await startContractWorld({
      runner: {
        preset: 'claude-code-resume',
        presetOptions: { maxTurns: 20 },
        envAllow: EXTRA_ENV_ALLOW,
      },
      env: {
        ...claudeEnv(home, model),
        ...(o.publicUrl ? { FIXLOOP_PUBLIC_URL: o.publicUrl } : {}),
      },
    });
  } catch (err) {
    await model.close();
    rmSync(home, { recursive: true, force: true });
    throw err;
  }
  return {
    w,
    model,
    home,
    async close() {
      await w.close();
      await model.close();
      rmSync(home, { recursive: true, force: true });
    },
  };
}

describe('contract: Claude Code CLI 2.1 with the claude-code-resume preset', () => {
  before(async () => {
    opening = await recordOpeningSession();
  });
  after(() => {
    if (opening) rmSync(opening.root, { recursive: true, force: true });
  });

  test('L1/L4/M3/I2: Claude Code resumed by the real preset finds its session in a fresh workspace, reads the checks over MCP, pushes the fix and reports once', async () => {
    const seen: Record<string, { is_error: boolean; content: string }> = {};
    let githubSeesPush = (): void => {};
    const world = await claudeWorld((req) => {
      const step = answering(req);
      if (step) seen[step] = toolResults(req)[0]!;
      if (step === 'toolu_l1_push') githubSeesPush();
      switch (step) {
        case null:
          return { content: [toolUse('mcp__fixloop__pull_request_checks', { failing: true }, 'toolu_l1_checks')] };
        case 'toolu_l1_checks':
          // acceptEdits lets a redirect inside the working directory through with no allow rule.
          return {
            content: [
              toolUse(
                'Bash',
                { command: `printf '${FIXED_SUM.trimEnd()}\\n' > sum.js`, description: 'fix sum' },
                'toolu_l1_fix',
              ),
            ],
          };
        case 'toolu_l1_fix':
          return {
            content: [
              toolUse(
                'Bash',
                {
                  command: `git add sum.js && git commit -m "fix: sum adds" && git push origin HEAD:${BRANCH}`,
                  description: 'commit and push',
                },
                'toolu_l1_push',
              ),
            ],
          };
        case 'toolu_l1_push':
          return {
            content: [toolUse('mcp__fixloop__report_fix_outcome', { outcome: 'action_taken' }, 'toolu_l1_report')],
          };
        case 'toolu_l1_report':
          return {
            content: [toolUse('mcp__fixloop__report_fix_outcome', { outcome: 'non_actionable' }, 'toolu_l1_again')],
          };
        case 'toolu_l1_again':
          return { content: [text('Pushed the fix to sum.js and reported it.')] };
        default:
          return undefined;
      }
    });
    const { w, model } = world;
    // GitHub shows a push on the pull request at once: the fake's head follows the bare repository's
    // branch as soon as the agent's push returns (before it reports), as the poll would then see it.
    githubSeesPush = () => w.fake.setHead('acme/shop', 7, remoteHead(w.bare));
    try {
      const taskId = await registerTask(w, opening.sessionId);
      await deliverRed(w);
      const run = await endedRun(w, taskId);
      const why = story(w, run);

      assert.equal(run.state, 'completed', why);
      assert.doesNotMatch(run.log, /No conversation found/, why);
      const init = initEvent(run);
      assert.ok(init, `no init event in the run log${why}`);
      // The session named by the Task was resumed, not a new one: same id, in a workspace that is not
      // where it was recorded.
      assert.equal(init.session_id, opening.sessionId, why);
      assert.notEqual(init.cwd, opening.cwd, why);
      assert.ok(
        !existsSync(join(opening.home, '.claude', 'projects', claudeProjectDir(init.cwd))),
        `the workspace had an entry before fixloop placed one${why}`,
      );
      assert.ok(
        existsSync(join(world.home, '.claude', 'projects', claudeProjectDir(init.cwd), `${opening.sessionId}.jsonl`)),
        `the session was not placed under the workspace${why}`,
      );
      // L4: the preset's MCP entry reached fixloop from the agent's environment.
      assert.deepEqual(init.mcp_servers, [{ name: 'fixloop', status: 'connected' }], why);

      const resumed = model.turns;
      assert.ok(resumed.length >= 6, `only ${resumed.length} model turns${why}`);
      const first = resumed[0]!;
      assert.equal(first.headers['x-claude-code-session-id'], opening.sessionId, why);
      const conversation = flatten(first.messages.map((m) => ({ content: m.content })));
      assert.match(conversation, /opening-prompt-7f3a/, `the resume did not carry the opening prompt${why}`);
      assert.match(conversation, /opening-reply-91c2/, `the resume did not carry the opening reply${why}`);
      for (const name of MCP_TOOLS) assert.ok(first.tools.includes(name), `${name} was not offered${why}`);
      assert.deepEqual(model.unexpected, [], why);

      // M3: the checks arrived over MCP with CI's failure text.
      assert.equal(seen.toolu_l1_checks?.is_error, false, why);
      assert.match(seen.toolu_l1_checks?.content ?? '', /expected sum\(2, 2\) to be 4/, why);
      assert.equal(seen.toolu_l1_fix?.is_error, false, `the fix was refused: ${seen.toolu_l1_fix?.content}${why}`);
      assert.equal(seen.toolu_l1_push?.is_error, false, `the push was refused: ${seen.toolu_l1_push?.content}${why}`);
      assert.equal(seen.toolu_l1_report?.is_error, false, why);
      // I2: the first report is final; the second is refused by fixloop, and says so.
      assert.match(seen.toolu_l1_again?.content ?? '', /^outcome_already_reported: .*action_taken/, why);

      // The push landed on the branch, with the fix.
      const pushed = remoteHead(w.bare);
      assert.notEqual(pushed, w.head, why);
      assert.equal(git(w.bare, 'show', `${pushed}:sum.js`) + '\n', FIXED_SUM, why);

      const reported = await taskView(w, taskId);
      assert.equal(reported.attempts[0].outcome, 'action_taken', why);
      assert.equal(reported.notice, null, why);
      assert.ok((await w.api('GET', `/api/runs/${run.id}`)).body.agentSeenAt, why);

      // I3: the poll sees the pushed head on the pull request and counts it as progress.
      const acked = await until(
        'the attempt to be acknowledged',
        async () => {
          const v = await taskView(w, taskId);
          return v.attempts[0].state === 'acknowledged' ? v : null;
        },
        20_000,
        250,
      ).catch((err: Error) => assert.fail(`${err.message}${story(w, run)}`));
      assert.equal(acked.attempts.length, 1, why);
      assert.equal(acked.attempts[0].outcome, 'action_taken', why);
    } finally {
      await world.close();
    }
  });

  test('I3: Claude Code that exits without reporting an outcome leaves the attempt retryable, with no notice', async () => {
    const world = await claudeWorld((req) => {
      switch (answering(req)) {
        case null:
          return { content: [toolUse('mcp__fixloop__loop_state', {}, 'toolu_i3_state')] };
        case 'toolu_i3_state':
          return { content: [text('I had a look at the loop; nothing to do from here.')] };
        default:
          return undefined;
      }
    });
    const { w } = world;
    try {
      const taskId = await registerTask(w, opening.sessionId);
      await deliverRed(w);
      const run = await endedRun(w, taskId);
      const why = story(w, run);
      assert.equal(run.state, 'completed', why);
      assert.ok(run.agentSeenAt, why);
      const view = await taskView(w, taskId);
      assert.equal(view.attempts[0].state, 'retryable', why);
      assert.equal(view.attempts[0].outcome, null, why);
      assert.equal(view.notice, null, why);
    } finally {
      await world.close();
    }
  });

  test('L1/I5: Claude Code that cannot sign in to its model ends the run failed with the CLI’s message in the run log and files agent_unreachable', async () => {
    const world = await claudeWorld(() => ({
      status: 401,
      type: 'authentication_error',
      message: 'invalid x-api-key',
    }));
    const { w } = world;
    try {
      const taskId = await registerTask(w, opening.sessionId);
      await deliverRed(w);
      const run = await endedRun(w, taskId);
      const why = story(w, run);
      assert.equal(run.state, 'failed', why);
      // The CLI says why on stdout (a synthetic assistant message and the result), never on stderr.
      assert.match(run.log, /Invalid API key/, why);
      assert.equal(events(run).find((e) => e.type === 'result')?.api_error_status, 401, why);
      const view = await taskView(w, taskId);
      assert.equal(view.attempts[0].outcome, null, why);

      // I5: Claude Code's MCP handshake at start-up is no call from the agent; it never got to make one.
      assert.equal(run.agentSeenAt, null, why);
      assert.equal(view.notice?.reason, 'agent_unreachable', why);
    } finally {
      await world.close();
    }
  });

  test('L4/I5: a preset MCP entry that cannot reach fixloop from the agent leaves Claude without fixloop’s tools and files agent_unreachable', async () => {
    const dead = `http://127.0.0.1:${await freePort()}`;
    const world = await claudeWorld(
      (req) => (answering(req) === null ? { content: [text('I have no fixloop tools to use.')] } : undefined),
      { publicUrl: dead },
    );
    const { w, model } = world;
    try {
      const taskId = await registerTask(w, opening.sessionId);
      await deliverRed(w);
      const run = await endedRun(w, taskId);
      const why = story(w, run);
      // Claude Code carries on without the server and exits 0: only fixloop can notice.
      assert.equal(run.state, 'completed', why);
      assert.deepEqual(initEvent(run)?.mcp_servers, [{ name: 'fixloop', status: 'failed' }], why);
      assert.ok(model.turns.length > 0, why);
      for (const t of model.turns)
        assert.deepEqual(
          t.tools.filter((n) => n.startsWith('mcp__fixloop')),
          [],
          why,
        );
      assert.equal(run.agentSeenAt, null, why);
      const view = await taskView(w, taskId);
      assert.equal(view.notice?.reason, 'agent_unreachable', why);
      assert.ok(view.notice.message.includes(`${dead}/mcp`), `${view.notice.message}${why}`);
    } finally {
      await world.close();
    }
  });
});
