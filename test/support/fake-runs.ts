// Test double of the AgentOps port (SPEC M3, I2, K6): runs keyed by their run token, each recording
// the calls made with it and enforcing what the real app enforces at this edge — one first-write
// outcome per attempt, and a token that stops working once its run has ended. `fakeRunApi` serves
// the same fake behind the `/api/run/*` routes `api-ops.ts` calls, for the stdio tests.
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import {
  AGENT_OPS_ERROR_STATUS,
  AgentOpsError,
  FIX_OUTCOMES,
  type AgentOps,
  type FixOutcome,
  type ResolveRun,
} from '../../src/app/agent-ops-port.js';

export interface FakeRunDef {
  token: string;
  runId: number;
  taskId: number;
  attemptId: number;
  repository: string;
  number: number;
}

export interface FakeRun extends FakeRunDef {
  ended: boolean;
  outcome: { outcome: FixOutcome; reason?: string } | null;
  spend: { model: number; sandbox: number; notes: string[] };
  /** Every op called with this run's token, in order, with its input. */
  calls: Array<{ op: keyof AgentOps; input?: unknown }>;
}

export interface FakeRuns {
  runs: Map<string, FakeRun>;
  resolve: ResolveRun;
  /** The run ends: its token no longer reports (I4). */
  end(token: string): void;
  /** Make every op of this run fail with `err` (an unexpected failure). */
  breakWith(token: string, err: unknown): void;
}

export function createFakeRuns(defs: FakeRunDef[]): FakeRuns {
  const runs = new Map<string, FakeRun>(
    defs.map((d) => [
      d.token,
      { ...d, ended: false, outcome: null, spend: { model: 0, sandbox: 0, notes: [] }, calls: [] },
    ]),
  );
  const broken = new Map<string, unknown>();
  const get = (token: string): FakeRun => {
    const run = runs.get(token);
    if (!run) throw new Error(`no fake run for ${token}`);
    return run;
  };

  function opsOf(run: FakeRun): AgentOps {
    const enter = (op: keyof AgentOps, input?: unknown): void => {
      run.calls.push(input === undefined ? { op } : { op, input });
      if (broken.has(run.token)) throw broken.get(run.token);
      if (run.ended)
        throw new AgentOpsError('run_ended', `run ${run.runId} already ended; this token no longer reports`);
    };
    const total = (): number => run.spend.model + run.spend.sandbox;
    return {
      async checks(input) {
        enter('checks', input);
        const entries = [
          {
            kind: 'check_run',
            name: `test (run ${run.runId})`,
            status: 'completed',
            conclusion: 'failure',
            failing: true,
            url: null,
            jobId: run.runId * 100,
            ...(input.logLines > 0
              ? {
                  log: {
                    lines: Array.from({ length: Math.min(input.logLines, 3) }, (_, i) => `line ${i + 1}`),
                    truncated: input.logLines < 3,
                  },
                }
              : {}),
          },
          { kind: 'check_run', name: 'lint', status: 'completed', conclusion: 'success', failing: false, url: null },
        ];
        return {
          repository: run.repository,
          number: run.number,
          headSha: `${run.runId}`.padStart(40, 'a'),
          entries: input.failingOnly ? entries.filter((e) => e.failing) : entries,
        };
      },
      async reportOutcome(input) {
        enter('reportOutcome', input);
        if (run.outcome)
          throw new AgentOpsError(
            'outcome_already_reported',
            `attempt ${run.attemptId} already has the outcome ${run.outcome.outcome}; the first report is final`,
          );
        run.outcome =
          input.reason === undefined ? { outcome: input.outcome } : { outcome: input.outcome, reason: input.reason };
        return {
          attemptId: run.attemptId,
          state: input.outcome === 'action_taken' ? 'awaiting_progress' : 'acknowledged',
        };
      },
      async reportSpend(input) {
        enter('reportSpend', input);
        run.spend.model += input.model ?? 0;
        run.spend.sandbox += input.sandbox ?? 0;
        if (input.note !== undefined) run.spend.notes.push(input.note);
        return { totalSpend: total() };
      },
      async loopState() {
        enter('loopState');
        const state =
          run.outcome === null
            ? 'running'
            : run.outcome.outcome === 'action_taken'
              ? 'awaiting_progress'
              : 'acknowledged';
        // The shape of the real LoopState (app/agent-ops.ts), which loop_state's output schema declares.
        return {
          id: run.taskId,
          repository: run.repository,
          pullRequest: run.number,
          branch: 'agent/fix',
          state: 'open',
          ciState: 'red',
          attempts: [
            {
              id: run.attemptId,
              runId: run.runId,
              state,
              outcome: run.outcome?.outcome ?? null,
              outcomeReason: run.outcome?.reason ?? null,
            },
          ],
          run: { id: run.runId, state: 'running', attemptId: run.attemptId },
          spend: { totalSpend: total(), model: run.spend.model, sandbox: run.spend.sandbox, ciMinutes: 0 },
          budget: { max: 3, used: 1, left: 2 },
          notice: null,
        };
      },
    };
  }

  return {
    runs,
    async resolve(token) {
      const run = runs.get(token);
      if (!run) throw new AgentOpsError('unauthorized', 'unknown run token');
      return opsOf(run);
    },
    end(token) {
      get(token).ended = true;
    },
    breakWith(token, err) {
      get(token);
      broken.set(token, err);
    },
  };
}

/** The `/api/run/*` routes over a ResolveRun, answering refusals as `{ error, message }`. */
export function fakeRunApi(resolve: ResolveRun): RequestListener {
  return (req, res) => {
    void route(resolve, req, res).catch((err: unknown) => {
      if (err instanceof AgentOpsError)
        send(res, AGENT_OPS_ERROR_STATUS[err.code], { error: err.code, message: err.message });
      else send(res, 500, { error: 'internal', message: 'unexpected' });
    });
  };
}

async function route(resolve: ResolveRun, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://fake');
  const token = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '')?.[1];
  if (token === undefined) throw new AgentOpsError('unauthorized', 'no run token');
  const ops = await resolve(token);
  const body = req.method === 'POST' ? await readJson(req) : undefined;
  const key = `${req.method} ${url.pathname}`;
  if (key === 'GET /api/run/checks') {
    const logLines = Number(url.searchParams.get('logLines') ?? '200');
    return send(res, 200, await ops.checks({ failingOnly: url.searchParams.get('failing') === 'true', logLines }));
  }
  if (key === 'POST /api/run/outcome') {
    const outcome = body?.outcome;
    if (!FIX_OUTCOMES.includes(outcome as FixOutcome))
      throw new AgentOpsError('invalid', 'outcome must be one of action_taken, non_actionable, blocked');
    const reason = typeof body?.reason === 'string' ? body.reason : undefined;
    return send(
      res,
      200,
      await ops.reportOutcome(
        reason === undefined ? { outcome: outcome as FixOutcome } : { outcome: outcome as FixOutcome, reason },
      ),
    );
  }
  if (key === 'POST /api/run/spend') {
    const num = (v: unknown): number | undefined => (typeof v === 'number' ? v : undefined);
    const note = typeof body?.note === 'string' ? body.note : undefined;
    const model = num(body?.model);
    const sandbox = num(body?.sandbox);
    return send(
      res,
      200,
      await ops.reportSpend({
        ...(model !== undefined ? { model } : {}),
        ...(sandbox !== undefined ? { sandbox } : {}),
        ...(note !== undefined ? { note } : {}),
      }),
    );
  }
  if (key === 'GET /api/run/state') return send(res, 200, await ops.loopState());
  send(res, 404, { error: 'not_found', message: key });
}

async function readJson(req: IncomingMessage): Promise<Record<string, unknown> | undefined> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  if (text === '') return undefined;
  const value: unknown = JSON.parse(text);
  return value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : undefined;
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) }).end(text);
}
