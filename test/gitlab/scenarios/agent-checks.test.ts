// Issue 19, SPEC J1–J3 with Q1/Q3 for GitLab: once a red job of a merge request's head pipeline has
// resumed the agent, the run's own `pull_request_checks` (the MCP tool over /mcp, and the same answer
// from GET /api/run/checks) lists every job of the head pipeline, failing by B3 as GitLab judges it: a
// job allowed to fail and a skipped job pass (and should say what they really were, docs/gitlab.md §7).
// The failing job carries its trace tail, cleaned of ANSI colours and GitLab's section markers and
// bounded by the lines asked for, and the one command that reruns exactly the failing tests (J3).
// fixloop reads the trace with its own token, which never reaches the agent. A trace GitLab cannot
// serve is an error on its entry only.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { DATABASE_KINDS } from '../../support/databases.js';
import { GL_PROJECT, sha, startGitLabHarness, type GitLabHarness, type JobSpec } from '../../support/gitlab-harness.js';
import type { RunSpec } from '../../../src/app/ports.js';

const ESC = '\u001b';
/** GitLab's collapsible-section markers, as the runner writes them into a trace. */
const sectionStart = (at: number, name: string) => `section_start:${at}:${name}\r${ESC}[0K`;
const sectionEnd = (at: number, name: string) => `section_end:${at}:${name}\r${ESC}[0K`;

/** A real pytest run (test/fixtures/tool-output/pytest.txt), coloured as pytest colours a CI terminal. */
function colouredPytest(): string[] {
  const plain = readFileSync(new URL('../../fixtures/tool-output/pytest.txt', import.meta.url), 'utf8');
  return plain
    .replace(/\n$/, '')
    .split('\n')
    .map((l) => {
      if (l.startsWith('FAILED ')) return `${ESC}[31mFAILED${ESC}[0m ${l.slice('FAILED '.length)}`;
      if (/^=+ \d+ failed/.test(l))
        return `${ESC}[31m${l.replace(/(\d+ failed)/, `${ESC}[1m$1${ESC}[0m${ESC}[31m`)}${ESC}[0m`;
      if (l.startsWith('E ')) return `${ESC}[1m${ESC}[31m${l}${ESC}[0m`;
      return l;
    });
}

/** The failing job's whole trace: runner preamble, the script's section with pytest's output, the failure. */
const PYTEST_TRACE = [
  `${ESC}[0KRunning with gitlab-runner 18.5.0 (a1b2c3d4)${ESC}[0;m`,
  `${ESC}[0K  on shared-runner-7 xyz123, system ID: s_0123456789ab${ESC}[0;m`,
  `${sectionStart(1764580000, 'prepare_executor')}${ESC}[0K${ESC}[36;1mPreparing the "docker" executor${ESC}[0;m`,
  `${ESC}[0KUsing Docker executor with image python:3.11 ...${ESC}[0;m`,
  sectionEnd(1764580003, 'prepare_executor'),
  `${sectionStart(1764580004, 'get_sources')}${ESC}[0K${ESC}[36;1mGetting source from Git repository${ESC}[0;m`,
  `${ESC}[32;1mFetching changes with git depth set to 20...${ESC}[0;m`,
  sectionEnd(1764580006, 'get_sources'),
  `${sectionStart(1764580007, 'step_script')}${ESC}[0K${ESC}[36;1mExecuting "step_script" stage of the job script${ESC}[0;m`,
  `${ESC}[32;1m$ python -m pytest${ESC}[0;m`,
  ...colouredPytest(),
  sectionEnd(1764580012, 'step_script'),
  `${sectionStart(1764580012, 'cleanup_file_variables')}${ESC}[0K${ESC}[36;1mCleaning up project directory and file based variables${ESC}[0;m`,
  sectionEnd(1764580013, 'cleanup_file_variables'),
  `${ESC}[31;1mERROR: Job failed: exit code 1`,
  `${ESC}[0;m`,
  '',
].join('\n');

const LOG_LINES = 12;

/** The last line of a tail that shows anything. */
const lastShown = (lines: string[]) => lines.filter((l) => l.trim() !== '').at(-1);

for (const kind of DATABASE_KINDS) {
  describe(`GitLab: the agent reads its merge request's checks (${kind})`, () => {
    let h: GitLabHarness;
    const clients: Client[] = [];

    before(async () => {
      h = await startGitLabHarness(kind, { env: { TASK_CI_AUTO_RESUME_MAX_ATTEMPTS: '3' } });
    });
    after(async () => {
      await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
      await h.close();
    });

    /** A Task on merge request !iid whose head pipeline runs `jobs`; the Job hook of `red` resumes the agent. */
    async function resumedOn(iid: number, jobs: JobSpec[], red: string): Promise<RunSpec> {
      h.openMergeRequest(iid, { headSha: sha(String(iid % 10)) });
      const created = await h.api('POST', '/api/tasks', {
        repository: GL_PROJECT,
        pullRequest: iid,
        branch: `agent/${iid}`,
      });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const p = h.runPipeline(iid, sha(String(iid % 10)), jobs);
      const starts = h.runner.starts.length;
      const res = await h.hook('Job Hook', h.jobHook(p.jobs.find((j) => j.name === red)!));
      assert.equal(res.status, 202, JSON.stringify(res.body));
      await h.app.settle();
      assert.equal(h.runner.starts.length, starts + 1, 'the red job resumed the agent');
      const spec = h.runner.starts.at(-1)!;
      assert.equal(spec.taskId, created.body.id);
      assert.ok(spec.runToken.length >= 32);
      return spec;
    }

    async function connect(token: string): Promise<Client> {
      const client = new Client({ name: 'agent-under-test', version: '0' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${h.url}/mcp`), {
          requestInit: { headers: { authorization: `Bearer ${token}` } },
        }),
      );
      clients.push(client);
      return client;
    }

    /** The MCP tool's answer, as the agent reads it (its text), parsed. */
    async function checksOverMcp(token: string, args: Record<string, unknown>): Promise<{ text: string; body: any }> {
      const client = await connect(token);
      const result = (await client.callTool({ name: 'pull_request_checks', arguments: args })) as CallToolResult;
      const first = result.content[0];
      assert.ok(first && first.type === 'text');
      assert.notEqual(result.isError, true, first.text);
      return { text: first.text, body: JSON.parse(first.text) };
    }

    /** GET /api/run/checks with the run token, as an agent's curl would. */
    async function checksOverApi(token: string, query: string): Promise<{ text: string; body: any }> {
      const res = await fetch(`${h.url}/api/run/checks?${query}`, { headers: { authorization: `Bearer ${token}` } });
      const text = await res.text();
      assert.equal(res.status, 200, text);
      return { text, body: JSON.parse(text) };
    }

    test('J1/J2/J3: every job of the head pipeline, the failing one failing with its cleaned, bounded trace tail and the command for exactly its failing tests; a job allowed to fail and a skipped job are listed, not failing; fixloop’s token appears nowhere', async () => {
      const spec = await resumedOn(
        61,
        [
          { name: 'lint', stage: 'check', status: 'success', trace: 'All checks passed!\n' },
          { name: 'pytest', stage: 'test', status: 'failed', trace: PYTEST_TRACE },
          { name: 'flaky-e2e', stage: 'test', status: 'failed', allowFailure: true, trace: 'E2E timed out\n' },
          { name: 'deploy-preview', stage: 'deploy', status: 'skipped' },
        ],
        'pytest',
      );

      const mcp = await checksOverMcp(spec.runToken, { log_lines: LOG_LINES });
      const api = await checksOverApi(spec.runToken, `logLines=${LOG_LINES}`);
      assert.deepEqual(api.body, mcp.body, 'the REST run route answers what the MCP tool does');

      const out = mcp.body;
      assert.equal(out.repository, GL_PROJECT);
      assert.equal(out.number, 61);
      assert.equal(out.headSha, sha('1'));
      const names = out.entries.map((e: any) => e.name).sort();
      assert.deepEqual(names, ['deploy-preview', 'flaky-e2e', 'lint', 'pytest'], JSON.stringify(out.entries));
      const byName = new Map<string, any>(out.entries.map((e: any) => [e.name, e]));
      assert.deepEqual(
        out.entries.filter((e: any) => e.failing).map((e: any) => e.name),
        ['pytest'],
        'only the job that may not fail is failing',
      );
      for (const name of ['lint', 'flaky-e2e', 'deploy-preview']) {
        const e = byName.get(name)!;
        assert.equal(e.failing, false, name);
        assert.equal(e.log, undefined, `${name}: no log for a job that is not failing`);
        assert.equal(e.localCommand, undefined, name);
      }

      const pytest = byName.get('pytest')!;
      assert.equal(pytest.kind, 'check_run');
      assert.equal(pytest.conclusion, 'failure');
      assert.equal(typeof pytest.jobId, 'number');
      assert.equal(pytest.logError, undefined, pytest.logError);
      const lines: string[] = pytest.log.lines;
      assert.ok(lines.length > 0 && lines.length <= LOG_LINES, `at most ${LOG_LINES} lines: ${lines.length}`);
      assert.equal(pytest.log.truncated, true, 'the trace is longer than the lines asked for');
      for (const l of lines) {
        assert.ok(!l.includes(ESC), `no ANSI escape left: ${JSON.stringify(l)}`);
        assert.ok(!/section_(start|end):/.test(l), `no section marker left: ${JSON.stringify(l)}`);
        assert.ok(!l.includes('\r'), JSON.stringify(l));
      }
      // GitLab ends a trace with a colour reset on a line of its own: cleaned, that line is blank.
      assert.equal(lastShown(lines), 'ERROR: Job failed: exit code 1', JSON.stringify(lines));
      assert.ok(lines.includes('Cleaning up project directory and file based variables'), JSON.stringify(lines));
      assert.ok(
        lines.includes('========================= 2 failed, 3 passed in 0.73s =========================='),
        JSON.stringify(lines),
      );

      // J3: read from the whole tail kept, not only the lines shown — exactly the two failing tests.
      assert.deepEqual(pytest.localCommand?.tool, 'pytest', JSON.stringify(pytest.localCommand));
      assert.deepEqual(pytest.localCommand.failures, [
        { file: 'tests/test_math.py', test: 'TestMath::test_divides' },
        { file: 'tests/test_math.py', test: "test_joins[it's a quote]" },
      ]);
      assert.deepEqual(pytest.localCommand.command, [
        'python',
        '-m',
        'pytest',
        'tests/test_math.py::TestMath::test_divides',
        "tests/test_math.py::test_joins[it's a quote]",
      ]);

      // fixloop read the trace with its own token; the agent's answer carries none of it.
      const traceReads = h.fake.requests.filter((r) => r.path.endsWith(`/jobs/${pytest.jobId}/trace`));
      assert.ok(traceReads.length >= 1, 'the trace was read from GitLab');
      assert.ok(traceReads.every((r) => r.headers['private-token'] === h.token));
      assert.ok(!mcp.text.includes(h.token), "fixloop's GitLab token is not in the MCP answer");
      assert.ok(!api.text.includes(h.token), "fixloop's GitLab token is not in the API answer");
    });

    test("J1 (docs/gitlab.md §7): a job allowed to fail and a skipped job say what they really were in pull_request_checks' answer", async () => {
      const spec = await resumedOn(
        62,
        [
          { name: 'pytest', stage: 'test', status: 'failed', trace: PYTEST_TRACE },
          { name: 'flaky-e2e', stage: 'test', status: 'failed', allowFailure: true, trace: 'E2E timed out\n' },
          { name: 'deploy-preview', stage: 'deploy', status: 'skipped' },
        ],
        'pytest',
      );
      const { body } = await checksOverMcp(spec.runToken, { log_lines: 0 });
      const byName = new Map<string, any>(body.entries.map((e: any) => [e.name, e]));
      assert.equal(byName.get('flaky-e2e')?.failing, false);
      assert.equal(
        byName.get('flaky-e2e')?.output?.title,
        'failed, allowed to fail',
        JSON.stringify(byName.get('flaky-e2e')),
      );
      assert.equal(
        byName.get('deploy-preview')?.output?.title,
        'skipped',
        JSON.stringify(byName.get('deploy-preview')),
      );
    });

    test('J2: a trace GitLab cannot serve (404) is an error on that entry only; the other failing job keeps its log and command', async () => {
      const spec = await resumedOn(
        63,
        [
          { name: 'pytest', stage: 'test', status: 'failed', trace: PYTEST_TRACE },
          { name: 'integration', stage: 'test', status: 'failed' }, // no trace: GitLab answers 404
          { name: 'lint', stage: 'check', status: 'success' },
        ],
        'pytest',
      );
      const { text, body } = await checksOverMcp(spec.runToken, { failing: true, log_lines: LOG_LINES });
      assert.deepEqual(body.entries.map((e: any) => e.name).sort(), ['integration', 'pytest'], text);
      const byName = new Map<string, any>(body.entries.map((e: any) => [e.name, e]));
      const integration = byName.get('integration')!;
      assert.equal(integration.failing, true);
      assert.equal(integration.log, undefined);
      assert.equal(integration.localCommand, undefined);
      assert.match(integration.logError ?? '', /404/, JSON.stringify(integration));
      const pytest = byName.get('pytest')!;
      assert.equal(pytest.logError, undefined);
      assert.equal(lastShown(pytest.log.lines), 'ERROR: Job failed: exit code 1');
      assert.equal(pytest.localCommand?.tool, 'pytest');
      assert.ok(!text.includes(h.token), "fixloop's GitLab token is not in the answer, nor in the error");
    });
  });
}
