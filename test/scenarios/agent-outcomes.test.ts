// SPEC I1, I2, J1, K6, M2, M3 through the real pipeline on both databases: a red push resumes the
// agent; with the token it was handed, the SDK's own MCP client over streamable HTTP (`/mcp`) reads
// its own pull request's checks, reports one first-write outcome (the attempt moves on), reports
// spend and reads the loop state; another run's token sees only its own run; once the run ended its
// token is refused; the same operations over the `/api/run/*` routes with a plain fetch.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { DATABASE_KINDS } from '../support/databases.js';
import { startGitHubHarness, type GitHubHarness } from '../support/github-harness.js';
import { API_TOKEN, REPO, SECRET } from '../support/harness.js';
import { checkRunPayload, delivery, post } from '../support/deliveries.js';
import { createAgentLedger } from '../../src/ledger/agent-ledger.js';
import type { AgentLedger } from '../../src/app/agent-port.js';
import type { RunSpec } from '../../src/app/ports.js';
import { MCP_TOOL_NAMES } from '../../src/mcp/server.js';

const REPO_NAME = `${REPO.owner}/${REPO.name}`;
const sha = (pr: number, n = 1) => `${pr.toString(16)}${n}`.padStart(40, 'f');

for (const kind of DATABASE_KINDS) {
  describe(`agent outcomes over MCP and the API (${kind})`, () => {
    let h: GitHubHarness;
    let agent: AgentLedger;
    const clients: Client[] = [];
    const tasks = new Map<number, number>(); // pull request → Task id
    const runs = new Map<number, RunSpec>(); // pull request → the run resumed for it

    /** A Task on this pull request, its head red: the webhook's red push resumes the agent. */
    async function redPush(pr: number): Promise<RunSpec> {
      const created = await h.api('POST', '/api/tasks', {
        repository: REPO_NAME,
        pullRequest: pr,
        branch: `agent/fix-${pr}`,
      });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      tasks.set(pr, created.body.id);
      h.fake.addPull(REPO_NAME, pr, { headSha: sha(pr), headRef: `agent/fix-${pr}` });
      h.fake.addCheckRun(REPO_NAME, sha(pr), {
        name: 'test',
        status: 'completed',
        conclusion: 'failure',
        outputSummary: `FAIL src/pr${pr}.test.ts`,
      });
      h.fake.addCheckRun(REPO_NAME, sha(pr), { name: 'lint', status: 'completed', conclusion: 'success' });
      const starts = h.runner.starts.length;
      const d = delivery(
        'check_run',
        checkRunPayload({
          repo: REPO,
          sha: sha(pr),
          id: 5000 + pr,
          name: 'test',
          pr: { number: pr, headSha: sha(pr) },
          output: `FAIL src/pr${pr}.test.ts`,
        }),
      );
      const res = await post(h.url, d, SECRET);
      assert.equal(res.status, 202, JSON.stringify(res.body));
      await h.app.settle();
      assert.equal(h.runner.starts.length, starts + 1, 'the red push resumed the agent');
      const spec = h.runner.starts.at(-1)!;
      assert.equal(spec.pullRequest, pr);
      assert.ok(spec.attemptId !== null);
      assert.ok(spec.runToken.length >= 32, 'a run-scoped credential was handed to the agent');
      assert.match(spec.apiUrl, /^https?:\/\//);
      runs.set(pr, spec);
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

    async function tool(client: Client, name: string, args: Record<string, unknown> = {}): Promise<CallToolResult> {
      return (await client.callTool({ name, arguments: args })) as CallToolResult;
    }

    function ok(result: CallToolResult): any {
      const first = result.content[0];
      assert.ok(first && first.type === 'text');
      assert.notEqual(result.isError, true, first.text);
      return JSON.parse(first.text);
    }

    function refusal(result: CallToolResult, code: string): string {
      const first = result.content[0];
      assert.ok(first && first.type === 'text');
      assert.equal(result.isError, true, first.text);
      assert.ok(first.text.startsWith(`${code}: `), first.text);
      return first.text;
    }

    /** The run API: a plain fetch with the run token as bearer, as an agent's curl would. */
    async function runApi(
      token: string,
      method: 'GET' | 'POST',
      path: string,
      body?: unknown,
    ): Promise<{ status: number; body: any }> {
      const res = await fetch(`${h.url}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
      return { status: res.status, body: await res.json() };
    }

    /** The runner's exit is written asynchronously: wait until the ledger shows the run ended. */
    async function finish(spec: RunSpec): Promise<void> {
      h.runner.finish(spec.runId);
      for (let i = 0; i < 200; i++) {
        const run = await h.api('GET', `/api/runs/${spec.runId}`);
        if (run.body.state === 'completed') return;
        await new Promise((r) => setTimeout(r, 10));
      }
      assert.fail(`run ${spec.runId} never ended`);
    }

    before(async () => {
      h = await startGitHubHarness(kind, { env: { TASK_CI_AUTO_RESUME_MAX_ATTEMPTS: '3' } });
      agent = createAgentLedger(h.app.db, h.app.ledger);
    });
    after(async () => {
      await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
      await h.close();
    });

    test("M3/I2: the resumed run's MCP client reads its checks and reports action_taken → the attempt awaits progress; a second outcome is refused", async () => {
      const spec = await redPush(7);
      const client = await connect(spec.runToken);
      assert.deepEqual((await client.listTools()).tools.map((t) => t.name).sort(), [...MCP_TOOL_NAMES].sort());

      // J1 for its own pull request, the caller naming none.
      const checks = ok(await tool(client, 'pull_request_checks', { failing: true, log_lines: 0 }));
      assert.equal(checks.repository, REPO_NAME);
      assert.equal(checks.number, 7);
      assert.equal(checks.headSha, sha(7));
      assert.deepEqual(
        checks.entries.map((e: any) => e.name),
        ['test'],
      );
      // No tool takes a task, run or pull request.
      assert.equal((await tool(client, 'pull_request_checks', { number: 8 })).isError, true);

      const reported = ok(
        await tool(client, 'report_fix_outcome', { outcome: 'action_taken', reason: 'pushed a fix for the parser' }),
      );
      assert.equal(reported.attemptId, spec.attemptId);
      assert.equal(reported.state, 'awaiting_progress');
      const life = await agent.life(spec.attemptId!);
      assert.equal(life?.state, 'awaiting_progress');
      assert.equal(life?.outcome, 'action_taken');
      assert.equal(life?.outcomeReason, 'pushed a fix for the parser');
      assert.ok(life?.actionTakenAt, 'the progress clock started');
      assert.equal(
        JSON.parse(life!.baseline!).headSha,
        sha(7),
        'progress is measured from the head the attempt was for',
      );

      const again = refusal(
        await tool(client, 'report_fix_outcome', { outcome: 'blocked', reason: 'changed my mind' }),
        'outcome_already_reported',
      );
      assert.match(again, /first report is final/);
      assert.equal((await agent.life(spec.attemptId!))?.outcome, 'action_taken', 'first write wins');

      // The decision log tells people what the run reported.
      const decisions = (await h.api('GET', `/api/deliveries?taskId=${tasks.get(7)}`)).body.decisions;
      assert.ok(
        decisions.some(
          (d: any) => d.attemptId === spec.attemptId && d.outcome === 'reported' && d.reason === 'outcome_action_taken',
        ),
        JSON.stringify(decisions),
      );
    });

    test('K6: report_spend adds up; loop_state shows the attempt with its lifecycle and the spend', async () => {
      const client = await connect(runs.get(7)!.runToken);
      assert.equal(ok(await tool(client, 'report_spend', { model_cost: 1.25, note: 'first pass' })).totalSpend, 1.25);
      const second = ok(await tool(client, 'report_spend', { model_cost: 0.5, sandbox_cost: 0.25 }));
      assert.equal(second.totalSpend, 2);
      assert.equal(second.model, 1.75);
      assert.equal(second.sandbox, 0.25);
      refusal(await tool(client, 'report_spend', { note: 'nothing' }), 'invalid');

      const state = ok(await tool(client, 'loop_state'));
      assert.equal(state.id, tasks.get(7));
      assert.equal(state.pullRequest, 7);
      assert.equal(state.attempts.length, 1);
      assert.equal(state.attempts[0].id, runs.get(7)!.attemptId);
      assert.equal(state.attempts[0].state, 'awaiting_progress');
      assert.equal(state.attempts[0].outcome, 'action_taken');
      assert.equal(state.run.id, runs.get(7)!.runId);
      assert.equal(state.spend.totalSpend, 2);
      const decisions = (await h.api('GET', `/api/deliveries?taskId=${tasks.get(7)}`)).body.decisions;
      assert.equal(
        decisions.filter((d: any) => d.outcome === 'reported' && d.reason === 'spend_reported').length,
        2,
        'each spend report is in the decision log',
      );
    });

    test("another run's token sees only its own run", async () => {
      const b = await redPush(8);
      const client = await connect(b.runToken);
      const state = ok(await tool(client, 'loop_state'));
      assert.equal(state.id, tasks.get(8));
      assert.deepEqual(
        state.attempts.map((a: any) => a.id),
        [b.attemptId],
      );
      assert.equal(state.spend.totalSpend, 0, "run A's spend is its own Task's");
      assert.equal(ok(await tool(client, 'pull_request_checks', { log_lines: 0 })).number, 8);
      const reported = ok(await tool(client, 'report_fix_outcome', { outcome: 'non_actionable' }));
      assert.deepEqual([reported.attemptId, reported.state], [b.attemptId, 'acknowledged']);
      const a = await agent.life(runs.get(7)!.attemptId!);
      assert.deepEqual([a?.state, a?.outcome], ['awaiting_progress', 'action_taken'], "run A's attempt is untouched");
      // An unknown token gets nothing at all.
      const unknown = await fetch(`${h.url}/mcp`, {
        method: 'POST',
        headers: {
          authorization: 'Bearer not-a-run-token',
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      assert.equal(unknown.status, 401);
      assert.equal(((await unknown.json()) as any).error, 'unauthorized');
    });

    test('after the run ended, its token is refused: run_ended', async () => {
      const spec = runs.get(7)!;
      const client = await connect(spec.runToken);
      await finish(spec);
      const text = refusal(await tool(client, 'loop_state'), 'run_ended');
      assert.match(text, new RegExp(`run ${spec.runId}\\b`), 'the refusal names the run');
      refusal(await tool(client, 'report_spend', { model_cost: 1 }), 'run_ended');
      refusal(await tool(client, 'report_fix_outcome', { outcome: 'non_actionable' }), 'run_ended');
      refusal(await tool(client, 'pull_request_checks', {}), 'run_ended');
      const api = await runApi(spec.runToken, 'POST', '/api/run/outcome', { outcome: 'non_actionable' });
      assert.equal(api.status, 403);
      assert.equal(api.body.error, 'run_ended');
      // The ended run's attempt keeps the outcome it reported (action_taken still awaits progress).
      assert.equal((await agent.life(spec.attemptId!))?.state, 'awaiting_progress');
      // The other run is unaffected.
      assert.equal((await runApi(runs.get(8)!.runToken, 'GET', '/api/run/state')).status, 200);
    });

    test('M2: the same operations over /api/run/* with the run token as bearer', async () => {
      const spec = await redPush(9);
      const token = spec.runToken;

      const checks = await runApi(token, 'GET', '/api/run/checks?failing=true&logLines=0');
      assert.equal(checks.status, 200, JSON.stringify(checks.body));
      assert.equal(checks.body.number, 9);

      const blocked = await runApi(token, 'POST', '/api/run/outcome', {
        outcome: 'blocked',
        reason: 'the fix needs a secret only a person has',
      });
      assert.equal(blocked.status, 200, JSON.stringify(blocked.body));
      assert.deepEqual(blocked.body, { attemptId: spec.attemptId, state: 'acknowledged', outcome: 'blocked' });
      const second = await runApi(token, 'POST', '/api/run/outcome', { outcome: 'action_taken' });
      assert.equal(second.status, 409);
      assert.equal(second.body.error, 'outcome_already_reported');
      const chosen = await runApi(token, 'POST', '/api/run/outcome', { outcome: 'action_taken', taskId: tasks.get(7) });
      assert.equal(chosen.status, 400, 'a caller-chosen Task is refused, not ignored');

      assert.equal((await runApi(token, 'POST', '/api/run/spend', { model: 0.75 })).body.totalSpend, 0.75);
      assert.equal(
        (await runApi(token, 'POST', '/api/run/spend', { sandbox: 0.25, note: 'sandbox' })).body.totalSpend,
        1,
      );

      const state = await runApi(token, 'GET', '/api/run/state');
      assert.equal(state.status, 200);
      assert.equal(state.body.id, tasks.get(9));
      assert.deepEqual(
        state.body.attempts.map((a: any) => [a.id, a.state, a.outcome, a.outcomeReason]),
        [[spec.attemptId, 'acknowledged', 'blocked', 'the fix needs a secret only a person has']],
      );
      assert.equal(state.body.spend.totalSpend, 1);

      // The API token is not a run token, and a run token opens nothing else.
      assert.equal((await runApi(API_TOKEN, 'GET', '/api/run/state')).status, 401);
      assert.equal((await runApi(token, 'GET', '/api/tasks')).status, 401);

      await finish(spec);
      const ended = await runApi(token, 'POST', '/api/run/spend', { model: 1 });
      assert.equal(ended.status, 403);
      assert.equal(ended.body.error, 'run_ended');
    });
  });
}
