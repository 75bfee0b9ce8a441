// The agent's ops (SPEC M3, I1–I3, J1, K6) over in-memory fakes of our own ports: a run token
// resolves to its one run by its sha256; every op is about that run's Task, pull request and attempt;
// a run that ended reports nothing; the outcome is first-write and moves the attempt by
// compare-and-set; spend adds up; the loop state shows the attempts' lifecycle.
import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createAgentWorld, FAKE_NOW, sha256, type AgentWorld } from '../../test/support/agent-fakes.js';
import { AgentOpsError, type AgentOpsErrorCode, type ResolveRun } from './agent-ops-port.js';
import { createMcpServer } from '../mcp/server.js';
import {
  createResolveRun,
  defaultSnapshot,
  OUTCOME_DECISION,
  type AgentOpsDeps,
  type LoopState,
  type OutcomeReport,
  type SpendReport,
} from './agent-ops.js';
import type { DecisionWriter } from './decision-writer.js';
import { ProviderError, type CheckRunInfo, type ProviderPort, type PullRequestInfo } from './provider-port.js';
import type { DecisionInput } from './ledger-port.js';
import type { PrChecksResult } from './pr-checks.js';
import type { ProgressSnapshot } from '../core/progress.js';

const NOW = '2026-12-01T10:00:00.000Z';
const clock = { now: () => new Date(NOW) };

type FakeGitHub = Pick<ProviderPort, 'getPullRequest' | 'listCheckRuns' | 'listStatuses' | 'jobLogUrl'> & {
  calls: string[];
  refuse: number | null;
};

function fakeGitHub(): FakeGitHub {
  const gh: FakeGitHub = {
    calls: [],
    refuse: null,
    async getPullRequest(repository, number) {
      gh.calls.push(`pull ${repository}#${number}`);
      if (gh.refuse !== null) throw new ProviderError(gh.refuse, 'Not Found', false);
      const pr: PullRequestInfo = {
        repository,
        number,
        state: 'open',
        merged: false,
        headSha: `${number}`.padStart(40, 'e'),
        headRef: 'agent/fix',
        headRepository: repository,
        baseRef: 'main',
        author: 'agent',
        draft: false,
        labels: [],
        mergeableState: null,
        updatedAt: FAKE_NOW,
      };
      return pr;
    },
    async listCheckRuns(repository, ref) {
      gh.calls.push(`checks ${repository}@${ref}`);
      const run = (id: number, name: string, conclusion: string): CheckRunInfo => ({
        id,
        name,
        status: 'completed',
        conclusion,
        startedAt: null,
        completedAt: null,
        detailsUrl: null,
        appSlug: 'github-actions',
        outputTitle: null,
        outputSummary: null,
      });
      return [run(1, 'test', 'failure'), run(2, 'lint', 'success')];
    },
    async listStatuses(repository, ref) {
      gh.calls.push(`statuses ${repository}@${ref}`);
      return [];
    },
    async jobLogUrl(repository, jobId) {
      gh.calls.push(`log ${repository}/${jobId}`);
      return `https://blob.example/${jobId}`;
    },
  };
  return gh;
}

const fetchLog: AgentOpsDeps['fetchLog'] = async () => ({ text: 'FAIL one\nFAIL two', truncated: false });

async function refused(p: Promise<unknown>, code: AgentOpsErrorCode, message?: RegExp): Promise<AgentOpsError> {
  try {
    await p;
  } catch (err) {
    assert.ok(err instanceof AgentOpsError, `expected AgentOpsError(${code}), got ${String(err)}`);
    assert.equal(err.code, code, err.message);
    if (message) assert.match(err.message, message);
    return err;
  }
  assert.fail(`expected AgentOpsError(${code}), the call succeeded`);
}

describe('createResolveRun', () => {
  let w: AgentWorld;
  let github: FakeGitHub;
  let resolve: ResolveRun;
  let taskId: number;
  let runId: number;
  let attemptId: number;

  const deps = (over: Partial<AgentOpsDeps> = {}): AgentOpsDeps => ({
    agent: w.agent,
    ledger: w.ledger,
    host: github,
    fetchLog,
    clock,
    ...over,
  });

  beforeEach(() => {
    w = createAgentWorld();
    github = fakeGitHub();
    resolve = createResolveRun(deps());
    taskId = w.addTask({ repository: 'acme/shop', pullRequest: 7 }).id;
    const r = w.addRun(taskId, { token: 'token-a', attempt: { state: 'running', headSha: 'a'.repeat(40) } });
    runId = r.run.id;
    attemptId = r.attempt!.id;
  });

  describe('the token', () => {
    it('is looked up by its sha256 only; an unknown or empty token is unauthorized', async () => {
      await resolve('token-a');
      assert.deepEqual(w.lookups, [sha256('token-a')]);
      await refused(resolve('token-b'), 'unauthorized', /unknown run token/);
      await refused(resolve(''), 'unauthorized');
      assert.ok(!w.lookups.includes('token-a'), 'the plain token never reaches the ledger');
    });

    it('I5: resolving the token (an MCP handshake) is not the agent reaching fixloop; its first call is, even refused', async () => {
      const ops = await resolve('token-a');
      assert.equal(w.runs.get(runId)!.agentSeenAt, null, 'a CLI connects at start-up whatever comes next');
      await refused(ops.checks({ failingOnly: 'yes' as never, logLines: 1 }), 'invalid');
      assert.equal(w.runs.get(runId)!.agentSeenAt, NOW, 'a refused call still reached fixloop');
      w.runs.get(runId)!.agentSeenAt = '2026-12-01T09:00:00.000Z';
      await ops.loopState();
      assert.equal(w.runs.get(runId)!.agentSeenAt, '2026-12-01T09:00:00.000Z', 'only the first call is kept');
    });

    it("binds the ops to that run: another run's token sees only its own Task, pull request and attempt", async () => {
      const other = w.addTask({ pullRequest: 8 });
      const b = w.addRun(other.id, { token: 'token-b', attempt: { state: 'running' } });
      const opsA = await resolve('token-a');
      const opsB = await resolve('token-b');
      assert.equal(((await opsB.checks({ failingOnly: false, logLines: 0 })) as PrChecksResult).number, 8);
      assert.equal(((await opsA.checks({ failingOnly: false, logLines: 0 })) as PrChecksResult).number, 7);
      const reported = (await opsB.reportOutcome({ outcome: 'non_actionable' })) as OutcomeReport;
      assert.equal(reported.attemptId, b.attempt!.id);
      assert.equal(w.lives.get(attemptId)!.outcome, null, "run A's attempt is untouched");
      const stateA = (await opsA.loopState()) as LoopState;
      assert.equal(stateA.id, taskId);
      assert.deepEqual(
        stateA.attempts.map((a) => a.id),
        [attemptId],
      );
      assert.equal(stateA.run.id, runId);
    });
  });

  describe('a run that ended', () => {
    for (const state of ['completed', 'failed', 'cancelled'] as const) {
      it(`refuses every op once the run is ${state}, naming the run — even ops bound before it ended`, async () => {
        const ops = await resolve('token-a');
        w.endRun(runId, state);
        const named = new RegExp(`run ${runId} of Task ${taskId} already ended \\(${state}\\)`);
        await refused(ops.checks({ failingOnly: false, logLines: 0 }), 'run_ended', named);
        await refused(ops.reportOutcome({ outcome: 'action_taken' }), 'run_ended', named);
        await refused(ops.reportSpend({ model: 1 }), 'run_ended', named);
        await refused(ops.loopState(), 'run_ended', named);
        await refused((await resolve('token-a')).loopState(), 'run_ended', named);
        assert.equal(w.lives.get(attemptId)!.outcome, null);
        assert.deepEqual(w.spends, []);
        assert.deepEqual(github.calls, []);
      });
    }

    it('a run parked on a question has not ended', async () => {
      w.runs.get(runId)!.state = 'question';
      await (await resolve('token-a')).loopState();
    });
  });

  describe('reportOutcome (I1, I2)', () => {
    it('action_taken: first write, running → awaiting_progress with the time and the baseline, one decision row', async () => {
      const ops = await resolve('token-a');
      const out = await ops.reportOutcome({ outcome: 'action_taken', reason: 'pushed a fix for the parser' });
      assert.deepEqual(out, { attemptId, state: 'awaiting_progress', outcome: 'action_taken' });
      const life = w.lives.get(attemptId)!;
      assert.equal(life.state, 'awaiting_progress');
      assert.equal(life.outcome, 'action_taken');
      assert.equal(life.outcomeReason, 'pushed a fix for the parser');
      assert.equal(life.outcomeAt, NOW);
      assert.equal(life.actionTakenAt, NOW);
      // The default baseline is the head the attempt was about, so a push before the report counts.
      assert.deepEqual(JSON.parse(life.baseline!), defaultSnapshot(w.tasks.get(taskId)!, { headSha: 'a'.repeat(40) }));
      assert.equal(JSON.parse(life.baseline!).headSha, 'a'.repeat(40));
      assert.deepEqual(w.decisions, [
        {
          taskId,
          attemptId,
          outcome: OUTCOME_DECISION,
          reason: 'outcome_action_taken',
          detail: `run ${runId}: pushed a fix for the parser`,
        },
      ]);
    });

    it('a second report is refused (outcome_already_reported) and changes nothing', async () => {
      const ops = await resolve('token-a');
      await ops.reportOutcome({ outcome: 'action_taken' });
      const before = { ...w.lives.get(attemptId)! };
      await refused(
        ops.reportOutcome({ outcome: 'blocked', reason: 'actually blocked' }),
        'outcome_already_reported',
        /already has the outcome action_taken; the first report is final/,
      );
      await refused((await resolve('token-a')).reportOutcome({ outcome: 'action_taken' }), 'outcome_already_reported');
      assert.deepEqual(w.lives.get(attemptId), before);
      assert.equal(w.decisions.length, 1);
    });

    it('non_actionable and blocked acknowledge; the reason is bounded for people', async () => {
      const ops = await resolve('token-a');
      assert.equal(((await ops.reportOutcome({ outcome: 'non_actionable' })) as OutcomeReport).state, 'acknowledged');
      assert.equal(w.lives.get(attemptId)!.outcomeReason, null);
      assert.equal(w.lives.get(attemptId)!.actionTakenAt, null);
      assert.equal(w.lives.get(attemptId)!.baseline, null);

      const t2 = w.addTask({ pullRequest: 9 });
      const b = w.addRun(t2.id, { token: 'token-b', attempt: { state: 'queued' } });
      const long = `needs\u202e a \u001b[31mperson\u001b[0m\n\u{E0041}${'x'.repeat(900)}`;
      const out = (await (
        await resolve('token-b')
      ).reportOutcome({ outcome: 'blocked', reason: long })) as OutcomeReport;
      assert.equal(
        out.state,
        'acknowledged',
        'an outcome overtaking the dispatch acknowledgement is taken from queued',
      );
      const reason = w.lives.get(b.attempt!.id)!.outcomeReason!;
      assert.ok(reason.startsWith('needs a person x'), reason);
      assert.equal([...reason].length, 500);
      assert.ok(reason.endsWith('…'));
      assert.doesNotMatch(reason, /[\u0000-\u001f\u202e\u{E0041}]/u);
    });

    it('blocked without a reason (or with only invisible text) is invalid and writes nothing', async () => {
      const ops = await resolve('token-a');
      await refused(ops.reportOutcome({ outcome: 'blocked' }), 'invalid', /blocked needs a reason/);
      await refused(ops.reportOutcome({ outcome: 'blocked', reason: ' \u200b\u0007 ' }), 'invalid');
      assert.equal(w.lives.get(attemptId)!.outcome, null);
      assert.equal(w.lives.get(attemptId)!.state, 'running');
      assert.deepEqual(w.decisions, []);
      await ops.reportOutcome({ outcome: 'blocked', reason: 'the fix needs a secret only a person has' });
    });

    it('an unknown outcome is invalid', async () => {
      await refused(
        (await resolve('token-a')).reportOutcome({ outcome: 'fixed' as never }),
        'invalid',
        /action_taken, non_actionable, blocked/,
      );
    });

    it("a run with no attempt (the Task's opening run) answers no_attempt", async () => {
      w.addRun(taskId, { token: 'token-start', state: 'running', attempt: null });
      await refused(
        (await resolve('token-start')).reportOutcome({ outcome: 'action_taken' }),
        'no_attempt',
        /answers no attempt/,
      );
    });

    it('an attempt already closed as retryable refuses the outcome as run_ended and records nothing', async () => {
      w.lives.get(attemptId)!.state = 'retryable';
      await refused(
        (await resolve('token-a')).reportOutcome({ outcome: 'action_taken' }),
        'run_ended',
        /closed \(retryable\)/,
      );
      assert.equal(w.lives.get(attemptId)!.outcome, null);
    });

    it('another report landing between the read and the write: first write wins, this one is refused', async () => {
      w.hooks.beforeRecordOutcome = (id) => {
        const l = w.lives.get(id)!;
        if (l.outcome === null) Object.assign(l, { outcome: 'non_actionable', outcomeAt: NOW });
      };
      await refused(
        (await resolve('token-a')).reportOutcome({ outcome: 'action_taken' }),
        'outcome_already_reported',
        /non_actionable/,
      );
      assert.equal(w.lives.get(attemptId)!.state, 'running', 'the loser does not move the attempt');
      assert.deepEqual(w.decisions, []);
    });

    it('the dispatch acknowledgement moving queued → running meanwhile: the move is decided again from running', async () => {
      w.lives.get(attemptId)!.state = 'queued';
      let moves = 0;
      w.hooks.beforeMove = (id) => {
        if (moves++ === 0) w.lives.get(id)!.state = 'running';
      };
      const out = (await (await resolve('token-a')).reportOutcome({ outcome: 'action_taken' })) as OutcomeReport;
      assert.equal(out.state, 'awaiting_progress');
      assert.equal(w.lives.get(attemptId)!.state, 'awaiting_progress');
      assert.equal(w.lives.get(attemptId)!.actionTakenAt, NOW);
      assert.equal(moves, 2);
    });

    it('the run ending without an outcome meanwhile (attempt retryable): refused as run_ended', async () => {
      w.hooks.beforeMove = (id) => {
        w.lives.get(id)!.state = 'retryable';
      };
      await refused((await resolve('token-a')).reportOutcome({ outcome: 'action_taken' }), 'run_ended', /retryable/);
      assert.equal(w.lives.get(attemptId)!.state, 'retryable');
    });

    it('takes the baseline from the snapshot port, given the Task and the attempt', async () => {
      const seen: unknown[] = [];
      const snap: ProgressSnapshot = {
        headSha: 'a'.repeat(40),
        checks: [{ name: 'test', id: 1, startedAt: FAKE_NOW }],
        reviewThreads: { resolved: 1, unresolved: 2 },
        latestReviewId: 5,
        mergeableState: 'blocked',
        inMergeQueue: false,
      };
      const ops = await createResolveRun(
        deps({ snapshot: async (task, attempt) => (seen.push([task.id, attempt.id]), snap) }),
      )('token-a');
      await ops.reportOutcome({ outcome: 'action_taken' });
      assert.deepEqual(seen, [[taskId, attemptId]]);
      assert.deepEqual(JSON.parse(w.lives.get(attemptId)!.baseline!), snap);
    });

    it("a live snapshot already on a newer head (the agent pushed before reporting) keeps the attempt's head, so the push counts as progress", async () => {
      const pushed: ProgressSnapshot = {
        headSha: 'b'.repeat(40),
        checks: [{ name: 'test', id: 9, startedAt: FAKE_NOW }],
        reviewThreads: null,
        latestReviewId: 5,
        mergeableState: 'clean',
        inMergeQueue: false,
      };
      const ops = await createResolveRun(deps({ snapshot: async () => pushed }))('token-a');
      await ops.reportOutcome({ outcome: 'action_taken' });
      assert.deepEqual(JSON.parse(w.lives.get(attemptId)!.baseline!), {
        ...pushed,
        headSha: 'a'.repeat(40),
        checks: [],
      });
    });

    it('a baseline that cannot be read: the report still stands, with the head alone as baseline', async () => {
      const warned: unknown[] = [];
      const logger = { debug() {}, info() {}, warn: (o: object) => void warned.push(o), error() {} };
      const ops = await createResolveRun(
        deps({ logger, snapshot: async () => Promise.reject(new Error('GitHub 502')) }),
      )('token-a');
      assert.equal(
        ((await ops.reportOutcome({ outcome: 'action_taken' })) as OutcomeReport).state,
        'awaiting_progress',
      );
      assert.deepEqual(
        JSON.parse(w.lives.get(attemptId)!.baseline!),
        defaultSnapshot(w.tasks.get(taskId)!, { headSha: 'a'.repeat(40) }),
      );
      assert.equal(warned.length, 1);
    });

    it('writes the decision row through the DecisionWriter when one is given; a failing direct write does not fail the report', async () => {
      const rows: DecisionInput[] = [];
      const writer: DecisionWriter = {
        write: (d) => void rows.push(d),
        evaluated() {},
        drain: async () => {},
        hold: () => () => {},
        carry: (commit) => commit([], []),
      };
      await (
        await createResolveRun(deps({ decisions: writer }))('token-a')
      ).reportOutcome({ outcome: 'non_actionable' });
      assert.deepEqual(
        rows.map((r) => [r.outcome, r.reason, r.attemptId]),
        [[OUTCOME_DECISION, 'outcome_non_actionable', attemptId]],
      );
      assert.deepEqual(w.decisions, []);

      const t2 = w.addTask({ pullRequest: 9 });
      w.addRun(t2.id, { token: 'token-b', attempt: { state: 'running' } });
      w.hooks.decisionsFail = true;
      const out = (await (await resolve('token-b')).reportOutcome({ outcome: 'non_actionable' })) as OutcomeReport;
      assert.equal(out.state, 'acknowledged', 'the outcome stands though its decision row could not be written');
      assert.equal(
        ((await (await resolve('token-b')).loopState()) as LoopState).attempts[0]!.outcome,
        'non_actionable',
      );
    });
  });

  describe('reportSpend (K6)', () => {
    it("adds to the Task's spend, by this run, and returns the Task's totals", async () => {
      const ops = await resolve('token-a');
      assert.deepEqual(await ops.reportSpend({ model: 1.25, note: 'first pass' }), {
        totalSpend: 1.25,
        model: 1.25,
        sandbox: 0,
        ciMinutes: 0,
      });
      await w.agent.setCiMinutes(taskId, 'a'.repeat(40), 12);
      const second = (await ops.reportSpend({ model: 0.5, sandbox: 0.25 })) as SpendReport;
      assert.deepEqual(second, { totalSpend: 2, model: 1.75, sandbox: 0.25, ciMinutes: 12 });
      assert.deepEqual(w.spends, [
        { taskId, runId, model: 1.25, sandbox: 0, note: 'first pass' },
        { taskId, runId, model: 0.5, sandbox: 0.25, note: null },
      ]);
      assert.deepEqual(
        w.decisions.map((d) => [d.outcome, d.reason, d.attemptId, d.detail]),
        [
          [OUTCOME_DECISION, 'spend_reported', attemptId, `run ${runId}: model 1.25, sandbox 0 (first pass)`],
          [OUTCOME_DECISION, 'spend_reported', attemptId, `run ${runId}: model 0.5, sandbox 0.25`],
        ],
      );
    });

    it('refuses amounts that are not non-negative finite numbers, or none at all, writing nothing', async () => {
      const ops = await resolve('token-a');
      for (const bad of [
        {},
        { note: 'only a note' },
        { model: -1 },
        { sandbox: Number.NaN },
        { model: Number.POSITIVE_INFINITY },
        { model: 2e9 },
        { model: '3' as never },
        { model: 1, note: 5 as never },
      ]) {
        await refused(ops.reportSpend(bad), 'invalid');
      }
      assert.deepEqual(w.spends, []);
      assert.deepEqual(w.decisions, []);
      await ops.reportSpend({ sandbox: 0 });
      assert.equal(w.spends.length, 1, 'zero is a valid amount');
    });

    it('bounds the note', async () => {
      await (await resolve('token-a')).reportSpend({ model: 1, note: `gpu\u0000 time ${'y'.repeat(800)}` });
      assert.equal([...w.spends[0]!.note!].length, 500);
      assert.ok(w.spends[0]!.note!.startsWith('gpu time'));
    });
  });

  describe('checks (J1)', () => {
    it("reads the run's own pull request, with the failing filter and log lines", async () => {
      const out = (await (await resolve('token-a')).checks({ failingOnly: true, logLines: 1 })) as PrChecksResult;
      assert.equal(out.repository, 'acme/shop');
      assert.equal(out.number, 7);
      assert.deepEqual(
        out.entries.map((e) => e.name),
        ['test'],
      );
      assert.deepEqual((out.entries[0] as { log?: { lines: string[] } }).log?.lines, ['FAIL two']);
      assert.equal(github.calls[0], 'pull acme/shop#7');
    });

    it('refuses a bad log-line count as invalid', async () => {
      const ops = await resolve('token-a');
      for (const logLines of [-1, 2001, 1.5, Number.NaN])
        await refused(ops.checks({ failingOnly: false, logLines }), 'invalid');
      assert.deepEqual(github.calls, []);
    });

    it('without GitHub, or when GitHub refuses: unavailable, saying why', async () => {
      await refused(
        (await createResolveRun(deps({ host: null }))('token-a')).checks({ failingOnly: false, logLines: 0 }),
        'unavailable',
        /no GitHub credentials/,
      );
      github.refuse = 404;
      await refused(
        (await resolve('token-a')).checks({ failingOnly: false, logLines: 0 }),
        'unavailable',
        /GitHub answered 404 for acme\/shop#7/,
      );
    });
  });

  describe('loopState', () => {
    it("is the Task view with each attempt's lifecycle, the run, the spend and the budget", async () => {
      const ops = await createResolveRun(deps({ maxAttempts: 2 }))('token-a');
      await ops.reportOutcome({ outcome: 'action_taken', reason: 'pushed' });
      await ops.reportSpend({ model: 3 });
      const s = (await ops.loopState()) as LoopState;
      assert.equal(s.id, taskId);
      assert.equal(s.repository, 'acme/shop');
      assert.equal(s.pullRequest, 7);
      assert.equal(s.attempts.length, 1);
      assert.deepEqual(
        {
          id: s.attempts[0]!.id,
          state: s.attempts[0]!.state,
          outcome: s.attempts[0]!.outcome,
          reason: s.attempts[0]!.outcomeReason,
          actionTakenAt: s.attempts[0]!.actionTakenAt,
          status: s.attempts[0]!.status,
        },
        {
          id: attemptId,
          state: 'awaiting_progress',
          outcome: 'action_taken',
          reason: 'pushed',
          actionTakenAt: NOW,
          status: 'dispatched',
        },
      );
      assert.deepEqual(s.run, { id: runId, state: 'running', attemptId });
      assert.deepEqual(s.spend, { totalSpend: 3, model: 3, sandbox: 0, ciMinutes: 0 });
      assert.deepEqual(s.budget, { max: 2, used: 1, left: 1 });
      assert.equal(s.notice, null);
      assert.equal(
        ((await resolve('token-a').then((o) => o.loopState())) as LoopState).budget,
        null,
        'no budget known: null',
      );
    });
  });

  describe('through the MCP server (in memory)', () => {
    async function connect(token: string): Promise<Client> {
      const ops = await resolve(token);
      const server = createMcpServer(ops);
      const [a, b] = InMemoryTransport.createLinkedPair();
      await server.connect(a);
      const client = new Client({ name: 'test', version: '0' });
      await client.connect(b);
      return client;
    }

    it('report_fix_outcome is first-write; the refusal names its code', async () => {
      const client = await connect('token-a');
      const first = (await client.callTool({
        name: 'report_fix_outcome',
        arguments: { outcome: 'action_taken' },
      })) as CallToolResult;
      assert.equal(first.isError, undefined);
      assert.deepEqual(first.structuredContent, { attemptId, state: 'awaiting_progress', outcome: 'action_taken' });
      const second = (await client.callTool({
        name: 'report_fix_outcome',
        arguments: { outcome: 'non_actionable' },
      })) as CallToolResult;
      assert.equal(second.isError, true);
      assert.match((second.content[0] as { text: string }).text, /^outcome_already_reported: /);
      const spend = (await client.callTool({
        name: 'report_spend',
        arguments: { model_cost: 0.5, sandbox_cost: 0.25 },
      })) as CallToolResult;
      assert.equal((spend.structuredContent as unknown as SpendReport).totalSpend, 0.75);
      w.endRun(runId);
      const ended = (await client.callTool({ name: 'loop_state', arguments: {} })) as CallToolResult;
      assert.equal(ended.isError, true);
      assert.match((ended.content[0] as { text: string }).text, /^run_ended: run \d+ of Task \d+ already ended/);
      await client.close();
    });
  });
});
