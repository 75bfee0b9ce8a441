// SPEC M1 (with M2, M4, K5, H1, J1): the CLI for people against a real fixloop server — tables by
// default, the server's JSON with --json, the filters, each of a person's actions recorded as a
// person's (via `cli`) with a one-line result, exit codes 0/1/2, and the token sources tried, in order.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { run } from '../src/cli/main.js';
import { startHarness, RecordingRunner, REPO, SECRET, API_TOKEN, type Harness } from './support/harness.js';
import { startGitHubHarness, type GitHubHarness } from './support/github-harness.js';
import { checkRunPayload, delivery, post } from './support/deliveries.js';
import { tempDir } from './support/temp-dir.js';

const sha = (n: number) => n.toString(16).padStart(40, 'd');

/** Runs the CLI in-process with this environment, a fixed clock, and what it printed. */
async function cli(argv: string[], env: NodeJS.ProcessEnv, now = new Date()) {
  const out = { stdout: '', stderr: '' };
  const code = await run(argv, {
    stdout: { write: (s: string) => (out.stdout += s) },
    stderr: { write: (s: string) => (out.stderr += s) },
    env,
    now: () => now,
  });
  return { code, ...out };
}

/** A home folder of its own, so no real per-user config is ever read. */
const home = () => tempDir('fixloop-cli-home-');

async function redPush(h: Harness, n: number, pr: number, output: string) {
  const d = delivery(
    'check_run',
    checkRunPayload({
      repo: REPO,
      sha: sha(n),
      id: 7000 + n,
      name: 'test',
      pr: { number: pr, headSha: sha(n) },
      output,
    }),
  );
  assert.equal((await post(h.url, d, SECRET)).status, 202);
  await h.app.settle();
}

const actedRows = async (h: Harness, taskId: number) =>
  ((await h.api('GET', `/api/deliveries?taskId=${taskId}&limit=100`)).body.decisions as any[])
    .filter((d) => d.outcome === 'acted')
    .map((d) => `${d.reason}: ${d.detail}`);

/** The column each header starts at, and the same for a line: aligned means equal. */
const starts = (line: string, headers: string[]) => headers.map((h) => line.indexOf(h));

class KillableRunner extends RecordingRunner {
  readonly killed: number[] = [];
  kill(runId: number): boolean {
    this.killed.push(runId);
    return true;
  }
}

describe('the CLI for people against a real server (M1)', () => {
  let h: Harness;
  let env: NodeJS.ProcessEnv;
  const runner = new KillableRunner();
  const ids = { red: 0, stopped: 0, quiet: 0, tools: 0 };
  let createdAt: string;

  before(async () => {
    h = await startHarness('sqlite', { runner });
    env = { FIXLOOP_URL: h.url, FIXLOOP_API_TOKEN: API_TOKEN, HOME: home() };
    const create = async (pullRequest: number) =>
      (await h.api('POST', '/api/tasks', { repository: 'acme/shop', pullRequest, branch: `agent/b${pullRequest}` }))
        .body;
    // #31: red, its agent is working on it (attempt 1 of 2).
    const red = await create(31);
    ids.red = red.id;
    createdAt = red.createdAt;
    await redPush(h, 1, 31, 'FAIL src/sum.test.ts > expected sum(2, 2) to be 4, got 5');
    // #32: the loop stopped and a person is needed.
    ids.stopped = (await create(32)).id;
    await h.app.ledger.fileNotice({
      taskId: ids.stopped,
      reason: 'budget_spent',
      headSha: sha(9),
      message: () => 'stopped',
    });
    // #33: quiet; and a Task in another repository, for --repo.
    ids.quiet = (await create(33)).id;
    const other = await h.app.ledger.createTask({
      work: 'shop',
      repository: 'acme/tools',
      pullRequest: 4,
      branch: 'agent/t4',
      resumeRef: null,
    });
    ids.tools = 'task' in other ? other.task.id : 0;
  });
  after(() => h.close());

  test('M1: `tasks` prints an aligned table: pull request, state in words, loop, attempts of the budget, last failure, age', async () => {
    const now = new Date(Date.parse(createdAt) + 3 * 3_600_000);
    const r = await cli(['tasks'], env, now);
    assert.equal(r.code, 0, r.stderr);
    const [header, ...lines] = r.stdout.trimEnd().split('\n');
    const headers = ['ID', 'PULL REQUEST', 'STATE', 'LOOP', 'ATTEMPTS', 'LAST FAILURE', 'AGE'];
    assert.deepEqual(
      starts(header!, headers).map((i) => i >= 0),
      headers.map(() => true),
      header,
    );
    assert.equal(lines.length, 4, r.stdout);
    const red = lines.find((l) => l.includes('acme/shop#31'))!;
    assert.ok(red.startsWith(String(ids.red)), red);
    assert.equal(red.indexOf('acme/shop#31'), header!.indexOf('PULL REQUEST'), 'aligned');
    assert.equal(red.indexOf('open, CI red'), header!.indexOf('STATE'));
    assert.equal(red.indexOf('agent running'), header!.indexOf('LOOP'));
    assert.equal(red.indexOf('1 of 2'), header!.indexOf('ATTEMPTS'));
    assert.equal(red.indexOf('test: FAIL src/sum.test.ts'), header!.indexOf('LAST FAILURE'));
    assert.ok(red.endsWith('3 h ago'), red);
    const stopped = lines.find((l) => l.includes('acme/shop#32'))!;
    assert.equal(stopped.indexOf('needs a person'), header!.indexOf('LOOP'));
    assert.equal(stopped.indexOf('0 of 2'), header!.indexOf('ATTEMPTS'));
    assert.ok(!r.stdout.includes('{'), 'no JSON in the table');
  });

  test("M1: `tasks --json` prints the server's JSON answer, unchanged", async () => {
    const r = await cli(['tasks', '--json', '--limit', '2'], env);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(JSON.parse(r.stdout), (await h.api('GET', '/api/board?limit=2')).body);
    assert.equal(JSON.parse(r.stdout).tasks[0].attemptsAllowed, 2);
  });

  test('M1: `tasks` filters by --repo, --state (a Task state or a loop state, dashes allowed) and --limit', async () => {
    const rows = async (...argv: string[]) => {
      const r = await cli(['tasks', '--json', ...argv], env);
      assert.equal(r.code, 0, r.stderr);
      return JSON.parse(r.stdout).tasks.map((t: any) => `${t.repository}#${t.pullRequest}`);
    };
    assert.deepEqual(await rows('--repo', 'acme/tools'), ['acme/tools#4']);
    assert.deepEqual(await rows('--state', 'needs-person'), ['acme/shop#32']);
    assert.deepEqual(await rows('--state', 'agent running'), ['acme/shop#31']);
    assert.equal((await rows('--state', 'open')).length, 4);
    assert.equal((await rows('--limit', '1')).length, 1);
    const none = await cli(['tasks', '--state', 'done'], env);
    assert.deepEqual([none.code, none.stdout], [0, 'No Tasks match.\n']);
  });

  test('M1: a malformed filter is exit 2 and names what it takes', async () => {
    for (const argv of [
      ['tasks', '--state', 'sleeping'],
      ['tasks', '--limit', '0'],
      ['tasks', '--limit', '201'],
      ['tasks', '--repo', 'not a repo'],
      ['runs', '--state', 'asleep'],
      ['runs', '--task', 'x'],
    ]) {
      const r = await cli(argv, env);
      assert.equal(r.code, 2, argv.join(' '));
      assert.match(r.stderr, /must be|is not a Task id/, argv.join(' '));
    }
  });

  test('M1: `inbox` lists what needs a person, with why it stopped; --repo filters; --json is the answer', async () => {
    const now = new Date(Date.now() + 10 * 60_000);
    const r = await cli(['inbox'], env, now);
    assert.equal(r.code, 0, r.stderr);
    const [header, line, ...rest] = r.stdout.trimEnd().split('\n');
    assert.equal(rest.length, 0, r.stdout);
    assert.match(header!, /^TASK\s+PULL REQUEST\s+WHY IT STOPPED\s+ATTEMPTS USED\s+HEAD\s+STOPPED$/);
    assert.equal(line!.indexOf('acme/shop#32'), header!.indexOf('PULL REQUEST'));
    assert.equal(line!.indexOf('budget spent'), header!.indexOf('WHY IT STOPPED'));
    assert.equal(line!.indexOf(sha(9).slice(0, 12)), header!.indexOf('HEAD'));
    assert.match(line!, /10 min ago$/);
    const json = await cli(['inbox', '--json'], env);
    assert.deepEqual(JSON.parse(json.stdout), (await h.api('GET', '/api/inbox?limit=50')).body);
    const elsewhere = await cli(['inbox', '--repo', 'acme/tools'], env);
    assert.deepEqual([elsewhere.code, elsewhere.stdout], [0, 'Nothing needs a person.\n']);
  });

  test('issue 36: `inbox` names the base branches failing above the notices; --repo filters them too', async () => {
    const { red } = await h.app.ledger.joinBaseRed({
      repository: 'acme/shop',
      baseRef: 'main',
      checks: ['test'],
      baseSha: null,
      taskId: ids.red,
      message: 'main of acme/shop is failing `test`',
    });
    try {
      const r = await cli(['inbox'], env);
      assert.equal(r.code, 0, r.stderr);
      const [title, line, blank, header] = r.stdout.split('\n');
      assert.deepEqual(
        [title, line, blank],
        ['Base branches failing:', '  main of acme/shop is failing test; 1 pull request waits for it to pass', ''],
      );
      assert.match(header!, /^TASK\s+PULL REQUEST/);
      const elsewhere = await cli(['inbox', '--repo', 'acme/tools'], env);
      assert.deepEqual([elsewhere.code, elsewhere.stdout], [0, 'Nothing needs a person.\n']);
    } finally {
      await h.app.ledger.closeBaseRed(red.id);
    }
  });

  test("M1: `runs` lists the agents' runs; --task and --state filter", async () => {
    const r = await cli(['runs', '--task', String(ids.red)], env);
    assert.equal(r.code, 0, r.stderr);
    const [header, line] = r.stdout.trimEnd().split('\n');
    assert.equal(line!.indexOf('automatic resume'), header!.indexOf('KIND'));
    assert.equal(line!.indexOf('running'), header!.indexOf('STATE'));
    const none = await cli(['runs', '--state', 'failed'], env);
    assert.deepEqual([none.code, none.stdout], [0, 'No runs match.\n']);
    const json = await cli(['runs', '--json', '--task', String(ids.red)], env);
    assert.deepEqual(JSON.parse(json.stdout), (await h.api('GET', `/api/runs?taskId=${ids.red}&limit=50`)).body);
  });

  // A server without the route is src/cli/main.test.ts's (a stand-in answering 404).
  test("M1/V1: `results` prints the server's figures for people, and `--json` is GET /api/results as it is", async () => {
    const r = await cli(['results'], env);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^currency\s+USD$/m);
    assert.match(r.stdout, /^period\nfrom\s+\S+\nto\s+\S+$/m);
    assert.match(r.stdout, /^pull requests\s+\d+$/m);
    const json = await cli(['results', '--json'], env);
    assert.equal(json.code, 0, json.stderr);
    // The default period ends "now", so it is the one field that moves between the two reads.
    const { period: printed, ...figures } = JSON.parse(json.stdout);
    const { period: served, ...expected } = (await h.api('GET', '/api/results')).body;
    assert.deepEqual(figures, expected);
    assert.deepEqual(Object.keys(printed).sort(), Object.keys(served).sort());
  });

  test("K5/M1: `approve` grants one more attempt, says so in a line, and is recorded as a person's from the CLI", async () => {
    const r = await cli(['approve', String(ids.stopped)], env);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(
      r.stdout,
      'Granted one more attempt on acme/shop#32 (1 of 3 grants of one more attempt used, 2 left).\n',
    );
    assert.match((await actedRows(h, ids.stopped))[0]!, /^approve_one: a person \(cli\): granted exactly one more/);
    // The loop has not stopped again: nothing to approve (exit 1, the server's words).
    const again = await cli(['task', 'approve-one', String(ids.stopped)], env);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /fixloop task approve-one: POST \/api\/tasks\/\d+\/approve-one answered 409/);
    assert.match(again.stderr, /there is nothing to approve/);
    const missing = await cli(['approve', '9999'], env);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /404.*no such Task/);
  });

  test('M1: `park`, `unpark`, `off` and `on` each print a line and leave a person-from-the-CLI row', async () => {
    const id = String(ids.quiet);
    const lines = [];
    for (const action of ['park', 'unpark', 'off', 'on']) {
      const r = await cli([action, id], env);
      assert.equal(r.code, 0, `${action}: ${r.stderr}`);
      lines.push(r.stdout);
    }
    assert.deepEqual(lines, [
      'Parked acme/shop#33: it will not re-enter the loop until someone unparks it.\n',
      'Unparked acme/shop#33: the loop may act on it again.\n',
      'Turned the loop off for acme/shop#33: no automatic attempt until it is turned on.\n',
      'Turned the loop on for acme/shop#33.\n',
    ]);
    assert.deepEqual(await actedRows(h, ids.quiet), [
      'loop_on: a person (cli): turned the loop on for this Task',
      'loop_off: a person (cli): turned the loop off for this Task',
      'unpark: a person (cli): unparked the Task',
      'park: a person (cli): parked the Task',
    ]);
    assert.equal((await h.api('GET', `/api/tasks/${id}`)).body.loopOff, false);
  });

  test('M1/V4: `task budget` sets the cap and says what is left', async () => {
    const r = await cli(['task', 'budget', String(ids.quiet), '--max-grants', '5'], env);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(
      r.stdout,
      'Set the cap on grants of one more attempt for acme/shop#33 to 5 (0 of 5 grants of one more attempt used, 5 left).\n',
    );
    assert.equal((await h.api('GET', `/api/tasks/${ids.quiet}`)).body.maxGrants, 5);
  });

  test('M1: `cancel` cancels a run and stops its agent; a second cancel is refused (exit 1)', async () => {
    const runId = runner.starts[0]!.runId;
    const r = await cli(['cancel', String(runId)], env);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, `Cancelled run ${runId} on acme/shop#31. A webhook will not undo it.\n`);
    assert.deepEqual(runner.killed, [runId]);
    assert.match((await actedRows(h, ids.red))[0]!, /^cancel_run: a person \(cli\): cancelled run/);
    const again = await cli(['cancel', String(runId)], env);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /already ended \(cancelled\)/);
  });

  test("H1/M1: `resume <task> --message` starts a person's run with the message; without one it is exit 2", async () => {
    const before = runner.starts.length;
    const r = await cli(['resume', String(ids.quiet), '--message', 'use the other fixture'], env);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^Started run \d+ on acme\/shop#33 with your message\.\n$/);
    assert.equal(runner.starts.length, before + 1);
    assert.match(runner.starts.at(-1)!.prompt, /^use the other fixture/);
    assert.match((await actedRows(h, ids.quiet))[0]!, /^resume: a person \(cli\): started run/);
    const bare = await cli(['resume', String(ids.quiet)], env);
    assert.equal(bare.code, 2);
    assert.match(bare.stderr, /--message/);
    assert.equal(runner.starts.length, before + 1);
  });

  test("M1: `--json` on an action prints the server's answer (the Task after it)", async () => {
    const r = await cli(['off', String(ids.tools), '--json'], env);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(JSON.parse(r.stdout).loopOff, true);
  });
});

describe('the token: where the CLI looks, in order, and what it says when refused (M1)', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness('sqlite');
  });
  after(() => h.close());

  test('M1: no token anywhere: exit 2, naming every source tried in order, and no file in the current folder', async () => {
    const dir = home();
    const r = await cli(['tasks'], { FIXLOOP_URL: h.url, HOME: dir });
    assert.equal(r.code, 2);
    const config = join(dir, '.config', 'fixloop', 'config.json');
    assert.ok(
      r.stderr.includes(
        `Token sources tried, in order: --token (not given), FIXLOOP_API_TOKEN (not set), ${config} (no such file), FIXLOOP_API_TOKEN_FILE (not set).`,
      ),
      r.stderr,
    );
    assert.match(r.stderr, /needs an API token \(it answered 401\) and none was found/);
    assert.match(r.stderr, /fixloop login --url URL --token TOKEN/);
    assert.doesNotMatch(r.stderr, /data\/api-token/);
  });

  test('M1: a refused token names the source it came from', async () => {
    const r = await cli(['inbox'], { FIXLOOP_URL: h.url, FIXLOOP_API_TOKEN: 'wrong', HOME: home() });
    assert.equal(r.code, 2);
    assert.match(r.stderr, /refused the API token from FIXLOOP_API_TOKEN \(it answered 401\)/);
    assert.match(r.stderr, /FIXLOOP_API_TOKEN \(used\)/);
    const flag = await cli(['inbox', '--token', 'also-wrong'], { FIXLOOP_URL: h.url, FIXLOOP_API_TOKEN: API_TOKEN });
    assert.match(flag.stderr, /refused the API token from --token/, '--token wins over the environment');
  });

  test('M1: `login` checks the token, then writes URL and token 0600 to the per-user config; later commands use it', async () => {
    const xdg = home();
    const refused = await cli(['login', '--url', h.url, '--token', 'wrong'], { XDG_CONFIG_HOME: xdg });
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /refused this token .*nothing was written/);
    const file = join(xdg, 'fixloop', 'config.json');
    assert.equal(existsSync(file), false);

    const ok = await cli(['login', '--url', `${h.url}/`, '--token', API_TOKEN], { XDG_CONFIG_HOME: xdg });
    assert.equal(ok.code, 0, ok.stderr);
    assert.deepEqual(JSON.parse(readFileSync(file, 'utf8')), { url: h.url, token: API_TOKEN });
    assert.equal(statSync(file).mode & 0o777, 0o600);
    // No URL and no token in the environment: both come from the file.
    const tasks = await cli(['tasks', '--json'], { XDG_CONFIG_HOME: xdg });
    assert.equal(tasks.code, 0, tasks.stderr);
    // The environment wins over the file.
    const env = await cli(['tasks'], { XDG_CONFIG_HOME: xdg, FIXLOOP_API_TOKEN: 'wrong' });
    assert.match(
      env.stderr,
      new RegExp(`from FIXLOOP_API_TOKEN .*${file.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} \\(skipped`),
    );
  });

  test("M1: the server's token file is read only when FIXLOOP_API_TOKEN_FILE names it", async () => {
    const dir = home();
    const file = join(dir, 'api-token');
    writeFileSync(file, `${API_TOKEN}\n`);
    const r = await cli(['tasks', '--json'], { FIXLOOP_URL: h.url, HOME: dir, FIXLOOP_API_TOKEN_FILE: file });
    assert.equal(r.code, 0, r.stderr);
  });

  test('M1: a per-user config file that is not JSON is exit 2 naming the file', async () => {
    const xdg = home();
    mkdirSync(join(xdg, 'fixloop'));
    writeFileSync(join(xdg, 'fixloop', 'config.json'), 'url = oops');
    const r = await cli(['tasks'], { XDG_CONFIG_HOME: xdg, FIXLOOP_URL: h.url });
    assert.equal(r.code, 2);
    assert.match(r.stderr, /config\.json is not JSON/);
  });
});

describe('`pr checks` through the server (M1, J1)', () => {
  let h: GitHubHarness;
  const SHA = 'ef'.repeat(20);
  before(async () => {
    h = await startGitHubHarness('sqlite');
    h.fake.addPull('acme/shop', 5, { headSha: SHA, headRef: 'agent/fix' });
    h.fake.addCheckRun('acme/shop', SHA, { name: 'lint', status: 'completed', conclusion: 'success' });
    h.fake.addCheckRun('acme/shop', SHA, { name: 'unit', status: 'completed', conclusion: 'failure' });
  });
  after(() => h.close());

  test("J1/M1: with a server configured, the server's GitHub credentials answer — none needed here", async () => {
    const r = await cli(['pr', 'checks', 'acme/shop#5', '--failing', '--log-lines', '0'], {
      FIXLOOP_URL: h.url,
      FIXLOOP_API_TOKEN: API_TOKEN,
    });
    assert.equal(r.code, 0, r.stderr);
    const answer = JSON.parse(r.stdout);
    assert.deepEqual(
      answer,
      (await h.api('GET', '/api/pull-requests/acme/shop/5/checks?failing=true&logLines=0')).body,
    );
    assert.deepEqual(
      answer.entries.map((e: any) => e.name),
      ['unit'],
    );
  });

  test('J1/M1: a configured server that cannot be reached is exit 1, never a silent switch to local credentials', async () => {
    const r = await cli(['pr', 'checks', 'acme/shop#5', '--url', 'http://127.0.0.1:1'], { GITHUB_TOKEN: 'local' });
    assert.equal(r.code, 1);
    assert.match(r.stderr, /cannot reach http:\/\/127\.0\.0\.1:1/);
  });

  test('J1/M1: with no server configured, local credentials are needed (exit 2 without them)', async () => {
    const r = await cli(['pr', 'checks', 'acme/shop#5'], { HOME: home() });
    assert.equal(r.code, 2);
    assert.match(r.stderr, /GITHUB_TOKEN/);
  });
});
